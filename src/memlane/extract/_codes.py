"""Identifiers recognized by their shape: order ids, tracking numbers, accounts, references.

A *code* is a run of Latin letters and digits, its parts joined by ``-``, ``.``, ``/`` or a
space, that holds digits: ``ORD-20261015-88``, ``K31-560-X-B``, ``1ZMN27S41824478472``,
``RK819227791GB``, ``4901324785738428262``, ``5399 0916 2599``, ``JDVD 4854 4985 048``,
``zhangting_1954``. It is taken whole, never cut at a separator. Spaces join parts only
where people group an id for reading: digit groups, a short letter prefix before them
("M 604940", "sf 8664 …", "JDVD 4854 4985 …") and a short upper-case suffix after them
("… 2779 3 GB"), so "order 12345678 is" and "UPS 1Z…" stay apart.

Without a cue word before it, a code needs at least nine digits, or letters and at least
three digits, so prices, dates, versions and model names ("COVID-19", "1080p") are not
codes. After a cue (订单号, 快递, 会员号, 工单, order, tracking, account, booking …) two digits,
or one in six characters ("UPDQQ8"), are enough. The nearest cue also names the kind:
``order_id``, ``tracking``, ``account`` or ``reference``; without one, carrier shapes (SF…,
YT…, JT…, JD…, 1Z…, ``AB123456789GB``, 22 digits from 9) are tracking numbers and anything
else a reference.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import pairwise, takewhile

from memlane.extract._text import is_cjk
from memlane.extract.model import MentionKind
from memlane.lang import codes
from memlane.lang.codes import MONEY_AFTER as _MONEY_AFTER
from memlane.lang.codes import NOT_PREFIX as _NOT_PREFIX
from memlane.lang.codes import NOT_SUFFIX as _NOT_SUFFIX
from memlane.lang.codes import TRACKING_SHAPE as _TRACKING_SHAPE
from memlane.lang.codes import UNIT as _UNIT

__all__ = ["CUES", "Code", "cue_before", "find_codes"]

Span = tuple[int, int]

_TOKEN = re.compile(r"[A-Za-z0-9]+(?:_[A-Za-z0-9]+)*")
_DIGIT = re.compile(r"\d")
# Tokens joined by one separator or space: where a code may be (found by one C-level scan).
_RUN = re.compile(r"[A-Za-z0-9_]+(?:[-./ ][A-Za-z0-9_]+)*")
_TIGHT = frozenset("-./")
_CUE_REACH = 24
_CLAUSE_BREAKS = ",，。;；!?！？\n"
_DATE = re.compile(r"\d{4}([-/.])\d{1,2}\1\d{1,2}|\d{1,2}([-/.])\d{1,2}\2\d{2,4}|\d+\.\d+")
_SEPARATORS = re.compile(r"[\s\-./]")
CUES: dict[MentionKind, re.Pattern[str]] = {kind: cue for kind, cue in codes.CUES.items()}
"""Cue words (matched on lower-cased text) that name the kind of the code after them."""

_MONEY_BEFORE = frozenset("$¥€£")


@dataclass(frozen=True, slots=True)
class Code:
    """A code found in the text: where it is, its kind, and whether a cue word named it."""

    span: Span
    kind: MentionKind
    cued: bool


def find_codes(folded: str, lowered: str, blocked: list[Span]) -> list[Code]:
    """Codes in the folded text outside the ``blocked`` spans (``lowered``: its lower case)."""
    found: list[Code] = []
    if not _DIGIT.search(folded):
        return found
    text = _Text(folded, lowered)
    for chain in _chains(text, blocked):
        for start, end in _pieces(text, chain):
            code = _accept(lowered, start, end) if _DIGIT.search(folded, start, end) else None
            if code is not None:
                found.append(code)
    return found


@dataclass(frozen=True, slots=True)
class _Text:
    folded: str
    lowered: str

    def word(self, span: Span) -> str:
        return self.lowered[span[0] : span[1]]

    def written(self, span: Span) -> str:
        return self.folded[span[0] : span[1]]


def _tokens(text: _Text, blocked: list[Span]) -> Iterator[Span]:
    for run in _RUN.finditer(text.folded):
        if _DIGIT.search(run[0]):  # a run of words without a digit holds no code
            yield from _run_tokens(text, run.start(), run.end(), blocked)


def _run_tokens(text: _Text, begin: int, stop: int, blocked: list[Span]) -> Iterator[Span]:
    for match in _TOKEN.finditer(text.folded, begin, stop):
        start, end = match.span()
        if any(start < b_end and b_start < end for b_start, b_end in blocked):
            continue
        if _glued(text.folded, start - 1) or _glued(text.folded, end):
            continue  # part of a word in another script ("Müller42")
        yield start, end


def _glued(folded: str, index: int) -> bool:
    if index < 0 or index >= len(folded) or folded[index] < "\x80":
        return False
    char = folded[index]
    return char.isalnum() and not is_cjk(char)


def _chains(text: _Text, blocked: list[Span]) -> Iterator[list[Span]]:
    """Runs of tokens that may form one code, joined by a separator or one space."""
    chain: list[Span] = []
    for token in _tokens(text, blocked):
        if chain and _adjacent(text, chain[-1], token):
            chain.append(token)
            continue
        if chain:
            yield chain
        chain = [token]
    if chain:
        yield chain


def _adjacent(text: _Text, left: Span, right: Span) -> bool:
    gap = text.folded[left[1] : right[0]]
    return gap == " " or (len(gap) == 1 and gap in _TIGHT and text.word(left) not in _NOT_PREFIX)


def _pieces(text: _Text, chain: list[Span]) -> Iterator[Span]:
    """The codes a chain may hold: separators always join, spaces only as the rules say."""
    group_start = chain[0][0]
    for index in range(1, len(chain)):
        tight = text.folded[chain[index - 1][1] : chain[index][0]] != " "
        if not (tight or _space_joins(text, chain, index)):
            yield group_start, chain[index - 1][1]
            group_start = chain[index][0]
    yield group_start, chain[-1][1]


def _space_joins(text: _Text, chain: list[Span], index: int) -> bool:
    left, right = text.word(chain[index - 1]), text.word(chain[index])
    if left.isdigit() and right.isdigit():
        last = index + 1 == len(chain) or not text.word(chain[index + 1]).isdigit()
        return len(left) >= 3 and (len(right) >= 3 or last)
    if left.isalpha() and not right.isalpha():
        return _prefix(text, chain, index)
    if right.isalpha():  # "… 2779 3 GB", "K85 982 R", "k70 543 n"; not "100 RMB", "123 I"
        return not left.isalpha() and _suffix(text, chain, index)
    return not left.isalpha()


def _prefix(text: _Text, chain: list[Span], index: int) -> bool:
    """A letter-only word before digits ("M 604940", "sf 8664 …", "JDVD 4854 4985 …").

    Not a word such as "is" or "USPS"; three or four letters join one group of digits only
    if it is too short to be an id alone ("lyl 581107", not "abc 1234567890").
    """
    word = text.word(chain[index - 1])
    if word in _NOT_PREFIX or len(word) > 4:
        return False
    groups = list(takewhile(str.isdigit, (text.word(span) for span in chain[index:])))
    return len(word) <= 2 or len(groups) >= 2 or (len(groups) == 1 and 5 <= len(groups[0]) <= 8)


def _suffix(text: _Text, chain: list[Span], index: int) -> bool:
    """A short letter-only word after grouped digits, in the case of the id's own letters."""
    word, written = text.word(chain[index]), text.written(chain[index])
    if len(word) > 3 or written in _NOT_SUFFIX or index < 2:
        return False
    if text.word(chain[index - 2]).isalpha() and not _short_prefix(text, chain, index - 2):
        return False  # "order 123 X": one group is no grouped id; "po 57889 f" is one
    before = text.written(chain[index - 2]) + text.written(chain[index - 1])
    if word in _NOT_PREFIX:  # "a", "is": a word, unless the id has letters of its own
        return len(word) == 1 and written.isupper() and any(char.isupper() for char in before)
    return written.isupper() or any(char.islower() for char in before)


def _short_prefix(text: _Text, chain: list[Span], index: int) -> bool:
    """Letters that open a code before one long group of digits: "*po* 57889 f"."""
    word = text.word(chain[index])
    following = text.word(chain[index + 1])
    return (
        len(word) <= 2 and word not in _NOT_PREFIX and following.isdigit() and len(following) >= 4
    )


def _accept(lowered: str, start: int, end: int) -> Code | None:
    text = lowered[start:end]
    digits = sum(char.isdigit() for char in text)
    size = digits + sum(char.isalpha() for char in text)
    if digits == 0 or (size < 6 and (digits < 2 or size < 4)):
        return None  # too short to be a code even after a cue ("9", "30am", "M-1")
    if _DATE.fullmatch(text) or _UNIT.fullmatch(text) or _money(lowered, start, end):
        return None
    tracking = _TRACKING_SHAPE.fullmatch(_SEPARATORS.sub("", text)) is not None
    kind = cue_before(lowered, start)
    if kind is not None:
        return Code((start, end), "tracking" if tracking and kind != "account" else kind, True)
    letters = size - digits
    mixed = letters and ((digits >= 3 and size >= 5) or _alternating(text))
    if digits >= 9 or mixed:
        return Code((start, end), "tracking" if tracking else "reference", False)
    return None


def _alternating(text: str) -> bool:
    """Letters and digits changing places three times in six characters or more ("zd3eq7")."""
    kinds = [char.isdigit() for char in text if char.isalnum()]
    changes = sum(1 for left, right in pairwise(kinds) if left != right)
    return len(kinds) >= 6 and changes >= 3


def _money(lowered: str, start: int, end: int) -> bool:
    return (start > 0 and lowered[start - 1] in _MONEY_BEFORE) or bool(
        _MONEY_AFTER.match(lowered, end)
    )


def cue_before(lowered: str, start: int) -> MentionKind | None:
    """The kind the nearest cue word before ``start``, in the same clause, names."""
    window = lowered[max(0, start - _CUE_REACH) : start]
    window = window[max(window.rfind(char) for char in _CLAUSE_BREAKS) + 1 :]
    best: tuple[int, int, MentionKind] | None = None
    for kind, pattern in CUES.items():
        for match in pattern.finditer(window):
            rank = (match.end(), -match.start(), kind)
            if best is None or rank[:2] > best[:2]:
                best = rank
    return None if best is None else best[2]
