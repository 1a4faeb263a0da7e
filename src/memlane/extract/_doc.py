"""A text prepared for the statement rules, and what they find in it.

:func:`make_doc` splits the folded text into sentences and marks those that ask or suppose
something; a :class:`Statement` is one attribute value a rule read; :func:`speaker_ok` tells
whether the words before a cue leave the statement the speaker's own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from memlane.extract import _speaker as speaker
from memlane.extract._calendar import TimeHit
from memlane.extract._text import Sentence, sentences, without_spans
from memlane.extract.gazetteer import longest_zh_place_prefix
from memlane.lang import en, is_negated
from memlane.lang import statements as cues
from memlane.lang.script import CJK_RANGES
from memlane.lang.typos import repaired

Span = tuple[int, int]
Speaker = Literal["zh", "zh_cue", "en", "en_cue", "en_any", "request"]


@dataclass(frozen=True, slots=True)
class Doc:
    """The folded text with what was already found in it; build it with :func:`make_doc`.

    ``questions`` and ``suppositions`` hold the start offsets of the sentences that ask
    something or suppose something ("如果…", "if …"); ``supposed_from`` maps a sentence that
    states something before it supposes ("I'm in Lyon, if that matters") to where its
    supposition starts: the clauses before it still state.
    """

    text: str
    lowered: str
    times: tuple[TimeHit, ...]
    time_spans: list[Span]
    identifiers: tuple[Span, ...]
    sentences: tuple[Sentence, ...]
    questions: frozenset[int]
    suppositions: frozenset[int]
    supposed_from: dict[int, int]

    def limit(self, start: int, end: int) -> int:
        """Where a value beginning at ``start`` must end: before the next time or identifier."""
        spans = [*self.identifiers, *self.time_spans]
        return min([span_start for span_start, _ in spans if start <= span_start < end] + [end])

    def asks_or_supposes(self, sentence: Sentence) -> bool:
        """Whether ``sentence`` is a question or a supposition."""
        return sentence.start in self.questions or sentence.start in self.suppositions


def make_doc(
    folded: str, lowered: str, times: tuple[TimeHit, ...], identifiers: tuple[Span, ...]
) -> Doc:
    """Split ``folded`` into sentences and note which of them ask or suppose something.

    A change verb typed with a homophone ("跳巢去…") is read as that verb
    (:mod:`memlane.lang.typos`).
    """
    folded = repaired(folded, longest_zh_place_prefix)
    lowered = repaired(lowered, longest_zh_place_prefix)
    parts = tuple(sentences(folded))
    bodies = [(sentence, folded[sentence.start : sentence.end]) for sentence in parts]
    questions = frozenset(
        sentence.start
        for sentence, body in bodies
        if speaker.is_question(body, sentence.terminator)
    )
    supposed = {
        sentence.start: _supposition(folded, sentence)
        for sentence, body in bodies
        if speaker.is_hypothetical(body)
    }
    suppositions = frozenset(start for start, at in supposed.items() if at == start)
    later = {start: at for start, at in supposed.items() if at != start}
    time_spans = [(hit.start, hit.end) for hit in times]
    return Doc(
        folded, lowered, times, time_spans, identifiers, parts, questions, suppositions, later
    )


def _supposition(folded: str, sentence: Sentence) -> int:
    """Where a hypothetical sentence starts to suppose: its first clause that does."""
    for start, end in sentence.clauses:
        if speaker.is_hypothetical(folded[start:end]):
            return start
    return sentence.start  # the cue spans clauses: all of it supposes


@dataclass(frozen=True, slots=True)
class Statement:
    """One attribute value the speaker stated, with where it was said.

    ``changes`` marks a change ("搬到", "moved to"): a past period in its clause is when the
    new value began. ``timed`` is false where a time in the clause is the value itself
    (a birthday), not the start of validity.
    """

    attribute: str
    value: str
    span: Span
    clause: Span
    sentence: Sentence
    changes: bool = False
    timed: bool = True


_AFTER_BREAK = re.compile(r"[:—–]|\s-\s")
_ZH_LABEL = re.compile(cues.ZH_LABEL)
_ZH_FROM = re.compile(f"{cues.ZH_FROM}[{CJK_RANGES}A-Za-z]{{1,12}}$")


def _is_adverb(word: str) -> bool:
    """A lower-case "-ly" word ("finally", "finaly"); "Emily" or "Kelly" is a name."""
    return (
        word.islower() and word.endswith(en.ADVERB_SUFFIX) and len(word) > len(en.ADVERB_SUFFIX) + 2
    )


def speaker_ok(who: Speaker, doc: Doc, sentence: Sentence, clause_start: int, at: int) -> bool:
    """Whether the words before ``at`` leave the statement the speaker's, as ``who`` asks."""
    prefix = without_spans(doc.text, clause_start, at, doc.time_spans)
    if who in ("zh", "zh_cue"):  # "客户资料：常住城市…": a label before a colon is no speaker
        prefix = _ZH_FROM.sub("", _ZH_LABEL.split(prefix)[-1])
    if who == "zh":
        head = _ZH_LABEL.split(doc.text[sentence.start : at])[-1]
        return speaker.zh_speaker(prefix, head)
    if who == "zh_cue":
        return speaker.zh_lead_only(prefix)
    if who == "en":
        return speaker.en_speaker(prefix)
    if who == "en_cue":
        return speaker.en_lead_only(prefix)
    if who == "en_any":  # chat drops the subject: "Settled in Lyon now", "Got hired by Acme"
        prefix = _AFTER_BREAK.split(prefix)[-1]  # "Switched jobs — I'm at …", "Update: …"
        prefix = " ".join(word for word in prefix.split() if not _is_adverb(word))
        return speaker.en_speaker(prefix) or speaker.en_lead_only(prefix)
    return not is_negated(prefix)
