"""Resolve absolute and relative time expressions (Chinese and English) against an instant.

Conventions (all calendar arithmetic happens on the local date of ``at`` in ``timezone``):

- Weeks start on Monday. "上周" / "last week" is the previous calendar week, Monday to the
  next Monday; "上周一" / "last Monday" is the Monday *of the previous calendar week*,
  "下周三" / "next Wednesday" the Wednesday of the next calendar week, "这周五" / "this Friday"
  the Friday of the current week (past or future). "coming Friday" is the first Friday after
  today. "上上周" / "下下周" go two weeks.
- A day is an ISO date (``"2026-07-03"``). A period (week, weekend, month, year) is a
  half-open range of dates ``{"from": "2026-06-22", "to": "2026-06-29"}``. A time of day is an
  ISO datetime with the zone's offset (``"2026-07-03T15:00+08:00"``): it is joined to a day
  written next to it ("昨天下午3点", "yesterday at 3pm", "2026-07-01 15:30"), otherwise it is
  taken on the day of ``at``.
- "3天前" / "3 days ago" count calendar days back from today (weeks are 7 days, months and
  years keep the day of month, clamped to the month's end); "N小时前" / "N hours ago" count from
  ``at`` itself and give a datetime.
- A date without a year ("7月1日", "on July 1"), a bare weekday ("周五", "on Friday"), a bare
  day of month ("5号") or month ("in July") takes the most recent such date that is not after
  today, unless the sentence is clearly about the future (it contains a cue such as 将, 打算,
  准备, 计划, 要, 会, 下次, "will", "'ll", "going to", "plan to", "next", "upcoming"); then it takes
  the first such date on or after today.
- Chinese numerals (一 … 十, 两, 二十三) and small English number words (two, a, an) work
  wherever a count or day is expected.

Expressions inside one another resolve once, the most specific reading winning
("上周一" is one day, not "上周" plus "周一").
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, tzinfo
from typing import Any

from memlane.errors import InvalidInput
from memlane.extract._calendar import Context, TimeHit, local_midnight
from memlane.extract._text import fold, lower_ascii
from memlane.extract._time_rules import RULES
from memlane.extract.model import Mention
from memlane.lang.times import EVENING_DAY_ENDS
from memlane.lang.times import JOIN_GAP as _JOIN_GAP

__all__ = ["TimeHit", "check_reference", "resolve_times", "scan_times", "time_interval"]


def check_reference(at: datetime, timezone: tzinfo) -> datetime:
    """Validate ``at`` and ``timezone`` and return ``at`` as local time in ``timezone``.

    Raises:
        InvalidInput: ``at`` is not an aware datetime or ``timezone`` is not a ``tzinfo``.
    """
    if not isinstance(at, datetime) or at.utcoffset() is None:
        raise InvalidInput("at", f"must be an aware datetime, got {at!r}")
    if not isinstance(timezone, tzinfo):
        raise InvalidInput("timezone", f"must be a tzinfo, got {timezone!r}")
    return at.astimezone(timezone)


def resolve_times(text: str, at: datetime, timezone: tzinfo) -> list[Mention]:
    """Find and resolve the time expressions in ``text``, said at ``at``, in ``timezone``.

    >>> from datetime import datetime, timedelta, timezone as tz
    >>> cst = tz(timedelta(hours=8))
    >>> at = datetime(2026, 7, 4, 10, tzinfo=cst)
    >>> [m.value for m in resolve_times("我上周搬到北京了", at, cst)]
    [{'from': '2026-06-22', 'to': '2026-06-29'}]

    Raises:
        InvalidInput: ``at`` is naive or ``timezone`` is not a ``tzinfo``.
    """
    if not isinstance(text, str):
        raise InvalidInput("text", f"must be a string, got {type(text).__name__}")
    hits = scan_times(fold(text), check_reference(at, timezone), timezone)
    return [
        Mention("time", text[hit.start : hit.end], hit.value, (hit.start, hit.end)) for hit in hits
    ]


def scan_times(
    folded: str, now: datetime, zone: tzinfo, lowered: str | None = None
) -> list[TimeHit]:
    """Resolve the expressions of folded text; ``now`` is local time in ``zone``.

    ``lowered`` is ``lower_ascii(folded)`` if the caller has it already.
    """
    context = Context(folded, now, zone, now.date())
    lowered = lower_ascii(folded) if lowered is None else lowered
    taken: list[TimeHit] = []
    for rule in RULES:
        if not rule.applies(lowered):
            continue
        for match in rule.pattern.finditer(lowered):
            if _overlaps(match.start(), match.end(), taken):
                continue
            try:
                hit = rule.handler(match, context)
            except (ValueError, OverflowError):  # a date outside the calendar: not a time
                continue
            if hit is not None and not _overlaps(hit.start, hit.end, taken):
                taken.append(hit)
    taken.sort(key=lambda hit: hit.start)
    return _join_clocks(taken, context)


def time_interval(value: Any, timezone: tzinfo) -> tuple[datetime, datetime]:
    """The half-open interval of aware UTC instants a time mention's ``value`` covers.

    A day covers local midnight to the next midnight, a range its ``from`` to ``to`` days,
    and a datetime the minute it names.

    Raises:
        InvalidInput: ``value`` is not a value :func:`resolve_times` produces.
    """
    try:
        if isinstance(value, dict):
            first = date.fromisoformat(value["from"])
            last = date.fromisoformat(value["to"])
            return local_midnight(first, timezone), local_midnight(last, timezone)
        if isinstance(value, str) and len(value) == 10:
            day = date.fromisoformat(value)
            return local_midnight(day, timezone), local_midnight(day + timedelta(days=1), timezone)
        moment = datetime.fromisoformat(value).astimezone(UTC)
    except (KeyError, TypeError, ValueError, OverflowError) as error:
        raise InvalidInput("value", f"not a resolved time: {value!r}") from error
    return moment, moment + timedelta(minutes=1)


def _overlaps(start: int, end: int, hits: list[TimeHit]) -> bool:
    return any(start < hit.end and hit.start < end for hit in hits)


def _join_clocks(hits: list[TimeHit], context: Context) -> list[TimeHit]:
    """Join each time of day to a day written right next to it; drop weak lone clocks."""
    result: list[TimeHit] = []
    index = 0
    while index < len(hits):
        joined = _join(hits[index], hits[index + 1], context) if index + 1 < len(hits) else None
        if joined is not None:
            result.append(joined)
            index += 2
            continue
        if not hits[index].weak:
            result.append(hits[index])
        index += 1
    return result


def _join(first: TimeHit, second: TimeHit, context: Context) -> TimeHit | None:
    """One hit for a day and a time of day side by side ("昨天下午3点", "3pm yesterday")."""
    if (first.clock is None) == (second.clock is None):
        return None
    day_hit, clock_hit = (second, first) if first.clock is not None else (first, second)
    day = day_hit.day
    if day is None or clock_hit.clock is None:
        return None
    if not _JOIN_GAP.fullmatch(context.text, first.end, second.start):
        return None
    hour, minute = clock_hit.clock
    if context.text[day_hit.end - 1] in EVENING_DAY_ENDS and 6 <= hour < 12:  # 昨晚8点 is 20:00
        hour += 12
    return TimeHit(
        first.start,
        second.end,
        context.at_clock(day, hour, minute),
        explicit_year=day_hit.explicit_year,
        clock=(hour, minute),
    )
