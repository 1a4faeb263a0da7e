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
from memlane.lang import phrasing as said
from memlane.lang.changes import takes_back
from memlane.lang.places import ZH_PLACE_END, ZH_SETTLED_AFTER, ZH_TRAILING_VERB
from memlane.lang.sentences import ASKING_CLAUSE
from memlane.lang.speaker import FIRST_PERSON as _FIRST_PERSON
from memlane.lang.speaker import HYPOTHETICAL, QUESTION_EN, QUESTION_ZH
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
    # What is said beside a code describes what the code names ("1Z… is stuck. It's a baby
    # stroller"): a question naming the code is answered by it, however short it is.
    beside_code = bool(find_spans(turn.content, _CODES))
    for raw in split_sentences(turn.content):
        pause()
        sentence = strip_discourse(raw)
        times = resolver(sentence, turn.at, zone)
        text = note_text(sentence, speaker, times, beside_code=beside_code)
        key = normalize_for_dedupe(text or "")
        if text is not None and key and key not in seen:
            seen.add(key)
            found = tuple(relations(sentence))
            notes.append(NoteDraft(text, turn.id, turn.at, turn.subject, found))
    return notes


def note_text(
    sentence: str, speaker: str, times: Sequence[Mention] = (), *, beside_code: bool = False
) -> str | None:
    """The note one sentence makes, or ``None`` when it is not worth remembering.

    A sentence that takes a value back is worth remembering however short ("Monday is
    out"), and so is a question that does ("Can you cancel the blender?", "could you
    update my name to Ann?"): what the speaker withdrew or changed. ``beside_code``: the
    turn names a code, so a sentence needs no more words than one about the speaker
    ("It's a baby stroller" tells what the code is for).

    >>> note_text("Oh, I've been to Paris!", "Jon")
    'Jon has been to Paris!'
    >>> note_text("Could you change my seat to the aisle?", "Jon")
    'Jon asked: Could you change my seat to the aisle?'
    """
    sentence = strip_discourse(sentence)
    if not sentence:
        return None
    withdraws = takes_back(sentence)
    informative = is_informative(sentence, has_time=bool(times), about_speaker=beside_code)
    if not withdraws and not informative:
        return None
    if is_question(sentence):
        keeps = find_spans(sentence, _QUESTION_KEEPS) or _states_figure(sentence)
        told = _told_before_asking(sentence)
        if told and not keeps and not withdraws:
            return note_text(told, speaker, [t for t in times if t.span[1] <= len(told)])
        if not keeps and not withdraws:
            return None
        asked = said.ASKED_ZH if contains_cjk(sentence) else said.ASKED_EN
        return asked.format(speaker=speaker, text=sentence)
    text = resolve_first_person(annotate_times(sentence, times), speaker)
    if speaker.casefold() not in text.casefold():
        relayed = said.SAID_ZH if contains_cjk(text) else said.SAID_EN
        text = relayed.format(speaker=speaker, text=text)
    return text[0].upper() + text[1:]


def _told_before_asking(sentence: str) -> str | None:
    """What a question's first clauses tell, when only its last clause asks.

    "Flying to Oslo next Wednesday, what's the weather like?" tells a plan; "Can you check,
    is it shipped?", "If I move to Oslo, should I tell you?" and "Should I go to Oslo in
    May?" tell nothing.

    >>> _told_before_asking("Flying to Oslo next Wednesday, what's the weather like?")
    'Flying to Oslo next Wednesday'
    >>> _told_before_asking("Can you check, is it shipped?") is None
    True
    """
    cut = ASKING_CLAUSE.search(sentence)
    if cut is None:
        return None
    told, asked = sentence[: cut.start()].strip(), sentence[cut.end() :]
    if not (QUESTION_EN.match(asked) or QUESTION_ZH.search(asked) or is_question(asked)):
        return None  # "Is it Oslo, right?": the whole sentence asks
    if QUESTION_EN.match(told) or QUESTION_ZH.search(told) or HYPOTHETICAL.search(told):
        return None
    return told if is_informative(told) else None


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
_CODES: frozenset[SpanKind] = frozenset({"identifier"})
_INFORMATIVE_KINDS: frozenset[SpanKind] = frozenset({"identifier", "date", "amount", "quantity"})
_DISCOURSE = re.compile(
    rf"^(?:(?:{said.DISCOURSE_EN})\b[,!.]?\s+)+"
    rf"|^(?:(?:{said.DISCOURSE_ZH})[{said.DISCOURSE_ZH_PUNCT}]?)+",
    re.IGNORECASE,
)
# A name the speaker addresses ("..., Jon!", "Thanks Gina") says nothing about the world.
_VOCATIVE = re.compile(said.VOCATIVE)


def strip_discourse(sentence: str) -> str:
    """Drop an opening interjection ("Oh, ", "So ", "嗯，") that carries nothing."""
    stripped = _DISCOURSE.sub("", sentence.strip()).strip()
    return stripped or sentence.strip()


def is_informative(sentence: str, *, has_time: bool = False, about_speaker: bool = False) -> bool:
    """True unless the sentence is a greeting, a filler or too thin to remember.

    Identifiers, dates, amounts and quantities always count; otherwise enough content
    words (names inside the sentence count double, a relative time counts one) or Chinese
    content characters are needed, fewer when the speaker talks about themself (or when
    ``about_speaker`` says the sentence is as close to them: it describes their code).
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
    cjk_chars += sum(len(place) for place in _cjk_places(sentence))
    first_person = about_speaker or _FIRST_PERSON.search(sentence) is not None
    return score >= (2 if first_person else 3) or cjk_chars >= (2 if first_person else 4)


def _cjk_places(sentence: str) -> list[str]:
    """The Chinese places a sentence introduces ("搬去*太原*", "住在*成都*"), whole.

    Cutting at function characters loses them ("太原" is cut at 太, "成都" at 都), so a
    sentence naming one would seem too thin to remember.
    """
    found = (
        ZH_TRAILING_VERB.sub("", ZH_PLACE_END.split(match.group(1))[0])
        for match in ZH_SETTLED_AFTER.finditer(sentence)
    )
    return [place for place in found if _MIN_PLACE <= len(place) <= _MAX_PLACE]


_MIN_PLACE, _MAX_PLACE = 2, 4


_RELATION_PATTERNS = re.compile(
    "|".join(f"(?P<{name}>{pattern})" for name, pattern in said.RELATIONS),
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
        if match["generic"]:  # "my X is …": the relation is X
            favourite = match["xihuan"] and said.FAVOURITE_ZH + match["xihuan"]
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
        pieces.extend(
            [
                text[last:at].rstrip(),
                (said.DATES_ZH if chinese else said.DATES_EN).format(dates=joined),
            ]
        )
        last = at
    pieces.append(text[last:])
    return "".join(pieces)


_CLAUSE_END = re.compile(said.CLAUSE_END)


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
_PREPOSITIONS = word_set(said.TIME_PREPOSITIONS)


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
    lead = "" if after_preposition else said.IN_PERIOD
    if days <= 1:
        return _render_instant(start.isoformat(), chinese, after_preposition)
    if days == 7 and start.weekday() == 0:
        return (said.WEEK_ZH if chinese else said.WEEK_EN).format(start=start, lead=lead)
    if days == 2 and start.weekday() == 5:
        return (said.WEEKEND_ZH if chinese else said.WEEKEND_EN).format(start=start, lead=lead)
    if start.day == 1 and end == _next_month(start):
        month = start.month if chinese else said.MONTH_NAMES[start.month - 1]
        written = said.YEAR_MONTH_ZH if chinese else said.YEAR_MONTH_EN
        return written.format(year=start.year, month=month, lead=lead)
    if (start.month, start.day) == (1, 1) and end == date(start.year + 1, 1, 1):
        return (said.YEAR_ZH if chinese else said.YEAR_EN).format(year=start.year, lead=lead)
    last = end - timedelta(days=1)
    return (said.RANGE_ZH if chinese else said.RANGE_EN).format(start=start, last=last)


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
    lead = "" if after_preposition else said.ON_DAY
    return f"{lead}{day}" + (said.AT_CLOCK.format(clock=clock) if clock else "")


# --- statement rules the offline summarizer shares ----------------------------------------

_REQUEST = re.compile(said.REQUEST, re.IGNORECASE)
_EVASIVE = re.compile(said.EVASIVE, re.IGNORECASE)
_DONE = re.compile(said.DONE, re.IGNORECASE)
_COMPLAINT = re.compile(said.COMPLAINT, re.IGNORECASE)
_PLAN = re.compile(said.PLAN, re.IGNORECASE)
# One pass with a named group per mood; Latin words must not touch other letters.
_MOODS = re.compile(
    "(?<![A-Za-z])(?:"
    + "|".join(f"(?P<{name}>{pattern})" for name, pattern in said.MOOD_WORDS.items())
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

_EN_FIRST_PERSON = re.compile(
    said.I_CONTRACTIONS
    + "|"
    + said.I_VERB.format(adverbs=said.ADVERBS)
    + "|"
    + said.FIRST_PERSON_WORDS
)
_ZH_FIRST_PERSON = re.compile(said.I_ZH)
_HAD_WORDS = word_set(said.HAD_WORDS)


def resolve_first_person(text: str, speaker: str) -> str:
    """Replace first-person pronouns by ``speaker``; the words the speaker said stay as said.

    Only the pronouns change (and "I'm", "I am" become "is"): a verb keeps the form the
    speaker gave it, so what they said is found as said ("I take the train" → "Caroline
    take the train", not "takes").

    >>> resolve_first_person("I'm moving and I really love my new place", "Caroline")
    "Caroline is moving and Caroline really love Caroline's new place"
    >>> resolve_first_person("我的猫叫咪咪，我们很喜欢它", "王芳")
    '王芳的猫叫咪咪，我们很喜欢它'
    """
    if contains_cjk(text):
        glued = speaker[-1:].isascii() and speaker[-1:].isalnum()
        text = _ZH_FIRST_PERSON.sub(
            lambda match: speaker + (" " if glued and match["next"] else "") + match["next"],
            text,
        )
    return _EN_FIRST_PERSON.sub(lambda match: _replace_english(match, speaker), text)


def _replace_english(match: re.Match[str], speaker: str) -> str:
    if match.group("verb") is not None:
        verb = match.group("verb")
        if verb == said.AM:
            verb = said.AM_THIRD
        return f"{speaker}{match.group('gap')}{verb}"  # the verb as said: "I take" → "X take"
    lowered = " ".join(match.group().replace("’", "'").lower().split())
    if " " in lowered:  # "I don't": the negated auxiliary as said
        return speaker + match.group()[1:]
    if lowered in said.CONTRACTIONS:
        return f"{speaker} {said.CONTRACTIONS[lowered]}"
    if lowered == said.I_WOULD:
        following = match.string[match.end() :].split(None, 1)
        had = following and following[0] in _HAD_WORDS
        return f"{speaker} {said.HAD if had else said.WOULD}"
    if lowered in said.POSSESSIVE_PRONOUNS:
        return f"{speaker}'s"
    if lowered == said.REFLEXIVE:
        return said.REFLEXIVE_THIRD
    return speaker
