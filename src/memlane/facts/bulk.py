"""Many ``set`` calls planned at once: the rules of :mod:`memlane.facts.temporal`, in memory.

A batch reads the believed versions of every key it writes in one query, plans each write
in order against that picture (kept up to date as the plan goes), and hands storage one list
of versions to close and one of versions to insert. The outcome is exactly that of the same
``set`` calls made one by one in one transaction: the same versions, the same transaction
times (consecutive microseconds), the same values returned.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from memlane.errors import InvalidInput
from memlane.facts.temporal import FOREVER, Insert, Payload, Span, plan_assert, touches
from memlane.storage.base import NewVersion
from memlane.validation import optional_text


@dataclass(slots=True)  # not frozen: a batch makes thousands, and frozen ones cost 3x
class Assertion:
    """One validated ``set``: the value ``key`` on ``[start, end)`` (``None``: the defaults)."""

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


def ranges(assertions: Sequence[Assertion], first_tx: int) -> list[tuple[str, str, int, int]]:
    """Per key, the hull of the intervals its calls touch: what the batch must read."""
    hulls: dict[tuple[str, str], tuple[int, int]] = {}
    for assertion in assertions:
        low = first_tx if assertion.start is None else min(assertion.start, first_tx)
        high = FOREVER if assertion.end is None else assertion.end
        group = (assertion.subject, assertion.attribute)
        known = hulls.get(group)
        hulls[group] = (low, high) if known is None else (min(low, known[0]), max(high, known[1]))
    return [(subject, attribute, low, high) for (subject, attribute), (low, high) in hulls.items()]


def plan_batch(
    assertions: Sequence[Assertion],
    believed: dict[tuple[str, str], list[Span]],
    first_tx: int,
) -> BatchPlan:
    """Plan ``assertions`` in order, call ``n`` at transaction time ``first_tx + n``.

    ``believed`` holds, per ``(subject, attribute)``, the stored believed versions touching
    the calls' intervals (see :func:`ranges`); it is updated in place as the plan goes.
    Versions this batch inserts carry negative ids (``-1`` is ``versions[0]``) until stored.

    >>> plan = plan_batch([Assertion("U", "tier", '"gold"', 0, None, Payload("gold"))], {}, 5)
    >>> [(v.insert.key, v.tx) for v in plan.versions], plan.outcomes
    ([('"gold"', 5)], [0])
    """
    plan = BatchPlan()
    # How many calls of each key are still to plan: the last one need not record its span.
    pending = Counter((assertion.subject, assertion.attribute) for assertion in assertions)
    for n, assertion in enumerate(assertions):
        tx = first_tx + n
        start, end = interval(assertion.start, assertion.end, tx)
        group = (assertion.subject, assertion.attribute)
        pending[group] -= 1
        spans = believed.get(group)
        if not spans:  # nothing believed: plan_assert's first case, without its objects
            item = Insert(assertion.key, start, end, assertion.payload(tx))
            plan.outcomes.append(len(plan.versions))
            plan.versions.append(NewVersion(assertion.subject, assertion.attribute, item, tx))
            if pending[group]:
                provisional = -len(plan.versions)
                believed[group] = [Span(provisional, item.key, start, end, item.payload, tx)]
            continue
        near = [span for span in spans if touches(span, start, end)]
        step = plan_assert(near, assertion.key, start, end, assertion.payload(tx))
        if step.unchanged is not None:
            unchanged = step.unchanged
            plan.outcomes.append(unchanged if unchanged.id > 0 else -unchanged.id - 1)
            continue
        if step.supersede:
            gone = set(step.supersede)
            spans[:] = [span for span in spans if span.id not in gone]
        for span_id in step.supersede:
            if span_id < 0:  # inserted earlier in this batch: stored already superseded
                plan.versions[-span_id - 1].tx_to = tx
            else:
                plan.closes.append((span_id, tx))
        assert step.asserted is not None
        plan.outcomes.append(len(plan.versions) + step.asserted)
        for item in step.insert:
            plan.versions.append(NewVersion(assertion.subject, assertion.attribute, item, tx))
            provisional = -len(plan.versions)
            spans.append(Span(provisional, item.key, item.start, item.end, item.payload, tx))
    return plan


def memoized(memo: dict[Any, Any] | None, check: Callable[..., Any], *arguments: Any) -> Any:
    """``check(*arguments)``, remembered in ``memo`` (if given, and the arguments hashable)."""
    if memo is None:
        return check(*arguments)
    try:
        return memo[check, arguments]
    except KeyError:
        memo[check, arguments] = found = check(*arguments)
        return found
    except TypeError:  # not hashable: check it every time (and refuse it)
        return check(*arguments)


def payload_meta(
    source: str | None, reason: str | None, confidence: float, provenance: Sequence[str]
) -> dict[str, Any]:
    """What a write says besides its value, checked: the keywords of an :class:`Assertion`.

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
        return {"source": None, "reason": None, "confidence": confidence, "provenance": ()}
    optional_text("source", source)
    optional_text("reason", reason)
    if isinstance(confidence, bool) or not isinstance(confidence, int | float):
        raise InvalidInput("confidence", f"must be a number, got {confidence!r}")
    if not (math.isfinite(confidence) and 0.0 <= confidence <= 1.0):
        raise InvalidInput("confidence", f"must be between 0 and 1, got {confidence!r}")
    if isinstance(provenance, str) or not all(isinstance(item, str) for item in provenance):
        raise InvalidInput("provenance", "must be a sequence of strings (turn ids or sources)")
    return {
        "source": source,
        "reason": reason,
        "confidence": float(confidence),
        "provenance": tuple(provenance),
    }
