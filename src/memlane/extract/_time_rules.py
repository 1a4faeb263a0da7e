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
from memlane.extract._text import CN_NUMERAL, gate, parse_number

_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_WEEKDAY = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_EN_COUNT = (
    r"(?:\d+|a\s+couple\s+of|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven"
    r"|twelve|fifteen|twenty|thirty)"
)
_DAY_SUFFIX = r"\s*[日号](?![线楼院门房室床车位机口店游码])"
_MONTH_NUMBERS = {
    name: number
    for number, names in enumerate(
        [("jan", "january"), ("feb", "february"), ("mar", "march"), ("apr", "april"), ("may",),
         ("jun", "june"), ("jul", "july"), ("aug", "august"), ("sep", "sept", "september"),
         ("oct", "october"), ("nov", "november"), ("dec", "december")],
        start=1,
    )
    for name in names
}  # fmt: skip
_WEEKDAY_NUMBERS = {
    "monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4, "saturday": 5,
    "sunday": 6, "一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6,
    "1": 0, "2": 1, "3": 2, "4": 3, "5": 4, "6": 5, "7": 6,
}  # fmt: skip
_ZH_WEEK_SHIFT = {"上上": -2, "上": -1, "这": 0, "本": 0, "下": 1, "下下": 2}
_ZH_MONTH_SHIFT = {
    "上上个": -2, "上个": -1, "上": -1, "这个": 0, "本": 0, "下个": 1, "下": 1, "下下个": 2,
}  # fmt: skip
_ZH_YEAR_SHIFT = {"前": -2, "去": -1, "今": 0, "明": 1, "后": 2}
_ZH_DAY_SHIFT = {
    "大前天": -3, "前天": -2, "昨天": -1, "昨日": -1, "昨晚": -1, "昨夜": -1, "今天": 0,
    "今日": 0, "今晚": 0, "今早": 0, "今夜": 0, "明天": 1, "明日": 1, "明晚": 1, "明早": 1,
    "后天": 2, "大后天": 3,
}  # fmt: skip
_EN_REL_SHIFT = {"last": -1, "this": 0, "next": 1}
# Characters that, right before 上/下, make it part of another word (晚上, 马上, 楼下, 一下).
_NOT_RELATIVE_BEFORE = frozenset("晚早马往向爬楼线网路北一地底手")

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
    if shift in ("上", "下") and _prev_char(match) in _NOT_RELATIVE_BEFORE:
        return None
    first = add_months(context.today.replace(day=1), _ZH_MONTH_SHIFT[shift])
    if match["d"] is None:
        return TimeHit(match.start(), match.end(), first, add_months(first, 1))
    return TimeHit(match.start(), match.end(), first.replace(day=parse_number(match["d"]) or 0))


def _zh_relative_weekday(match: re.Match[str], context: Context) -> TimeHit | None:
    if match["rw"] in ("上", "下") and _prev_char(match) in _NOT_RELATIVE_BEFORE:
        return None
    monday = week_start(context.today, _ZH_WEEK_SHIFT[match["rw"]])
    day = monday + timedelta(days=_WEEKDAY_NUMBERS[match["wd"]])
    return TimeHit(match.start(), match.end(), day)


def _zh_weekend(match: re.Match[str], context: Context) -> TimeHit | None:
    shift = match["rw"]
    if shift is None:
        if _prev_char(match) in ("个", "一", "每", "两", "几"):
            return None
        saturday = nearest_weekday(5, context, match.start())
        if context.today.weekday() == 6 and saturday > context.today:
            saturday = context.today - timedelta(days=1)  # Sunday: this weekend is still on
        return TimeHit(match.start(), match.end(), saturday, saturday + timedelta(days=2))
    if shift in ("上", "下") and _prev_char(match) in _NOT_RELATIVE_BEFORE:
        return None
    saturday = week_start(context.today, _ZH_WEEK_SHIFT[shift]) + timedelta(days=5)
    return TimeHit(match.start(), match.end(), saturday, saturday + timedelta(days=2))


def _zh_relative_week(match: re.Match[str], context: Context) -> TimeHit | None:
    if match["rw"] in ("上", "下") and _prev_char(match) in _NOT_RELATIVE_BEFORE:
        return None
    monday = week_start(context.today, _ZH_WEEK_SHIFT[match["rw"]])
    return TimeHit(match.start(), match.end(), monday, monday + timedelta(days=7))


def _zh_weekday(match: re.Match[str], context: Context) -> TimeHit:
    day = nearest_weekday(_WEEKDAY_NUMBERS[match["wd"]], context, match.start())
    return TimeHit(match.start(), match.end(), day)


_ZH_UNITS = {"天": "day", "日": "day", "周": "week", "星期": "week", "礼拜": "week", "月": "month"}
_ZH_UNITS |= {"年": "year", "小时": "hour", "钟头": "hour"}


def _zh_offset(match: re.Match[str], context: Context) -> TimeHit | None:
    unit = _ZH_UNITS[match["u"]]
    count = 0.5 if match["n"] == "半" else parse_number(match["n"])
    if count is None or (unit == "month" and not match["ge"]) or (unit == "year" and count >= 1000):
        return None
    sign = -1 if match["dir"].endswith("前") else 1
    return TimeHit(match.start(), match.end(), offset(context, count, unit, sign))


def _zh_day_word(match: re.Match[str], context: Context) -> TimeHit | None:
    if match[0] in ("后天", "前天") and _prev_char(match) in ("以", "之", "先", "天"):
        return None
    day = context.today + timedelta(days=_ZH_DAY_SHIFT[match[0]])
    return TimeHit(match.start(), match.end(), day)


def _zh_year(match: re.Match[str], context: Context) -> TimeHit | None:
    if match["y"]:
        year = int(match["y"])
    elif _prev_char(match) in ("以", "之", "几", "每", "多", "两", "十"):
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
    minute = 30 if match["half"] else {"一刻": 15, "三刻": 45}.get(match["quarter"] or "", minute)
    if hour is None or minute is None or hour > 23 or minute > 59:
        return None
    period = match["q"] or ""
    evening = period in ("下午", "傍晚", "晚上", "夜里") and hour < 12
    if evening or (period == "中午" and hour < 11):
        hour += 12
    elif period in ("凌晨", "半夜") and hour == 12:
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


_EN_DAY_SHIFT = {"yesterday": -1, "today": 0, "tonight": 0, "tomorrow": 1, "last night": -1}


def _en_day_word(match: re.Match[str], context: Context) -> TimeHit:
    word = " ".join(match[0].lower().split())
    if word.startswith("the day"):
        shift = -2 if word.endswith("yesterday") else 2
    else:
        shift = _EN_DAY_SHIFT.get(word, 0)
    return TimeHit(match.start(), match.end(), context.today + timedelta(days=shift))


def _en_relative_weekday(match: re.Match[str], context: Context) -> TimeHit:
    weekday = _WEEKDAY_NUMBERS[match["wd"].lower()]
    relation = match["rel"].lower()
    if relation == "coming":
        ahead = (weekday - context.today.weekday()) % 7 or 7
        return TimeHit(match.start(), match.end(), context.today + timedelta(days=ahead))
    monday = week_start(context.today, _EN_REL_SHIFT[relation])
    return TimeHit(match.start(), match.end(), monday + timedelta(days=weekday))


def _en_relative_period(match: re.Match[str], context: Context) -> TimeHit:
    shift = _EN_REL_SHIFT[match["rel"].lower()]
    unit = match["u"].lower()
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
    count = 2 if words == "a couple of" else parse_number(words)
    if count is None:
        return None
    unit = (match["u"] or match["u2"]).lower()
    sign = -1 if (match["dir"] or "").lower() == "ago" else 1
    return TimeHit(match.start(), match.end(), offset(context, count, unit, sign))


def _month(match: re.Match[str], context: Context) -> int | None:
    """The month a match names; "may" and "march" must be capitalized ("I may 2 go")."""
    name = match["mon"]
    if name in ("may", "march") and context.text[match.start("mon")] != "M":
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
    relation = match["rel"].lower()
    today = context.today
    start = match.start() if relation in _EN_REL_SHIFT else match.start("mon")
    if relation == "last":
        first, stop = month_range(today.year - (month >= today.month), month)
    elif relation == "next":
        first, stop = month_range(today.year + (month <= today.month), month)
    elif relation == "this":
        first, stop = month_range(today.year, month)
    else:
        first, stop = nearest_month(month, context, match.start())
    return TimeHit(start, match.end("mon"), first, stop)


def _en_year(match: re.Match[str], context: Context) -> TimeHit:
    year = int(match["y"])
    return TimeHit(match.start("y"), match.end("y"), date(year, 1, 1), date(year + 1, 1, 1), True)


def _en_weekday(match: re.Match[str], context: Context) -> TimeHit:
    day = nearest_weekday(_WEEKDAY_NUMBERS[match["wd"].lower()], context, match.start())
    return TimeHit(match.start(), match.end(), day)


_ZH_WEEK = gate("周", "星期", "礼拜")
_MONTH_GATE = gate(
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"
)


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


# Order is priority: a later rule never takes text an earlier one resolved.
RULES: tuple[Rule, ...] = (
    Rule(
        re.compile(r"(?=\d)(?<![\d./-])(\d{4})([-/.])(\d{1,2})\2(\d{1,2})(?!\d|[./-]\d)"),
        _numeric_date,
        gate("-", "/", "."),
    ),
    Rule(
        re.compile(
            r"(?=[0-9前去今明后零〇一二两三四五六七八九十])"
            r"(?:(?P<y>(?:19|20)\d{2})\s*年\s*|(?P<ry>[前去今明后])年\s*)?"
            rf"(?<![\d个几第每])(?P<m>{CN_NUMERAL})\s*月(?![光亮球饼台])份?"
            rf"(?:\s*(?P<d>{CN_NUMERAL}){_DAY_SUFFIX})?"
        ),
        _zh_date,
        gate("月"),
    ),
    Rule(
        re.compile(
            r"(?=\d)(?<![\d])(?P<h>1[0-2]|0?[1-9])(?::(?P<mi>[0-5]\d))?\s?(?P<ap>[ap])\.?m\b\.?"
        ),
        _clock_12,
        gate("am", "pm", "a.m", "p.m"),
    ),
    Rule(
        re.compile(
            r"(?=\d)(?<![\d:.+])(?<!\d-)(?P<h>[01]?\d|2[0-3]):(?P<mi>[0-5]\d)(?::[0-5]\d)?(?![\d:])"
        ),
        _clock_24,
        gate(":"),
    ),
    Rule(
        re.compile(
            r"(?=[上下这本])(?P<rm>上上个|下下个|上个|下个|这个|本|上|下)月(?![光亮球饼台份])"
            rf"(?:\s*(?P<d>{CN_NUMERAL}){_DAY_SUFFIX})?"
        ),
        _zh_relative_month,
        gate("月"),
    ),
    Rule(
        re.compile(
            r"(?=[上下这本])(?P<rw>上上|下下|上|下|这|本)个?(?:周|星期|礼拜)(?P<wd>[一二三四五六日天1-7])"
        ),
        _zh_relative_weekday,
        _ZH_WEEK,
    ),
    Rule(
        re.compile(r"(?=[上下这本周])(?:(?P<rw>上上|下下|上|下|这|本)个?)?周末"),
        _zh_weekend,
        gate("周末"),
    ),
    Rule(
        re.compile(
            r"(?=[上下这本])(?P<rw>上上|下下|上|下|这|本)个?(?:周|星期|礼拜)(?![一二三四五六七日天末年岁围报刊边期])"
        ),
        _zh_relative_week,
        _ZH_WEEK,
    ),
    Rule(
        re.compile(
            r"(?=[\d零〇一二两三四五六七八九十百半])(?<![\d])(?P<n>\d+|[零〇一二两三四五六七八九十百]+|半)\s*(?P<ge>个)?\s*"
            r"(?P<u>天|日|周|星期|礼拜|月|年|小时|钟头)\s*(?P<dir>以前|之前|前|以后|之后|后)"
        ),
        _zh_offset,
        gate("前", "后"),
    ),
    Rule(
        re.compile(
            r"大前天|前天|昨天|昨日|昨晚|昨夜|今天|今日|今晚|今早|今夜|明天|明日|明晚|明早|大后天|后天"
        ),
        _zh_day_word,
        gate("天", "日", "晚", "夜", "早"),
    ),
    Rule(
        re.compile(
            r"(?=[12前去今明后])(?<!\d)(?P<y>(?:19|20)\d{2})\s*年(?![代级前后])|(?P<ry>[前去今明后])年"
        ),
        _zh_year,
        gate("年"),
    ),
    Rule(
        re.compile(
            r"(?=[周星礼])(?<![上下这本个每一两几第])(?:周|星期|礼拜)(?P<wd>[一二三四五六日天])(?![次遍回趟])"
        ),
        _zh_weekday,
        _ZH_WEEK,
    ),
    Rule(
        re.compile(r"(?=\d)(?<![\d.月个第/-])(?P<d>\d{1,2})" + _DAY_SUFFIX),
        _zh_day_only,
        gate("日", "号"),
    ),
    Rule(
        re.compile(
            r"(?=[上早清中下傍晚夜半凌0-9零〇一二两三四五六七八九十])"
            r"(?:(?P<q>上午|早上|早晨|清晨|中午|下午|傍晚|晚上|夜里|半夜|凌晨)\s*)?"
            rf"(?<![\d])(?P<h>{CN_NUMERAL})\s*[点點时時](?:\s*(?P<half>半)|\s*(?P<quarter>一刻|三刻)"
            rf"|\s*(?P<mi>{CN_NUMERAL})\s*(?P<fen>分)?)?(?P<o>钟|整)?(?![也都儿])"
        ),
        _zh_clock,
        gate("点", "點", "时", "時"),
    ),
    Rule(
        re.compile(
            r"(?=[tyl])\b(?:the\s+day\s+before\s+yesterday|the\s+day\s+after\s+tomorrow|yesterday|today"
            r"|tonight|tomorrow|this\s+(?:morning|afternoon|evening)|last\s+night)\b"
        ),
        _en_day_word,
        gate("day", "tonight", "tomorrow", "night", "morning", "afternoon", "evening"),
    ),
    Rule(
        re.compile(rf"(?=[ltnc])\b(?P<rel>last|this|next|coming)\s+(?P<wd>{_WEEKDAY})\b"),
        _en_relative_weekday,
        gate("day"),
    ),
    Rule(
        re.compile(r"(?=[ltn])\b(?P<rel>last|this|next)\s+(?P<u>weekend|week|month|year)\b"),
        _en_relative_period,
        gate("last", "this", "next"),
    ),
    Rule(
        re.compile(
            rf"\b(?P<n>{_EN_COUNT})\s+(?P<u>day|week|month|year|hour)s?\s+(?P<dir>ago|from\s+now)\b"
            rf"|\bin\s+(?P<n2>{_EN_COUNT})\s+(?P<u2>day|week|month|year|hour)s?\b"
        ),
        _en_offset,
        gate("ago", "now", "in"),
    ),
    Rule(
        re.compile(
            rf"(?=[adfjmnos])\b(?P<mon>{_MONTH})\.?\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\b(?!:)"
            r"(?:,?\s*(?P<y>\d{4})\b)?"
        ),
        _en_month_day,
        _MONTH_GATE,
    ),
    Rule(
        re.compile(
            rf"(?=\d)\b(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<mon>{_MONTH})\b\.?"
            r"(?:,?\s*(?P<y>\d{4})\b)?"
        ),
        _en_month_day,
        _MONTH_GATE,
    ),
    Rule(
        re.compile(rf"(?=[adfjmnos])\b(?P<mon>{_MONTH})\.?,?\s+(?P<y>\d{{4}})\b"),
        _en_month_year,
        _MONTH_GATE,
    ),
    Rule(
        re.compile(
            r"(?=[isdutfbelmn])\b(?P<rel>in|since|during|until|till|from|by|early|late|mid|last|this|next)"
            rf"[\s-]+(?P<mon>{_MONTH})\b(?!\s*\d)"
        ),
        _en_month_only,
        _MONTH_GATE,
    ),
    Rule(
        re.compile(
            r"(?=[isdutfbo])\b(?:in|since|during|until|till|from|by|of)\s+(?P<y>(?:19|20)\d{2})\b(?!'?s\b|-\d)"
        ),
        _en_year,
        gate("19", "20"),
    ),
    Rule(
        re.compile(rf"(?=[mtwfs])(?<!every\s)(?<!each\s)\b(?P<wd>{_WEEKDAY})\b"),
        _en_weekday,
        gate("day"),
    ),
)
