"""Statements that need more than a cue and the value after it, read clause by clause.

Each reader takes the prepared text, a sentence and one of its clauses and returns the
statements it finds there: "我在X上班" (employer, work place or home by what follows), "我是北京人",
"叫我小王就行", birthdays, addresses, "我是华为的员工", a job left then another joined, "Acme
hired me". :data:`READERS` pairs each with the gate that must match before it runs.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from memlane.extract import _speaker as speaker
from memlane.extract._attributes import employer, location, name_ok, work_location
from memlane.extract._doc import Doc, Span, Statement, speaker_ok
from memlane.extract._text import Sentence, gate, without_spans
from memlane.extract._values import en_proper, zh_value
from memlane.extract.gazetteer import ZH_PLACES, is_en_place, is_zh_place, longest_zh_place_prefix
from memlane.lang import employment, en, is_negated
from memlane.lang import statements as cues
from memlane.lang.script import CJK_RANGES

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
        if not speaker_ok("zh", doc, sentence, clause[0], match.start()):
            continue
        span = zh_value(doc, match.end(), doc.limit(match.end(), clause[1]))
        tail = span and _ZH_WORK_TAIL.match(doc.text, span[1], clause[1])
        if not span or not tail:
            continue
        value = doc.text[span[0] : span[1]]
        if tail["live"]:  # "我在常州生活好几年了", "刚在杭州落户"
            attribute = None if tail["of"] else location("", value)
        elif _zh_place(value) or is_en_place(value):
            attribute = work_location("", value)
        else:
            attribute = None if tail["of"] else employer("", value)
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
        if known and speaker_ok("zh_cue", doc, sentence, clause[0], match.start()):
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
    if not name_ok(value) or any(s < end and start < e for s, e in doc.identifiers):
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
    if match is None or not speaker_ok("zh", doc, sentence, clause[0], match.start()):
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
    if match is None or not speaker_ok("zh_cue", doc, sentence, clause[0], match.start()):
        return []
    value = match["value"]
    if employer("", value) is None:
        return []
    return [Statement("employer", value, (match.start(), match.end("value")), clause, sentence)]


_EN_ADDRESS = re.compile(en.ADDRESS_CUE)


def _en_address(doc: Doc, sentence: Sentence, clause: Span) -> list[Statement]:
    """Read "my address is 9 Harbour Rd, Calgary" as location Calgary: the address's last part."""
    match = _EN_ADDRESS.search(doc.lowered, clause[0], clause[1])
    if match is None or not speaker_ok("en_any", doc, sentence, clause[0], match.start()):
        return []
    parts = [part for part in sentence.clauses if part[0] >= clause[0]]
    if len(parts) < 2:  # a street, then the city
        return []
    last = parts[-1]
    span = en_proper(doc, last[0], doc.limit(last[0], last[1]))
    if span is None or location("", doc.text[span[0] : span[1]]) is None:
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
    if left is None or not speaker_ok(
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
        if _zh_place(value) or is_en_place(value) or employer("", value) is None:
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
        if value.casefold() in en.STOP_WORDS or employer("", value) is None:
            continue
        span = (match.start(), match.end())
        found.append(Statement("employer", value, span, clause, sentence, changes=True))
    return found


READERS: tuple[tuple[Callable[[Doc, Sentence, Span], list[Statement]], re.Pattern[str]], ...] = (
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
