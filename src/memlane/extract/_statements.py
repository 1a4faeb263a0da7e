"""Statements the speaker makes about themselves, read by rules, clause by clause.

Each rule finds a cue ("搬到", "住在", "I moved to", "call me"), checks that the words before
it are the speaker's (:func:`._doc.speaker_ok`), reads the value after it up to a stop word, a
time, an identifier or the end of the clause, and names the attribute (:mod:`._attributes`).
Statements that need more than a cue are read by :mod:`._readers`. Questions and
hypothetical sentences yield nothing (a polite "can you call me Sam?" excepted).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from memlane.extract import _speaker as speaker
from memlane.extract._attributes import (
    EN_STATE_CUE,
    employer,
    hometown,
    lives,
    location,
    name,
    occupation,
    preferred,
    state,
    work_location,
)
from memlane.extract._doc import Doc, Span, Speaker, Statement, make_doc, speaker_ok
from memlane.extract._readers import READERS
from memlane.extract._text import Sentence, gate
from memlane.extract._values import (
    en_known_place,
    en_name,
    en_phrase,
    en_place,
    en_place_pointed_at,
    en_proper,
    zh_known_place,
    zh_name,
    zh_value,
)
from memlane.lang import employment, en
from memlane.lang import statements as cues
from memlane.pacing import pause

__all__ = ["Doc", "Statement", "find_statements", "make_doc"]

Reader = Callable[[Doc, int, int], Span | None]


@dataclass(frozen=True, slots=True)
class _CueRule:
    cue: re.Pattern[str]
    read: Reader
    classify: Callable[[str, str], str | None]  # (cue text, value) -> attribute or None
    who: Speaker
    gate: re.Pattern[str]
    change_cue: re.Pattern[str] | None = None
    polite_question: bool = False
    anaphor: bool = False  # "…our Paris office, so I'm living there now": there is Paris

    def applies(self, lowered: str) -> bool:
        return self.gate.search(lowered) is not None

    def find(self, doc: Doc, sentence: Sentence, clause: Span, question: bool) -> list[Statement]:
        if question and not self.polite_question:
            return []
        found: list[Statement] = []
        for match in self.cue.finditer(doc.lowered, clause[0], clause[1]):
            if question and not speaker.is_request(doc.text[clause[0] : match.start()]):
                continue
            if not speaker_ok(self.who, doc, sentence, clause[0], match.start()):
                continue
            span = self.read(doc, match.end(), doc.limit(match.end(), clause[1]))
            if span is None and self.anaphor:
                span = en_place_pointed_at(doc, sentence.start, match.start(), match.end())
            if span is None:
                continue
            value = doc.text[span[0] : span[1]]
            attribute = self.classify(match[0], value)
            if attribute is not None:
                changes = self.change_cue is not None and bool(self.change_cue.search(match[0]))
                statement_span = (clause[0], span[1])
                found.append(Statement(attribute, value, statement_span, clause, sentence, changes))
        return found


def find_statements(doc: Doc) -> list[Statement]:
    """Every statement in ``doc`` that a rule reads, in text order."""
    found: list[Statement] = []
    rules = [rule for rule in _RULES if rule.applies(doc.lowered)]
    readers = [read for read, needles in READERS if needles.search(doc.lowered)]
    if not rules and not readers:
        return found
    for sentence in doc.sentences:
        pause()
        if sentence.start in doc.suppositions:
            continue
        question = sentence.start in doc.questions
        supposed = doc.supposed_from.get(sentence.start, sentence.end)
        for clause in (clause for clause in sentence.clauses if clause[0] < supposed):
            for rule in rules:
                found += rule.find(doc, sentence, clause, question)
            if not question:
                for read in readers:
                    found += read(doc, sentence, clause)
    found.sort(key=lambda statement: statement.span)
    return found


_ZH_MOVE = re.compile(cues.ZH_MOVE)
_EN_MOVE = re.compile(cues.EN_MOVE)
_RULES: tuple[_CueRule, ...] = (
    _CueRule(
        re.compile(cues.ZH_LIVES),
        zh_value,
        location,
        "zh",
        gate=gate(*cues.ZH_LIVES_GATE),
        change_cue=_ZH_MOVE,
    ),
    _CueRule(
        re.compile(cues.ZH_EMPLOYED),
        zh_value,
        employer,
        "zh",
        gate=gate(*cues.ZH_EMPLOYED_GATE),
        change_cue=re.compile(cues.ZH_EMPLOYED_CHANGE),
    ),
    _CueRule(
        re.compile(employment.ZH_TRANSFERRED),
        zh_known_place,
        location,
        "zh",
        gate=gate(*employment.ZH_TRANSFERRED_GATE),
        change_cue=re.compile(employment.ZH_TRANSFERRED),
    ),
    _CueRule(
        re.compile(cues.ZH_HOMETOWN), zh_value, hometown, "zh", gate=gate(*cues.ZH_HOMETOWN_GATE)
    ),
    _CueRule(re.compile(cues.ZH_NAME), zh_name, name, "zh_cue", gate=gate(*cues.ZH_NAME_GATE)),
    _CueRule(
        re.compile(cues.ZH_OCCUPATION),
        zh_value,
        occupation,
        "zh_cue",
        gate=gate(*cues.ZH_OCCUPATION_GATE),
    ),
    _CueRule(
        re.compile(cues.EN_LIVES),
        en_place,
        lives,
        "en_any",
        gate=gate(*cues.EN_LIVES_GATE),
        change_cue=_EN_MOVE,
        anaphor=True,
    ),
    _CueRule(
        re.compile(employment.EN_LIVES_THERE),
        en_place,
        lives,
        "en_any",
        gate=gate(*employment.EN_LIVES_THERE_GATE),
        anaphor=True,
    ),
    _CueRule(
        re.compile(employment.EN_WITH_ALONE),
        en_proper,
        employer,
        "en_any",
        gate=gate(*employment.EN_WITH_ALONE_GATE),
    ),
    _CueRule(
        re.compile(employment.EN_BORN_IN),
        en_place,
        hometown,
        "en_any",
        gate=gate(*employment.EN_BORN_IN_GATE),
        anaphor=True,
    ),
    _CueRule(
        re.compile(cues.EN_WORKS_AT), en_proper, employer, "en", gate=gate(*cues.EN_WORKS_AT_GATE)
    ),
    _CueRule(
        EN_STATE_CUE,
        en_place,
        state,
        "en_any",
        gate=gate(*cues.EN_STATE_GATE),
        anaphor=True,
    ),
    _CueRule(
        re.compile(en.JOINED_CUE),
        en_proper,
        employer,
        "en_any",
        gate=gate(*cues.EN_JOINED_GATE),
        change_cue=re.compile(en.JOINS),
    ),
    _CueRule(
        re.compile(en.MOVED_FROM),
        en_place,
        location,
        "en_any",
        gate=gate(*cues.EN_MOVED_FROM_GATE),
        change_cue=_EN_MOVE,
    ),
    _CueRule(re.compile(en.HOME_CUE), en_place, location, "en_any", gate=gate(*cues.EN_HOME_GATE)),
    _CueRule(
        re.compile(en.DWELLING_CUE),
        en_place,
        location,
        "request",
        gate=gate(*cues.EN_DWELLING_GATE),
        change_cue=re.compile(cues.EN_DWELLING_CHANGE),
    ),
    _CueRule(
        re.compile(cues.EN_WORKS_IN),
        en_known_place,
        work_location,
        "en",
        gate=gate(*cues.EN_WORKS_IN_GATE),
    ),
    _CueRule(
        re.compile(cues.EN_FROM), en_known_place, hometown, "en", gate=gate(*cues.EN_FROM_GATE)
    ),
    _CueRule(
        re.compile(cues.EN_GREW_UP), en_place, hometown, "en", gate=gate(*cues.EN_GREW_UP_GATE)
    ),
    _CueRule(re.compile(cues.EN_NAME), en_name, name, "en_cue", gate=gate(*cues.EN_NAME_GATE)),
    _CueRule(
        re.compile(cues.EN_PREFERRED),
        en_name,
        preferred,
        "request",
        gate=gate(*cues.EN_PREFERRED_GATE),
        polite_question=True,
    ),
    _CueRule(
        re.compile(cues.EN_OCCUPATION),
        en_phrase,
        occupation,
        "en_cue",
        gate=gate(*cues.EN_OCCUPATION_GATE),
    ),
)
