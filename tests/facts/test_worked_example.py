"""BITEMPORAL.md's worked example, verbatim: Shanghai, the move to Beijing, the Hangzhou fix."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

import pytest

import memlane


def day(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


@pytest.fixture
def story(mem: memlane.Memory, clock):
    clock.set("2026-03-02")
    tx1 = mem.facts.set("U-001", "location", "Shanghai", valid_from="2026-03-01").tx_from
    clock.set("2026-07-04")
    tx2 = mem.facts.set(
        "U-001",
        "location",
        "Beijing",
        valid_from="2026-07-01",
        reason="user said they moved last week",
    ).tx_from
    return mem, tx1, tx2


def rows(facts):
    return [
        (f.value, f.valid_from, f.valid_to, f.tx_from, f.tx_to)
        for f in sorted(facts, key=lambda f: (f.tx_from, f.id))
    ]


def test_after_tx2_three_versions_are_stored(story):
    mem, tx1, tx2 = story
    assert tx1 == day("2026-03-02") and tx2 == day("2026-07-04")
    assert rows(mem.facts.audit("U-001")) == [
        ("Shanghai", day("2026-03-01"), None, tx1, tx2),
        ("Shanghai", day("2026-03-01"), day("2026-07-01"), tx2, None),
        ("Beijing", day("2026-07-01"), None, tx2, None),
    ]


def test_reads_on_both_axes(story):
    mem, tx1, _ = story
    assert mem.facts.get("U-001", "location").value == "Beijing"
    assert mem.facts.get("U-001", "location", valid_at="2026-05-01").value == "Shanghai"
    before_we_knew = mem.facts.get(
        "U-001", "location", valid_at="2026-07-02", known_at=tx1 + timedelta(seconds=1)
    )
    assert before_we_knew.value == "Shanghai"
    assert mem.facts.get("U-001", "location", valid_at="2026-02-01") is None
    assert mem.facts.get("U-001", "location", known_at=tx1 - timedelta(seconds=1)) is None


def test_retroactive_correction_splits_the_interval(story, clock):
    mem, _, tx2 = story
    clock.set("2026-08-15")
    mem.facts.set(
        "U-001",
        "location",
        "Hangzhou",
        valid_from="2026-05-01",
        valid_to="2026-06-01",
        reason="business posting, corrected by HR",
    )
    timeline = [(f.value, f.valid_from, f.valid_to) for f in mem.facts.history("U-001", "location")]
    assert timeline == [
        ("Shanghai", day("2026-03-01"), day("2026-05-01")),
        ("Hangzhou", day("2026-05-01"), day("2026-06-01")),
        ("Shanghai", day("2026-06-01"), day("2026-07-01")),
        ("Beijing", day("2026-07-01"), None),
    ]
    as_of_tx2 = [
        (f.value, f.valid_from, f.valid_to)
        for f in mem.facts.history("U-001", "location", known_at=tx2)
    ]
    assert as_of_tx2 == [
        ("Shanghai", day("2026-03-01"), day("2026-07-01")),
        ("Beijing", day("2026-07-01"), None),
    ]
    hangzhou = mem.facts.get("U-001", "location", valid_at="2026-05-15")
    assert hangzhou.reason == "business posting, corrected by HR"
    assert mem.facts.get("U-001", "location", valid_at="2026-05-15", known_at=tx2).value == (
        "Shanghai"
    )


def test_repeating_a_write_that_holds_is_a_noop(story, clock):
    mem, _, tx2 = story
    clock.set("2026-07-10")
    again = mem.facts.set("U-001", "location", "Beijing", valid_from="2026-07-05")
    assert again.tx_from == tx2
    assert len(mem.facts.audit("U-001")) == 3


def test_adjacent_same_values_coalesce_keeping_provenance(mem, clock):
    mem.facts.set(
        "U-1",
        "tier",
        "gold",
        valid_from="2026-01-01",
        valid_to="2026-02-01",
        provenance=["s-1#1"],
        reason="first",
    )
    clock.advance(days=1)
    merged = mem.facts.set(
        "U-1", "tier", "gold", valid_from="2026-02-01", valid_to="2026-03-01", provenance=["s-2#4"]
    )
    assert (merged.valid_from, merged.valid_to) == (day("2026-01-01"), day("2026-03-01"))
    assert merged.provenance == ("s-1#1", "s-2#4")
    assert merged.reason == "first"
    assert len(mem.facts.history("U-1", "tier")) == 1


def test_transaction_times_strictly_increase_under_a_frozen_clock(mem):
    facts = [mem.facts.set("U-1", "n", i) for i in range(5)]
    stamps = [f.tx_from for f in facts]
    assert all(a < b for a, b in itertools.pairwise(stamps))
    # A writer reads its own writes even though the clock did not move.
    assert mem.facts.get("U-1", "n").value == 4


def test_a_clock_that_goes_backwards_cannot_reorder_transactions(mem, clock):
    first = mem.facts.set("U-1", "n", 1)
    clock.set("2020-01-01")
    second = mem.facts.set("U-1", "n", 2)
    assert second.tx_from > first.tx_from
    assert [f.value for f in mem.facts.audit("U-1")] == [1, 1, 2]
