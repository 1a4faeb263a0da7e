"""Model-based test of the exact lane: memlane and tests/facts/reference.py side by side.

A Hypothesis state machine makes random writes (``set``, ``add``, ``retract``, batches, bad
input) on a small day grid, so overlaps, touches, containment and gaps are common, while a
fake clock stands still, creeps, jumps and goes backwards. After every step it checks
BITEMPORAL.md's invariants directly on ``audit()`` and compares every read with the model.

The run is derandomized (the same examples on every run, no example database), so CI is
reproducible; set ``MEMLANE_FUZZ=<n>`` to run ``n`` fresh random examples instead.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule, run_state_machine_as_test
from tests.conftest import FakeClock
from tests.facts.reference import (
    PHONE_REGION,
    Reference,
    Row,
    Version,
    canonical,
    email_key,
    phone_key,
)

import memlane
from memlane.errors import InvalidInput
from memlane.facts import temporal
from memlane.facts.model import Fact
from memlane.storage.sql import facts as sql_facts
from memlane.storage.sql.facts import SQLFactStore
from memlane.timeutil import to_micros

BASE = datetime(2026, 3, 1, tzinfo=UTC)
DAY = 86_400_000_000
HOUR = DAY // 24
GRID_DAYS = 7  # valid bounds are BASE + 0..7 days: dense enough to overlap all the time
SUBJECTS = ("U-1", "U-2")
LOCATIONS = ("Shanghai", "Beijing", {"city": "Hangzhou", "zone": "Xihu"},
             {"zone": "Xihu", "city": "Hangzhou"})  # fmt: skip
EMAILS = ("a@x.com", " A@X.com ", "b@x.com")
# Normalization collisions on purpose: the first three are one number.
PHONES = ("138-0000-1234", "13800001234", "138 0000 1234", "+86 138 0000 1234", "139-0000-1234")
Span = tuple[int | None, int | None]
KEYS = tuple((s, a) for s in SUBJECTS for a in ("location", "email", "phone"))
CLOCK_STEPS = (0, 0, 1, 1_000_000, 6 * HOUR, DAY, -1, -6 * HOUR, -DAY)

subjects = st.sampled_from(SUBJECTS)
metas = st.fixed_dictionaries(
    {
        "source": st.sampled_from((None, "chat", "crm")),
        # None makes coalescing fall back to the newest stated reason; one corner of that
        # is known wrong (test_coalesced_reason_ignores_when_a_remainder_was_cut).
        "reason": st.sampled_from((None, "r1", "r2", "r3")),
        "provenance": st.sampled_from(((), ("t1",), ("t2",), ("t1", "t3"))),
    }
)
one_values = st.one_of(
    st.tuples(st.just("location"), st.sampled_from(LOCATIONS)),
    st.tuples(st.just("email"), st.sampled_from(EMAILS)),
)


def _interval(pair: Span, default_start_ends: bool) -> Span:
    start, end = pair
    if start is None:
        return (None, end if default_start_ends else None)
    if end is not None and end <= start:
        return (end - 1, start + 1)
    return pair


def intervals(default_start_ends: bool = True) -> st.SearchStrategy[Span]:
    """Day indices ``(start, end)``; ``None`` start means "now", ``None`` end "forever"."""
    days = st.none() | st.integers(0, GRID_DAYS - 1), st.none() | st.integers(1, GRID_DAYS)
    return st.tuples(*days).map(lambda pair: _interval(pair, default_start_ends))


def ops(default_start_ends: bool = True) -> st.SearchStrategy[tuple[Any, ...]]:
    """One write, as a tuple the machine can perform (also inside a batch)."""
    span = intervals(default_start_ends)
    return st.one_of(
        st.tuples(st.just("set"), subjects, one_values, span, metas),
        st.tuples(st.just("add"), subjects, st.sampled_from(PHONES), span, metas),
        st.tuples(st.just("retract"), subjects, st.just("phone"),
                  st.none() | st.sampled_from(PHONES), span),
        st.tuples(st.just("retract"), subjects, one_values, st.booleans(), span).map(
            lambda op: ("retract", op[1], op[2][0], op[2][1] if op[3] else None, op[4])
        ),
    )  # fmt: skip


def grid(day: int) -> int:
    return to_micros(BASE) + day * DAY


def micros(day: int | None) -> int | None:
    return None if day is None else grid(day)


def as_input(day: int | None) -> datetime | str | None:
    """Odd days go in as date strings, even ones as aware datetimes: both input paths run."""
    if day is None:
        return None
    instant = BASE + timedelta(days=day)
    return instant.date().isoformat() if day % 2 else instant


def opt(instant: datetime | None) -> int | None:
    return None if instant is None else to_micros(instant)


def row(fact: Fact) -> Row:
    """The implementation's fact in the model's terms (see ``Version.row``)."""
    assert fact.deleted_at is None and fact.confidence == 1.0
    return (fact.subject, fact.attribute, canonical(fact.value), to_micros(fact.valid_from),
            opt(fact.valid_to), to_micros(fact.tx_from), opt(fact.tx_to), fact.source,
            fact.reason, frozenset(fact.provenance))  # fmt: skip


def rows(items: list[Fact] | list[Version]) -> Counter[Row]:
    return Counter(row(x) if isinstance(x, Fact) else x.row() for x in items)


def as_of(items: list[Fact]) -> Counter[Row]:
    """Rows without ``tx_to``: a version believed at T gets its ``tx_to`` (> T) only later."""
    return Counter(r[:6] + r[7:] for r in rows(items))


def touching_same_value(timeline: list[Fact]) -> list[tuple[Fact, Fact]]:
    """Pairs of one value that overlap or meet (history must never show any)."""
    found = []
    for i, a in enumerate(timeline):
        for b in timeline[i + 1 :]:
            a_end, b_end = opt(a.valid_to), opt(b.valid_to)
            meets = (a_end is None or to_micros(b.valid_from) <= a_end) and (
                b_end is None or to_micros(a.valid_from) <= b_end
            )
            if canonical(a.value) == canonical(b.value) and meets:
                found.append((a, b))
    return found


def overlapping(believed: list[Fact]) -> list[tuple[Fact, Fact]]:
    """Pairs that share a valid instant (invariants 1 and 2 say: none)."""
    found = []
    for i, a in enumerate(believed):
        for b in believed[i + 1 :]:
            if (a.valid_to is None or b.valid_from < a.valid_to) and (
                b.valid_to is None or a.valid_from < b.valid_to
            ):
                found.append((a, b))
    return found


class Boom(Exception):
    """Raised inside a batch to make it roll back."""


class ExactLaneMachine(RuleBasedStateMachine):
    """memlane's exact lane against the reference model, step by step."""

    def __init__(self) -> None:
        super().__init__()
        self.clock = FakeClock(BASE + timedelta(days=1))
        self.mem = memlane.Memory(self.empty_memory(), clock=self.clock, region=PHONE_REGION)
        self.mem.facts.define("phone", cardinality="many", identifier=True)
        self.mem.facts.define("email", identifier=True)
        self.ref = Reference()
        self.ref.define("phone", many=True, normalize=phone_key)
        self.ref.define("email", many=False, normalize=email_key)
        # The transaction clock as far as we can know it: the last committed tx lies in
        # [last_lo, last_hi] (no-ops do not show theirs) and no tx above issued_hi was issued.
        self.last_lo = self.last_hi = self.issued_hi = 0
        self.txs: list[tuple[int, tuple[str, str]]] = []  # committed writes, in order
        self.returned: dict[int, Fact] = {}  # every version a write handed back
        self.pasts: dict[tuple[str, str], dict[int, tuple[Any, ...]]] = {k: {} for k in KEYS}
        self.recorded = 0  # how many of self.txs have their pasts recorded
        self.touched: set[tuple[str, str]] = set(KEYS)

    @staticmethod
    def empty_memory() -> str:
        """Where each run's memory lives; the PostgreSQL machine empties a database."""
        return ":memory:"

    def teardown(self) -> None:
        try:
            for key in KEYS:
                self._check_pasts(key, points=True)
        finally:
            self.mem.close()

    # -- rules --------------------------------------------------------------------------

    @rule(op=ops())
    def write(self, op: tuple[Any, ...]) -> None:
        self._perform(op)

    @rule(batch=st.lists(ops(default_start_ends=False), min_size=1, max_size=4),
          fail=st.booleans())  # fmt: skip
    def batch(self, batch: list[tuple[Any, ...]], fail: bool) -> None:
        saved = (self.ref.snapshot(), self.last_lo, self.last_hi, list(self.txs),
                 dict(self.returned))  # fmt: skip
        before = {s: rows(self.mem.facts.audit(s)) for s in SUBJECTS}
        try:
            with self.mem.facts.batch():
                for op in batch:
                    self._perform(op)  # checked one by one: reads see the open batch
                if fail:
                    raise Boom
            event("batch committed")
        except Boom:
            event("batch rolled back")
            self.ref, self.last_lo, self.last_hi, self.txs, self.returned = saved
            # issued_hi stays: tx times handed out inside the batch are not reused.
            assert {s: rows(self.mem.facts.audit(s)) for s in SUBJECTS} == before

    @rule(step=st.sampled_from(CLOCK_STEPS))
    def tick(self, step: int) -> None:
        self.clock.advance(microseconds=step)

    @rule(kind=st.integers(0, 7), subject=subjects, span=intervals())
    def bad_input(self, kind: int, subject: str, span: Span) -> None:
        start = span[0] if span[0] is not None else 3
        empty = (as_input(start), as_input(start - (kind % 2)))  # valid_to <= valid_from
        attempts = (
            lambda: self.mem.facts.set(subject, "location", "X", *empty),
            lambda: self.mem.facts.retract(subject, "phone", *empty),
            lambda: self.mem.facts.set(subject, "phone", "13800001234"),  # set on many
            lambda: self.mem.facts.add(subject, "location", "Paris"),  # add on one
            lambda: self.mem.facts.set(subject, "location", {1, 2}),  # not JSON
            lambda: self.mem.facts.add(subject, "phone", "no digits"),
            lambda: self.mem.facts.set("", "location", "X"),
            # valid_from defaults to the write's tx, which is never before the clock
            lambda: self.mem.facts.set(subject, "location", "X", valid_to=self.clock()),
        )
        before = {s: rows(self.mem.facts.audit(s)) for s in SUBJECTS}
        _, hi = self._window()
        with pytest.raises(InvalidInput):
            attempts[kind]()
        assert {s: rows(self.mem.facts.audit(s)) for s in SUBJECTS} == before
        if kind == 7:
            self.issued_hi = max(self.issued_hi, hi)  # it took a tx time before it failed

    # -- performing one write -----------------------------------------------------------

    def _perform(self, op: tuple[Any, ...]) -> None:
        if op[0] == "set":
            _, subject, (attribute, value), span, meta = op
            self._assert("set", subject, attribute, value, span, meta)
        elif op[0] == "add":
            _, subject, value, span, meta = op
            self._assert("add", subject, "phone", value, span, meta)
        else:
            _, subject, attribute, value, span = op
            self._retract(subject, attribute, value, span)

    def _assert(
        self,
        op: str,
        subject: str,
        attribute: str,
        value: Any,
        span: Span,
        meta: dict[str, Any],
    ) -> None:
        start, end = micros(span[0]), micros(span[1])
        lo, hi = self._window()
        known = {f.id for f in self.mem.facts.audit(subject, attribute)}
        call = self.mem.facts.set if op == "set" else self.mem.facts.add
        try:
            fact = call(subject, attribute, value, as_input(span[0]), as_input(span[1]), **meta)
        except InvalidInput:
            self._failed(start, end, hi)
            return
        new = [f for f in self.mem.facts.audit(subject, attribute) if f.id not in known]
        if not new:
            self._noop(lo, hi)
            begin = self._latest_start(start, end, hi)
            held = self.ref.covering(subject, attribute, value, begin, end)
            event("set/add: no-op")
            assert held is not None, f"{op} was a no-op but nothing held: {fact}"
            assert row(fact) == held.row()
            return
        tx = self._observe(new, lo, hi, (subject, attribute))
        begin = tx if start is None else start
        assert end is None or begin < end
        assert self.ref.covering(subject, attribute, value, begin, end) is None
        expected, wrote = self.ref.assert_value(
            subject, attribute, value, begin, end, tx,
            source=meta["source"], reason=meta["reason"],
            provenance=frozenset(meta["provenance"]),
        )  # fmt: skip
        assert wrote
        assert row(fact) == expected.row(), f"{op} returned {fact}, model says {expected}"
        grown = expected.valid_from < begin or (end is not None and expected.valid_to != end)
        event(f"set/add: {len(new)} version(s) inserted" + (", coalesced" if grown else ""))
        self.returned[fact.id] = fact

    def _retract(self, subject: str, attribute: str, value: Any, span: Span) -> None:
        start, end = micros(span[0]), micros(span[1])
        lo, hi = self._window()
        known = {f.id for f in self.mem.facts.audit(subject, attribute)}
        try:
            ended = self.mem.facts.retract(
                subject, attribute, as_input(span[0]), as_input(span[1]), value=value
            )
        except InvalidInput:
            self._failed(start, end, hi)
            return
        new = [f for f in self.mem.facts.audit(subject, attribute) if f.id not in known]
        if not ended:
            event("retract: nothing to end")
            assert not new, f"retract that ended nothing inserted {new}"
            self._noop(lo, hi)
            begin = self._latest_start(start, end, hi)
            assert self.ref.overlapping(subject, attribute, begin, end, value) == []
            return
        stamps = {opt(f.tx_to) for f in ended}
        assert len(stamps) == 1 and None not in stamps, f"retract returned {ended}"
        tx = stamps.pop()
        assert tx is not None
        assert self._observe(new, lo, hi, (subject, attribute), tx=tx) == tx
        begin = tx if start is None else start
        expected = self.ref.retract(subject, attribute, begin, end, tx, value)
        assert rows(ended) == rows(expected)
        event(f"retract: ended {len(ended)}, {len(new)} remainder(s)")
        self.returned.update((f.id, f) for f in ended)

    # -- the transaction clock ----------------------------------------------------------

    def _window(self) -> tuple[int, int]:
        """The range the next write's tx must fall in: after the last one, not before now.

        The contract: strictly increasing, the clock's time if it moved forward, else the
        last tx plus 1 µs. ``hi`` allows for tx times we could not see (no-ops, failures).
        """
        now = to_micros(self.clock())
        return max(now, self.last_lo + 1), max(now, self.last_hi + 1, self.issued_hi)

    def _observe(
        self, new: list[Fact], lo: int, hi: int, key: tuple[str, str], tx: int | None = None
    ) -> int:
        stamps = {to_micros(f.tx_from) for f in new}
        assert len(stamps) <= 1, f"one write, several tx times: {new}"
        tx = stamps.pop() if stamps else tx
        assert tx is not None
        assert lo <= tx <= hi, f"tx {tx} outside [{lo}, {hi}] (clock {self.clock()})"
        self.last_lo = self.last_hi = tx
        self.issued_hi = max(self.issued_hi, tx)
        self.txs.append((tx, key))
        self.touched.add(key)
        return tx

    def _noop(self, lo: int, hi: int) -> None:
        self.last_lo, self.last_hi = lo, hi
        self.issued_hi = max(self.issued_hi, hi)

    def _failed(self, start: int | None, end: int | None, hi: int) -> None:
        # The only bad input the rules generate: valid_from defaults to a tx >= valid_to.
        event("refused: valid_to not after the default valid_from")
        assert start is None and end is not None and end <= hi, "valid write was refused"
        self.issued_hi = max(self.issued_hi, hi)

    @staticmethod
    def _latest_start(start: int | None, end: int | None, hi: int) -> int:
        """A start no earlier than the real one (which we did not see), inside the interval."""
        if start is not None:
            return start
        return hi if end is None else min(hi, end - 1)

    # -- checks after every step --------------------------------------------------------

    @invariant()
    def check(self) -> None:
        self._audit_matches_model()
        self._current_reads_match_model()
        self._past_never_changes()

    def _audit_matches_model(self) -> None:
        every = []
        for subject in SUBJECTS:
            audit = self.mem.facts.audit(subject)
            stamps = [to_micros(f.tx_from) for f in audit]
            assert stamps == sorted(stamps), "audit is not ordered by tx_from"
            assert rows(audit) == rows(self.ref.audit(subject))
            for attribute in ("location", "email", "phone"):
                believed = [f for f in audit if f.attribute == attribute and f.believed]
                if attribute == "phone":
                    by_value: dict[str, list[Fact]] = {}
                    for f in believed:
                        by_value.setdefault(phone_key(f.value), []).append(f)
                    assert not any(overlapping(group) for group in by_value.values())
                else:
                    assert not overlapping(believed), "invariant 1 broken"
            every.extend(audit)
        self._check_stamps(every)
        by_id = {f.id: f for f in every}
        for fact_id, fact in self.returned.items():
            stored = by_id.get(fact_id)
            assert stored is not None, f"a returned version is not in audit: {fact}"
            assert fact.tx_to is None or fact.tx_to == stored.tx_to
            assert row(fact)[:6] + row(fact)[7:] == row(stored)[:6] + row(stored)[7:]

    def _check_stamps(self, every: list[Fact]) -> None:
        """Each tx belongs to one write, and writes' tx times strictly increase."""
        writes = dict(self.txs)
        assert [tx for tx, _ in self.txs] == sorted(writes), "tx times not strictly increasing"
        for f in every:
            assert writes.get(to_micros(f.tx_from)) == (f.subject, f.attribute)
            assert f.tx_to is None or writes.get(to_micros(f.tx_to)) == (f.subject, f.attribute)

    def _current_reads_match_model(self) -> None:
        for subject, attribute in KEYS:
            timeline = self.mem.facts.history(subject, attribute)
            assert rows(timeline) == rows(self.ref.history(subject, attribute, None))
            starts = [f.valid_from for f in timeline]
            assert starts == sorted(starts), "history not ordered by valid_from"
            assert not touching_same_value(timeline), "history shows touching equal values"
        for subject, attribute in sorted(self.touched):
            for point in self._points(subject, attribute):
                self._compare_point(subject, attribute, point, None)
        for attribute, value in (("phone", PHONES[2]), ("phone", PHONES[4]), ("email", EMAILS[1])):
            for day in (1, 4):
                self._compare_lookup(attribute, value, grid(day) + 12 * HOUR, None)
        assert self.mem.facts.lookup("location", "Shanghai", valid_at=BASE) == []  # undeclared

    def _past_never_changes(self) -> None:
        for tx, key in self.txs[self.recorded :]:
            for known_at in (tx - 1, tx):
                self._record_past(key, known_at)
        self.recorded = len(self.txs)
        for key in sorted(self.touched):
            self._check_pasts(key, points=False)
        self.touched = set()

    def _record_past(self, key: tuple[str, str], known_at: int) -> None:
        subject, attribute = key
        timeline = self.mem.facts.history(subject, attribute, known_at=from_us(known_at))
        assert rows(timeline) == rows(self.ref.history(subject, attribute, known_at))
        assert not touching_same_value(timeline)
        answers = [self._compare_point(subject, attribute, p, known_at)
                   for p in self._points(subject, attribute, known_at)]  # fmt: skip
        self.pasts[key][known_at] = (as_of(timeline), answers)
        if attribute != "location":
            value = PHONES[0] if attribute == "phone" else EMAILS[0]
            self._compare_lookup(attribute, value, grid(3) + 12 * HOUR, known_at)

    def _compare_lookup(self, attribute: str, value: Any, point: int, known_at: int | None) -> None:
        known = None if known_at is None else from_us(known_at)
        found = self.mem.facts.lookup(attribute, value, from_us(point), known)
        assert found == self.ref.lookup(attribute, value, point, known_at), "lookup differs"

    def _check_pasts(self, key: tuple[str, str], points: bool) -> None:
        subject, attribute = key
        for known_at, (timeline, answers) in self.pasts[key].items():
            now = self.mem.facts.history(subject, attribute, known_at=from_us(known_at))
            assert as_of(now) == timeline, f"the past changed: {key} known_at={known_at}"
            if points:
                again = [(p, as_of(self._read(subject, attribute, p, known_at)))
                         for p, _ in answers]  # fmt: skip
                assert again == answers, f"a past point read changed: {key} at {known_at}"

    # -- point reads --------------------------------------------------------------------

    def _points(self, subject: str, attribute: str, known_at: int | None = None) -> list[int]:
        """Every boundary of the timeline and the instant before it, and a few middays."""
        points = {grid(d) + 12 * HOUR for d in range(0, GRID_DAYS, 3)}
        for v in self.ref.history(subject, attribute, known_at):
            points.update((v.valid_from, v.valid_from - 1))
            if v.valid_to is not None:
                points.update((v.valid_to, v.valid_to - 1))
        return sorted(points)

    def _read(self, subject: str, attribute: str, point: int, known_at: int | None) -> list[Fact]:
        known = None if known_at is None else from_us(known_at)
        if attribute == "phone":
            found = self.mem.facts.get_all(subject, attribute, from_us(point), known)
            keys = [(canonical(f.value), f.valid_from) for f in found]
            assert keys == sorted(keys), "get_all not ordered by value"
            return found
        fact = self.mem.facts.get(subject, attribute, from_us(point), known)
        return [] if fact is None else [fact]

    def _compare_point(
        self, subject: str, attribute: str, point: int, known_at: int | None
    ) -> tuple[int, Counter[Row]]:
        found = self._read(subject, attribute, point, known_at)
        expected = self.ref.get_all(subject, attribute, point, known_at)
        assert rows(found) == rows(expected), (
            f"read {subject}.{attribute} valid_at={point} known_at={known_at}"
        )
        return point, as_of(found)


def from_us(value: int) -> datetime:
    return datetime(1970, 1, 1, tzinfo=UTC) + timedelta(microseconds=value)


def test_coalesced_reason_is_the_newest_stated_one(mem: memlane.Memory, clock: FakeClock) -> None:
    mem.facts.set("U-1", "tier", "gold", valid_from="2026-01-10", reason="stated first")
    clock.advance(days=1)
    mem.facts.set("U-1", "tier", "gold", "2026-01-01", "2026-01-05", reason="stated last")
    clock.advance(days=1)
    merged = mem.facts.set("U-1", "tier", "gold", valid_from="2026-01-01")  # no reason given
    assert (merged.valid_from.day, merged.valid_to) == (1, None)
    assert merged.reason == "stated last"


def test_coalesced_reason_ignores_when_a_remainder_was_cut(
    mem: memlane.Memory, clock: FakeClock
) -> None:
    mem.facts.set("U-1", "tier", "gold", "2026-01-01", "2026-01-10", reason="stated first")
    clock.advance(days=1)
    mem.facts.set("U-1", "tier", "gold", "2026-01-20", "2026-01-30", reason="stated last")
    clock.advance(days=1)
    # Cuts [01-01, 01-10) in two: the part [01-06, 01-10) is re-inserted with a new tx_from.
    mem.facts.set("U-1", "tier", "silver", "2026-01-04", "2026-01-06", reason="other")
    clock.advance(days=1)
    merged = mem.facts.set("U-1", "tier", "gold", "2026-01-10", "2026-01-20")  # no reason
    assert (merged.valid_from.day, merged.valid_to.day if merged.valid_to else None) == (6, 30)
    assert merged.reason == "stated last"


def test_coalescing_without_a_reason_keeps_the_one_stated(mem: memlane.Memory) -> None:
    mem.facts.set(
        "U-1", "tier", "gold", valid_from="2026-01-10", reason="stated", provenance=["t1"]
    )
    merged = mem.facts.set("U-1", "tier", "gold", "2026-01-01", "2026-01-10", provenance=["t2"])
    assert (merged.valid_from.day, merged.valid_to, merged.reason) == (1, None, "stated")
    assert set(merged.provenance) == {"t1", "t2"}


_next_tx = SQLFactStore.next_tx


def _clock_ignored(self: SQLFactStore, now: int) -> int:
    return _next_tx(self, 0)  # planted: last tx + 1 µs even when the clock moved forward


def _only_before(span: temporal.Span, start: int, end: int) -> Iterator[temporal.Insert]:
    if span.start < start:  # planted: the part after the interval is lost
        yield temporal.Insert(span.key, span.start, start, span.payload)


PLANTED_BUGS: dict[str, tuple[Any, str, Any]] = {
    "remainders are not re-inserted": (temporal, "_outside", lambda span, start, end: ()),
    "the part after the interval is lost": (temporal, "_outside", _only_before),
    "provenance is not merged": (temporal, "_coalesce", lambda merged, new: new),
    "meeting versions are not coalesced": (temporal, "touches", temporal.overlaps),
    "tx times ignore the clock": (SQLFactStore, "next_tx", _clock_ignored),
    "known_at reads see versions closed at T": (
        sql_facts,
        "_KNOWN_AT",
        "tx_from <= %(known)s AND (tx_to IS NULL OR tx_to >= %(known)s) AND deleted_at IS NULL",
    ),
}


@pytest.mark.parametrize("bug", sorted(PLANTED_BUGS))
def test_the_machine_finds_a_planted_bug(bug: str, monkeypatch: pytest.MonkeyPatch) -> None:
    owner, name, replacement = PLANTED_BUGS[bug]
    monkeypatch.setattr(owner, name, replacement)
    quick = settings(
        max_examples=200,
        stateful_step_count=30,
        deadline=None,
        derandomize=True,
        database=None,
        phases=[Phase.generate],  # finding it is the point; no time spent shrinking
        report_multiple_bugs=False,
        suppress_health_check=list(HealthCheck),
    )
    with pytest.raises(AssertionError):
        run_state_machine_as_test(ExactLaneMachine, settings=quick)


FUZZ = int(os.environ.get("MEMLANE_FUZZ", "0"))
ExactLaneMachine.TestCase.settings = settings(
    max_examples=FUZZ or 200,
    stateful_step_count=30,
    deadline=None,
    derandomize=not FUZZ,
    database=None,
    print_blob=True,
)
TestExactLane = ExactLaneMachine.TestCase
