"""Retractions: sentences that say a value no longer holds, in any relation.

"I left Acme", "moved from Porto to Lyon", "131那个号不用了", "建行的别扣了", "not vegan
anymore": each names an old value next to a cue (:data:`memlane.lang.zh.RETRACTED_AFTER` and
friends). :func:`retractions` reads the old value's words; whoever holds an earlier
statement or fact with those words knows it is superseded — no list of relations needed.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import cache

from memlane.lang import employment, en, times, zh
from memlane.lang import retractions as cues
from memlane.lang.script import CJK_CHAR, CJK_RANGES, fold
from memlane.lang.words import (
    negates_next,
    possible_next,
    salient_terms,
    shares_term,
    tells_episode,
)
from memlane.memo import per_process, per_recall
from memlane.pacing import pause

MAX_VALUE_CHARS = 40
_DATE_NOTE = re.compile(r"\s*[(（]\d{4}-\d\d-\d\d[^()（）]{0,40}[)）]")
_COURTESY = re.compile(cues.COURTESY)
"""The date a note writes after a relative time ("Monday (2025-09-22) is out"): not said."""
_EN_CLAUSE_START = r"(?:^|[,.;:!?—–]\s*|\b(?:and|but|so)\s+)"


@dataclass(frozen=True, slots=True)
class Retraction:
    """A value a sentence says no longer holds: as written (folded), and its terms."""

    old: str
    terms: frozenset[str]


@per_process
def retractions(text: str) -> tuple[Retraction, ...]:
    """The old values ``text`` retracts, in order.

    >>> [r.old for r in retractions("我上个月从兰州搬去绍兴了")]
    ['兰州']
    >>> [r.old for r in retractions("Employment updated: formerly Airbnb, now with KPMG.")]
    ['airbnb']
    >>> [r.old for r in retractions("Please switch cards, the Visa's gone")]
    ['the visa']

    A cue that is negated ("I won't quit", "不会离开") or only possible ("anyone else would
    quit") retracts nothing, nor does a "from … to …" that no verb of change governs (a
    range: "all kinds of dances, from contemporary to hip-hop"):

    >>> retractions("I might quit Acme"), retractions("We dance it all, from salsa to tango")
    ((), ())
    """
    folded = _DATE_NOTE.sub("", fold(text))
    found: list[Retraction] = []
    for pattern in _patterns():
        for match in pattern.finditer(folded):
            pause()  # a long text's matches: a write lets requests go first (memlane.pacing)
            before = folded[: match.start()].rstrip() + " "
            if negates_next(before) or possible_next(before):
                continue  # "I won't quit", "不会离开", "would quit": no cue of what happened
            old = match["old"].strip(" 　'\"“”‘’")
            terms = salient_terms(old)
            if terms and len(old) <= MAX_VALUE_CHARS and old not in {r.old for r in found}:
                found.append(Retraction(old, terms))
    return tuple(found)


def switches(text: str) -> bool:
    """Whether ``text`` has a cue that an arrangement switched ("from now on", "换成").

    A quick test that :func:`switched_parts` may find something; it does not ask whose the
    arrangement is.

    >>> switches("Put me in a window seat from now on"), switches("I like window seats")
    (True, False)
    """
    return bool(_switch().search(fold(text)))


@per_recall
def switched_parts(text: str, speakers: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The sentences of ``text`` in which the speaker switches an arrangement of their own.

    A switch names no old value, so only its own sentence says what switched. An English
    cue counts only in a clause that is the speaker's — it names them (a first-person word
    or one of ``speakers``, the names notes write for "I"), asks for it ("please"), or opens
    with a switch verb, its subject dropped ("switched to paying yearly") — and only where
    the sentence, the cue taken out, does not tell an episode: "instead of giving up, I
    trained harder" tells what happened once, "a fun way to switch up your routine" advises
    someone else, "it's a great way to switch off" is about no one, nor does "instead of
    giving up, Sam …" name the speaker. A Chinese cue (改成, 换成) is a verb of the speaker's
    request.

    >>> switched_parts("Nice day. Put me in a window seat from now on!")
    ('put me in a window seat from now on',)
    >>> switched_parts("But instead of giving up, I trained harder."), switched_parts(
    ...     "It sounds like a fun way to switch up your routine")
    ((), ())
    >>> switched_parts("Mel said: so Mel uses tea instead", speakers=("Mel",))
    ('so mel uses tea instead',)
    >>> switched_parts("Instead of giving up, Sam turned it into a lesson", speakers=("Mel",))
    ()
    """
    folded = fold(text)
    if not _switch().search(folded):
        return ()
    if _zh_switch().search(folded):
        return (folded,)
    names = tuple(fold(name) for name in speakers if name)
    return tuple(
        sentence
        for piece in _SENTENCE_END.split(folded)
        if (sentence := _LABEL.sub("", piece.strip())) and _own_switch(sentence, names)
    )


Offer = tuple[frozenset[str], frozenset[str]]


@per_process
def offered(question: str) -> tuple[Offer, ...]:
    """The pairs of values an either-or ``question`` offers, as terms.

    >>> [tuple(sorted(a | b)) for a, b in offered("Monthly or yearly for this account?")]
    [('monthly', 'yearly')]
    >>> offered("where does she live?")
    ()
    """
    found = []
    folded = fold(question)
    for match in (m for pattern in _either_or() for m in pattern.finditer(folded)):
        first, second = salient_terms(match["a"]), salient_terms(match["b"])
        if first and second and not first & second:
            found.append((first, second))
    return tuple(found)


def picks_other(later: str, earlier: str, offers: tuple[Offer, ...]) -> bool:
    """Whether ``later`` names one of two offered values and ``earlier`` only the other.

    The question ties a change to what it replaced when they share no word: asked "monthly
    or yearly?", "switched to paying yearly" replaces "I'm on monthly billing".
    """
    for first, second in offers:
        for old, new in ((first, second), (second, first)):
            if (
                shares_term(old, earlier)
                and not shares_term(new, earlier)
                and shares_term(new, later)
                and not shares_term(old, later)
            ):
                return True
    return False


_SENTENCE_END = re.compile(r"[.!?\n]+(?=\s|$)")
_CLAUSE_BREAK = re.compile(r"[,;()—–]|:(?!\d)|\s-\s")
_LABEL = re.compile(r"^[^:]{1,40}?\s(?:said|says|asked)\s*:\s*")
_EN_UPDATE_HEADING = re.compile(en.UPDATE_HEADING)
_EN_SWITCH_LEAD = re.compile(en.CLAUSE_LEAD + en.SWITCH_VERB)
"""A clause opening with a verb of switching, its subject dropped: "switched to …"."""


def _own_switch(sentence: str, names: tuple[str, ...]) -> bool:
    """Whether an English ``sentence`` switches an arrangement of the speaker's own."""
    cue = _en_switch()
    if not cue.search(sentence):
        return False
    if any(_own_reschedule().match(clause.strip()) for clause in _CLAUSE_BREAK.split(sentence)):
        return True  # "Need to reschedule the haircut — …, something came up": a booking moved
    if tells_episode(cue.sub(" ", sentence)):
        return False
    if _EN_UPDATE_HEADING.search(sentence):
        return True  # "Update on my diet: …" announces news of the speaker's own
    speaks = _names_speaker(sentence, names)
    for clause in _CLAUSE_BREAK.split(sentence):
        clause = clause.strip()
        if not cue.search(clause):
            continue
        words = _EN_WORDS.findall(clause)
        if _EN_SWITCH_LEAD.match(clause):
            return True  # its subject dropped: "switched to paying yearly"
        if en.REQUEST_WORDS.intersection(words):
            return True  # the speaker asks for it: "from now on please use …"
        addressed = bool(en.LISTENER.intersection(words))
        if speaks and not (addressed and not _names_speaker(clause, names)):
            return True
    return False


def _names_speaker(text: str, names: tuple[str, ...]) -> bool:
    """Whether ``text`` names the speaker: a first-person word, or a name notes write for "I"."""
    return bool(en.FIRST_PERSON.intersection(_EN_WORDS.findall(text))) or any(
        re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text) for name in names
    )


_EN_WORDS = re.compile(r"[a-z]+(?:'[a-z]+)?")


@per_recall
def speaks_for_self(text: str, speakers: tuple[str, ...] = ()) -> bool:
    """Whether English ``text`` tells how things stand for the speaker, not what happened.

    It names the speaker (a first-person word, or one of ``speakers``, the names notes write
    for "I") or asks for something ("SMS only please"), and tells no episode. A note's label
    ("U-1 said:") names no one: "U-1 said: the discount code isn't working" is about the code.
    Chinese marks neither tense nor a request this way: a Chinese text never does.

    >>> speaks_for_self("I drive to work most days"), speaks_for_self("SMS only please")
    (True, True)
    >>> speaks_for_self("U-1 said: the code isn't working", ("U-1",))
    False
    >>> speaks_for_self("I rented a van last summer"), speaks_for_self("我每天开车上班")
    (False, False)
    """
    folded = _LABEL.sub("", fold(text).strip())
    if CJK_CHAR.search(folded) or tells_episode(folded):
        return False
    names = tuple(fold(name) for name in speakers if name)
    requests = en.REQUEST_WORDS.intersection(_EN_WORDS.findall(folded))
    return bool(requests) or _names_speaker(folded, names) or bool(switched_parts(text, speakers))


@per_recall
def taken_back_by_kind(text: str, speakers: tuple[str, ...] = ()) -> frozenset[str]:
    """The terms by which the speaker's English retraction or switch names what it takes back.

    Only when what it takes back is a kind of thing, written in lower case ("No car anymore",
    "no more texts pls", "switched to paying yearly"), not a name or a number ("Not Bex
    anymore", "I left Acme", "the 131 number is out"): a name said for the first time is a
    value of its own, not another word for the speaker's last arrangement. Empty when
    ``text`` takes nothing back, or not as the speaker.

    >>> sorted(taken_back_by_kind("No car anymore — I take the train in every day"))
    ['car']
    >>> taken_back_by_kind("I left Acme last week"), taken_back_by_kind("The car is gone")
    (frozenset(), frozenset())
    """
    if not speaks_for_self(text, speakers):
        return frozenset()
    terms: set[str] = set()
    for found in retractions(text):
        words = _EN_WORDS.findall(found.old)
        if not words or any(not _written_lower(word, text) for word in words):
            return frozenset()  # a name, a number, or not English
        terms |= found.terms
    for part in switched_parts(text, speakers):
        terms |= salient_terms(_en_switch().sub(" ", part))  # the cue itself names nothing
    for name in speakers:
        terms -= salient_terms(name)
    return frozenset(terms)


def _written_lower(word: str, text: str) -> bool:
    """Whether ``word`` (folded) is written in ``text`` in lower case, as a kind is."""
    return re.search(rf"(?<![\w']){re.escape(word)}(?![\w])", text) is not None


def takes_back(text: str, speakers: tuple[str, ...] = ()) -> bool:
    """Whether ``text`` retracts a value or switches an arrangement: it may supersede others.

    Chinese notes write a speaker's name (``speakers``) for 我: "加湿器那单帮U-8412d4取消吧"
    is what "加湿器那单帮我取消吧" said, and is read as said, however long the name.

    >>> takes_back("加湿器那单帮user-8412d4取消吧，不要了", ("User-8412d4",))
    True
    """
    if retractions(text) or switches(text):
        return True
    return any(as_said(text, name) != text and takes_back(as_said(text, name)) for name in speakers)


@per_recall
def as_said(text: str, speaker: str) -> str:
    """Chinese ``text`` with the ``speaker``'s name read back as 我 (other text as is).

    >>> as_said("别给acct-111879点燕麦拿铁了", "Acct-111879")
    '别给我点燕麦拿铁了'
    """
    if not speaker or not CJK_CHAR.search(text):
        return text
    return re.sub(re.escape(speaker), zh.FIRST_PERSON, text, flags=re.IGNORECASE)


@per_recall
def replaces_in_kind(text: str) -> bool:
    """Whether ``text`` says a value replaces another of its kind ("new email", "换成")."""
    folded = fold(text)
    return bool(_replacement().search(folded)) or bool(retractions(text))


@cache
def _patterns() -> tuple[re.Pattern[str], ...]:
    zh_value = rf"(?P<old>.+?)(?={zh.VALUE_END}|$)"
    # A period inside a word ("a.b@mail.example.com", "St.Ives") does not end the value.
    en_value = rf"(?P<old>(?:[^,.;:!?()—–]|\.(?=[^\s.]))+?)(?={en.VALUE_END})"
    return (
        re.compile(rf"{zh.CHANGE_FROM}(?P<old>[^，。；！？,.;!?\s]{{1,12}}?){zh.CHANGE_VERB}"),
        re.compile(rf"(?:{zh.RETRACTED_AFTER}){zh_value}"),
        re.compile(
            rf"(?:^|[，。；！？,.;!?：:\s])(?P<old>[^，。；！？,.;!?：:\s]{{1,16}}?){zh.RETRACTED_BEFORE}"
        ),
        re.compile(
            rf"\b(?:{en.CHANGES})\s+(?:[a-z]+\s+)?{en.CHANGE_FROM}\s+(?P<old>[^,.;:!?]{{1,40}}?)"
            rf"\s+{en.CHANGE_VERB}\s"
        ),
        re.compile(rf"\b(?:{en.RETRACTED_AFTER})\s+{en_value}"),
        re.compile(rf"{_EN_CLAUSE_START}(?P<old>{times.EN_TIME_WORD}){en.NO_LONGER_SUITS}"),
        re.compile(en.NOT_ANY_MORE),
        re.compile(rf"{_EN_CLAUSE_START}(?P<old>[a-z][\w' ]{{0,30}}?){en.RETRACTED_BEFORE}"),
        # A job left: "不在腾讯干了", "last day at Philips", "Acme let me go".
        re.compile(employment.ZH_NOT_AT_JOB),
        re.compile(
            rf"{employment.EN_LAST_DAY}\s+(?P<old>[^,.;:!?()—–]+?)"
            rf"(?={employment.EN_LAST_DAY_END}|{en.VALUE_END})"
        ),
        re.compile(rf"{_EN_CLAUSE_START}(?P<old>[a-z][\w' ]{{0,30}}?){employment.EN_LET_GO}"),
    )


@cache
def _switch() -> re.Pattern[str]:
    return re.compile(f"{_zh_switch().pattern}|{_en_switch().pattern}")


@cache
def _en_switch() -> re.Pattern[str]:
    return re.compile(f"{en.SWITCH}|{en.UPDATE_HEADING}|{cues.EN_RESCHEDULE}")


@cache
def _own_reschedule() -> re.Pattern[str]:
    return re.compile(cues.EN_OWN_RESCHEDULE)


@cache
def _either_or() -> tuple[re.Pattern[str], ...]:
    cjk = f"[{CJK_RANGES}]"
    return re.compile(en.EITHER_OR), re.compile(f"(?P<a>{cjk}{{2}}){zh.EITHER_OR}(?P<b>{cjk}{{2}})")


@cache
def _zh_switch() -> re.Pattern[str]:
    return re.compile(f"{zh.SWITCH}|{cues.ZH_RESCHEDULE}")


@cache
def _replacement() -> re.Pattern[str]:
    return re.compile(f"{zh.REPLACEMENT}|{en.REPLACEMENT}")


_PAST_SIGN = re.compile(
    rf"{zh.ASKS_HISTORY}|{en.ASKS_HISTORY}|{zh.CHANGE_SIGNS}|\b(?:{en.CHANGES})\b"
)


def tells_past(text: str) -> bool:
    """Whether ``text`` says something held before: a change, a retraction, a history word.

    "I used to live in Porto", "I relocated to Oslo", "我们家迁到扬州了", "I left Acme in May"
    tell of an earlier value; "我在成都生活", "I'm at Canva these days" only of the present one.

    >>> tells_past("我之前在华为上班"), tells_past("I left Acme in May"), tells_past("我在成都生活")
    (True, True, False)
    """
    folded = fold(text)
    return bool(_PAST_SIGN.search(folded) or tells_episode(folded) or retractions(text))


@per_process
def only_retracts(text: str, speakers: tuple[str, ...] = ()) -> bool:
    """Whether all ``text`` says is that values no longer hold: it gives no new one.

    Kept for the process (a function of its arguments alone): each recalled note is asked.

    "Not Bex anymore", "131那个号不用了", "I left Acme" take a value back and tell nothing
    of what holds now; "I left Acme and joined Globex" does. Words of ``speakers`` (the
    names notes write for "I") are not news either.

    >>> only_retracts("Not Bex anymore"), only_retracts("I left Acme and joined Globex")
    (True, False)
    >>> only_retracts("Monday is out, sorry.")
    True
    """
    folded = _COURTESY.sub(" ", _DATE_NOTE.sub("", fold(text))).strip()
    if not retractions(text):
        return False
    for pattern in _patterns():
        folded = pattern.sub(" ", folded)
    left = salient_terms(folded)
    for name in speakers:
        left -= salient_terms(name)
    return not left


def asks_earlier(question: str) -> bool:
    """Whether ``question`` asks for the value that held before a change.

    >>> asks_earlier("What was the old office address?"), asks_earlier("我之前的邮箱是哪个？")
    (True, True)
    >>> asks_earlier("Where should the courier leave my parcels?")
    False
    """
    return _asks_earlier().search(fold(question)) is not None


@cache
def _asks_earlier() -> re.Pattern[str]:
    return re.compile(cues.ASKS_EARLIER)


def event_times(folded: str) -> tuple[tuple[int, int], ...]:
    """Spans of folded ``folded`` naming an event that dates the question, not what it asks.

    >>> q = "where did the user work before the job change?"
    >>> [q[a:b] for a, b in event_times(q)]
    ['before the job change']
    >>> event_times("what was my job before?")
    ()
    """
    return tuple(match.span() for match in _event_as_time().finditer(folded))


@cache
def _event_as_time() -> re.Pattern[str]:
    return re.compile(en.EVENT_AS_TIME)


@per_recall
def street_addresses(text: str) -> frozenset[str]:
    """The street addresses ``text`` gives, folded ("415 oak drive", "学府路135号").

    Street and number only, without the city or district written before them.

    >>> sorted(street_addresses("Ship it to my office: 415 Oak Drive, Barcelona"))
    ['415 oak drive']
    >>> street_addresses("I ran 5 miles down the road")
    frozenset()
    """
    written = unicodedata.normalize("NFKC", text)
    return frozenset(fold(match.group()) for match in _street().finditer(written))


@cache
def _street() -> re.Pattern[str]:
    return re.compile(f"{cues.EN_STREET_ADDRESS}|{cues.ZH_STREET_ADDRESS}")
