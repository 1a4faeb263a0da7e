"""How well each recalled statement fits the question: the thing it names, the value it asks.

Similarity ranks statements by the words they share with the question. In a stream of
short statements about a few entities ("The mayor of Ravelby is …", "The population of
Ravelby is …"), every statement about the entity shares the same words, and one that names
a near-miss spelling ("岑湾学院" for "璟湾学院") shares nearly as many. Two structural
signals set them apart, with no list of relations:

* **topic** — the longest run of words (CJK: characters) a statement shares with the
  question: the entity the question writes out is named whole by the statements about it;
* **kind** — the question word asks for a kind of value ("who" a person, "how many" a
  number, "where" a place, "when" a time: :mod:`memlane.lang.kinds`); a statement holding a
  value of that kind fits, and one holding only other kinds does not answer "who";
* **relation** — the question asks the relation a statement gives in other words ("Who
  *trains* the Kestrels squad?" of "the head *coach* of the Kestrels is …", "谁负责*编*…" of
  "…的*主编*是…"): they share a sense of :mod:`memlane.lang.meanings`. Of the statements
  naming the thing asked about, those giving the relation asked come before its other
  relations, which share as many of its words. Only when a recalled statement fills a
  relation's frame for a holder the question names: a knowledge base, not a conversation.

All raise the score of summary-lane candidates (all of them then scaled back into [0, 1]),
which orders them within their tier; they never lift a stale item over a current one, nor a
note over an exact answer. A question that names nothing a statement names (no capitalized
word past its first, no run of three Chinese content characters) is left to retrieval.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime

from memlane.extract import find_identifiers, resolve_times
from memlane.lang import en, zh
from memlane.lang.frames import names_holder, relation_frame
from memlane.lang.kinds import TIME, asked_kind, fits, held_kinds, stem
from memlane.lang.meanings import senses
from memlane.lang.places import is_zh_place
from memlane.lang.script import CJK_RANGES, UNSPACED_RANGES, fold, is_cjk
from memlane.lang.speaker import EN_NAME_INSIDE as _NAME
from memlane.memo import per_process
from memlane.router.candidates import TIER_ASIDE, TIER_NOTE, Candidate
from memlane.router.slots import SPEAKER_LABEL, clauses, strip_numbering

TOPIC_BONUS = 0.2
"""Added in proportion to the words a candidate shares with the question, weighed by how few
of the candidates share each (relative to the candidate sharing most)."""
KIND_BONUS = 0.1
"""Added for a value of the kind asked (taken off for other kinds, when a person is asked)."""
RELATION_BONUS = 0.2
"""Added when a candidate gives a relation the question asks (a sense of
:mod:`memlane.lang.meanings` in common), in proportion to the senses shared (relative to the
candidate sharing most) and, like the others, to its topic."""

NAME_WEIGHT = 2.0
"""How much more a name the question writes out counts (a capitalized word past its first)."""

MIN_NAME_CHARS = 3
"""The shortest run of Chinese characters taken for a name."""

_ZH_PLACES_NAMED = re.compile(rf"(?=([{CJK_RANGES}]{{2}}))")
"""Every two Chinese characters in a row, overlapping: a well-known place among them is a name."""
_MOST = 1 + TOPIC_BONUS + KIND_BONUS + RELATION_BONUS
_GRAMMAR = "".join(sorted(zh.FUNCTION_CHARACTERS))
_CONTENT_RUN = re.compile(rf"(?:(?![{_GRAMMAR}])[{CJK_RANGES}]){{{MIN_NAME_CHARS},}}")
_TOKEN = re.compile(rf"[{UNSPACED_RANGES}]|[^\W\d_{UNSPACED_RANGES}]+|\d+")


def fitted(candidates: Sequence[Candidate], query: str) -> list[Candidate]:
    """``candidates`` with each summary-lane score raised by how well it fits ``query``."""
    asked = asked_kind(query)
    relations = senses(query)
    wanted = set(_stems(query))
    bodies = [_bodies(c) if c.item.lane == "summary" else [] for c in candidates]
    held = [[_stem_set(text) & wanted for text in texts] for texts in bodies]
    counts = Counter(stem for lines in held for stem in set().union(*lines))
    size = sum(1 for texts in bodies if texts)
    names = set(_stems(" ".join(_NAME.findall(query))))
    weight = {
        stem: math.log((size + 1) / (count + 0.5)) * (NAME_WEIGHT if stem in names else 1.0)
        for stem, count in counts.items()
    }
    topics = [max((sum(weight[s] for s in line) for line in lines), default=0.0) for lines in held]
    folded = [_folded(text) for texts in bodies for text in texts]
    name = _chinese_name(query, folded)
    words = [re.compile(rf"\b{re.escape(fold(found))}\b") for found in _NAME.findall(query)]
    names_held = any(_holds_name(text, name, words) for text in folded)
    best = max(topics, default=0.0) if names_held else 0.0
    if best <= 0:
        return list(candidates)
    if relations and not _names_framed_holder(query, bodies):
        relations = frozenset()
    # A statement's senses only matter for a relation asked: none, and every closeness is 0.
    closeness = [
        max((len(relations & senses(t)) for t in texts), default=0) if relations else 0
        for texts in bodies
    ]
    closest = max(closeness, default=0)
    fitted_ones: list[Candidate] = []
    for candidate, texts, topic, shared in zip(candidates, bodies, topics, closeness, strict=True):
        if not texts:
            fitted_ones.append(candidate)
            continue
        kind = max(fits(asked, held_kinds(text, query)) for text in texts)
        relation = shared / closest if closest else 0.0
        bonus = topic / best * (TOPIC_BONUS + KIND_BONUS * kind + RELATION_BONUS * relation)
        if not any(_holds_name(_folded(text), name, words) for text in texts):
            bonus = 0.0  # not about the thing the question names: its words fit by chance
        if name and all(misspells(name, _folded(text)) for text in texts):
            bonus = -TOPIC_BONUS  # "岑岭镇" for "溯岭镇": another thing, as an id one digit off
        score = max(0.0, candidate.item.score + bonus) / _MOST
        fitted_ones.append(replace(candidate, item=replace(candidate.item, score=score)))
    return fitted_ones


def timed_first(candidates: Sequence[Candidate], query: str) -> list[Candidate]:
    """Under a question asking when, the notes that tell no time rank after those that do.

    "我看牙约的哪天？" shares no word with "2月1号上午口腔医院复诊", and without meaning
    (the hash embedder) "下次有活动记得叫我" may be found first; only one of them tells a time,
    the kind of value asked (:func:`~memlane.lang.kinds.asked_kind`). The others go to
    :data:`~memlane.router.candidates.TIER_ASIDE`, still before summaries. Nothing changes
    when no note tells a time, nor under a question naming an identifier (a statement
    giving only the identifier is left out there instead).
    """
    if asked_kind(query) != TIME or find_identifiers(query):
        return list(candidates)
    notes = [c for c in candidates if c.tier == TIER_NOTE and c.item.kind == "note"]
    timed = {id(c) for c in notes if _tells_time(c.statement)}
    if not timed:
        return list(candidates)
    aside = {id(c) for c in notes} - timed
    return [replace(c, tier=TIER_ASIDE) if id(c) in aside else c for c in candidates]


_ANY_TIME = datetime(2000, 1, 1, tzinfo=UTC)


def _tells_time(text: str) -> bool:
    """Whether ``text`` tells a time: a day, a date or a time of day it names."""
    return TIME in held_kinds(text) or bool(resolve_times(text, _ANY_TIME, UTC))


def _names_framed_holder(query: str, bodies: list[list[str]]) -> bool:
    """Whether ``query`` names a holder a recalled statement fills a relation's frame for.

    Only a memory told as a knowledge base ("the R of X is V", "X的R是V":
    :mod:`memlane.lang.frames`) is ordered by the relation's meaning; a conversation's turns
    fill no frame, and words of a relation's sense in them ("what does his tattoo
    *symbolize*") say nothing of which turn answers.
    """
    for texts in bodies:
        for text in texts:
            for clause in clauses(text):
                frame = relation_frame(clause)
                if frame is not None and names_holder(query, frame.holder):
                    return True
    return False


def _holds_name(text: str, name: str, words: list[re.Pattern[str]]) -> bool:
    """Whether ``text`` (folded) holds the Chinese name or one of the names written out."""
    return (bool(name) and name in text) or any(word.search(text) for word in words)


def _chinese_name(query: str, folded: list[str]) -> str:
    """The longest run of Chinese content characters of ``query`` a statement holds whole.

    Only what the question writes out as a name counts: a run of at least three characters
    that are not grammar ("珂洲市", not "那个快递"), else a well-known place of two
    (:func:`memlane.lang.places.is_zh_place`: "用户*东京*的酒店订的哪家？"); a question
    without one names nothing in Chinese, and its words are left to retrieval.
    """
    best = ""
    for run in _CONTENT_RUN.findall(fold(query)):
        for size in range(len(run), max(len(best), MIN_NAME_CHARS - 1), -1):
            grams = (run[i : i + size] for i in range(len(run) - size + 1))
            found = next((g for g in grams if any(g in text for text in folded)), None)
            if found is not None:
                best = found
                break
    if best:
        return best
    places = (place for place in _ZH_PLACES_NAMED.findall(fold(query)) if is_zh_place(place))
    return next((place for place in places if any(place in text for text in folded)), "")


def misspells(name: str, text: str) -> bool:
    """True if ``text`` names something spelt nearly as ``name`` but not ``name`` itself.

    It holds two or more of the name's characters in a row, next to a content character
    where the name has another: "岑岭镇" for "溯岭镇", "筠峪围棋社" for "汐峪围棋社".

    >>> misspells("溯岭镇", "岑岭镇的镇长是姜秋白"), misspells("溯岭镇", "溯岭镇的镇长是姜秋白")
    (True, False)
    """
    if name in text:
        return False
    for start in range(len(name) - 1):
        for end in range(len(name), start + 1, -1):
            at = text.find(name[start:end])
            if at < 0:
                continue
            before = text[at - 1] if at > 0 else ""
            after = text[at + end - start] if at + end - start < len(text) else ""
            if (start > 0 and _content(before) and before != name[start - 1]) or (
                end < len(name) and _content(after) and after != name[end]
            ):
                return True
            break
    return False


def _content(char: str) -> bool:
    return bool(char) and is_cjk(char) and char not in zh.FUNCTION_CHARACTERS


def _bodies(candidate: Candidate) -> list[str]:
    """What a candidate states, without its speaker label and numbering, line by line."""
    texts = list(candidate.lines) or [candidate.statement]
    return [_body(text, candidate.item.subject or "") for text in texts]


@per_process
def _body(text: str, subject: str) -> str:
    """A line without its speaker label (the subject's) and numbering, kept for the process."""
    speaker = fold(subject)
    if speaker and _folded(text).startswith(speaker):
        text = SPEAKER_LABEL.sub("", text[len(speaker) :], count=1)
    return strip_numbering(text)


@per_process
def _stem_set(text: str) -> frozenset[str]:
    """:func:`_stems` of a recalled line, as a set kept for the process.

    A function of the text alone: the same lines are weighed against recall after recall's
    question (only the intersection with the question's stems depends on it).
    """
    return frozenset(_stems(text))


@per_process
def _folded(text: str) -> str:
    """:func:`fold` of a recalled line, kept for the process as :func:`_stem_set` is."""
    return fold(text)


def _stems(text: str) -> list[str]:
    """Its content: CJK characters, numbers, and words cut to a stem ("coaches": "coach")."""
    return [
        stem(token)
        for token in _TOKEN.findall(fold(text))
        if token not in en.STOP_WORDS and token not in zh.FUNCTION_CHARACTERS
    ]
