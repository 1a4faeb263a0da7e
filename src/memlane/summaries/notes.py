"""Notes: atomic, self-contained statements worth remembering, drawn from one user turn.

Rule-based and deterministic. Each informative sentence of a user turn becomes one note;
greetings, fillers and content-free questions are dropped; "I"/"my"/"我" are replaced by the
speaker's name (or the subject id), and relative times ("yesterday", "上周") are written out
against the turn's time with :func:`memlane.extract.times.resolve_times`, so a note still
reads right months later:

"I went to a LGBTQ support group yesterday." said by Caroline on 2023-05-08
→ "Caroline went to a LGBTQ support group on 2023-05-07."

Each note also names the relations it states about its speaker (``"location"``,
``"phone"``, ``"my:favorite color"``...), so a later note on the same relation can make an
earlier one stale.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta, tzinfo

from memlane.errors import InvalidInput
from memlane.extract.model import Mention
from memlane.extract.times import resolve_times
from memlane.lang import negates_next
from memlane.pacing import pause
from memlane.summaries.text import (
    SpanKind,
    cjk_segments,
    contains_cjk,
    find_spans,
    is_content_word,
    is_question,
    keywords,
    normalize_for_dedupe,
    split_sentences,
    word_set,
    words,
)
from memlane.timeutil import resolve_timezone
from memlane.window.model import Turn

TimeResolver = Callable[[str, datetime, tzinfo], Sequence[Mention]]
"""Finds time mentions in a text said at an instant: ``(text, at, timezone) -> mentions``,
as :func:`memlane.extract.times.resolve_times` does (ISO date or datetime strings, or
half-open ``{"from": ..., "to": ...}`` date ranges)."""


@dataclass(frozen=True, slots=True)
class NoteDraft:
    """A note before storage: the statement, the turn it came from, when, and about whom.

    ``relations`` names what the statement says about its speaker (see :func:`relations`).
    """

    text: str
    turn_id: str
    at: datetime
    subject: str
    relations: tuple[str, ...] = ()


def extract_notes(
    turn: Turn,
    *,
    timezone: str | tzinfo,
    speaker_name: str | None = None,
    resolver: TimeResolver = resolve_times,
) -> list[NoteDraft]:
    """Atomic notes from one user turn; other roles yield none.

    Args:
        turn: the turn; its ``at`` anchors relative times.
        timezone: IANA name or ``tzinfo`` in which "yesterday" and "上周" are read.
        speaker_name: who "I" is (LoCoMo's "Caroline"); defaults to ``turn.speaker``, then
            ``turn.subject``.
        resolver: finds time mentions (injectable for tests and other languages).

    Returns:
        One note per informative sentence, in order, without duplicates.

    Raises:
        InvalidInput: unknown time zone, naive ``turn.at``, or an empty speaker name.
    """
    zone = resolve_timezone(timezone)
    if turn.at.utcoffset() is None:
        raise InvalidInput("turn.at", "must be an aware datetime")
    if speaker_name is not None and not speaker_name.strip():
        raise InvalidInput("speaker_name", "must not be empty")
    if turn.role != "user":
        return []
    speaker = (speaker_name or turn.speaker or turn.subject).strip()
    notes: list[NoteDraft] = []
    seen: set[str] = set()
    for raw in split_sentences(turn.content):
        pause()
        sentence = strip_discourse(raw)
        text = note_text(sentence, speaker, resolver(sentence, turn.at, zone))
        key = normalize_for_dedupe(text or "")
        if text is not None and key and key not in seen:
            seen.add(key)
            found = tuple(relations(sentence))
            notes.append(NoteDraft(text, turn.id, turn.at, turn.subject, found))
    return notes


def note_text(sentence: str, speaker: str, times: Sequence[Mention] = ()) -> str | None:
    """The note one sentence makes, or ``None`` when it is not worth remembering.

    >>> note_text("Oh, I've been to Paris!", "Jon")
    'Jon has been to Paris!'
    """
    sentence = strip_discourse(sentence)
    if not sentence or not is_informative(sentence, has_time=bool(times)):
        return None
    if is_question(sentence):
        if not find_spans(sentence, _QUESTION_KEEPS) and not _states_figure(sentence):
            return None
        return (
            f"{speaker}问：{sentence}" if contains_cjk(sentence) else f"{speaker} asked: {sentence}"
        )
    text = resolve_first_person(annotate_times(sentence, times), speaker)
    if speaker.casefold() not in text.casefold():
        text = f"{speaker}说：{text}" if contains_cjk(text) else f"{speaker} said: {text}"
    return text[0].upper() + text[1:]


_QUESTION_KEEPS: frozenset[SpanKind] = frozenset({"identifier", "date", "amount"})
"""What makes a question worth a note: it says a code, a date or a sum (or a figure)."""
_FIGURE_DIGITS = 3


def _states_figure(sentence: str) -> bool:
    """A question that states a figure of its own ("Can I use my 30,721 points on this order?")."""
    return any(
        sum(ch.isdigit() for ch in span.text) >= _FIGURE_DIGITS
        for span in find_spans(sentence, _NUMBERS)
    )


_NUMBERS: frozenset[SpanKind] = frozenset({"number", "quantity"})
_INFORMATIVE_KINDS: frozenset[SpanKind] = frozenset({"identifier", "date", "amount", "quantity"})
_DISCOURSE = re.compile(
    r"^(?:(?:oh|ooh|well|so|anyway|anyways|also|and|but|btw|by the way|plus|yeah|yes|haha|lol"
    r"|actually|honestly|um|uh|wow|hey|hi|hello|ah)\b[,!.]?\s+)+"
    r"|^(?:(?:嗯|哦|噢|喔|啊|对了|话说|其实|那个|哈哈|好吧|另外)[，,、！!]?)+",
    re.IGNORECASE,
)
_FIRST_PERSON = re.compile(r"\b(?:I|I'm|I’m|I've|I’ve|my|me|we|our)\b|我")
# A name the speaker addresses ("..., Jon!", "Thanks Gina") says nothing about the world.
_VOCATIVE = re.compile(
    r",\s*[A-Z][a-z]+[!.?]*$|^(?i:hey|hi|hello|thanks|thank you|congrats|wow)[,!]?\s+[A-Z][a-z]+"
)


def strip_discourse(sentence: str) -> str:
    """Drop an opening interjection ("Oh, ", "So ", "嗯，") that carries nothing."""
    stripped = _DISCOURSE.sub("", sentence.strip()).strip()
    return stripped or sentence.strip()


def is_informative(sentence: str, *, has_time: bool = False) -> bool:
    """True unless the sentence is a greeting, a filler or too thin to remember.

    Identifiers, dates, amounts and quantities always count; otherwise enough content
    words (names inside the sentence count double, a relative time counts one) or Chinese
    content characters are needed, fewer when the speaker talks about themself.
    """
    if find_spans(sentence, _INFORMATIVE_KINDS):
        return True
    found = words(_VOCATIVE.sub("", sentence))
    score = int(has_time) + sum(
        1 + (index > 0 and word[0].isupper())
        for index, word in enumerate(found)
        if is_content_word(word)
    )
    cjk_chars = sum(len(segment) for segment in cjk_segments(sentence)) + 2 * int(has_time)
    first_person = _FIRST_PERSON.search(sentence) is not None
    return score >= (2 if first_person else 3) or cjk_chars >= (2 if first_person else 4)


_RELATION_PATTERNS = re.compile(
    "|".join(
        f"(?P<{name}>{pattern})"
        for name, pattern in (
            (
                "location",
                r"\b(?:I|we)(?:'ve| have)?\s+(?:\w+\s+)?(?:live|living|reside|moved|relocated)\s+"
                r"(?:in|to)\b|\bI'?m (?:now )?(?:living|based) in\b|\bmy (?:home|address) is\b"
                r"|我(?:们)?[^，。！？,.!?\s]{0,4}?(?:住在|居住在|搬到|搬去|搬家到|定居在|家在)",
            ),
            ("name", r"\bmy name is\b|\bcall me\b|我叫|我的名字(?:是|叫)|我名字叫"),
            (
                "phone",
                r"\bmy (?:new )?(?:phone|mobile|cell)(?: number)?(?: is|'s)\b"
                r"|(?:我的?)?新?(?:手机号码?|电话号码?|手机|电话)(?:是|换成|改成|改为)?",
            ),
            (
                "email",
                r"\bmy (?:new )?e-?mail(?: address)?(?: is|'s)\b|(?:我的?)?新?(?:邮箱|电子邮件)",
            ),
            (
                "employer",
                r"\bI (?:now |currently )?work (?:at|for)\b|\bI'?m (?:now )?working (?:at|for)\b"
                r"|我(?:现在)?在[^，。！？\s]{1,12}(?:工作|上班)|我(?:现在)?就职于",
            ),
            ("age", r"\bI'?m \d+ years old\b|我今年\d+岁|我\d+岁"),
            ("birthday", r"\bmy birthday is\b|我的?生日(?:是|在)"),
            (
                "generic",
                r"\bmy (?P<mine>(?:favou?rite )?[a-z]+(?: [a-z]+)?) (?:is|are)\b"
                r"|我的(?P<wode>[^\s，。！？的是]{1,6})是"
                # "我最喜欢的球队(现在)是…": the Chinese "my favourite X is (now) …"
                r"|我最?喜欢的(?P<xihuan>[^\s，。！？的是现目如]{1,6})(?:现在|目前|如今)?是",
            ),
        )
    ),
    re.IGNORECASE,
)


def relations(text: str) -> list[str]:
    """What a first-person statement asserts about its speaker, in order, no repeats.

    Named relations are ``location``, ``name``, ``phone``, ``email``, ``employer``, ``age``
    and ``birthday``; "my X is ..." / "我的X是..." gives ``"my:X"``.

    >>> relations("我上周搬到北京了，新手机号 139-1111-2222")
    ['location', 'phone']
    """
    found: list[str] = []
    for match in _RELATION_PATTERNS.finditer(text):
        name = match.lastgroup
        if name in ("mine", "wode", "xihuan", "generic"):
            favourite = match["xihuan"] and "最喜欢的" + match["xihuan"]
            name = "my:" + (match["mine"] or match["wode"] or favourite).lower()
        if name and name not in found:
            found.append(name)
    return found


def render_times(text: str, mentions: Sequence[Mention]) -> str:
    """Replace relative time mentions by explicit dates ("yesterday" → "on 2026-07-03").

    Mentions whose text is already an explicit date ("2026-07-01", "5月3日") stay as written.
    Ranges are half-open: a week becomes "the week of <Monday>" / "<Monday> 那周", a month
    "June 2026" / "2026年6月", a year "2025" / "2025年".
    """
    pieces: list[str] = []
    cursor = 0
    for mention in sorted(mentions, key=lambda found: found.span[0]):
        start, end = _locate(text, mention, cursor)
        if start < cursor or mention.kind != "time" or _explicit(mention.text):
            continue
        chinese = contains_cjk(mention.text)
        rendered = _render_value(mention.value, chinese, _after_prep(text, start))
        if rendered is None:
            continue
        if chinese and start > 0 and text[start - 1].isascii() and text[start - 1].isalnum():
            rendered = " " + rendered
        pieces.extend([text[cursor:start], rendered])
        cursor = end
    pieces.append(text[cursor:])
    return "".join(pieces)


def annotate_times(text: str, mentions: Sequence[Mention]) -> str:
    """Keep relative time mentions as said, each followed by the date it resolves to.

    What the user said stays whole ("下周一上午10点前", "Saturday 9 to 12"), so it is found as
    said, and the date makes the note hold after "next Monday" has passed:

    >>> m = Mention("time", "下周一上午10点", "2025-04-21T10:00", (2, 10))
    >>> annotate_times("改到下周一上午10点前送，谢谢", [m])
    '改到下周一上午10点前送（2025-04-21 10:00），谢谢'
    >>> m = Mention("time", "yesterday", "2026-07-03", (7, 16))
    >>> annotate_times("I left yesterday after lunch.", [m])
    'I left yesterday (2026-07-03) after lunch.'
    """
    added: dict[int, list[str]] = {}
    cursor = 0
    chinese = False
    for mention in sorted(mentions, key=lambda found: found.span[0]):
        start, end = _locate(text, mention, cursor)
        if start < cursor or mention.kind != "time" or _explicit(mention.text):
            continue
        chinese_here = contains_cjk(mention.text)
        rendered = _render_value(mention.value, chinese_here, True)
        if rendered is None:
            continue
        chinese = chinese or chinese_here
        cursor = end
        added.setdefault(_annotation_point(text, end, chinese_here), []).append(rendered)
    pieces: list[str] = []
    last = 0
    for at, dates in sorted(added.items()):
        joined = "; ".join(dates)
        pieces.extend([text[last:at].rstrip(), f"（{joined}）" if chinese else f" ({joined})"])
        last = at
    pieces.append(text[last:])
    return "".join(pieces)


_CLAUSE_END = re.compile(r"[，。；！？、,;!?\n]|\.(?=\s|$)")


def _annotation_point(text: str, end: int, chinese: bool) -> int:
    """Where a resolved date goes: after an English mention, or after a Chinese one's clause.

    An English mention is whole ("Saturday at 8am"); the words of a Chinese one run on
    ("上午10点*前*送"), so the date waits for the clause to end.
    """
    if not chinese:
        return end
    found = _CLAUSE_END.search(text, end)
    return found.start() if found else len(text)


_DATE_KINDS: frozenset[SpanKind] = frozenset({"date"})
_MONTH_NAMES = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)  # fmt: skip
_PREPOSITIONS = word_set(
    "on since until till by from before after of at in during for to through around"
)


def _explicit(text: str) -> bool:
    """The whole mention is a date or time as written ("5月3日", "3pm"), not a relative one."""
    return any(span.text == text.strip() for span in find_spans(text, _DATE_KINDS))


def _locate(text: str, mention: Mention, cursor: int) -> tuple[int, int]:
    start, end = mention.span
    if end > start and text[start:end] == mention.text:
        return start, end
    found = text.find(mention.text, cursor)
    return (found, found + len(mention.text)) if found >= 0 else (-1, -1)


def _after_prep(text: str, start: int) -> bool:
    before = text[:start].rstrip().rsplit(None, 1)
    return bool(before) and before[-1].lower() in _PREPOSITIONS


def _render_value(value: object, chinese: bool, after_preposition: bool) -> str | None:
    if isinstance(value, str):
        return _render_instant(value, chinese, after_preposition)
    if not isinstance(value, dict):
        return None
    try:
        start = date.fromisoformat(str(value["from"])[:10])
        end = date.fromisoformat(str(value["to"])[:10])  # exclusive
    except (KeyError, ValueError):
        return None
    days = (end - start).days
    lead = "" if after_preposition else "in "
    if days <= 1:
        return _render_instant(start.isoformat(), chinese, after_preposition)
    if days == 7 and start.weekday() == 0:
        return f"{start} 那周" if chinese else f"{lead}the week of {start}"
    if days == 2 and start.weekday() == 5:
        return f"{start} 那个周末" if chinese else f"{lead}the weekend of {start}"
    if start.day == 1 and end == _next_month(start):
        month = _MONTH_NAMES[start.month - 1]
        return f"{start.year}年{start.month}月" if chinese else f"{lead}{month} {start.year}"
    if (start.month, start.day) == (1, 1) and end == date(start.year + 1, 1, 1):
        return f"{start.year}年" if chinese else f"{lead}{start.year}"
    last = end - timedelta(days=1)
    return f"{start} 至 {last}" if chinese else f"between {start} and {last}"


def _next_month(first: date) -> date:
    return date(first.year + first.month // 12, first.month % 12 + 1, 1)


def _render_instant(value: str, chinese: bool, after_preposition: bool) -> str | None:
    try:
        day = date.fromisoformat(value[:10])
        clock = datetime.fromisoformat(value).strftime("%H:%M") if len(value) > 10 else ""
    except ValueError:
        return None
    if chinese:
        return f"{day} {clock}".strip()
    lead = "" if after_preposition else "on "
    return f"{lead}{day}" + (f" at {clock}" if clock else "")


# --- statement rules the offline summarizer shares ----------------------------------------

_REQUEST = re.compile(
    r"^(?:please|can you|could you|would you|will you|help me|let me know|make sure)\b"
    r"|\b(?:remind me|don't forget|do not forget|remember to|I need to|I have to|I've got to"
    r"|I gotta|I must|I should|I still need|I still have to|haven't \w+ yet|not yet|still "
    r"haven't|I'm planning to|I plan to|I'm going to|I'll|I will|TODO|to-do)\b"
    r"|^(?:请|麻烦|帮我|帮忙)|提醒我|记得|别忘了|不要忘了|还没|还要|我需要|我得|我要|我打算|我计划"
    r"|我准备|待办",
    re.IGNORECASE,
)
_EVASIVE = re.compile(
    r"\b(?:I don't know|I do not know|not sure|no idea|let me check|I'll check|I will check"
    r"|I'll get back|get back to you|can't say|cannot say)\b"
    r"|不知道|不清楚|不确定|我查一下|稍等|再看看",
    re.IGNORECASE,
)
_DONE = re.compile(
    r"\b(?:done|finished|completed|complete|already|took care|sorted|fixed|resolved|booked"
    r"|sent|paid|shipped|delivered|refunded)\b"
    r"|已经|完成|搞定|办好|处理好|弄好|好了|解决|已发|已付|已退",
    re.IGNORECASE,
)
_COMPLAINT = re.compile(
    r"\b(?:complain\w*|refund|broken|doesn't work|does not work|still not|never arrived"
    r"|worst|terrible)\b|投诉|退款|坏了|不能用|还没到|太慢|太差",
    re.IGNORECASE,
)
_PLAN = re.compile(
    r"\b(?:plan|plans|planning|going to|gonna|I'll|I will|next (?:week|month|year)|tomorrow)\b"
    r"|打算|计划|准备|下周|明天要|下个月",
    re.IGNORECASE,
)
_MOOD_WORDS: dict[str, str] = {
    "frustrated": r"frustrat\w*|annoy\w*|angry|pissed|upset|ridiculous|fed up|sick of"
    r"|unacceptable|烦死|好烦|很烦|生气|气死|无语|受不了|郁闷|恼火|不爽|太差|失望",
    "sad": r"sad|depressed|lonely|heartbroken|miserable|devastated|grieving"
    r"|难过|伤心|孤独|不开心|难受|想哭",
    "worried": r"worried|worry|anxious|nervous|scared|afraid|stressed|overwhelmed|swamped"
    r"|担心|焦虑|紧张|害怕|压力",
    "confused": r"confused|confusing|don't understand|do not understand|unclear|puzzled"
    r"|不明白|不懂|搞不清|困惑|糊涂|看不懂|怎么回事",
    "urgent": r"urgent|asap|immediately|right away|hurry|emergency|as soon as possible"
    r"|着急|急需|紧急|马上|尽快|赶紧|立刻",
    "happy": r"happy|glad|delighted|thrilled|joy|joyful|proud|love it|blessed"
    r"|开心|高兴|太好了|快乐|满意|幸福|棒",
    "excited": r"excited|exciting|can't wait|pumped|stoked|兴奋|激动|期待|迫不及待",
    "grateful": r"thank|thanks|grateful|appreciate|thankful|谢谢|感谢|多谢",
}
# One pass with a named group per mood; Latin words must not touch other letters.
_MOODS = re.compile(
    "(?<![A-Za-z])(?:"
    + "|".join(f"(?P<{name}>{pattern})" for name, pattern in _MOOD_WORDS.items())
    + ")(?![A-Za-z])",
    re.IGNORECASE,
)


def is_request(text: str) -> bool:
    """A request, reminder or to-do: "please…", "remind me…", "I need to…", "提醒我…", "还没…"."""
    return _REQUEST.search(text) is not None


def is_evasive(text: str) -> bool:
    """A reply that does not answer: "I don't know", "let me check", "不清楚", "稍等"."""
    return _EVASIVE.search(text) is not None


def reports_done(text: str) -> bool:
    """A statement that something is done: "already paid", "已经处理好了"."""
    return _DONE.search(text) is not None


def worth_asking(text: str) -> bool:
    """A question or request with content (not "How are you?")."""
    return bool(find_spans(text)) or len(keywords(text)) >= 2


def moods(text: str) -> list[str]:
    """Moods a statement expresses, from a small bilingual lexicon, in order.

    One of frustrated, sad, worried, confused, urgent, happy, excited, grateful per
    matching word; a word right after "not"/"never"/"不"/"没" does not count.

    >>> moods("I'm not happy, I'm really frustrated! 太好了")
    ['frustrated', 'happy']
    """
    return [
        match.lastgroup
        for match in _MOODS.finditer(text)
        if match.lastgroup and not negates_next(text[: match.start()])
    ]


def intents(
    text: str, *, question: bool | None = None, informative: bool | None = None
) -> list[str]:
    """What a statement is doing: asking, requesting, complaining, planning or sharing.

    ``question`` and ``informative`` may be passed when already known.
    """
    question = is_question(text) if question is None else question
    found: list[str] = []
    if question and worth_asking(text):
        found.append("asking")
    if is_request(text) and not _PLAN.search(text):
        found.append("requesting")
    if _COMPLAINT.search(text):
        found.append("complaining")
    if _PLAN.search(text):
        found.append("planning")
    if (
        not found
        and not question
        and (is_informative(text) if informative is None else informative)
    ):
        found.append("sharing")
    return found


# --- first person --------------------------------------------------------------------------

_PRESENT_VERBS = word_set(
    """love like want need think feel know hope plan live work go do have try enjoy prefer miss
    believe wish play run read write teach study paint cook walk swim dance sing remember
    forget mean guess agree understand find get make take keep own use visit volunteer
    care hate adore admire appreciate struggle practice listen watch see say feel"""
)
_ADVERBS = (
    r"(?:really|also|just|still|always|usually|often|never|sometimes|actually|definitely"
    r"|totally|truly|absolutely|kinda|now|currently|even|only|mostly)"
)
_EN_FIRST_PERSON = re.compile(
    r"\bI['’]m\b|\bI['’]ve\b|\bI['’]ll\b|\bI['’]d\b|\bI\s+don['’]t\b|\bI\s+haven['’]t\b"
    rf"|\bI(?P<gap>(?:\s+{_ADVERBS})?\s+)(?P<verb>[a-z]+)\b"
    r"|\bI\b|\b[Mm]y\b|\b[Mm]ine\b|\b[Mm]yself\b|\b[Mm]e\b"
)
_CONTRACTIONS = {
    "i'm": "is",
    "i've": "has",
    "i'll": "will",
    "i don't": "doesn't",
    "i haven't": "hasn't",
}
_HAD_WORDS = word_set("been had gone done seen already never just")


def resolve_first_person(text: str, speaker: str) -> str:
    """Replace first-person pronouns by ``speaker``, with simple verb agreement.

    >>> resolve_first_person("I'm moving and I really love my new place", "Caroline")
    "Caroline is moving and Caroline really loves Caroline's new place"
    >>> resolve_first_person("我的猫叫咪咪，我们很喜欢它", "王芳")
    '王芳的猫叫咪咪，我们很喜欢它'
    """
    if contains_cjk(text):
        glued = speaker[-1:].isascii() and speaker[-1:].isalnum()
        text = re.sub(
            r"我(?![们國国])(?P<next>[A-Za-z0-9]?)",
            lambda match: speaker + (" " if glued and match["next"] else "") + match["next"],
            text,
        )
    return _EN_FIRST_PERSON.sub(lambda match: _replace_english(match, speaker), text)


def _replace_english(match: re.Match[str], speaker: str) -> str:
    if match.group("verb") is not None:
        verb = match.group("verb")
        if verb == "am":
            verb = "is"
        elif verb in _PRESENT_VERBS:
            verb = _third_person(verb)
        return f"{speaker}{match.group('gap')}{verb}"
    lowered = " ".join(match.group().replace("’", "'").lower().split())
    if lowered in _CONTRACTIONS:
        return f"{speaker} {_CONTRACTIONS[lowered]}"
    if lowered == "i'd":
        following = match.string[match.end() :].split(None, 1)
        return f"{speaker} {'had' if following and following[0] in _HAD_WORDS else 'would'}"
    if lowered in ("my", "mine"):
        return f"{speaker}'s"
    if lowered == "myself":
        return "themself"
    return speaker


def _third_person(verb: str) -> str:
    if verb in ("have", "do", "go"):
        return {"have": "has", "do": "does", "go": "goes"}[verb]
    if verb.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if verb.endswith("y") and verb[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"
