"""``set_many`` computes in bulk what the same ``set`` calls compute one by one.

Random batches (overlapping intervals, repeated keys, no-ops, coalescing, identifiers) go
through ``set_many`` on one memory and through ``set`` inside ``batch()`` on another, with
the same clock; every stored version and every returned fact must be the same.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import timedelta
from itertools import pairwise
from typing import Any

import pytest
from tests.conftest import FakeClock

import memlane
from memlane.facts.bulk import Assertion, Groups
from memlane.facts.model import Fact
from memlane.facts.temporal import FOREVER

SUBJECTS = ("U-1", "U-2", "U-3")
VALUES = ("Shanghai", "Beijing", "Hangzhou")


def _writes(rng: random.Random, count: int) -> list[dict[str, Any]]:
    writes = []
    for _ in range(count):
        start = rng.choice([None, *(f"2026-02-{day:02d}" for day in range(1, 10))])
        end = None
        if start is not None and rng.random() < 0.4:
            end = f"2026-02-{int(start[-2:]) + rng.randrange(1, 5):02d}"
        write: dict[str, Any] = {
            "subject": rng.choice(SUBJECTS),
            "attribute": rng.choice(("location", "badge")),
            "value": rng.choice(VALUES),
            "valid_from": start,
            "valid_to": end,
        }
        if rng.random() < 0.3:
            write["reason"] = rng.choice(("r1", "r2"))
        if rng.random() < 0.3:
            write["provenance"] = [f"t{rng.randrange(3)}"]
        writes.append(write)
    return writes


def _state(mem: memlane.Memory) -> list[tuple[Any, ...]]:
    return [_row(fact) for subject in SUBJECTS for fact in mem.facts.audit(subject)]


def _row(fact: Fact) -> tuple[Any, ...]:
    return (fact.subject, fact.attribute, fact.value, fact.valid_from, fact.valid_to,
            fact.tx_from, fact.tx_to, fact.reason, fact.provenance, fact.source)  # fmt: skip


def _twins(
    new_scratch_url: Callable[[], str], clock: FakeClock
) -> tuple[memlane.Memory, memlane.Memory]:
    bulk, single = memlane.Memory(new_scratch_url(), clock=clock), None
    try:
        single = memlane.Memory(new_scratch_url(), clock=clock)
    finally:
        if single is None:
            bulk.close()
    for mem in (bulk, single):
        mem.facts.define("badge", identifier=True, normalizer="casefold")
    return bulk, single


@pytest.mark.parametrize("seed", range(6))
def test_set_many_equals_one_set_after_another(
    seed: int, new_scratch_url: Callable[[], str], clock: FakeClock
) -> None:
    rng = random.Random(seed)
    bulk, single = _twins(new_scratch_url, clock)
    with bulk, single:
        for _ in range(4):
            writes = _writes(rng, rng.randrange(1, 25))
            got = bulk.facts.set_many(writes)
            with single.facts.batch():
                expected = [single.facts.set(**write) for write in writes]
            assert [_row(fact) for fact in got] == [_row(fact) for fact in expected]
            assert _state(bulk) == _state(single)
            clock.advance(hours=1)


def test_set_many_is_all_or_nothing(mem: memlane.Memory) -> None:
    mem.facts.set("U-1", "location", "Shanghai", valid_from="2026-01-01")
    before = mem.facts.audit("U-1")
    with pytest.raises(memlane.InvalidInput):
        mem.facts.set_many(
            [
                {"subject": "U-1", "attribute": "location", "value": "Beijing"},
                {"subject": "U-1", "attribute": "location", "value": "X", "valid_to": "2026-01-01"},
            ]
        )
    assert mem.facts.audit("U-1") == before
    mem.facts.define("phone", cardinality="many", identifier=True)
    with pytest.raises(memlane.InvalidInput, match="add"):
        mem.facts.set_many([{"subject": "U-1", "attribute": "phone", "value": "138"}])
    with pytest.raises(memlane.InvalidInput, match="call 0: unknown 'memo'"):
        mem.facts.set_many([{"subject": "U-1", "attribute": "x", "value": 1, "memo": {}}])
    with pytest.raises(
        memlane.InvalidInput, match=r"call 1: no attribute, value; each a mapping of set\(\)'s"
    ):
        mem.facts.set_many([{"subject": "U-1", "attribute": "x", "value": 1}, {"subject": "U-1"}])
    with pytest.raises(memlane.InvalidInput, match="call 0 is a list"):
        mem.facts.set_many([["U-1", "x", 1]])
    assert mem.facts.set_many([]) == []


def test_a_key_reads_from_the_earliest_start_of_its_calls() -> None:
    """A call without ``valid_from`` (the batch's time) then one with an earlier start."""

    def call(start: int | None, end: int | None) -> Assertion:
        return Assertion("U-1", "city", '"x"', start, end, "x", None, None, 1.0, (), '"x"')

    groups = Groups.of([call(None, None), call(40, 60), call(70, 80)])
    assert groups.ranges(100) == [("U-1", "city", 40, FOREVER)]
    assert Groups.of([call(150, 160)]).ranges(100) == [("U-1", "city", 100, 160)]
    assert Groups.of([call(70, 80), call(40, 60)]).ranges(100) == [("U-1", "city", 40, 80)]


def test_a_batch_names_its_keys_once_each() -> None:
    """The keys a write transaction locks: one per ``(subject, attribute)``, in order."""
    calls = [
        Assertion(subject, attribute, '"x"', None, None, "x", None, None, 1.0, (), '"x"')
        for subject, attribute in [("U-1", "city"), ("U-2", "city"), ("U-1", "city")]
    ]
    groups = Groups.of(calls)
    assert groups == {("U-1", "city"): 2, ("U-2", "city"): 1}  # each key's last call
    keys = groups.write_keys("t")
    assert len(keys) == 2
    assert list(keys) == [("t", "U-1", "city"), ("t", "U-2", "city")]
    assert (keys[1], keys[-1:]) == (("t", "U-2", "city"), [("t", "U-2", "city")])


@pytest.mark.parametrize("seed", range(3))
def test_set_many_without_returning_stores_the_same_and_counts_what_changed(
    seed: int, new_scratch_url: Callable[[], str], clock: FakeClock
) -> None:
    rng = random.Random(seed)
    counted, returned = _twins(new_scratch_url, clock)
    with counted, returned:
        for _ in range(4):
            writes = _writes(rng, rng.randrange(1, 25))
            before = {fact.id for subject in SUBJECTS for fact in returned.facts.audit(subject)}
            got = returned.facts.set_many(writes)
            changed = sum(fact.id not in before for fact in got)
            assert counted.facts.set_many(writes, returning=False) == changed
            assert _state(counted) == _state(returned)
            clock.advance(hours=1)
        assert counted.facts.set_many([], returning=False) == 0


@pytest.mark.parametrize("returning", [True, False])
def test_a_mixed_batch_stores_what_set_after_set_stores(
    returning: bool, new_scratch_url: Callable[[], str], clock: FakeClock
) -> None:
    """New keys, stored keys closed, a key twice, and columns set in some calls only.

    SQLite binds a column as ``NULL`` for the whole batch when no call sets it: a source,
    a reason or a version closed again within the batch in one call only must still be
    stored with that call.
    """
    bulk, single = _twins(new_scratch_url, clock)
    with bulk, single:
        for mem in (bulk, single):
            mem.facts.set("U-1", "location", "Shanghai", valid_from="2026-01-01", source="crm")
            mem.facts.set("U-2", "location", "Beijing", valid_from="2026-01-01")
        clock.advance(hours=1)
        writes: list[dict[str, Any]] = [
            {"subject": "U-3", "attribute": "location", "value": "Hangzhou"},  # a new key
            {"subject": "U-1", "attribute": "location", "value": "Beijing",  # closes one
             "valid_from": "2026-02-01", "reason": "moved"},
            {"subject": "U-3", "attribute": "tier", "value": "gold", "source": "import"},
            {"subject": "U-3", "attribute": "tier", "value": "silver"},  # the same key again
            {"subject": "U-2", "attribute": "location", "value": "Beijing"},  # holds already
            {"subject": "U-2", "attribute": "badge", "value": "AB-1", "provenance": ["t1"]},
            {"subject": "U-2", "attribute": "count", "value": 1},
            {"subject": "U-2", "attribute": "flag", "value": True},
        ]  # fmt: skip
        got = bulk.facts.set_many(writes, returning=returning)
        with single.facts.batch():
            expected = [single.facts.set(**write) for write in writes]
        if returning:
            assert isinstance(got, list)
            assert [_row(fact) for fact in got] == [_row(fact) for fact in expected]
        else:
            assert got == len(writes) - 1  # the no-op wrote nothing
        stored = [_row(fact) for subject in SUBJECTS for fact in bulk.facts.audit(subject)]
        assert stored == _state(single)
        tiers = bulk.facts.audit("U-3", "tier")  # gold, gold's remainder before silver, silver
        assert [(f.value, f.source, f.tx_to is None) for f in tiers] == [
            ("gold", "import", False), ("gold", "import", True), ("silver", None, True)
        ]  # fmt: skip
        flag, count = bulk.facts.get("U-2", "flag"), bulk.facts.get("U-2", "count")
        assert flag is not None and flag.value is True
        assert count is not None and type(count.value) is int


@pytest.mark.parametrize(
    ("bad", "field"),
    [
        ({"value": "lone \ud800"}, "value"),
        ({"value": None}, "value"),
        ({"confidence": 2.0}, "confidence"),
        ({"subject": " U-9"}, "subject"),
        ({"valid_from": "2026-03-01", "valid_to": "2026-02-01"}, "valid_to"),
    ],
)
def test_a_bad_call_in_the_middle_rejects_the_whole_batch(
    bad: dict[str, Any], field: str, mem: memlane.Memory
) -> None:
    mem.facts.set("U-1", "location", "Shanghai", valid_from="2026-01-01")
    before = mem.facts.audit("U-1")
    good = [{"subject": f"N-{n}", "attribute": "location", "value": "Beijing"} for n in range(4)]
    closing = {"subject": "U-1", "attribute": "location", "value": "Beijing"}
    writes = [*good[:2], closing, {**good[2], **bad}, good[3]]
    with pytest.raises(memlane.InvalidInput) as raised:
        mem.facts.set_many(writes)
    assert raised.value.field == field
    assert mem.facts.audit("U-1") == before
    assert all(mem.facts.audit(f"N-{n}") == [] for n in range(4))


def test_a_batch_takes_consecutive_transaction_times_and_the_next_write_a_later_one(
    mem: memlane.Memory,
) -> None:
    """The clock (frozen here) issues a batch's times at once; nobody gets one of them again."""
    written = mem.facts.set_many(
        [{"subject": "U-1", "attribute": "n", "value": n} for n in range(4)]
    )
    after = mem.facts.set("U-2", "n", 0)
    ticks = [fact.tx_from for fact in [*written, after]]
    assert [later - earlier for earlier, later in pairwise(ticks)] == [
        timedelta(microseconds=1)
    ] * 4
