"""Time expressions of Chinese and English, and the patterns that find them.

The words for months, weekdays, days, shifts, units and periods of the day.

:mod:`memlane.extract._time_rules` resolves each pattern's match to a date; what a pattern
looks for is here. A pattern runs only when its gate finds one of its substrings.
"""

from __future__ import annotations

import re
from typing import Literal

from memlane.lang.numbers import CN_NUMERAL
from memlane.lang.script import gate

MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
"""English month names and their abbreviations, lower case."""

WEEKDAY = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
EN_TIME_WORD = (
    rf"(?:(?:this|next|on)\s+)?(?:{WEEKDAY}|today|tonight|tomorrow)(?:\s+(?:morning|afternoon"
    r"|evening|night))?(?:\s+at\s+\d{1,2}(?::\d\d)?\s*[ap]\.?m\.?)?|\d{1,2}(?::\d\d)?\s*[ap]\.?m\.?"
)
"""A day or a time of day as a speaker names one ("Saturday", "tomorrow at 4pm", "5:30pm")."""
"""English weekday names, lower case."""

EN_COUNT = (
    r"(?:\d+|a\s+couple\s+of|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven"
    r"|twelve|fifteen|twenty|thirty)"
)
"""How many units an English offset counts (3, a couple of, two…)."""

DAY_SUFFIX = r"\s*[日号](?![线楼院门房室床车位机口店游码])"
"""日 or 号 after a day of the month, unless a word follows that makes it a line, a floor, a
room or a number (号线, 号楼…)."""

MONTH_NUMBERS = {
    name: number
    for number, names in enumerate(
        [("jan", "january"), ("feb", "february"), ("mar", "march"), ("apr", "april"), ("may",),
         ("jun", "june"), ("jul", "july"), ("aug", "august"), ("sep", "sept", "september"),
         ("oct", "october"), ("nov", "november"), ("dec", "december")],
        start=1,
    )
    for name in names
}  # fmt: skip
"""Each English month name and abbreviation, and its number."""

WEEKDAY_NUMBERS = {
    "monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4, "saturday": 5,
    "sunday": 6, "一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6,
    "1": 0, "2": 1, "3": 2, "4": 3, "5": 4, "6": 5, "7": 6,
}  # fmt: skip
"""Each weekday name (English, Chinese 一…日, digits 1–7) and its number from Monday, 0."""

ZH_WEEK_SHIFT = {"上上": -2, "上": -1, "这": 0, "本": 0, "下": 1, "下下": 2}
"""Chinese week shifts (上上周 … 下下周) in weeks."""

ZH_MONTH_SHIFT = {
    "上上个": -2, "上个": -1, "上": -1, "这个": 0, "本": 0, "下个": 1, "下": 1, "下下个": 2,
}  # fmt: skip
"""Chinese month shifts (上上个月 … 下下个月) in months."""

ZH_YEAR_SHIFT = {"前": -2, "去": -1, "今": 0, "明": 1, "后": 2}
"""Chinese year words (前年 … 后年) in years."""

ZH_DAY_SHIFT = {
    "大前天": -3, "前天": -2, "昨天": -1, "昨日": -1, "昨晚": -1, "昨夜": -1, "今天": 0,
    "今日": 0, "今晚": 0, "今早": 0, "今夜": 0, "明天": 1, "明日": 1, "明晚": 1, "明早": 1,
    "后天": 2, "大后天": 3,
}  # fmt: skip
"""Chinese day words (大前天 … 大后天, 昨晚, 今早…) in days."""

EN_REL_SHIFT = {"last": -1, "this": 0, "next": 1}
"""English relative words (last, this, next) as a shift."""

NOT_RELATIVE_BEFORE = frozenset("晚早马往向爬楼线网路北一地底手")
"""Characters that, right before 上/下, make it part of another word (晚上, 马上, 楼下, 一下)."""

Unit = Literal["hour", "day", "week", "weekend", "month", "year"]
"""The units of time an expression counts or names, whatever the language."""

ZH_UNITS: dict[str, Unit] = {"天": "day", "日": "day", "周": "week", "星期": "week",
    "礼拜": "week", "月": "month", "年": "year", "小时": "hour", "钟头": "hour"}  # fmt: skip
"""Chinese units of an offset (天, 周, 月, 年, 小时…) and their names."""

EN_UNITS: dict[str, Unit] = {"hour": "hour", "day": "day", "week": "week",
    "weekend": "weekend", "month": "month", "year": "year"}  # fmt: skip
"""English unit words (singular, lower case) and their names."""

EN_DAY_SHIFT = {
    "the day before yesterday": -2, "yesterday": -1, "last night": -1, "today": 0, "tonight": 0,
    "tomorrow": 1, "the day after tomorrow": 2,
}  # fmt: skip
"""English day words (yesterday, today, tonight, tomorrow, last night…) in days; a day word
missing here ("this morning") is today."""

MONTHS_ALSO_WORDS = frozenset({"may", "march"})
"""English month names that are also common words: months only when capitalized ("I may go")."""

ZH_WEEK = gate("周", "星期", "礼拜")
"""A gate for the Chinese words for week (周, 星期, 礼拜)."""

MONTH_GATE = gate(
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"
)
"""A gate for the English month abbreviations."""

FUTURE_CUE = re.compile(
    r"将|打算|准备|计划|即将|下次|到时|届时|(?<![重主需只])要(?!是)|(?<!开)会(?!议)"
    r"|\b(?:will|shall|going\s+to|gonna|plan(?:s|ning)?\s+to|upcoming|next|scheduled|due)\b"
    r"|'ll\b",
    re.IGNORECASE,
)
"""Words that put a sentence in the future (将, 打算, 要, will, going to, next…): a year-less
date in it is the next one, not the last."""

JOIN_GAP = re.compile(r"\s*(?:T|at|@|,|的|on)?\s*", re.IGNORECASE)
"""What may stand between a day and a time of day that make one instant ("昨天的下午3点",
"yesterday at 3pm")."""


PATTERNS: dict[str, tuple[re.Pattern[str], re.Pattern[str]]] = {
    "numeric_date": (
        re.compile(r"(?=\d)(?<![\d./-])(\d{4})([-/.])(\d{1,2})\2(\d{1,2})(?!\d|[./-]\d)"),
        gate("-", "/", "."),
    ),
    "zh_date": (
        re.compile(
            r"(?=[0-9前去今明后零〇一二两三四五六七八九十])"
            r"(?:(?P<y>(?:19|20)\d{2})\s*年\s*|(?P<ry>[前去今明后])年\s*)?"
            rf"(?<![\d个几第每])(?P<m>{CN_NUMERAL})\s*月(?![光亮球饼台])份?"
            rf"(?:\s*(?P<d>{CN_NUMERAL}){DAY_SUFFIX})?"
        ),
        gate("月"),
    ),
    "clock_12": (
        re.compile(
            r"(?=\d)(?<![\d])(?P<h>1[0-2]|0?[1-9])(?::(?P<mi>[0-5]\d))?\s?(?P<ap>[ap])\.?m\b\.?"
        ),
        gate("am", "pm", "a.m", "p.m"),
    ),
    "clock_24": (
        re.compile(
            r"(?=\d)(?<![\d:.+])(?<!\d-)(?P<h>[01]?\d|2[0-3]):(?P<mi>[0-5]\d)(?::[0-5]\d)?(?![\d:])"
        ),
        gate(":"),
    ),
    "zh_relative_month": (
        re.compile(
            r"(?=[上下这本])(?P<rm>上上个|下下个|上个|下个|这个|本|上|下)月(?![光亮球饼台份])"
            rf"(?:\s*(?P<d>{CN_NUMERAL}){DAY_SUFFIX})?"
        ),
        gate("月"),
    ),
    "zh_relative_weekday": (
        re.compile(
            r"(?=[上下这本])(?P<rw>上上|下下|上|下|这|本)个?(?:周|星期|礼拜)(?P<wd>[一二三四五六日天1-7])"
        ),
        ZH_WEEK,
    ),
    "zh_weekend": (
        re.compile(r"(?=[上下这本周])(?:(?P<rw>上上|下下|上|下|这|本)个?)?周末"),
        gate("周末"),
    ),
    "zh_relative_week": (
        re.compile(
            r"(?=[上下这本])(?P<rw>上上|下下|上|下|这|本)个?(?:周|星期|礼拜)(?![一二三四五六七日天末年岁围报刊边期])"
        ),
        ZH_WEEK,
    ),
    "zh_offset": (
        re.compile(
            r"(?=[\d零〇一二两三四五六七八九十百半])(?<![\d])(?P<n>\d+|[零〇一二两三四五六七八九十百]+|半)\s*(?P<ge>个)?\s*"
            r"(?P<u>天|日|周|星期|礼拜|月|年|小时|钟头)\s*(?P<dir>以前|之前|前|以后|之后|后)"
        ),
        gate("前", "后"),
    ),
    "zh_day_word": (
        re.compile(
            r"大前天|前天|昨天|昨日|昨晚|昨夜|今天|今日|今晚|今早|今夜|明天|明日|明晚|明早|大后天|后天"
        ),
        gate("天", "日", "晚", "夜", "早"),
    ),
    "zh_year": (
        re.compile(
            r"(?=[12前去今明后])(?<!\d)(?P<y>(?:19|20)\d{2})\s*年(?![代级前后])|(?P<ry>[前去今明后])年"
        ),
        gate("年"),
    ),
    "zh_weekday": (
        re.compile(
            r"(?=[周星礼])(?<![上下这本个每一两几第])(?:周|星期|礼拜)(?P<wd>[一二三四五六日天])(?![次遍回趟])"
        ),
        ZH_WEEK,
    ),
    "zh_day_only": (
        re.compile(r"(?=\d)(?<![\d.月个第/-])(?P<d>\d{1,2})" + DAY_SUFFIX),
        gate("日", "号"),
    ),
    "zh_clock": (
        re.compile(
            r"(?=[上早清中下傍晚夜半凌0-9零〇一二两三四五六七八九十])"
            r"(?:(?P<q>上午|早上|早晨|清晨|中午|下午|傍晚|晚上|夜里|半夜|凌晨)\s*)?"
            rf"(?<![\d])(?P<h>{CN_NUMERAL})\s*[点點时時](?:\s*(?P<half>半)|\s*(?P<quarter>一刻|三刻)"
            rf"|\s*(?P<mi>{CN_NUMERAL})\s*(?P<fen>分)?)?(?P<o>钟|整)?(?![也都儿])"
        ),
        gate("点", "點", "时", "時"),
    ),
    "en_day_word": (
        re.compile(
            r"(?=[tyl])\b(?:the\s+day\s+before\s+yesterday|the\s+day\s+after\s+tomorrow|yesterday|today"
            r"|tonight|tomorrow|this\s+(?:morning|afternoon|evening)|last\s+night)\b"
        ),
        gate("day", "tonight", "tomorrow", "night", "morning", "afternoon", "evening"),
    ),
    "en_relative_weekday": (
        re.compile(
            rf"(?=[ltnc])\b(?:(?P<rel>last|this|next)|(?P<coming>coming))\s+(?P<wd>{WEEKDAY})\b"
        ),
        gate("day"),
    ),
    "en_relative_period": (
        re.compile(r"(?=[ltn])\b(?P<rel>last|this|next)\s+(?P<u>weekend|week|month|year)\b"),
        gate("last", "this", "next"),
    ),
    "en_offset": (
        re.compile(
            rf"\b(?P<n>{EN_COUNT})\s+(?P<u>day|week|month|year|hour)s?\s+(?:(?P<ago>ago)|from\s+now)\b"
            rf"|\bin\s+(?P<n2>{EN_COUNT})\s+(?P<u2>day|week|month|year|hour)s?\b"
        ),
        gate("ago", "now", "in"),
    ),
    "en_month_day": (
        re.compile(
            rf"(?=[adfjmnos])\b(?P<mon>{MONTH})\.?\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\b(?!:)"
            r"(?:,?\s*(?P<y>\d{4})\b)?"
        ),
        MONTH_GATE,
    ),
    "en_day_month": (
        re.compile(
            rf"(?=\d)\b(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<mon>{MONTH})\b\.?"
            r"(?:,?\s*(?P<y>\d{4})\b)?"
        ),
        MONTH_GATE,
    ),
    "en_month_year": (
        re.compile(rf"(?=[adfjmnos])\b(?P<mon>{MONTH})\.?,?\s+(?P<y>\d{{4}})\b"),
        MONTH_GATE,
    ),
    "en_month_only": (
        re.compile(
            r"(?=[isdutfbelmn])\b(?P<rel>in|since|during|until|till|from|by|early|late|mid|last|this|next)"
            rf"[\s-]+(?P<mon>{MONTH})\b(?!\s*\d)"
        ),
        MONTH_GATE,
    ),
    "en_year": (
        re.compile(
            r"(?=[isdutfbo])\b(?:in|since|during|until|till|from|by|of)\s+(?P<y>(?:19|20)\d{2})\b(?!'?s\b|-\d)"
        ),
        gate("19", "20"),
    ),
    "en_weekday": (
        re.compile(rf"(?=[mtwfs])(?<!every\s)(?<!each\s)\b(?P<wd>{WEEKDAY})\b"),
        gate("day"),
    ),
}
"""The time expressions, by name, in priority order: each its pattern and its gate (the
substrings one of which the lower-cased text must hold for the pattern to be worth running).
A later pattern never takes text an earlier one resolved."""

AMBIGUOUS_SHIFTS = ("上", "下")
"""Shifts that, after a character of :data:`NOT_RELATIVE_BEFORE`, belong to another word."""

COUNTED_BEFORE = ("个", "一", "每", "两", "几")
"""Characters before 周末 that count weekends ("一个周末", "每周末"): no particular one."""

HALF = "半"
"""Half a unit ("半年前")."""

AGO = "前"
"""What ends an offset into the past ("三天前", "两年之前")."""

AMBIGUOUS_DAY_WORDS = ("后天", "前天")
"""Day words that may be the end of another word (以后天天, 之前天气)."""
NOT_DAY_WORD_AFTER = ("以", "之", "先", "天")
"""Characters before 后天/前天 that make them part of another word ("以后天天", "之前天")."""

NOT_YEAR_AFTER = ("以", "之", "几", "每", "多", "两", "十")
"""Characters before 前年/去年… that make them part of another word ("几年", "之前年")."""

QUARTERS = {"一刻": 15, "三刻": 45}
"""Quarter hours, in minutes."""

AFTERNOON = ("下午", "傍晚", "晚上", "夜里")
"""Periods of the day after noon: a clock hour under 12 in them is p.m."""
NOON = "中午"
"""Noon: a clock hour under 11 in it is p.m."""
MIDNIGHT = ("凌晨", "半夜")
"""Periods of the day that move a clock hour: after noon, at noon, at midnight."""

EVENING_DAY_ENDS = "晚夜"
"""A day word ending so names its evening ("昨晚8点" is 20:00)."""

NO_TIME = frozenset({"", "null", "none", "unknown", "n/a"})
"""What a chat model writes for a time it was not told."""
