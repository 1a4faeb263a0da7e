"""The patterns the time resolver tries, in priority order, each with its handler."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta

from memlane.extract._calendar import (
    Context,
    TimeHit,
    add_months,
    month_range,
    nearest_date,
    nearest_day_of_month,
    nearest_month,
    nearest_weekday,
    offset,
    week_start,
)
from memlane.extract._text import parse_number
from memlane.lang import times
from memlane.lang.times import EN_DAY_SHIFT as _EN_DAY_SHIFT
from memlane.lang.times import EN_REL_SHIFT as _EN_REL_SHIFT
from memlane.lang.times import EN_UNITS as _EN_UNITS
from memlane.lang.times import MONTH_NUMBERS as _MONTH_NUMBERS
from memlane.lang.times import MONTHS_ALSO_WORDS, PATTERNS
from memlane.lang.times import NOT_RELATIVE_BEFORE as _NOT_RELATIVE_BEFORE
from memlane.lang.times import WEEKDAY_NUMBERS as _WEEKDAY_NUMBERS
from memlane.lang.times import ZH_DAY_SHIFT as _ZH_DAY_SHIFT
from memlane.lang.times import ZH_MONTH_SHIFT as _ZH_MONTH_SHIFT
from memlane.lang.times import ZH_UNITS as _ZH_UNITS
from memlane.lang.times import ZH_WEEK_SHIFT as _ZH_WEEK_SHIFT
from memlane.lang.times import ZH_YEAR_SHIFT as _ZH_YEAR_SHIFT

Handler = Callable[[re.Match[str], Context], TimeHit | None]


def _prev_char(match: re.Match[str], group: str | int = 0) -> str:
    start = match.start(group)
    return match.string[start - 1] if start > 0 else ""


def _numeric_date(match: re.Match[str], context: Context) -> TimeHit:
    year, month, day = int(match[1]), int(match[3]), int(match[4])
    return TimeHit(match.start(), match.end(), date(year, month, day), explicit_year=True)


def _zh_date(match: re.Match[str], context: Context) -> TimeHit | None:
    month = parse_number(match["m"]) or 0
    if not 1 <= month <= 12:
        return None
    if match["y"] or match["ry"]:
        year = int(match["y"]) if match["y"] else context.today.year + _ZH_YEAR_SHIFT[match["ry"]]
        if match["d"] is None:
            return TimeHit(match.start(), match.end(), *month_range(year, month))
        day = date(year, month, parse_number(match["d"]) or 0)
        return TimeHit(match.start(), match.end(), day, explicit_year=bool(match["y"]))
    if match["d"] is None:
        return TimeHit(match.start(), match.end(), *nearest_month(month, context, match.start()))
    found = nearest_date(month, parse_number(match["d"]) or 0, context, match.start())
    return None if found is None else TimeHit(match.start(), match.end(), found)


def _zh_relative_month(match: re.Match[str], context: Context) -> TimeHit | None:
    shift = match["rm"]
    if shift in times.AMBIGUOUS_SHIFTS and _prev_char(match) in _NOT_RELATIVE_BEFORE:
        return None
    first = add_months(context.today.replace(day=1), _ZH_MONTH_SHIFT[shift])
    if match["d"] is None:
        return TimeHit(match.start(), match.end(), first, add_months(first, 1))
    return TimeHit(match.start(), match.end(), first.replace(day=parse_number(match["d"]) or 0))


def _zh_relative_weekday(match: re.Match[str], context: Context) -> TimeHit | None:
    if match["rw"] in times.AMBIGUOUS_SHIFTS and _prev_char(match) in _NOT_RELATIVE_BEFORE:
        return None
    monday = week_start(context.today, _ZH_WEEK_SHIFT[match["rw"]])
    day = monday + timedelta(days=_WEEKDAY_NUMBERS[match["wd"]])
    return TimeHit(match.start(), match.end(), day)


def _zh_weekend(match: re.Match[str], context: Context) -> TimeHit | None:
    shift = match["rw"]
    if shift is None:
        if _prev_char(match) in times.COUNTED_BEFORE:
            return None
        saturday = nearest_weekday(5, context, match.start())
        if context.today.weekday() == 6 and saturday > context.today:
            saturday = context.today - timedelta(days=1)  # Sunday: this weekend is still on
        return TimeHit(match.start(), match.end(), saturday, saturday + timedelta(days=2))
    if shift in times.AMBIGUOUS_SHIFTS and _prev_char(match) in _NOT_RELATIVE_BEFORE:
        return None
    saturday = week_start(context.today, _ZH_WEEK_SHIFT[shift]) + timedelta(days=5)
    return TimeHit(match.start(), match.end(), saturday, saturday + timedelta(days=2))


def _zh_relative_week(match: re.Match[str], context: Context) -> TimeHit | None:
    if match["rw"] in times.AMBIGUOUS_SHIFTS and _prev_char(match) in _NOT_RELATIVE_BEFORE:
        return None
    monday = week_start(context.today, _ZH_WEEK_SHIFT[match["rw"]])
    return TimeHit(match.start(), match.end(), monday, monday + timedelta(days=7))


def _zh_weekday(match: re.Match[str], context: Context) -> TimeHit:
    day = nearest_weekday(_WEEKDAY_NUMBERS[match["wd"]], context, match.start())
    return TimeHit(match.start(), match.end(), day)


def _zh_offset(match: re.Match[str], context: Context) -> TimeHit | None:
    unit = _ZH_UNITS[match["u"]]
    count = 0.5 if match["n"] == times.HALF else parse_number(match["n"])
    if count is None or (unit == "month" and not match["ge"]) or (unit == "year" and count >= 1000):
        return None
    sign = -1 if match["dir"].endswith(times.AGO) else 1
    return TimeHit(match.start(), match.end(), offset(context, count, unit, sign))


def _zh_day_word(match: re.Match[str], context: Context) -> TimeHit | None:
    if match[0] in times.AMBIGUOUS_DAY_WORDS and _prev_char(match) in times.NOT_DAY_WORD_AFTER:
        return None
    day = context.today + timedelta(days=_ZH_DAY_SHIFT[match[0]])
    return TimeHit(match.start(), match.end(), day)


def _zh_year(match: re.Match[str], context: Context) -> TimeHit | None:
    if match["y"]:
        year = int(match["y"])
    elif _prev_char(match) in times.NOT_YEAR_AFTER:
        return None
    else:
        year = context.today.year + _ZH_YEAR_SHIFT[match["ry"]]
    return TimeHit(
        match.start(), match.end(), date(year, 1, 1), date(year + 1, 1, 1), bool(match["y"])
    )


def _zh_day_only(match: re.Match[str], context: Context) -> TimeHit | None:
    found = nearest_day_of_month(int(match["d"]), context, match.start())
    return None if found is None else TimeHit(match.start(), match.end(), found)


def _zh_clock(match: re.Match[str], context: Context) -> TimeHit | None:
    hour = parse_number(match["h"])
    minute = parse_number(match["mi"]) if match["mi"] else 0
    minute = 30 if match["half"] else times.QUARTERS.get(match["quarter"] or "", minute)
    if hour is None or minute is None or hour > 23 or minute > 59:
        return None
    period = match["q"] or ""
    evening = period in times.AFTERNOON and hour < 12
    if evening or (period == times.NOON and hour < 11):
        hour += 12
    elif period in times.MIDNIGHT and hour == 12:
        hour = 0
    weak = not (period or match["half"] or match["quarter"] or match["fen"] or match["o"])
    begin = context.at_clock(context.today, hour, minute)
    return TimeHit(match.start(), match.end(), begin, clock=(hour, minute), weak=weak)


def _clock_12(match: re.Match[str], context: Context) -> TimeHit:
    hour = int(match["h"]) % 12 + (12 if match["ap"].lower() == "p" else 0)
    minute = int(match["mi"] or 0)
    begin = context.at_clock(context.today, hour, minute)
    return TimeHit(match.start(), match.end(), begin, clock=(hour, minute))


def _clock_24(match: re.Match[str], context: Context) -> TimeHit:
    hour, minute = int(match["h"]), int(match["mi"])
    begin = context.at_clock(context.today, hour, minute)
    return TimeHit(match.start(), match.end(), begin, clock=(hour, minute))


def _en_day_word(match: re.Match[str], context: Context) -> TimeHit:
    shift = _EN_DAY_SHIFT.get(" ".join(match[0].lower().split()), 0)
    return TimeHit(match.start(), match.end(), context.today + timedelta(days=shift))


def _en_relative_weekday(match: re.Match[str], context: Context) -> TimeHit:
    weekday = _WEEKDAY_NUMBERS[match["wd"].lower()]
    if match["coming"]:
        ahead = (weekday - context.today.weekday()) % 7 or 7
        return TimeHit(match.start(), match.end(), context.today + timedelta(days=ahead))
    monday = week_start(context.today, _EN_REL_SHIFT[match["rel"].lower()])
    return TimeHit(match.start(), match.end(), monday + timedelta(days=weekday))


def _en_relative_period(match: re.Match[str], context: Context) -> TimeHit:
    shift = _EN_REL_SHIFT[match["rel"].lower()]
    unit = _EN_UNITS[match["u"].lower()]
    today = context.today
    if unit == "week":
        first = week_start(today, shift)
        return TimeHit(match.start(), match.end(), first, first + timedelta(days=7))
    if unit == "weekend":
        first = week_start(today, shift) + timedelta(days=5)
        return TimeHit(match.start(), match.end(), first, first + timedelta(days=2))
    if unit == "month":
        first = add_months(today.replace(day=1), shift)
        return TimeHit(match.start(), match.end(), first, add_months(first, 1))
    year = today.year + shift
    return TimeHit(match.start(), match.end(), date(year, 1, 1), date(year + 1, 1, 1))


def _en_offset(match: re.Match[str], context: Context) -> TimeHit | None:
    words = " ".join((match["n"] or match["n2"]).lower().split())
    count = parse_number(words)
    if count is None:
        return None
    unit = _EN_UNITS[(match["u"] or match["u2"]).lower()]
    sign = -1 if match["ago"] else 1
    return TimeHit(match.start(), match.end(), offset(context, count, unit, sign))


def _month(match: re.Match[str], context: Context) -> int | None:
    """The month a match names; "may" and "march" must be capitalized ("I may 2 go")."""
    name = match["mon"]
    if name in MONTHS_ALSO_WORDS and context.text[match.start("mon")] != "M":
        return None
    return _MONTH_NUMBERS[name]


def _en_month_day(match: re.Match[str], context: Context) -> TimeHit | None:
    month = _month(match, context)
    if month is None:
        return None
    day = int(match["d"])
    if match["y"]:
        return TimeHit(match.start(), match.end(), date(int(match["y"]), month, day), None, True)
    found = nearest_date(month, day, context, match.start())
    return None if found is None else TimeHit(match.start(), match.end(), found)


def _en_month_year(match: re.Match[str], context: Context) -> TimeHit | None:
    month = _month(match, context)
    if month is None:
        return None
    first, stop = month_range(int(match["y"]), month)
    return TimeHit(match.start(), match.end(), first, stop, explicit_year=True)


def _en_month_only(match: re.Match[str], context: Context) -> TimeHit | None:
    month = _month(match, context)
    if month is None:
        return None
    shift = _EN_REL_SHIFT.get(match["rel"].lower())
    if shift is None:  # "in May", "since March": the nearest such month
        first, stop = nearest_month(month, context, match.start())
        return TimeHit(match.start("mon"), match.end("mon"), first, stop)
    today = context.today
    # "last May" is the latest May already begun, "next May" the first one not yet begun.
    passed = month >= today.month if shift < 0 else month <= today.month if shift > 0 else False
    first, stop = month_range(today.year + shift * passed, month)
    return TimeHit(match.start(), match.end("mon"), first, stop)


def _en_year(match: re.Match[str], context: Context) -> TimeHit:
    year = int(match["y"])
    return TimeHit(match.start("y"), match.end("y"), date(year, 1, 1), date(year + 1, 1, 1), True)


def _en_weekday(match: re.Match[str], context: Context) -> TimeHit:
    day = nearest_weekday(_WEEKDAY_NUMBERS[match["wd"].lower()], context, match.start())
    return TimeHit(match.start(), match.end(), day)


@dataclass(frozen=True, slots=True)
class Rule:
    """A pattern, its handler, and its gate.

    The gate finds substrings one of which the lower-cased text must hold for the pattern
    to be worth running at all. Gates keep a turn that mentions no time from paying for two
    dozen regular expressions.
    """

    pattern: re.Pattern[str]
    handler: Handler
    gate: re.Pattern[str]

    def applies(self, lowered: str) -> bool:
        """Whether ``lowered`` (the folded, lower-cased text) may hold a match."""
        return self.gate.search(lowered) is not None


_HANDLERS: dict[str, Handler] = {
    "numeric_date": _numeric_date,
    "zh_date": _zh_date,
    "clock_12": _clock_12,
    "clock_24": _clock_24,
    "zh_relative_month": _zh_relative_month,
    "zh_relative_weekday": _zh_relative_weekday,
    "zh_weekend": _zh_weekend,
    "zh_relative_week": _zh_relative_week,
    "zh_offset": _zh_offset,
    "zh_day_word": _zh_day_word,
    "zh_year": _zh_year,
    "zh_weekday": _zh_weekday,
    "zh_day_only": _zh_day_only,
    "zh_clock": _zh_clock,
    "en_day_word": _en_day_word,
    "en_relative_weekday": _en_relative_weekday,
    "en_relative_period": _en_relative_period,
    "en_offset": _en_offset,
    "en_month_day": _en_month_day,
    "en_day_month": _en_month_day,
    "en_month_year": _en_month_year,
    "en_month_only": _en_month_only,
    "en_year": _en_year,
    "en_weekday": _en_weekday,
}

# Order is priority: a later rule never takes text an earlier one resolved.
RULES: tuple[Rule, ...] = tuple(
    Rule(pattern, _HANDLERS[name], gate) for name, (pattern, gate) in PATTERNS.items()
)
