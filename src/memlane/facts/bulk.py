"""Many ``set`` calls planned at once: the rules of :mod:`memlane.facts.temporal`, in memory.

A batch reads the believed versions of every key it writes in one query, plans each write
in order against that picture (kept up to date as the plan goes), and hands storage one list
of versions to close and one of versions to insert. The outcome is exactly that of the same
``set`` calls made one by one in one transaction: the same versions, the same transaction
times (consecutive microseconds), the same values returned.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, overload

from memlane import validation
from memlane.errors import InvalidInput
from memlane.facts.model import AttributeDef
from memlane.facts.normalize import canonical_json
from memlane.facts.temporal import FOREVER, Insert, Payload, Span, plan_assert, touches
from memlane.storage.base import WriteKey
from memlane.storage.fact_stores import NewVersion
from memlane.validation import optional_text

Times = tuple[int | None, int | None]
"""A call's valid interval as given: microseconds, ``None`` for a default."""


@dataclass(slots=True)  # not frozen: a batch makes thousands, and frozen ones cost 3x
class Assertion:
    """One validated ``set``: the value ``key`` on ``[start, end)`` (``None``: the defaults).

    ``text`` is the value's canonical JSON (what is stored); ``key`` is what it is compared
    by: the same text, or an identifier's normalized key.
    """

    subject: str
    attribute: str
    key: str
    start: int | None
    end: int | None
    value: Any
    source: str | None
    reason: str | None
    confidence: float
    provenance: tuple[str, ...]
    text: str

    def payload(self, stated: int) -> Payload:
        """What the version says, given at transaction time ``stated``."""
        return Payload(
            self.value, self.source, self.reason, self.confidence, self.provenance, stated
        )


@dataclass
class BatchPlan:
    """What a batch writes: stored versions to close, new versions, and each call's result.

    ``outcomes[n]`` is the index in ``versions`` of the version call ``n`` asserted, or the
    stored span that already said the same (a no-op).
    """

    closes: list[tuple[int, int]] = field(default_factory=list)
    versions: list[NewVersion] = field(default_factory=list)
    outcomes: list[int | Span] = field(default_factory=list)


def interval(start: int | None, end: int | None, tx: int) -> tuple[int, int]:
    """Fill the defaults: from the write's transaction time, until further notice."""
    start = tx if start is None else start
    end = FOREVER if end is None else end
    if end <= start:
        raise InvalidInput("valid_to", "must be later than valid_from (which defaults to now)")
    return start, end


Hull = tuple[int | None, int]
"""The earliest start given (``None``: none was) and the latest end of a key's calls."""


class Groups(dict[tuple[str, str], int]):
    """Per ``(subject, attribute)`` of a batch: the index of its last call.

    The planner keeps what a call of a key wrote only while more calls of it follow. A key
    called more than once also has the hull of its calls' intervals in :attr:`hulls`; one
    called once (the usual bulk load) has only its call, and no object of its own beside
    its name: every object a batch keeps until it ends is one more for the garbage
    collector's full collections to walk, and one more towards starting one.
    """

    def __init__(self, calls: Sequence[Assertion]) -> None:
        super().__init__()
        self.calls = calls
        self.hulls: dict[tuple[str, str], Hull] = {}

    @classmethod
    def of(cls, assertions: Sequence[Assertion]) -> Groups:
        """The groups of ``assertions``, in one pass."""
        groups = cls(assertions)
        last_of, hulls = groups.get, groups.hulls
        for n, assertion in enumerate(assertions):
            group = (assertion.subject, assertion.attribute)
            last = last_of(group)
            groups[group] = n
            if last is None:
                continue
            low, high = hulls.get(group) or _hull(assertions[last])
            start, end = _hull(assertion)
            if start is not None and (low is None or start < low):
                low = start
            hulls[group] = (low, end if end > high else high)
        return groups

    def ranges(self, first_tx: int) -> list[tuple[str, str, int, int]]:
        """Per key, the hull of the intervals its calls touch: what the batch must read.

        What the batch reads starts no later than its first transaction time (a call
        without ``valid_from`` starts there).
        """
        calls, hulls, ranges = self.calls, self.hulls, []
        for group, last in self.items():
            low, high = hulls.get(group) or _hull(calls[last])
            low = first_tx if low is None or low > first_tx else low
            ranges.append((group[0], group[1], low, high))
        return ranges

    def write_keys(self, tenant: str) -> WriteKeys:
        """The keys a batch writes, as a write transaction names them."""
        return WriteKeys(tenant, self)


def _hull(call: Assertion) -> Hull:
    return call.start, FOREVER if call.end is None else call.end


class WriteKeys(Sequence[WriteKey]):
    """A batch's ``(tenant, subject, attribute)`` keys, each made when it is asked for.

    A database that locks the whole of itself for a write (SQLite, or PostgreSQL for a
    write naming many keys) only asks how many there are.
    """

    __slots__ = ("_groups", "_tenant")

    def __init__(self, tenant: str, groups: Groups) -> None:
        self._tenant = tenant
        self._groups = groups

    def __len__(self) -> int:
        return len(self._groups)

    def __iter__(self) -> Iterator[WriteKey]:
        tenant = self._tenant
        return ((tenant, subject, attribute) for subject, attribute in self._groups)

    @overload
    def __getitem__(self, index: int) -> WriteKey: ...

    @overload
    def __getitem__(self, index: slice) -> list[WriteKey]: ...

    def __getitem__(self, index: int | slice) -> WriteKey | list[WriteKey]:
        return list(self)[index]


def plan_batch(
    assertions: Sequence[Assertion],
    believed: dict[tuple[str, str], list[Span]],
    first_tx: int,
    groups: Groups,
) -> BatchPlan:
    """Plan ``assertions`` in order, call ``n`` at transaction time ``first_tx + n``.

    ``believed`` holds, per ``(subject, attribute)``, the stored believed versions touching
    the calls' intervals (see :meth:`Groups.ranges`); it is updated in place as the plan
    goes. ``groups`` are the assertions' (:meth:`Groups.of`). Versions this batch inserts
    carry negative ids (``-1`` is ``versions[0]``) until stored.

    >>> gold = Assertion("U", "tier", '"gold"', 0, None, "gold", None, None, 1.0, (), '"gold"')
    >>> plan = plan_batch([gold], {}, 5, Groups.of([gold]))
    >>> [(v.key, v.tx) for v in plan.versions], plan.outcomes
    ([('"gold"', 5)], [0])
    """
    plan = BatchPlan()
    versions, outcomes = plan.versions, plan.outcomes
    for n, assertion in enumerate(assertions):
        tx = first_tx + n
        start, end = interval(assertion.start, assertion.end, tx)
        group = (assertion.subject, assertion.attribute)
        spans = believed.get(group)
        if not spans:  # nothing believed: plan_assert's first case, without its objects
            outcomes.append(len(versions))
            versions.append(asserted_version(assertion, start, end, tx))
            if n < groups[group]:  # more calls of the key follow: they plan against this one
                item = Insert(assertion.key, start, end, assertion.payload(tx))
                believed[group] = [Span(-len(versions), item.key, start, end, item.payload, tx)]
            continue
        near = [span for span in spans if touches(span, start, end)]
        step = plan_assert(near, assertion.key, start, end, assertion.payload(tx))
        if step.unchanged is not None:
            unchanged = step.unchanged
            outcomes.append(unchanged if unchanged.id > 0 else -unchanged.id - 1)
            continue
        if step.supersede:
            gone = set(step.supersede)
            spans[:] = [span for span in spans if span.id not in gone]
        for span_id in step.supersede:
            if span_id < 0:  # inserted earlier in this batch: stored already superseded
                versions[-span_id - 1].tx_to = tx
            else:
                plan.closes.append((span_id, tx))
        assert step.asserted is not None
        outcomes.append(len(versions) + step.asserted)
        for item in step.insert:
            versions.append(planned_version(assertion.subject, assertion.attribute, item, tx))
            spans.append(Span(-len(versions), item.key, item.start, item.end, item.payload, tx))
    return plan


def asserted_version(assertion: Assertion, start: int, end: int, tx: int) -> NewVersion:
    """The version a call asserts on ``[start, end)`` when it touches nothing believed."""
    a = assertion
    return NewVersion(
        a.subject, a.attribute, a.key, start, end, a.value, a.text,
        a.source, a.reason, a.confidence, a.provenance, tx, tx,
    )  # fmt: skip


def planned_version(subject: str, attribute: str, item: Insert, tx: int) -> NewVersion:
    """A version :func:`~memlane.facts.temporal.plan_assert` planned, written at ``tx``."""
    p = item.payload
    return NewVersion(
        subject, attribute, item.key, item.start, item.end, p.value, canonical_json(p.value),
        p.source, p.reason, p.confidence, p.provenance, p.stated or tx, tx,
    )  # fmt: skip


class Checked:
    """What a batch has checked already: names, pairs of times and values repeat across calls.

    A valid name is valid in any field, so names are remembered by their text; so are the
    canonical JSON texts of string values (a status, a city: a batch repeats a few); the
    definitions are those read in the batch's transaction.
    """

    __slots__ = ("definitions", "names", "texts", "times")

    def __init__(self) -> None:
        self.names: set[str] = set()
        self.times: dict[tuple[Any, Any], tuple[int | None, int | None]] = {}
        self.texts: dict[str, str] = {}
        self.definitions: dict[str, AttributeDef] = {}

    def text(self, value: Any) -> str:
        """The canonical JSON of a valid fact value (:func:`memlane.validation.fact_value`).

        Only exact ``str`` values are remembered: other equal values may differ in JSON
        (``1``, ``1.0`` and ``True`` are equal keys of a dict).
        """
        if type(value) is not str:
            return canonical_json(validation.fact_value("value", value))
        text = self.texts.get(value)
        if text is None:
            self.texts[value] = text = canonical_json(validation.fact_value("value", value))
        return text

    def name(self, field: str, value: object) -> str:
        """``value`` if it is a valid name (:func:`memlane.validation.name`)."""
        if type(value) is str and value in self.names:
            return value
        checked = validation.name(field, value)
        self.names.add(checked)
        return checked

    def times_of(self, check: Callable[[Any, Any], Times], valid_from: Any, valid_to: Any) -> Times:
        """``check(valid_from, valid_to)``, remembered when the two are hashable."""
        try:
            return self.times[valid_from, valid_to]
        except KeyError:
            self.times[valid_from, valid_to] = found = check(valid_from, valid_to)
            return found
        except TypeError:  # not hashable: check it every time (and refuse it)
            return check(valid_from, valid_to)


def payload_meta(
    source: str | None, reason: str | None, confidence: float, provenance: Sequence[str]
) -> tuple[str | None, str | None, float, tuple[str, ...]]:
    """What a write says besides its value, checked: ``source, reason, confidence, provenance``.

    Raises:
        InvalidInput: a bad source or reason, a confidence outside [0, 1], or a provenance
            that is not a sequence of strings.
    """
    if (
        source is None
        and reason is None
        and type(confidence) is float
        and 0.0 <= confidence <= 1.0
        and provenance == ()
    ):  # the usual case, checked in one go
        return None, None, confidence, ()
    optional_text("source", source)
    optional_text("reason", reason)
    if isinstance(confidence, bool) or not isinstance(confidence, int | float):
        raise InvalidInput("confidence", f"must be a number, got {confidence!r}")
    if not (math.isfinite(confidence) and 0.0 <= confidence <= 1.0):
        raise InvalidInput("confidence", f"must be between 0 and 1, got {confidence!r}")
    if isinstance(provenance, str) or not all(isinstance(item, str) for item in provenance):
        raise InvalidInput("provenance", "must be a sequence of strings (turn ids or sources)")
    return source, reason, float(confidence), tuple(provenance)


@dataclass(frozen=True, slots=True)
class CallShape:
    """The calls a bulk method takes: mappings of one function's keyword arguments."""

    name: str
    allowed: tuple[str, ...]
    required: tuple[str, ...]

    @classmethod
    def of(cls, function: Callable[..., Any], skip: int, name: str) -> CallShape:
        """The arguments of ``function`` after its first ``skip``, told as ``name``'s."""
        parameters = list(inspect.signature(function).parameters.values())[skip:]
        required = [p.name for p in parameters if p.default is inspect.Parameter.empty]
        return cls(name, tuple(p.name for p in parameters), tuple(required))

    def __str__(self) -> str:
        return f"each a mapping of {self.name}'s arguments ({', '.join(self.allowed)})"

    def unfit(self, argument: str, calls: Sequence[Any], error: TypeError) -> Exception:
        """The first of ``calls`` not of this shape, as :class:`InvalidInput` of ``argument``.

        ``error`` itself (what the bulk method met) if every call has this shape.
        """
        for number, call in enumerate(calls):
            if not isinstance(call, Mapping):
                kind = type(call).__name__
                return InvalidInput(argument, f"call {number} is a {kind}: {self}")
            unknown = [repr(key) for key in call if key not in self.allowed]
            missing = [key for key in self.required if key not in call]
            if unknown or missing:
                told = f"unknown {', '.join(unknown)}" if unknown else f"no {', '.join(missing)}"
                return InvalidInput(argument, f"call {number}: {told}; {self}")
        return error
