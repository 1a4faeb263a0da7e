from __future__ import annotations

import memlane.llm


def test_all_is_sorted_and_complete() -> None:
    names = memlane.llm.__all__
    assert names == sorted(names, key=lambda name: (not name.isupper(), name))
    for name in names:
        assert hasattr(memlane.llm, name), name
    public = {name for name in vars(memlane.llm) if not name.startswith("_")}
    modules = {"client", "jsonout", "prompts", "replies", "schema", "stats", "annotations"}
    assert public - modules == set(names)
