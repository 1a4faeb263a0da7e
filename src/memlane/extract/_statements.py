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
from memlane.extract._text import Sentence, gate, is_cjk, sentences, without_spans, word_set
from memlane.extract._values import (
    en_known_place,
    en_name,
    en_phrase,
    en_place,
    en_proper,
    zh_name,
    zh_value,
)
from memlane.extract.gazetteer import ZH_PLACES, is_en_place, is_zh_place, longest_zh_place_prefix
from memlane.lang import en, is_negated
from memlane.lang.script import CJK_RANGES
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
    """Split ``folded`` into sentences and note which of them ask or suppose something."""
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
_ZH_LABEL = re.compile(r"[:：]")
# "我上个月从兰州搬去…", "已由惠州迁居…": where one came from, right before the verb.
_ZH_FROM = re.compile(f"(?:从|由)[{CJK_RANGES}A-Za-z]{{1,12}}$")


def _is_adverb(word: str) -> bool:
    """A lower-case "-ly" word ("finally", "finaly"); "Emily" or "Kelly" is a name."""
    return word.islower() and word.endswith(en.ADVERB_SUFFIX) and len(word) > len("ly") + 2


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

_ZH_NOT_PLACES = word_set(
    "这里 那里 这儿 那儿 这边 那边 哪 哪里 哪儿 家 家里 附近 隔壁 一起 外面 里面 楼上 楼下 对面 "
    "酒店 宾馆 旅馆 民宿 医院 宿舍 公司 单位 学校 别处 外地 老家 新家 新房 那个 这个"
)
_NOT_EMPLOYERS = _ZH_NOT_PLACES | {"home", "here", "there", "night", "weekends"}
_ZH_VAGUE_START = ("一", "这", "那", "哪", "某", "个", "他", "她", "你", "我")
_NAME_BLOCKLIST = word_set(
    "外卖 快递 车 出租车 滴滴 救护车 醒 back later tomorrow at when if maybe anytime now soon on "
    "please again asap sometime tonight today any whenever whatever crazy anything once after "
    "before in so by that this him her them you it me a an the not"
)
_ZH_NAME_BAD_START = frozenset(
    "了过着你他她它们车外快醒救去来做帮别不给把吃回等起看买写带拿出到走在跟和一加"
)


def _place_ok(value: str) -> bool:
    return value not in _ZH_NOT_PLACES and not value.startswith(_ZH_VAGUE_START)


def _location(cue: str, value: str) -> str | None:
    return "location" if _place_ok(value) else None


_LEFT_PLACE = re.compile(r"\bout\s+of\s+(?:the\s+)?$")


def _lives(cue: str, value: str) -> str | None:
    """A place lived in; "moved out of Xiamen" names the place left, not where one lives."""
    return None if _LEFT_PLACE.search(cue.lower()) else _location(cue, value)


def _employer(cue: str, value: str) -> str | None:
    ok = value.casefold() not in _NOT_EMPLOYERS and not value.startswith(_ZH_VAGUE_START)
    return "employer" if ok else None


def _state(cue: str, value: str) -> str | None:
    """Where the speaker is: "I'm in Lyon" a place; "I'm at Acme", "now with Acme" an employer."""
    match = re.match(en.STATE_CUE, cue.lower())
    preposition = match["prep"] if match else "in"
    if is_en_place(value) or preposition == "in":
        return _location(cue, value)
    if preposition == "with" and not cue.lower().startswith("now"):
        return None  # "I'm with Sam": company, not an employer, unless it says "now with"
    return _employer(cue, value)


def _work_location(cue: str, value: str) -> str | None:
    return "work_location" if _place_ok(value) else None


def _hometown(cue: str, value: str) -> str | None:
    if "来自" in cue and not (is_zh_place(value) or is_en_place(value)):
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


_ZH_MOVE = re.compile(r"[搬迁移定]")
_EN_MOVE = re.compile(r"mov(?:ed|ing)|relocat|settled")
_RULES: tuple[_CueRule, ...] = (
    _CueRule(
        re.compile(
            r"(?=[搬迁移定居住家现常人])(?:搬家到|搬家去|搬到|搬去|搬来|搬回到?|迁居到?|迁到|移居到?|定居在|定居于|定居到?|居住在"
            r"|住在|住到|家住在?|家在|现居住?在?|常住(?:城市|地)?(?:是|为|在)?|(?<![个别夫家])人在"
            r"|(?<![记忍抓挡保守站稳顶停拦困禁止居])住(?![院了过着得宿址处房所下手口嘴]))了?\s*"
        ),
        zh_value,
        _location,
        "zh",
        gate=gate("搬", "迁", "移居", "定居", "住", "家", "人在"),
        change_cue=_ZH_MOVE,
    ),
    _CueRule(
        re.compile(
            r"(?:就职于|任职于|供职于|受雇于|入职(?:了|到)?|跳槽(?:到|去|进)了?|(?:工作)?单位(?:是|为)?)\s*"
        ),
        zh_value,
        _employer,
        "zh",
        gate=gate("就职", "任职", "供职", "受雇", "入职", "跳槽", "单位"),
        change_cue=re.compile("入职|跳槽"),
    ),
    _CueRule(
        re.compile(r"(?:老家(?:是|在)|祖籍(?:是|在)?|来自于?)\s*"),
        zh_value,
        _hometown,
        "zh",
        gate=gate("老家", "祖籍", "来自"),
    ),
    _CueRule(
        re.compile(r"(?:我|本人)的?(?:名字|姓名)(?:是|叫)\s*|(?:我|本人)名?叫(?:做)?\s*"),
        zh_name,
        _name,
        "zh_cue",
        gate=gate("叫", "名字", "姓名"),
    ),
    _CueRule(
        re.compile(r"(?:我|本人)的?职业是\s*|(?:我|本人)是一名\s*|(?:我|本人)的工作是\s*"),
        zh_value,
        _occupation,
        "zh_cue",
        gate=gate("职业", "一名", "工作是"),
    ),
    _CueRule(
        re.compile(
            r"(?=[mrslb])\b(?:moved|relocated|settled(?:\s+down)?|lives?|living|reside|residing"
            r"|based)(?:\s+(?:back|over|away|out|here))?\s+(?:to|in|into|at|out\s+of)\s+(?:the\s+)?"
        ),
        en_place,
        _lives,
        "en_any",
        gate=gate("moved", "relocated", "settled", "live", "living", "reside", "based"),
        change_cue=_EN_MOVE,
    ),
    _CueRule(
        re.compile(r"(?=[we])\b(?:work(?:ing)?\s+(?:at|for)|employed\s+(?:at|by))\s+"),
        en_proper,
        _employer,
        "en",
        gate=gate("work", "employed"),
    ),
    _CueRule(re.compile(en.STATE_CUE), en_place, _state, "en_any", gate=gate("in", "at", "with")),
    _CueRule(
        re.compile(en.JOINED_CUE),
        en_proper,
        _employer,
        "en_any",
        gate=gate("join", "hired", "employer", "role", "job", "position"),
        change_cue=re.compile(en.JOINS),
    ),
    _CueRule(
        re.compile(en.MOVED_FROM),
        en_place,
        _location,
        "en_any",
        gate=gate("from"),
        change_cue=_EN_MOVE,
    ),
    _CueRule(re.compile(en.HOME_CUE), en_place, _location, "en_any", gate=gate("home")),
    _CueRule(
        re.compile(en.DWELLING_CUE),
        en_place,
        _location,
        "request",
        gate=gate("new"),
        change_cue=re.compile("new"),
    ),
    _CueRule(
        re.compile(r"(?=w)\bwork(?:ing)?\s+in\s+(?:the\s+)?"),
        en_known_place,
        _work_location,
        "en",
        gate=gate("work"),
    ),
    _CueRule(
        re.compile(r"(?=f)\bfrom\s+(?:the\s+)?"), en_known_place, _hometown, "en", gate=gate("from")
    ),
    _CueRule(
        re.compile(r"(?=g)\bgrew\s+up\s+in\s+(?:the\s+)?"),
        en_place,
        _hometown,
        "en",
        gate=gate("grew"),
    ),
    _CueRule(
        re.compile(
            r"(?=[mi])\bmy\s+(?:full\s+|real\s+)?name\s+is\s+|\bmy\s+name's\s+|\bi\s+am\s+called\s+"
            r"|\bi'm\s+called\s+"
        ),
        en_name,
        _name,
        "en_cue",
        gate=gate("name", "called"),
    ),
    _CueRule(
        re.compile(r"(?=[ci])\bcall\s+me\s+|\bi\s+go\s+by\s+|\bi\s+prefer\s+to\s+be\s+called\s+"),
        en_name,
        _preferred,
        "request",
        gate=gate("call me", "go by", "be called"),
        polite_question=True,
    ),
    _CueRule(
        re.compile(
            r"(?=[im])\bi\s+work\s+as\s+(?:an?\s+)?|\bmy\s+(?:occupation|profession|job\s+title)\s+is\s+"
            r"(?:an?\s+)?"
        ),
        en_phrase,
        _occupation,
        "en_cue",
        gate=gate("work as", "occupation", "profession", "job title"),
    ),
)

# -- rules that need more than a cue --------------------------------------------------------

_ZH_WORK = re.compile(r"(?=在)(?<![现正存实所好自])在\s*")
_ZH_WORK_TAIL = re.compile(
    r"(?P<of>的[^\s,.!?;:。]{0,10}?)?(?:(?P<live>生活|居住|定居|常住|落户)|工作|上班|实习|任职|打工"
    r"|就职|做(?![饭菜梦]))"
)
_ZH_SETTLES = frozenset(("定居", "落户"))
_ZH_NATIVE = re.compile(f"(?:我|本人)是(?P<value>[{CJK_RANGES}]{{2,6}}?)人(?![员士物家们类生性])")
_ZH_PREFERRED = re.compile(
    r"(?:叫我|称呼我|喊我|称我)(?:为|做)?\s*(?P<value>[^\s,.!?;:。、]{1,12}?)\s*"
    r"(?:就行了?|就好了?|就可以了?|即可|吧|好了|好吗|可以吗|行吗|吗|呀|啊|哦|呢|啦|就是了)?$"
)
_ZH_BIRTHDAY = re.compile(r"(?:我|本人)的?(?:生日|出生日期)|(?:我|本人)[^,.!?;。]{0,16}?出生")
_EN_BIRTHDAY = re.compile(
    r"(?=[mi])\bmy\s+(?:birthday|date\s+of\s+birth|birth\s*date|dob)\b|\bi\s+was\s+born\b"
)


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


_ZH_ADDRESS = re.compile(
    r"(?:收货|收件|寄件|快递|家庭|家|住|寄送|邮寄)?地址(?:是|为|改为|改成|换成)?[:：]?\s*"
)
_ZH_STAFF = re.compile(
    f"(?:我|本人)是(?P<value>[{CJK_RANGES}A-Za-z]{{2,12}}?)的(?:员工|职员|雇员|一员)"
)


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


_READERS: tuple[tuple[Callable[[Doc, Sentence, Span], list[Statement]], re.Pattern[str]], ...] = (
    (
        _zh_work,
        gate(
            "工作",
            "上班",
            "实习",
            "任职",
            "打工",
            "就职",
            "做",
            "生活",
            "居住",
            "定居",
            "常住",
            "落户",
        ),
    ),
    (_zh_native, gate("人")),
    (_zh_preferred, gate("叫我", "称呼我", "喊我", "称我")),
    (_birthday, gate("生日", "出生", "birth", "born", "dob")),
    (_en_address, gate("address")),
    (_zh_address, gate("地址")),
    (_zh_staff, gate("员工", "职员", "雇员", "一员")),
)
