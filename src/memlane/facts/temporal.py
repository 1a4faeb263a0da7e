"""The bi-temporal write rules as pure functions: believed intervals in, a write plan out.

Nothing here touches storage. Instants are integers (microseconds since the epoch) and an
open end is :data:`FOREVER`, so the rules are plain integer interval arithmetic; storage
executes the plan (closes the listed versions, inserts the new ones) in one transaction.
See BITEMPORAL.md, "Writes".
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

FOREVER = 2**63 - 1
"""The encoding of an open end (``valid_to=None``); larger than every real instant."""


@dataclass(frozen=True, slots=True)
class Payload:
    """What a version says, apart from its intervals: carried over when a version is split.

    ``stated`` is the transaction time at which this reason was given, which a re-inserted
    remainder keeps (its own transaction time is newer); 0 means "the version's own".
    """

    value: Any
    source: str | None = None
    reason: str | None = None
    confidence: float = 1.0
    provenance: tuple[str, ...] = ()
    stated: int = 0


@dataclass(frozen=True, slots=True)
class Span:
    """A currently believed version, as the rules see it: ``[start, end)`` holding ``key``.

    ``tx`` is when it was written; coalescing keeps the reason of the newest one.
    """

    id: int
    key: str
    start: int
    end: int
    payload: Payload
    tx: int = 0


@dataclass(frozen=True, slots=True)
class Insert:
    """A version to insert with the write's transaction time."""

    key: str
    start: int
    end: int
    payload: Payload


@dataclass(frozen=True, slots=True)
class WritePlan:
    """The outcome of a write: versions to supersede and versions to insert.

    ``unchanged`` is set (and the plan empty) when the write is a no-op because a believed
    version already says the same over the whole interval. ``asserted`` is the index in
    ``insert`` of the version the caller asked for, if any.
    """

    supersede: tuple[int, ...] = ()
    insert: tuple[Insert, ...] = ()
    unchanged: Span | None = None
    asserted: int | None = None

    @property
    def is_noop(self) -> bool:
        """True when nothing is to be written."""
        return not self.supersede and not self.insert


def overlaps(span: Span, start: int, end: int) -> bool:
    """True if ``span`` shares at least one instant with ``[start, end)``."""
    return span.start < end and start < span.end


def touches(span: Span, start: int, end: int) -> bool:
    """True if ``span`` overlaps ``[start, end)`` or meets it end to start."""
    return span.start <= end and start <= span.end


def plan_assert(
    believed: Sequence[Span], key: str, start: int, end: int, new: Payload
) -> WritePlan:
    """Plan "the value is ``key`` on ``[start, end)``".

    ``believed`` are the current versions of the same group (one ``(subject, attribute)``,
    or one value of a many-valued attribute) that touch the interval; others are ignored.
    Overlapped versions of another value are superseded and their parts outside the
    interval re-inserted; versions of the same value that overlap or meet the interval are
    superseded and coalesced into the new version, which keeps their provenance and the
    newest reason.

    >>> old = Span(1, '"Shanghai"', 0, FOREVER, Payload("Shanghai"))
    >>> plan = plan_assert([old], '"Beijing"', 10, FOREVER, Payload("Beijing"))
    >>> [(i.payload.value, i.start, i.end == FOREVER) for i in plan.insert]
    [('Shanghai', 0, False), ('Beijing', 10, True)]
    """
    _check_interval(start, end)
    if not believed:  # nothing to supersede, coalesce or keep (a batch's usual case)
        return WritePlan((), (Insert(key, start, end, new),), asserted=0)
    for span in believed:
        if span.key == key and span.start <= start and end <= span.end:
            return WritePlan(unchanged=span)

    supersede: list[int] = []
    remainders: list[Insert] = []
    merged: list[Span] = []
    new_start, new_end = start, end
    for span in sorted(believed, key=lambda s: (s.start, s.id)):
        if span.key == key and touches(span, start, end):
            supersede.append(span.id)
            merged.append(span)
            new_start, new_end = min(new_start, span.start), max(new_end, span.end)
        elif span.key != key and overlaps(span, start, end):
            supersede.append(span.id)
            remainders.extend(_outside(span, start, end))
    payload = _coalesce(merged, new)
    inserts = (*remainders, Insert(key, new_start, new_end, payload))
    return WritePlan(tuple(supersede), inserts, asserted=len(inserts) - 1)


def plan_retract(believed: Sequence[Span], start: int, end: int) -> WritePlan:
    """Plan "no value holds on ``[start, end)``": supersede overlaps, keep their outside parts."""
    _check_interval(start, end)
    supersede: list[int] = []
    remainders: list[Insert] = []
    for span in sorted(believed, key=lambda s: (s.start, s.id)):
        if overlaps(span, start, end):
            supersede.append(span.id)
            remainders.extend(_outside(span, start, end))
    return WritePlan(tuple(supersede), tuple(remainders))


def _outside(span: Span, start: int, end: int) -> Iterable[Insert]:
    """The parts of ``span`` before ``start`` and after ``end``."""
    if span.start < start:
        yield Insert(span.key, span.start, start, span.payload)
    if end < span.end:
        yield Insert(span.key, end, span.end, span.payload)


def _coalesce(merged: Sequence[Span], new: Payload) -> Payload:
    if not merged:
        return new
    provenance: dict[str, None] = {}
    for span in merged:
        provenance.update(dict.fromkeys(span.payload.provenance))
    provenance.update(dict.fromkeys(new.provenance))
    if new.reason is None:
        with_reason = [span for span in merged if span.payload.reason is not None]
        if with_reason:
            newest = max(with_reason, key=lambda span: (span.payload.stated or span.tx, span.id))
            return replace(
                new,
                provenance=tuple(provenance),
                reason=newest.payload.reason,
                stated=newest.payload.stated or newest.tx,
            )
    return replace(new, provenance=tuple(provenance))


def _check_interval(start: int, end: int) -> None:
    if not start < end:
        raise ValueError(f"empty interval [{start}, {end})")
