"""Typed spans that must survive verbatim: identifiers, dates, amounts, quantities, numbers."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Literal

from memlane.lang import measures
from memlane.lang.measures import CURRENCY_WORD as _CURRENCY_WORD
from memlane.lang.measures import MONTH_NAME as _MONTH
from memlane.lang.measures import ORDINAL as _ORD
from memlane.lang.measures import UNIT as _UNIT
from memlane.pacing import pause

SpanKind = Literal["identifier", "date", "amount", "quantity", "number"]


_NUM = r"\d+(?:[.,]\d+)*"
_NUM_START = r"(?<!\d)(?<!\d[.,])"  # where a number starts, not inside one ("1.5": at "1")
# Where an identifier of letters and digits starts and ends: not inside a run of ASCII letters,
# digits, "_" or "-". A Chinese character is no part of one ("订单号DD202577724821").
_ID_START = r"(?<![A-Za-z0-9_-])"
_ID_END = r"(?![A-Za-z0-9_-])"

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
            rf"|{measures.ZH_DATE}"
            r"|(?<!\d)\d{1,2}[:：]\d{2}(?::\d{2})?(?:\s?[apAP]\.?[mM]\.?)?(?![\d:])"
            r"|(?<![\d.])\d{1,2}\s?[apAP]\.?[mM]\.?(?![A-Za-z])"
            rf"|\b{_MONTH}\s+\d{{1,2}}{_ORD}(?:,?\s+\d{{4}})?\b"
            rf"|\b\d{{1,2}}{_ORD}\s+(?:of\s+)?{_MONTH}(?:,?\s+\d{{4}})?"
            rf"|\b{_MONTH},?\s+\d{{4}}\b"
            r"|(?<![\d.,])(?:19|20)\d{2}(?!\d|[.,]\d|[A-Za-z]|\s*"
            rf"{measures.NOT_A_YEAR_BEFORE})"
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
            rf"|{_ID_START}(?=[A-Za-z0-9_-]*\d)(?=[A-Za-z0-9_-]*[A-Za-z])"
            rf"[A-Za-z0-9]+(?:[-_][A-Za-z0-9]+)*{_ID_END}"
        ),
    ),
    (
        "amount",
        re.compile(
            rf"[$€£¥￥]\s?{_NUM}(?:\s?{measures.AMOUNT_MULTIPLIER})?"
            rf"|(?:RMB|USD|CNY|EUR|GBP|HKD)\s?{_NUM}"
            rf"|{_NUM_START}{_NUM}\s?{measures.ZH_MULTIPLIER}?\s?{_CURRENCY_WORD}(?![A-Za-z])"
        ),
    ),
    ("quantity", re.compile(rf"{_NUM_START}{_NUM}\s?{_UNIT}(?![A-Za-z])")),
    ("number", re.compile(rf"'?\d+(?:[.,]\d+)*{measures.NUMBER_END}")),
)
# Alphanumeric runs the identifier rule would otherwise claim: ordinals, decades, "5K",
# "10am", "3x", "mp3"-like unit suffixes.
_NOT_IDENTIFIER = re.compile(
    rf"\d+{measures.NUMBER_SUFFIX}|\d+{_UNIT}|[A-Za-z]{{1,2}}\d|\d[A-Za-z]"
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
            pause()  # a long text's matches: a write lets requests go first (memlane.pacing)
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
