"""Typed spans that must survive verbatim: identifiers, dates, amounts, quantities, numbers."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Literal

SpanKind = Literal["identifier", "date", "amount", "quantity", "number"]


_MONTH = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
    r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?"
)
_ORD = r"(?:st|nd|rd|th)?"
_NUM = r"\d+(?:[.,]\d+)*"
_NUM_START = r"(?<!\d)(?<!\d[.,])"  # where a number starts, not inside one ("1.5": at "1")
_CURRENCY_WORD = (
    r"(?:元|块钱|块|角|毛|万元|美元|美金|欧元|英镑|日元|港币|dollars?|bucks|cents?|USD|CNY|RMB"
    r"|EUR|GBP|HKD|JPY|yuan|euros?|pounds?)"
)
_UNIT = (
    r"(?:km|kms|kg|kgs|cm|mm|ml|lbs?|g|m|mi|miles?|kilometers?|kilometres?|meters?|metres?"
    r"|hours?|hrs?|minutes?|mins?|seconds?|secs?|days?|weeks?|months?|years?|yrs?|kids?"
    r"|children|people|persons?|times|pages?|books?|K|GB|MB|TB|%|公里|千米|米|厘米|公斤|千克|斤"
    r"|克|个月|个小时|小时|分钟|秒|天|周|星期|岁|个|次|人|位|件|本|只|张|台|部|套|箱|瓶|杯|份)"
)

# Ordered by priority: an earlier kind claims its characters first, so "2026-07-01" is a
# date rather than a dashed identifier, and "100元" an amount rather than a quantity.
# A run (of digits, of e-mail characters) is only tried from its start: a match inside it
# would follow one from its start, and trying every position is quadratic in its length.
_SPAN_PATTERNS: tuple[tuple[SpanKind, re.Pattern[str]], ...] = (
    ("identifier", re.compile(r"https?://[^\s<>\"'，。！？、）]+[^\s<>\"'，。！？、）.,;:!?)]")),
    (
        "identifier",
        re.compile(r"(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}"),
    ),
    (
        "date",
        re.compile(
            r"(?<!\d)\d{4}[-/.]\d{1,2}[-/.]\d{1,2}(?:[T ]\d{1,2}:\d{2}(?::\d{2})?)?(?!\d)"
            r"|(?<![\d/])\d{1,2}/\d{1,2}/\d{2,4}(?![\d/])"
            r"|(?:\d{2,4}\s*年\s*)?\d{1,2}\s*月(?:\s*\d{1,2}\s*[日号])?"
            r"|(?<!\d)\d{4}\s*年(?!\d)"
            r"|(?:上午|下午|晚上|早上|中午|凌晨|傍晚)\d{1,2}\s*[点:：](?:\d{1,2}分?|半)?"
            r"|(?<!\d)\d{1,2}[:：]\d{2}(?::\d{2})?(?:\s?[apAP]\.?[mM]\.?)?(?![\d:])"
            r"|(?<![\d.])\d{1,2}\s?[apAP]\.?[mM]\.?(?![A-Za-z])"
            rf"|\b{_MONTH}\s+\d{{1,2}}{_ORD}(?:,?\s+\d{{4}})?\b"
            rf"|\b\d{{1,2}}{_ORD}\s+(?:of\s+)?{_MONTH}(?:,?\s+\d{{4}})?"
            rf"|\b{_MONTH},?\s+\d{{4}}\b"
            r"|(?<![\d.,])(?:19|20)\d{2}(?!\d|[.,]\d|[A-Za-z]|\s*(?:元|块|dollars?|people|%))"
        ),
    ),
    (
        "identifier",
        re.compile(
            r"(?<![\w-])\+?\d{1,4}[- ]?\(\d{2,4}\)[- ]?\d{3,4}[- ]?\d{3,4}(?![\w-])"
            r"|(?<![\w-])1[3-9]\d[- ]\d{4}[- ]\d{4}(?![\w-])"
            r"|(?<![\w-])\+\d{1,3}(?:[ -]\d{2,5}){2,5}(?![\w-])"
            r"|(?<![\w-])\+?\d[\d-]{5,}\d(?![\w-])"
            r"|#\d{3,}\b"
            r"|(?<![\w-])(?=[A-Za-z0-9_-]*\d)(?=[A-Za-z0-9_-]*[A-Za-z])"
            r"[A-Za-z0-9]+(?:[-_][A-Za-z0-9]+)*(?![\w-])"
        ),
    ),
    (
        "amount",
        re.compile(
            rf"[$€£¥￥]\s?{_NUM}(?:\s?(?:k|K|m|M|million|billion|万|千))?"
            rf"|(?:RMB|USD|CNY|EUR|GBP|HKD)\s?{_NUM}"
            rf"|{_NUM_START}{_NUM}\s?(?:万|千|百)?\s?{_CURRENCY_WORD}(?![A-Za-z])"
        ),
    ),
    ("quantity", re.compile(rf"{_NUM_START}{_NUM}\s?{_UNIT}(?![A-Za-z])")),
    ("number", re.compile(r"'?\d+(?:[.,]\d+)*(?:st|nd|rd|th|s)?")),
)
# Alphanumeric runs the identifier rule would otherwise claim: ordinals, decades, "5K",
# "10am", "3x", "mp3"-like unit suffixes.
_NOT_IDENTIFIER = re.compile(
    rf"\d+(?:st|nd|rd|th|s|x|k|K|am|pm|AM|PM|D|d)|\d+{_UNIT}|[A-Za-z]{{1,2}}\d|\d[A-Za-z]"
)


@dataclass(frozen=True, slots=True)
class TypedSpan:
    """A typed piece of text found by :func:`find_spans`, with its offsets."""

    kind: SpanKind
    text: str
    start: int
    end: int


def find_spans(text: str, kinds: frozenset[SpanKind] | None = None) -> list[TypedSpan]:
    """Find identifiers, dates, amounts, quantities and bare numbers, left to right.

    Spans never overlap; the text is kept exactly as written. ``kinds`` filters the result
    (all kinds are still matched, so priorities hold).

    >>> [(s.kind, s.text) for s in find_spans("新手机号 139-1111-2222，2026年7月1日付了100元")]
    [('identifier', '139-1111-2222'), ('date', '2026年7月1日'), ('amount', '100元')]
    """
    if not _SPAN_HINT.search(text):
        return []  # every pattern needs a digit, "@" or "://"
    taken: list[tuple[int, int]] = []
    spans: list[TypedSpan] = []
    for kind, pattern in _SPAN_PATTERNS:
        for match in pattern.finditer(text):
            start, end = match.span()
            raw = match.group()
            if start == end or _overlaps(taken, start, end):
                continue
            if kind == "identifier" and _NOT_IDENTIFIER.fullmatch(raw):
                continue
            bisect.insort(taken, (start, end))
            spans.append(TypedSpan(kind, raw, start, end))
    spans.sort(key=lambda span: span.start)
    if kinds is not None:
        spans = [span for span in spans if span.kind in kinds]
    return spans


_SPAN_HINT = re.compile(r"\d|@|://")


def _overlaps(taken: list[tuple[int, int]], start: int, end: int) -> bool:
    """True if ``[start, end)`` overlaps a span of ``taken`` (sorted, none overlapping).

    Of the spans starting before ``end``, the last one also ends last: only it can reach
    past ``start``.
    """
    before = bisect.bisect_left(taken, (end, end))
    return before > 0 and taken[before - 1][1] > start


PROTECTED_KINDS: frozenset[SpanKind] = frozenset({"identifier", "date"})
"""Span kinds that summaries must carry verbatim and never drop."""


def has_protected(text: str) -> bool:
    """True when ``text`` carries an identifier or a date."""
    return bool(find_spans(text, PROTECTED_KINDS))


def mask_spans(text: str) -> str:
    """``text`` with every typed span replaced by " | ", so keyword rules skip identifiers.

    >>> mask_spans("Order ORD-7 ships on July 8, 2026")
    'Order  |  ships on  | '
    """
    pieces: list[str] = []
    cursor = 0
    for span in find_spans(text):
        pieces.extend([text[cursor : span.start], " | "])
        cursor = span.end
    pieces.append(text[cursor:])
    return "".join(pieces)
