"""Text helpers shared by the rule-based extractors: width folding, numbers, segmentation.

Every matcher runs on *folded* text: full-width ASCII (``１２３``, ``：``, ``？``) becomes its
half-width form and curly quotes become straight ones. Folding maps one code point to one code
point, so every span found in the folded text is also a span of the original text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memlane.lang.numbers import CN_DIGITS as _CN_DIGITS
from memlane.lang.numbers import CN_LARGE_UNITS as _CN_LARGE_UNITS
from memlane.lang.numbers import CN_SMALL_UNITS as _CN_SMALL_UNITS
from memlane.lang.numbers import EN_NUMBERS
from memlane.lang.script import EMOJI_RANGES
from memlane.lang.script import gate as gate
from memlane.lang.script import is_cjk as lang_is_cjk
from memlane.pacing import pause

_FOLD_SPECIAL = {
    "\u3000": " ",  # ideographic space
    "\u2018": "'",
    "\u2019": "'",
    "\u201c": '"',
    "\u201d": '"',
    "\uffe5": "\u00a5",  # full-width yen sign, as typed on Chinese keyboards
}
_TO_FOLD = re.compile("[\uff01-\uff5e\u3000\u2018\u2019\u201c\u201d\uffe5]+")


# A sentence ends at CJK or ASCII terminal punctuation, a line break, an emoji, or a period
# followed by space (so "3.5", "a.b@c.com" and "www.x.com" do not end one).
_SENTENCE_END = re.compile(rf"[。!?\n…{EMOJI_RANGES}]+|\.(?=\s|$)")
# Clauses split at commas and semicolons, except a comma between digits ("1,200").
_CLAUSE_END = re.compile(r"[;、]|(?<!\d),|,(?!\d)")


def fold(text: str) -> str:
    """Return ``text`` with full-width ASCII folded to half width (same length).

    >>> fold("订单号：ＯＲＤ－１２３")
    '订单号:ORD-123'
    """
    # A substitution touches only the few characters to fold; str.translate would look up
    # every character of the text in a table.
    return _TO_FOLD.sub(_fold_run, text)


def _fold_run(match: re.Match[str]) -> str:
    return "".join(_FOLD_SPECIAL.get(char) or chr(ord(char) - 0xFEE0) for char in match[0])


def lower_ascii(text: str) -> str:
    """Lower-case ``text`` keeping every character where it was.

    English patterns run on this copy instead of using ``re.IGNORECASE``, which is about
    twice as slow. ``str.lower`` is used whenever it keeps the length (it may not: "İ"
    lowers to two code points); then each character maps to one.
    """
    lowered = text.lower()
    if len(lowered) == len(text):
        return lowered
    return "".join(char if len(char.lower()) != 1 else char.lower() for char in text)


def parse_number(text: str) -> int | None:
    """Parse a non-negative integer in ASCII digits, Chinese numerals or a small English word.

    >>> parse_number("二十三"), parse_number("两"), parse_number("12"), parse_number("two")
    (23, 2, 12, 2)
    """
    word = EN_NUMBERS.get(text.lower())
    if word is not None:
        return word
    if text.isascii():
        return int(text) if text.isdigit() else None
    total = section = number = 0
    seen = False
    for char in text:
        if char.isascii() and char.isdigit():
            number = number * 10 + int(char)
        elif char in _CN_DIGITS:
            number = number * 10 + _CN_DIGITS[char]
        elif char in _CN_SMALL_UNITS:
            section += (number or 1) * _CN_SMALL_UNITS[char]
            number = 0
        elif char in _CN_LARGE_UNITS:
            total += (section + number or 1) * _CN_LARGE_UNITS[char]
            section = number = 0
        else:
            return None
        seen = True
    return total + section + number if seen else None


@dataclass(frozen=True, slots=True)
class Sentence:
    """A sentence of the folded text, the clauses it splits into, and what ended it."""

    start: int
    end: int
    clauses: tuple[tuple[int, int], ...]
    terminator: str = ""


def sentences(text: str) -> list[Sentence]:
    """Split ``text`` into sentences and clauses, trimming surrounding white space."""
    result: list[Sentence] = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        pause()
        _add_sentence(text, start, match.start(), result, match[0])
        start = match.end()
    _add_sentence(text, start, len(text), result, "")
    return result


def _add_sentence(text: str, start: int, end: int, into: list[Sentence], terminator: str) -> None:
    span = _trim(text, start, end)
    if span is None:
        return
    clauses: list[tuple[int, int]] = []
    clause_start = span[0]
    for match in _CLAUSE_END.finditer(text, span[0], span[1]):
        _add_clause(text, clause_start, match.start(), clauses)
        clause_start = match.end()
    _add_clause(text, clause_start, span[1], clauses)
    into.append(Sentence(span[0], span[1], tuple(clauses), terminator))


def _add_clause(text: str, start: int, end: int, into: list[tuple[int, int]]) -> None:
    span = _trim(text, start, end)
    if span is not None:
        into.append(span)


def _trim(text: str, start: int, end: int) -> tuple[int, int] | None:
    piece = text[start:end]
    stripped = piece.lstrip()
    if not stripped:
        return None
    start += len(piece) - len(stripped)
    return start, start + len(stripped.rstrip())


def without_spans(text: str, start: int, end: int, spans: list[tuple[int, int]]) -> str:
    """Return ``text[start:end]`` with the given spans (sorted, non-overlapping) cut out."""
    pieces: list[str] = []
    cursor = start
    for span_start, span_end in spans:
        if span_end <= cursor or span_start >= end:
            continue
        pieces.append(text[cursor : max(cursor, span_start)])
        cursor = max(cursor, span_end)
    pieces.append(text[cursor:end] if cursor < end else "")
    return " ".join(pieces)


def is_cjk(char: str) -> bool:
    """True for a CJK ideograph (see :func:`memlane.lang.is_cjk`)."""
    return lang_is_cjk(char)
