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

import hashlib
import re
from dataclasses import dataclass

from memlane.lang import speaker, zh
from memlane.lang.frames import relation_frame
from memlane.lang.grammar import JOINERS as _JOINERS
from memlane.lang.script import UNSPACED_RANGES, fold
from memlane.lang.sentences import NUMBERING as _NUMBERING
from memlane.lang.words import tells_episode
from memlane.memo import per_process

MIN_FRAME_SHARE = 0.5
"""The shared frame is at least this share of the longer statement."""
MIN_PREFIX_CHARS = 2
"""The frame starts with at least this many shared characters (the slot's holder)."""
MIN_FRAME_CHARS = 8
"""The shared frame holds at least this many characters that are not spaces: "that's great"
and "that's awesome" share too little to be one slot, "星钧医药共有…名员工" enough."""
MAX_VALUE_CHARS = 60

_BREAKERS = "。；;！!？?\n"
_CLAUSE_BREAK = re.compile(rf"[{_BREAKERS}]+|[.](?=\s|$)")
_MAY_BREAK = re.compile(rf"[{_BREAKERS}.]")
"""Any character :data:`_CLAUSE_BREAK` may break at: a text without one is one piece."""
_DIGIT = re.compile(r"\d")
_EDGE_PUNCT = " \t\"'“”‘’「」『』《》()（）[]【】,，、:：-—"


SPEAKER_LABEL = speaker.SPEAKER_LABEL
"""The label after a speaker's name that notes start with ("说：", " said:"); in
:mod:`memlane.lang.speaker`, beside the pattern of the name and label together."""


@dataclass(frozen=True, slots=True)
class Restatement:
    """Two statements of one slot: the frame they share and the two values."""

    frame: str
    values: tuple[str, str]


@per_process
def clauses(text: str, speaker: str = "") -> tuple[str, ...]:
    """The clauses of a statement, normalized for comparing frames.

    NFKC, case-folded, without numbering and without the speaker label notes start with
    ("U-001说：", "U-001 said:").
    """
    folded, label = fold(text), fold(speaker)
    found = []
    pieces = _CLAUSE_BREAK.split(folded) if _MAY_BREAK.search(folded) else [folded]
    for piece in pieces:
        clause = piece.lstrip()
        if label and clause.startswith(label):
            clause = SPEAKER_LABEL.sub("", clause[len(label) :])
        clause = strip_numbering(clause)
        clause = " ".join(clause.split()).strip(_EDGE_PUNCT)
        if clause:
            found.append(clause)
    return tuple(found)


def strip_numbering(text: str) -> str:
    """``text`` without the numbering in front of it ("22、", "(3) ", "Fact 12: ").

    Every numbering holds a number: a text without a digit is left as it is, untried (the
    refilling walk splits hundreds of notes a recall that no recall split before).
    """
    if _DIGIT.search(text) is None:
        return text
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


FILED_SHARE = 1 / 8
"""A clause is filed under its heads and tails at least this share of it long (see
:func:`slot_keys`); the clauses that may restate it are at most twice as long, so each files
every head and tail of a quarter of this clause or more, the lengths it probes."""
PROBED_SHARE = 1 / 4
"""A clause probes its heads and tails at least this share of it long: the head or the tail
that two clauses of one slot share is that long (see :func:`probe_chains`)."""


@per_process
def slot_keys(clause: str) -> tuple[str, ...]:
    """The keys a clause is filed under: each says "the frame holds this much of it".

    Two clauses of one slot (:func:`restates`) share a head and a tail, cut at word edges,
    that together make at least half of the longer one, so one of the two is at least a
    quarter of either clause. A clause is filed under every head and every tail it holds
    that is cut at a word edge (:func:`word_cuts`) and at least :data:`FILED_SHARE` of it
    long (a tail joined to the clause's :func:`slot_opening`, which both share): the head or
    tail a re-filling clause shares with it is one of them, whatever its length — the slot's
    *masked-value* key ("the chair of the kalo club is …"). A head holding the entity of a
    frame is shared by the statements of that one slot, not by every statement of the frame,
    so the latest filings of the key hold the slot's latest re-fill
    (:data:`memlane.router.refilling.RECENT_FILINGS`). Stored as a digest of the head or tail
    (:func:`masked_key`): a key row stays short however long the clause. A clause too short
    to hold a frame (:data:`MIN_FRAME_CHARS`) has none.

    >>> [key[0] for key in slot_keys("my team is arsenal")]
    ['h', 'h', 'h', 't', 't', 't']
    >>> shared = set(slot_keys("the chair of the kalo club is ada moss")) & set(
    ...     slot_keys("the chair of the kalo club is ben ode"))
    >>> masked_key("h", "the chair of the kalo club is") in shared
    True
    """
    heads, tails = _sides(clause, FILED_SHARE)
    return heads + tails


@per_process
def probe_chains(clause: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The keys whose latest clauses are read to judge ``clause``: its heads, then its tails.

    Each of the two shortest first, from :data:`PROBED_SHARE` of the clause. Every clause that
    re-fills ``clause`` is filed under one of them (the head or tail the two share), and under
    every shorter one of the same chain: so when the latest filings of a key are all of its
    filings, the longer keys of its chain hold nothing more
    (:meth:`memlane.router.refilling.RefillWalk.prepare`).

    >>> heads, tails = probe_chains("my team is arsenal")
    >>> len(heads), len(tails), set(heads + tails) <= set(slot_keys("my team is arsenal"))
    (2, 3, True)
    """
    return _sides(clause, PROBED_SHARE)


def slot_probes(clause: str) -> tuple[str, ...]:
    """Every key of :func:`probe_chains`: one of them files each clause re-filling ``clause``.

    >>> set(slot_probes("my team is arsenal")) <= set(slot_keys("my team is arsenal"))
    True
    """
    heads, tails = probe_chains(clause)
    return heads + tails


def _sides(clause: str, share: float) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The keys of the heads and of the tails of ``clause`` at least ``share`` of it long."""
    if sum(not char.isspace() for char in clause) < MIN_FRAME_CHARS:
        return (), ()  # the frame (taken before it is widened to whole words) does not fit
    least = share * len(clause)
    cuts = word_cuts(clause)
    heads = dict.fromkeys(clause[:cut].rstrip() for cut in cuts if cut >= least)
    tails = dict.fromkeys(
        clause[cut:].lstrip() for cut in reversed(cuts) if len(clause) - cut >= least
    )
    opening = slot_opening(clause)
    return (
        tuple(masked_key("h", head) for head in heads if head),
        tuple(masked_key("t", f"{opening}|{tail}") for tail in tails if tail),
    )


def word_cuts(clause: str) -> tuple[int, ...]:
    """Where a clause may be cut without splitting a Latin word or a number.

    Between any two characters of unspaced text (Chinese has no spaces to cut at), on each
    side of a space or a punctuation mark: where :func:`restates` may end a frame's head or
    begin its tail.

    >>> word_cuts("my team")
    (2, 3)
    """
    word = _WORDISH
    return tuple(
        cut
        for cut in range(1, len(clause))
        if clause[cut - 1] not in word or clause[cut] not in word
    )


def masked_key(side: str, frame: str) -> str:
    """The stored key of a clause's head (``"h"``) or tail (``"t"``): a short digest of it.

    >>> masked_key("h", "my team is") == masked_key("h", "my team is")
    True
    """
    return side + hashlib.blake2b(frame.encode(), digest_size=8).hexdigest()


def restates(old: str, new: str, *, asked: str = "") -> Restatement | None:
    """The slot ``old`` and ``new`` (normalized clauses) share, if ``new`` re-fills it.

    ``None`` when they say the same, differ in more than one span, share too little, differ
    only where ``asked`` (the folded question) names something, when the frame tells an
    episode rather than a state (both then hold: two photos shared, two places visited), or
    when each fills a relation's frame for another relation of one holder.
    """
    longest = max(len(old), len(new))
    if old == new or min(len(old), len(new)) < MIN_FRAME_SHARE * longest:
        return None  # the frame both share can be no longer than the shorter one
    prefix = _common_prefix(old, new)
    if prefix < MIN_PREFIX_CHARS:
        return None
    suffix = _common_suffix(old, new, prefix)
    if prefix + suffix < MIN_FRAME_SHARE * longest:
        return None  # widening to whole words below only shrinks the frame
    frame_chars = old[:prefix] + old[len(old) - suffix :]
    if len(frame_chars) - sum(map(str.isspace, frame_chars)) < MIN_FRAME_CHARS:
        return None
    prefix, suffix = _word_edges(old, new, prefix, suffix)
    if prefix < MIN_PREFIX_CHARS or len(old[:prefix].strip()) < MIN_PREFIX_CHARS:
        return None
    if prefix + suffix < MIN_FRAME_SHARE * longest:
        return None  # the whole words left share too little (tested before the values')
    old_value = old[prefix : len(old) - suffix].strip(_EDGE_PUNCT)
    new_value = new[prefix : len(new) - suffix].strip(_EDGE_PUNCT)
    if not old_value or not new_value:
        return None  # one only adds a word ("is now"): the same value again
    if max(len(old_value), len(new_value)) > MAX_VALUE_CHARS:
        return None
    if _pieces(old_value) & _pieces(new_value) and not _quoted(old, prefix, suffix):
        return None  # a piece both spans hold splits them: they differ in two places
    frame = f"{old[:prefix]}…{old[len(old) - suffix :]}"
    if tells_episode(frame) or _other_relations(old, new):
        return None  # an episode; or "X的年费是…" and "X的会长是…", two relations of X
    found = Restatement(frame, (old_value, new_value))
    if names_value(asked, found):
        return None  # the question names this span: it is what is asked about, not a value
    return found


def names_value(asked: str, found: Restatement) -> bool:
    """Whether ``asked`` (the folded question) names one of the values of ``found``.

    The one part of :func:`restates` that depends on the question: ``restates(old, new,
    asked=asked)`` is ``restates(old, new)`` unless this holds of it.

    >>> names_value("who chairs the kalo club now that ada moss left?", Restatement(
    ...     "the chair of the kalo club is …", ("ada moss", "ben ode")))
    True
    """
    return bool(asked) and _asked_about(asked, *found.values)


_OPENING_QUOTES = "\"“‘「『《'"
_CLOSING_QUOTES = "\"”’」』》'"


def _quoted(old: str, prefix: int, suffix: int) -> bool:
    """Whether the span that differs is a quotation the frame opens and closes.

    A quoted value is one value, whatever words two of them share: "The motto of X is
    *"Light through labour"*" and "…*"Onward through the fog"*" re-fill one slot. A clause
    may have lost the closing quote with its final punctuation: the quotation then runs to
    its end.
    """
    before, after = old[:prefix].rstrip(), old[len(old) - suffix :].lstrip()
    opened = bool(before) and before[-1] in _OPENING_QUOTES
    return opened and (not after or after[0] in _CLOSING_QUOTES)


def _other_relations(old: str, new: str) -> bool:
    """Whether both fill a relation's frame, each for another relation of one holder.

    In Chinese the holder comes first and the relation is the one word between 的 and 是
    ("苇洲骑行俱乐部的*年费*是1246元", "…的*会长*是柳清和"): what differs then holds the
    relation too, and no piece of it is shared.
    """
    first, second = relation_frame(old), relation_frame(new)
    return (
        first is not None
        and second is not None
        and first.holder == second.holder
        and first.relation != second.relation
    )


_PIECES = re.compile(rf"([{UNSPACED_RANGES}]+)|(\d[\d,.:]*\d|\d|[^\W\d_{UNSPACED_RANGES}]{{2,}})")
"""A run of unspaced text, or else a number or a word (letters only) of another script."""


@per_process
def _pieces(span: str) -> frozenset[str]:
    """Its content words and numbers, and the pairs of content characters of unspaced text.

    Two spans that share one differ in two places around it: "orrby bridge is 3.85" and
    "vaskmere bridge is 7.85" name another bridge *and* another toll, "蘅塘岛的首班渡轮早上5点"
    and "砚汀岛的首班渡轮早上8点" another island and another time: not one slot. Grammar
    characters (:data:`memlane.lang.zh.FUNCTION_CHARACTERS`, all of unspaced scripts) hold no
    content: a pair holding one is left out. Kept for the process (a function of the span
    alone): a judged clause's span recurs against each of the ~20 filings it is held against.

    >>> sorted(_pieces("the 3.85 toll of 蘅塘岛的"))
    ['3.85', 'toll', '塘岛', '蘅塘']
    """
    found: set[str] = set()
    grammar = zh.FUNCTION_CHARACTERS
    for unspaced, other in _PIECES.findall(span):
        if unspaced:
            found.update(
                unspaced[i : i + 2]
                for i in range(len(unspaced) - 1)
                if unspaced[i] not in grammar and unspaced[i + 1] not in grammar
            )
        elif other not in _JOINERS:
            found.add(other)
    return frozenset(found)


def _asked_about(asked: str, *spans: str) -> bool:
    """Whether the question names one of the spans."""
    return any(span in asked for span in spans)


def _common_prefix(first: str, second: str) -> int:
    """How many characters ``first`` and ``second`` open with alike.

    By halving the span still in doubt, each half compared as a slice (in C, not a loop
    over characters): ~200 clauses are compared per recall, each ~80 characters long.

    >>> _common_prefix("my team is arsenal", "my team is chelsea"), _common_prefix("ab", "ab")
    (11, 2)
    """
    size = min(len(first), len(second))
    if first[:size] == second[:size]:
        return size
    alike, differs = 0, size  # the first ``alike`` are alike; one of those before ``differs`` not
    while differs - alike > 1:
        middle = (alike + differs) // 2
        if first[alike:middle] == second[alike:middle]:
            alike = middle
        else:
            differs = middle
    return alike


def _common_suffix(first: str, second: str, start: int) -> int:
    """How many characters ``first[start:]`` and ``second[start:]`` end with alike.

    >>> _common_suffix("my team is arsenal", "my team is chelsea", 11), _common_suffix("ab", "b", 0)
    (0, 1)
    """
    end_first, end_second = len(first), len(second)
    size = min(end_first, end_second) - start
    if first[end_first - size :] == second[end_second - size :]:
        return size
    alike, differs = 0, size  # as in :func:`_common_prefix`, counted from the ends
    while differs - alike > 1:
        middle = (alike + differs) // 2
        if (
            first[end_first - middle : end_first - alike]
            == second[end_second - middle : end_second - alike]
        ):
            alike = middle
        else:
            differs = middle
    return alike


def _word_edges(old: str, new: str, prefix: int, suffix: int) -> tuple[int, int]:
    """Widen the differing span to whole Latin words and digit runs ("9:30" vs "9:45").

    In both clauses: "price 95" against "price 9" differ in the whole number, not in "5"
    against nothing, so a frame always ends and begins at a :func:`word_cuts` of each (where
    :func:`slot_keys` files it).
    """
    while prefix > 0 and (_joins(old, prefix) or _joins(new, prefix)):
        prefix -= 1
    while suffix > 0 and (_joins(old, len(old) - suffix) or _joins(new, len(new) - suffix)):
        suffix -= 1
    return prefix, suffix


def _joins(text: str, cut: int) -> bool:
    """True if a cut before ``text[cut]`` would split a Latin word or a number."""
    return 0 < cut < len(text) and text[cut - 1] in _WORDISH and text[cut] in _WORDISH


_WORDISH = frozenset("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
"""The characters a Latin word or a number is made of (``isascii() and isalnum()``): a set,
since :func:`word_cuts` and :func:`restates` test one pair per character of a clause."""
