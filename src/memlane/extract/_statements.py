"""Statements the speaker makes about themselves, read by rules, clause by clause.

Each rule finds a cue ("搬到", "住在", "I moved to", "call me"), checks that the words before
it are the speaker's (:mod:`._speaker`), reads the value after it up to a stop word, a time,
an identifier or the end of the clause, and names the attribute. Questions and hypothetical
sentences yield nothing (a polite "can you call me Sam?" excepted).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from memlane.extract import _speaker as speaker
from memlane.extract._calendar import TimeHit
from memlane.extract._text import Sentence, gate, is_cjk, sentences, without_spans
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
from memlane.extract.gazetteer import ZH_PLACES, is_en_place, is_zh_place, longest_zh_place_prefix
from memlane.lang import employment, en, is_negated
from memlane.lang import statements as cues
from memlane.lang.script import CJK_RANGES
from memlane.lang.typos import repaired
from memlane.pacing import pause

Span = tuple[int, int]
Reader = Callable[["Doc", int, int], Span | None]
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
            if not _speaker_ok(self.who, doc, sentence, clause[0], match.start()):
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
    readers = [read for read, needles in _READERS if needles.search(doc.lowered)]
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


_AFTER_BREAK = re.compile(r"[:—–]|\s-\s")
_ZH_LABEL = re.compile(cues.ZH_LABEL)
_ZH_FROM = re.compile(f"{cues.ZH_FROM}[{CJK_RANGES}A-Za-z]{{1,12}}$")


def _is_adverb(word: str) -> bool:
    """A lower-case "-ly" word ("finally", "finaly"); "Emily" or "Kelly" is a name."""
    return (
        word.islower() and word.endswith(en.ADVERB_SUFFIX) and len(word) > len(en.ADVERB_SUFFIX) + 2
    )


def _speaker_ok(who: Speaker, doc: Doc, sentence: Sentence, clause_start: int, at: int) -> bool:
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


# -- classification ------------------------------------------------------------------------

_ZH_NOT_PLACES = cues.ZH_NOT_PLACES
_NOT_EMPLOYERS = cues.NOT_EMPLOYERS
_ZH_VAGUE_START = cues.ZH_VAGUE_START
_NAME_BLOCKLIST = cues.NAME_BLOCKLIST
_ZH_NAME_BAD_START = cues.ZH_NAME_BAD_START


def _place_ok(value: str) -> bool:
    return value not in _ZH_NOT_PLACES and not value.startswith(_ZH_VAGUE_START)


def _location(cue: str, value: str) -> str | None:
    return "location" if _place_ok(value) else None


_LEFT_PLACE = re.compile(cues.LEFT_PLACE)


def _lives(cue: str, value: str) -> str | None:
    """A place lived in; "moved out of Xiamen" names the place left, not where one lives."""
    return None if _LEFT_PLACE.search(cue.lower()) else _location(cue, value)


def _employer(cue: str, value: str) -> str | None:
    ok = value.casefold() not in _NOT_EMPLOYERS and not value.startswith(_ZH_VAGUE_START)
    return "employer" if ok else None


def _state(cue: str, value: str) -> str | None:
    """Where the speaker is: "I'm in Lyon" a place; "I'm at Acme", "now with Acme" an employer."""
    match = re.match(en.STATE_CUE, cue.lower())
    preposition = match["prep"] if match else cues.EN_STATE_IN
    if is_en_place(value) or preposition == cues.EN_STATE_IN:
        return _location(cue, value)
    if preposition == cues.EN_STATE_WITH and not cue.lower().startswith(cues.EN_STATE_NOW):
        return None  # "I'm with Sam": company, not an employer, unless it says "now with"
    return _employer(cue, value)


def _work_location(cue: str, value: str) -> str | None:
    return "work_location" if _place_ok(value) else None


def _hometown(cue: str, value: str) -> str | None:
    if cues.ZH_FROM_CUE in cue and not (is_zh_place(value) or is_en_place(value)):
        return None  # "我来自一家创业公司", "我来自Google": not a hometown
    return "hometown" if _place_ok(value) else None


def _name(cue: str, value: str) -> str | None:
    return "name" if _name_ok(value) else None


def _preferred(cue: str, value: str) -> str | None:
    return "preferred_name" if _name_ok(value) else None


def _occupation(cue: str, value: str) -> str | None:
    return "occupation" if value.casefold() not in _NAME_BLOCKLIST and len(value) <= 40 else None


def _name_ok(value: str) -> bool:
    if value.casefold() in _NAME_BLOCKLIST or not value:
        return False
    if is_cjk(value[0]):
        return 2 <= len(value) <= 4 and value[0] not in _ZH_NAME_BAD_START
    return True


_ZH_MOVE = re.compile(cues.ZH_MOVE)
_EN_MOVE = re.compile(cues.EN_MOVE)
_RULES: tuple[_CueRule, ...] = (
    _CueRule(
        re.compile(cues.ZH_LIVES),
        zh_value,
        _location,
        "zh",
        gate=gate(*cues.ZH_LIVES_GATE),
        change_cue=_ZH_MOVE,
    ),
    _CueRule(
        re.compile(cues.ZH_EMPLOYED),
        zh_value,
        _employer,
        "zh",
        gate=gate(*cues.ZH_EMPLOYED_GATE),
        change_cue=re.compile(cues.ZH_EMPLOYED_CHANGE),
    ),
    _CueRule(
        re.compile(employment.ZH_TRANSFERRED),
        zh_known_place,
        _location,
        "zh",
        gate=gate(*employment.ZH_TRANSFERRED_GATE),
        change_cue=re.compile(employment.ZH_TRANSFERRED),
    ),
    _CueRule(
        re.compile(cues.ZH_HOMETOWN), zh_value, _hometown, "zh", gate=gate(*cues.ZH_HOMETOWN_GATE)
    ),
    _CueRule(re.compile(cues.ZH_NAME), zh_name, _name, "zh_cue", gate=gate(*cues.ZH_NAME_GATE)),
    _CueRule(
        re.compile(cues.ZH_OCCUPATION),
        zh_value,
        _occupation,
        "zh_cue",
        gate=gate(*cues.ZH_OCCUPATION_GATE),
    ),
    _CueRule(
        re.compile(cues.EN_LIVES),
        en_place,
        _lives,
        "en_any",
        gate=gate(*cues.EN_LIVES_GATE),
        change_cue=_EN_MOVE,
        anaphor=True,
    ),
    _CueRule(
        re.compile(employment.EN_LIVES_THERE),
        en_place,
        _lives,
        "en_any",
        gate=gate(*employment.EN_LIVES_THERE_GATE),
        anaphor=True,
    ),
    _CueRule(
        re.compile(employment.EN_WITH_ALONE),
        en_proper,
        _employer,
        "en_any",
        gate=gate(*employment.EN_WITH_ALONE_GATE),
    ),
    _CueRule(
        re.compile(employment.EN_BORN_IN),
        en_place,
        _hometown,
        "en_any",
        gate=gate(*employment.EN_BORN_IN_GATE),
        anaphor=True,
    ),
    _CueRule(
        re.compile(cues.EN_WORKS_AT), en_proper, _employer, "en", gate=gate(*cues.EN_WORKS_AT_GATE)
    ),
    _CueRule(
        re.compile(en.STATE_CUE),
        en_place,
        _state,
        "en_any",
        gate=gate(*cues.EN_STATE_GATE),
        anaphor=True,
    ),
    _CueRule(
        re.compile(en.JOINED_CUE),
        en_proper,
        _employer,
        "en_any",
        gate=gate(*cues.EN_JOINED_GATE),
        change_cue=re.compile(en.JOINS),
    ),
    _CueRule(
        re.compile(en.MOVED_FROM),
        en_place,
        _location,
        "en_any",
        gate=gate(*cues.EN_MOVED_FROM_GATE),
        change_cue=_EN_MOVE,
    ),
    _CueRule(re.compile(en.HOME_CUE), en_place, _location, "en_any", gate=gate(*cues.EN_HOME_GATE)),
    _CueRule(
        re.compile(en.DWELLING_CUE),
        en_place,
        _location,
        "request",
        gate=gate(*cues.EN_DWELLING_GATE),
        change_cue=re.compile(cues.EN_DWELLING_CHANGE),
    ),
    _CueRule(
        re.compile(cues.EN_WORKS_IN),
        en_known_place,
        _work_location,
        "en",
        gate=gate(*cues.EN_WORKS_IN_GATE),
    ),
    _CueRule(
        re.compile(cues.EN_FROM), en_known_place, _hometown, "en", gate=gate(*cues.EN_FROM_GATE)
    ),
    _CueRule(
        re.compile(cues.EN_GREW_UP), en_place, _hometown, "en", gate=gate(*cues.EN_GREW_UP_GATE)
    ),
    _CueRule(re.compile(cues.EN_NAME), en_name, _name, "en_cue", gate=gate(*cues.EN_NAME_GATE)),
    _CueRule(
        re.compile(cues.EN_PREFERRED),
        en_name,
        _preferred,
        "request",
        gate=gate(*cues.EN_PREFERRED_GATE),
        polite_question=True,
    ),
    _CueRule(
        re.compile(cues.EN_OCCUPATION),
        en_phrase,
        _occupation,
        "en_cue",
        gate=gate(*cues.EN_OCCUPATION_GATE),
    ),
)

# -- rules that need more than a cue --------------------------------------------------------

_ZH_WORK = re.compile(cues.ZH_WORK)
_ZH_WORK_TAIL = re.compile(cues.ZH_WORK_TAIL)
_ZH_SETTLES = cues.ZH_SETTLES
_ZH_NATIVE = re.compile(cues.ZH_NATIVE.format(cjk=CJK_RANGES))
_ZH_PREFERRED = re.compile(cues.ZH_PREFERRED)
_ZH_BIRTHDAY = re.compile(cues.ZH_BIRTHDAY)
_EN_BIRTHDAY = re.compile(cues.EN_BIRTHDAY)


def _zh_work(doc: Doc, sentence: Sentence, clause: Span) -> list[Statement]:
    """Read "我在X上班/工作/生活" as an employer, a work place, or where one lives."""
    found: list[Statement] = []
    for match in _ZH_WORK.finditer(doc.text, clause[0], clause[1]):
        if not _speaker_ok("zh", doc, sentence, clause[0], match.start()):
            continue
        span = zh_value(doc, match.end(), doc.limit(match.end(), clause[1]))
        tail = span and _ZH_WORK_TAIL.match(doc.text, span[1], clause[1])
        if not span or not tail:
            continue
        value = doc.text[span[0] : span[1]]
        if tail["live"]:  # "我在常州生活好几年了", "刚在杭州落户"
            attribute = None if tail["of"] else _location("", value)
        elif _zh_place(value) or is_en_place(value):
            attribute = _work_location("", value)
        else:
            attribute = None if tail["of"] else _employer("", value)
        if attribute is not None:
            settles = tail["live"] in _ZH_SETTLES  # "上周刚在镇江落户": the week it began
            span = (clause[0], span[1])
            found.append(Statement(attribute, value, span, clause, sentence, changes=settles))
    return found


def _zh_place(value: str) -> bool:
    """A place, not a name that opens with one: "杭州西湖区" is, "中国移动" is not."""
    known = longest_zh_place_prefix(value)
    if 0 < known < len(value):
        return is_zh_place(value[known:])
    return is_zh_place(value)


def _zh_native(doc: Doc, sentence: Sentence, clause: Span) -> list[Statement]:
    """Read "我是北京人" as hometown 北京 (known places and names with a place suffix only)."""
    found: list[Statement] = []
    for match in _ZH_NATIVE.finditer(doc.text, clause[0], clause[1]):
        value = match["value"]
        known = value in ZH_PLACES or (is_zh_place(value) and len(value) > 2)
        if known and _speaker_ok("zh_cue", doc, sentence, clause[0], match.start()):
            found.append(
                Statement("hometown", value, (match.start(), match.end("value")), clause, sentence)
            )
    return found


def _zh_preferred(doc: Doc, sentence: Sentence, clause: Span) -> list[Statement]:
    """Read "叫我小王就行" as preferred_name 小王; the name must end the clause."""
    match = _ZH_PREFERRED.search(doc.text, clause[0], clause[1])
    if match is None or is_negated(doc.text[clause[0] : match.start()]):
        return []
    value = match["value"]
    start, end = match.span("value")
    if not _name_ok(value) or any(s < end and start < e for s, e in doc.identifiers):
        return []
    return [Statement("preferred_name", value, (match.start(), end), clause, sentence)]


def _birthday(doc: Doc, sentence: Sentence, clause: Span) -> list[Statement]:
    """Read "我的生日是7月1日" as birthday "--07-01" (with a written year, an ISO date)."""
    text = doc.text
    match = _ZH_BIRTHDAY.search(text, clause[0], clause[1]) or _EN_BIRTHDAY.search(
        doc.lowered, clause[0], clause[1]
    )
    if match is None or is_negated(text[clause[0] : clause[1]]):
        return []
    prefix = without_spans(text, clause[0], match.start(), doc.time_spans)
    if not (speaker.zh_lead_only(prefix) or speaker.en_lead_only(prefix)):
        return []
    for hit in doc.times:
        day = hit.day
        if day is not None and clause[0] <= hit.start < clause[1]:
            value = day.isoformat() if hit.explicit_year else f"--{day.month:02d}-{day.day:02d}"
            span = (min(match.start(), hit.start), max(match.end(), hit.end))
            return [Statement("birthday", value, span, clause, sentence, timed=False)]
    return []


_ZH_ADDRESS = re.compile(cues.ZH_ADDRESS)
_ZH_STAFF = re.compile(cues.ZH_STAFF.format(cjk=CJK_RANGES))


def _zh_address(doc: Doc, sentence: Sentence, clause: Span) -> list[Statement]:
    """Read "收货地址是常州锦绣路297号" as location 常州: the known place the address opens with."""
    match = _ZH_ADDRESS.search(doc.text, clause[0], clause[1])
    if match is None or not _speaker_ok("zh", doc, sentence, clause[0], match.start()):
        return []
    size = longest_zh_place_prefix(doc.text[match.end() : clause[1]])
    if not size:
        return []
    span = (match.end(), match.end() + size)
    value = doc.text[span[0] : span[1]]
    return [Statement("location", value, (match.start(), span[1]), clause, sentence)]


def _zh_staff(doc: Doc, sentence: Sentence, clause: Span) -> list[Statement]:
    """Read "我是华为的员工" as employer 华为."""
    match = _ZH_STAFF.search(doc.text, clause[0], clause[1])
    if match is None or not _speaker_ok("zh_cue", doc, sentence, clause[0], match.start()):
        return []
    value = match["value"]
    if _employer("", value) is None:
        return []
    return [Statement("employer", value, (match.start(), match.end("value")), clause, sentence)]


_EN_ADDRESS = re.compile(en.ADDRESS_CUE)


def _en_address(doc: Doc, sentence: Sentence, clause: Span) -> list[Statement]:
    """Read "my address is 9 Harbour Rd, Calgary" as location Calgary: the address's last part."""
    match = _EN_ADDRESS.search(doc.lowered, clause[0], clause[1])
    if match is None or not _speaker_ok("en_any", doc, sentence, clause[0], match.start()):
        return []
    parts = [part for part in sentence.clauses if part[0] >= clause[0]]
    if len(parts) < 2:  # a street, then the city
        return []
    last = parts[-1]
    span = en_proper(doc, last[0], doc.limit(last[0], last[1]))
    if span is None or _location("", doc.text[span[0] : span[1]]) is None:
        return []
    value = doc.text[span[0] : span[1]]
    return [Statement("location", value, (match.start(), span[1]), clause, sentence)]


_ZH_LEFT_JOB = re.compile(employment.ZH_LEFT_JOB)
_ZH_ARRIVES = re.compile(employment.ZH_ARRIVES)
_EN_TAKEN_ON = re.compile(f"(?P<org>{employment.EN_ORGANISATION}){employment.EN_TAKEN_ON}")


def _zh_moves_on(doc: Doc, sentence: Sentence, clause: Span) -> list[Statement]:
    """Read "我已经不在腾讯干了，去了比亚迪", "我离开腾讯加入了百度" as employer 比亚迪, 百度.

    After the speaker's leaving clause, a verb of arriving (去, 到, 进, 加入) names the new
    employer; a known place after it is a trip or a move, not an employer.
    """
    text = doc.text
    left = _ZH_LEFT_JOB.search(text, sentence.start, clause[1])
    if left is None or not _speaker_ok(
        "zh", doc, sentence, _clause_of(sentence, left.start()), left.start()
    ):
        return []
    begin = max(clause[0], left.end())
    for match in _ZH_ARRIVES.finditer(text, begin, clause[1]):
        if not speaker.zh_speaker(without_spans(text, begin, match.start(), doc.time_spans), ""):
            return []
        span = zh_value(doc, match.end(), doc.limit(match.end(), clause[1]))
        if span is None:
            return []
        value = text[span[0] : span[1]]
        if _zh_place(value) or is_en_place(value) or _employer("", value) is None:
            return []
        return [Statement("employer", value, (clause[0], span[1]), clause, sentence, changes=True)]
    return []


def _clause_of(sentence: Sentence, at: int) -> int:
    """Where the clause of ``sentence`` holding offset ``at`` starts."""
    return next((start for start, end in sentence.clauses if start <= at < end), sentence.start)


def _en_taken_on(doc: Doc, sentence: Sentence, clause: Span) -> list[Statement]:
    """Read "Globex poached me in May", "Acme hired me" as employer Globex, Acme."""
    found: list[Statement] = []
    for match in _EN_TAKEN_ON.finditer(doc.text, clause[0], clause[1]):
        value = match["org"]
        if value.casefold() in en.STOP_WORDS or _employer("", value) is None:
            continue
        span = (match.start(), match.end())
        found.append(Statement("employer", value, span, clause, sentence, changes=True))
    return found


_READERS: tuple[tuple[Callable[[Doc, Sentence, Span], list[Statement]], re.Pattern[str]], ...] = (
    (_zh_work, gate(*cues.ZH_WORK_GATE)),
    (_zh_native, gate(*cues.ZH_NATIVE_GATE)),
    (_zh_preferred, gate(*cues.ZH_PREFERRED_GATE)),
    (_birthday, gate(*cues.BIRTHDAY_GATE)),
    (_en_address, gate(*cues.EN_ADDRESS_GATE)),
    (_zh_address, gate(*cues.ZH_ADDRESS_GATE)),
    (_zh_staff, gate(*cues.ZH_STAFF_GATE)),
    (_zh_moves_on, gate(*employment.ZH_LEFT_JOB_GATE)),
    (_en_taken_on, gate(*employment.EN_TAKEN_ON_GATE)),
)
