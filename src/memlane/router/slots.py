"""Slots: a later statement that repeats an earlier one but for its value supersedes it.

A statement reduces to a slot and a value: "The chairperson of the Tidewater Club is Ada
Moss." has the *frame* "the chairperson of the tidewater club is …" and the value "ada
moss". No list of relations is needed to find the frame: when a later statement of the
same subject repeats an earlier one word for word except for one span, both fill the same
slot, and the later value replaces the earlier one — for relations memlane has never seen.

The frame must carry most of the statement (:data:`MIN_FRAME_SHARE`) and start with shared
words (:data:`MIN_PREFIX_CHARS`), so two statements about different things that happen to
share a value ("A's head office is in Lyon", "B's head office is in Lyon") are not one
slot; a differing span the question itself names (the entity asked about) is never taken
for a value either. Only a frame that says how things are holds a slot: one that tells what
happened ("Mel said: [shared a photo of …]", "we painted …") is an episode, and a later
episode of the same shape adds to it, never replaces it (:func:`memlane.lang.tells_episode`).

>>> old, new = clauses("Fact 2: The chair of the Tidewater Club is Ada Moss."), clauses(
...     "U-1 said: (9) The chair of the Tidewater Club is Ben Ode.", speaker="U-1")
>>> restates(old[0], new[0]).values
('ada moss', 'ben ode')
>>> restates("ada moss chairs the tidewater club", "ben ode chairs the tidewater club")
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from memlane.lang import speaker, zh
from memlane.lang.grammar import JOINERS as _JOINERS
from memlane.lang.script import UNSPACED_RANGES, fold
from memlane.lang.sentences import NUMBERING as _NUMBERING
from memlane.lang.words import tells_episode

MIN_FRAME_SHARE = 0.5
"""The shared frame is at least this share of the longer statement."""
MIN_PREFIX_CHARS = 2
"""The frame starts with at least this many shared characters (the slot's holder)."""
MIN_FRAME_CHARS = 8
"""The shared frame holds at least this many characters that are not spaces: "that's great"
and "that's awesome" share too little to be one slot, "星钧医药共有…名员工" enough."""
MAX_VALUE_CHARS = 60

_CLAUSE_BREAK = re.compile(r"[。；;！!？?\n]+|[.](?=\s|$)")
_EDGE_PUNCT = " \t\"'“”‘’「」『』《》()（）[]【】,，、:：-—"


SPEAKER_LABEL = speaker.SPEAKER_LABEL
"""The label after a speaker's name that notes start with ("说：", " said:"); in
:mod:`memlane.lang.speaker`, beside the pattern of the name and label together."""


@dataclass(frozen=True, slots=True)
class Restatement:
    """Two statements of one slot: the frame they share and the two values."""

    frame: str
    values: tuple[str, str]


@lru_cache(maxsize=32_768)
def clauses(text: str, speaker: str = "") -> tuple[str, ...]:
    """The clauses of a statement, normalized for comparing frames.

    NFKC, case-folded, without numbering and without the speaker label notes start with
    ("U-001说：", "U-001 said:").
    """
    folded, label = fold(text), fold(speaker)
    found = []
    for piece in _CLAUSE_BREAK.split(folded):
        clause = piece.lstrip()
        if label and clause.startswith(label):
            clause = SPEAKER_LABEL.sub("", clause[len(label) :])
        clause = strip_numbering(clause)
        clause = " ".join(clause.split()).strip(_EDGE_PUNCT)
        if clause:
            found.append(clause)
    return tuple(found)


def strip_numbering(text: str) -> str:
    """``text`` without the numbering in front of it ("22、", "(3) ", "Fact 12: ")."""
    return _NUMBERING.sub("", text)


def slot_opening(clause: str) -> str:
    """What two clauses of one slot must open with: up to their second non-space character.

    That is "i w" of "i went …" and "th" of "the mayor …" (see :data:`MIN_PREFIX_CHARS`).
    Clauses that open differently never restate each other, so this buckets the candidates.
    """
    seen = 0
    for index, char in enumerate(clause):
        seen += not char.isspace()
        if seen == MIN_PREFIX_CHARS:
            return clause[: index + 1]
    return clause


SLOT_KEY_SPANS = (1, 2, 4, 8, 16, 32, 64)
"""The lengths of the heads and tails a clause is filed under (see :func:`slot_keys`)."""


@lru_cache(maxsize=32_768)
def slot_keys(clause: str) -> tuple[str, ...]:
    """The keys a clause is filed under, so that the clauses that may restate one are found.

    A clause is filed under its opening joined to its head, and to its tail, of every length
    in :data:`SLOT_KEY_SPANS` it holds; :func:`slot_probes` asks for one length that every
    clause restating the probe shares.

    >>> keys = slot_keys("my team is arsenal")
    >>> len(keys), keys[4:6]
    (10, ('h4:my t', 't4:my|enal'))
    """
    opening = slot_opening(clause)
    keys: list[str] = []
    for span in SLOT_KEY_SPANS:
        if span > len(clause):
            break
        keys += _slot_pair(clause, opening, span)
    return tuple(keys)


@lru_cache(maxsize=32_768)
def slot_probes(clause: str) -> tuple[str, ...]:
    """The keys of :func:`slot_keys` that every clause :func:`restates` ``clause`` holds.

    :func:`restates` needs the frame (a shared head plus a shared tail) to be at least half
    of the longer clause, so the shared head or tail is at least a quarter of ``clause``; the
    span asked for is the longest of :data:`SLOT_KEY_SPANS` within that quarter (the other
    clause, at least half as long, files it). A clause too short to hold a frame has none.

    >>> slot_probes("my team is arsenal")
    ('h4:my t', 't4:my|enal')
    """
    if sum(not char.isspace() for char in clause) < MIN_FRAME_CHARS:
        return ()  # the frame (taken before it is widened to whole words) does not fit
    span = max(s for s in SLOT_KEY_SPANS if s == 1 or s <= len(clause) / 4)
    return _slot_pair(clause, slot_opening(clause), span)


@lru_cache(maxsize=32_768)
def recent_probes(clause: str) -> tuple[str, ...]:
    """The keys whose latest clauses are read to judge ``clause``: probes, longest last.

    Its :func:`slot_probes`, which every clause re-filling it holds, then the longer heads
    and tails it is filed under (:func:`slot_keys`). Only the latest few clauses of each key
    are read (:data:`memlane.router.refilling.RECENT_FILINGS`): a short probe ("the chai")
    is shared by every statement of a frame, a longer one ("the chair of the tidewater c")
    by the statements of one slot, so a re-fill said long ago is still among the latest of
    the longest key both clauses share.

    >>> recent_probes("my team is arsenal")[2:]
    ('h8:my team ', 't8:my| arsenal', 'h16:my team is arsen', 't16:my| team is arsenal')
    """
    probes = slot_probes(clause)
    if not probes:
        return ()
    span = int(probes[0].split(":", 1)[0][1:])
    opening = slot_opening(clause)
    longer = (s for s in SLOT_KEY_SPANS if span < s <= len(clause))
    return probes + tuple(key for s in longer for key in _slot_pair(clause, opening, s))


def _slot_pair(clause: str, opening: str, span: int) -> tuple[str, str]:
    head = clause[: max(span, len(opening))]
    return f"h{span}:{head}", f"t{span}:{opening}|{clause[-span:]}"


def restates(old: str, new: str, *, asked: str = "") -> Restatement | None:
    """The slot ``old`` and ``new`` (normalized clauses) share, if ``new`` re-fills it.

    ``None`` when they say the same, differ in more than one span, share too little, differ
    only where ``asked`` (the folded question) names something, or when the frame tells an
    episode rather than a state (both then hold: two photos shared, two places visited).
    """
    longest = max(len(old), len(new))
    if old == new or min(len(old), len(new)) < MIN_FRAME_SHARE * longest:
        return None  # the frame both share can be no longer than the shorter one
    prefix = _common_prefix(old, new)
    if prefix < MIN_PREFIX_CHARS:
        return None
    suffix = _common_prefix(old[prefix:][::-1], new[prefix:][::-1])
    if prefix + suffix < MIN_FRAME_SHARE * longest:
        return None  # widening to whole words below only shrinks the frame
    frame_chars = old[:prefix] + old[len(old) - suffix :]
    if sum(not char.isspace() for char in frame_chars) < MIN_FRAME_CHARS:
        return None
    prefix, suffix = _word_edges(old, new, prefix, suffix)
    old_value = old[prefix : len(old) - suffix].strip(_EDGE_PUNCT)
    new_value = new[prefix : len(new) - suffix].strip(_EDGE_PUNCT)
    if not old_value or not new_value:
        return None  # one only adds a word ("is now"): the same value again
    if max(len(old_value), len(new_value)) > MAX_VALUE_CHARS:
        return None
    if _pieces(old_value) & _pieces(new_value):
        return None  # a piece both spans hold splits them: they differ in two places
    if prefix < MIN_PREFIX_CHARS or len(old[:prefix].strip()) < MIN_PREFIX_CHARS:
        return None
    if prefix + suffix < MIN_FRAME_SHARE * max(len(old), len(new)):
        return None
    if asked and _asked_about(asked, old_value, new_value):
        return None  # the question names this span: it is what is asked about, not a value
    frame = f"{old[:prefix]}…{old[len(old) - suffix :]}"
    if tells_episode(frame):
        return None
    return Restatement(frame, (old_value, new_value))


_PIECES = re.compile(
    rf"(?P<unspaced>[{UNSPACED_RANGES}]+)|\d[\d,.:]*\d|\d|[^\W\d_{UNSPACED_RANGES}]{{2,}}"
)


def _pieces(span: str) -> set[str]:
    """Its content words and numbers, and the pairs of content characters of unspaced text.

    Two spans that share one differ in two places around it: "orrby bridge is 3.85" and
    "vaskmere bridge is 7.85" name another bridge *and* another toll, "蘅塘岛的首班渡轮早上5点"
    and "砚汀岛的首班渡轮早上8点" another island and another time: not one slot.
    """
    found: set[str] = set()
    for match in _PIECES.finditer(span):
        piece = match[0]
        if match["unspaced"]:
            found.update(piece[i : i + 2] for i in range(len(piece) - 1))
        elif piece not in _JOINERS:
            found.add(piece)
    return {piece for piece in found if not set(piece) & zh.FUNCTION_CHARACTERS}


def _asked_about(asked: str, *spans: str) -> bool:
    """Whether the question names one of the spans."""
    return any(span in asked for span in spans)


def _common_prefix(first: str, second: str) -> int:
    size = 0
    for a, b in zip(first, second, strict=False):
        if a != b:
            break
        size += 1
    return size


def _word_edges(old: str, new: str, prefix: int, suffix: int) -> tuple[int, int]:
    """Widen the differing span to whole Latin words and digit runs ("9:30" vs "9:45")."""
    while prefix > 0 and _joins(old, prefix) and _joins(new, prefix):
        prefix -= 1
    while suffix > 0 and _joins(old, len(old) - suffix) and _joins(new, len(new) - suffix):
        suffix -= 1
    return prefix, suffix


def _joins(text: str, cut: int) -> bool:
    """True if a cut before ``text[cut]`` would split a Latin word or a number."""
    if cut <= 0 or cut >= len(text):
        return False
    before, after = text[cut - 1], text[cut]
    return _wordish(before) and _wordish(after)


def _wordish(ch: str) -> bool:
    return ch.isascii() and ch.isalnum()
