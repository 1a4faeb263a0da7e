"""Defining an attribute that already holds data: allowed when nothing changes, refused else."""

from __future__ import annotations

import pytest

import memlane


def test_defining_a_used_attribute_as_it_behaves_is_allowed_and_recorded() -> None:
    with memlane.Memory(":memory:") as mem:
        mem.facts.set("U-1", "shoe_size", "42")
        mem.facts.define("shoe_size")  # one-valued, not an identifier: what it was
        assert [d.name for d in mem.facts.defined()] == ["shoe_size"]
        assert mem.facts.get("U-1", "shoe_size").value == "42"


def test_changing_a_used_attribute_is_refused() -> None:
    with memlane.Memory(":memory:") as mem:
        mem.facts.set("U-1", "shoe_size", "42")
        with pytest.raises(memlane.InvalidInput, match="already holds data as one-valued"):
            mem.facts.define("shoe_size", cardinality="many")
        assert mem.facts.defined() == []
        assert mem.facts.in_use("shoe_size") and not mem.facts.in_use("hat_size")
