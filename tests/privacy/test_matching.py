"""The forget rule lives in ``memlane.privacy.matching``; storage and the facade both apply it."""

from __future__ import annotations

import pytest

import memlane
from memlane.privacy.matching import FORGET_RULE, mentions, needles
from memlane.storage import open_backend


def test_needles_are_the_value_its_compact_form_and_its_phone_keys() -> None:
    found = needles(["+86 138 0000 1234", "x", 42, True, {"b": 1, "a": "é"}])
    assert "+86 138 0000 1234" in found and "+8613800001234" in found
    assert {"8613800001234", "13800001234"} <= set(found)
    assert "42" in found and "true" in found and '{"a":"é","b":1}' in found
    assert "x" not in found  # one character would match almost anything


def test_mentions_ignore_case_and_find_digits_however_grouped() -> None:
    assert mentions("Mail ZED@example.org please", ["zed@example.org"])
    assert mentions("call 138 0000 1234", needles(["+86 138-0000-1234"]))
    assert not mentions("call 139 0000 1234", needles(["+86 138-0000-1234"]))
    assert not mentions("order 1-2-3-4-5", ["12345"])  # too short to match as digits


def test_a_store_needs_the_rule_to_forget_an_attribute(tmp_path) -> None:
    backend = open_backend(tmp_path / "m.db")
    try:
        with pytest.raises(memlane.InvalidInput, match="rule"):
            backend.privacy.forget(
                "t", "U-1", "phone", now=1, purge_due=2, reason=None, requested_by=None
            )
        deletion = backend.privacy.forget(
            "t",
            "U-1",
            "phone",
            now=1,
            purge_due=2,
            reason=None,
            requested_by=None,
            rule=FORGET_RULE,
        )
        assert deletion.scope == "attribute:phone"
    finally:
        backend.close()


def test_stored_texts_and_open_windows_are_matched_by_the_same_rule(memory_url, clock) -> None:
    """A number stored in one form and said in another is hidden from every text alike."""
    with memlane.Memory(memory_url, clock=clock, embedder="hash", region="CN") as mem:
        mem.facts.define("phone", cardinality="many", identifier=True)
        mem.facts.add("U-1", "phone", "+86 138 0000 1234")
        mem.remember("U-1", "reach me at 13800001234 after six")
        session = mem.session("U-1", session_id="s-1", window=3)
        session.add("user", "or at 138-0000-1234 on weekends")
        mem.forget("U-1", "phone", reason="user request")
        assert mem.summaries.notes("U-1") == []
        assert session.window() == []
