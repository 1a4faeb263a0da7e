"""Dates, amounts and quantities as a summary keeps them whole: their words, zh and en.

:mod:`memlane.summaries.text.spans` finds the spans that must survive verbatim; the words
that make a number a date, an amount or a quantity (month names, currencies, units, the
Chinese date and clock characters) are here, as pattern fragments.
"""

from __future__ import annotations

MONTH_NAME = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
    r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?"
)
"""An English month name or abbreviation, capitalized, with an optional dot."""

ORDINAL = r"(?:st|nd|rd|th)?"
"""An ordinal's suffix after a day (1st, 2nd…)."""

CURRENCY_WORD = (
    r"(?:元|块钱|块|角|毛|万元|美元|美金|欧元|英镑|日元|港币|dollars?|bucks|cents?|USD|CNY|RMB"
    r"|EUR|GBP|HKD|JPY|yuan|euros?|pounds?)"
)
"""Currency words after an amount's digits (元, 美元, dollars, USD…)."""

UNIT = (
    r"(?:km|kms|kg|kgs|cm|mm|ml|lbs?|g|m|mi|miles?|kilometers?|kilometres?|meters?|metres?"
    r"|hours?|hrs?|minutes?|mins?|seconds?|secs?|days?|weeks?|months?|years?|yrs?|kids?"
    r"|children|people|persons?|times|pages?|books?|K|GB|MB|TB|%|公里|千米|米|厘米|公斤|千克|斤"
    r"|克|个月|个小时|小时|分钟|秒|天|周|星期|岁|个|次|人|位|件|本|只|张|台|部|套|箱|瓶|杯|份)"
)
"""Units after a quantity's digits (km, kg, hours, people, 公里, 个月, 岁…)."""

ZH_DATE = (
    r"(?:\d{2,4}\s*年\s*)?\d{1,2}\s*月(?:\s*\d{1,2}\s*[日号])?"
    r"|(?<!\d)\d{4}\s*年(?!\d)"
    r"|(?:上午|下午|晚上|早上|中午|凌晨|傍晚)\d{1,2}\s*[点:：](?:\d{1,2}分?|半)?"
)
"""A Chinese date or clock time written with digits ("2026年7月1日", "下午3点半")."""

NOT_A_YEAR_BEFORE = r"(?:元|块|dollars?|people|%)"
"""Words after a four-digit number that make it an amount or a count, not a year."""

AMOUNT_MULTIPLIER = r"(?:k|K|m|M|million|billion|万|千)"
"""What may follow an amount's digits ("$5k", "¥3万")."""

ZH_MULTIPLIER = r"(?:万|千|百)"
"""Chinese multipliers between digits and a currency ("3万元")."""

NUMBER_SUFFIX = r"(?:st|nd|rd|th|s|x|k|K|am|pm|AM|PM|D|d)"
"""Letters after digits that make an ordinal, a decade, a size or a time, not an id."""

NUMBER_END = r"(?:st|nd|rd|th|s)?"
"""What a bare number may end with: an ordinal or a decade ("3rd", "1990s")."""
