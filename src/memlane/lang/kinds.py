"""Kinds of value: what a question asks for, and what a statement holds.

A question's question word says what kind of value answers it: "who"/"谁" a person, "how
many"/"多少" a number, "when"/"几点" a time, "where"/"哪里" a place. A statement's value is
told by its shape — digits, a clock time, a place after "in"/"在" — not by a list of
relations, so this holds for relations memlane has never seen. Only the question words and
the words that put a place after them are written down: closed classes of each language.

>>> asked_kind("Who runs the Tidewater Club?"), asked_kind("汐矶镇有多少居民？")
('person', 'number')
>>> asked_kind("洗牙改到哪天了？"), asked_kind("会议是星期几？"), asked_kind("What day is it on?")
('time', 'time', 'time')
>>> sorted(held_kinds("The Tidewater Club is based in Lyon.", "where is it?"))
['place']
"""

from __future__ import annotations

import re
import unicodedata

from memlane.lang.script import fold
from memlane.memo import per_process

PERSON, NUMBER, TIME, PLACE, THING = "person", "number", "time", "place", "thing"

_ZH_WHICH_TIME = r"哪(?:一|个)?(?:天|日|年|月|周|星期|礼拜|会儿)|(?:什么|啥)(?:时候|时间|日子)"
"""A Chinese word asking which one (哪, 什么, 啥) before a noun of time: 哪天, 哪一年, 哪个月,
啥时候. 什么 asks a time only with a noun that is nothing else: 什么天气 asks the weather."""
_ASKS_TIME = (
    r"\bwhen\b|\bwhat time\b|\bhow early\b|\bhow late\b"
    r"|\b(?:what|which)\s+(?:day|date|weekday|month|year)\b"
    rf"|{_ZH_WHICH_TIME}|(?:星期|周|礼拜)几|几点|几时|几月|何时|多早"
)
"""Words asking for a time: "when", "what day"; 哪天, 什么时候, "星期几", "几点"."""

_ASKS = tuple(
    (kind, re.compile(words))
    for kind, words in (
        (TIME, _ASKS_TIME),
        (NUMBER, r"\bhow many\b|\bhow much\b|多少|几(?![点时])|多大|多高|多长|多重"),
        (PLACE, r"\bwhere\b|哪里|哪儿|在哪|何处|何地"),
        (PERSON, r"\bwho\b|\bwhom\b|\bwhose\b|谁"),
        (NUMBER, r"\b(?:pay|pays|paid|cost|costs|price|fee|fees|headcount)\b|花多少|价格|费用"),
    )
)
"""Question words by the kind of value they ask for, the first that matches wins; words of
paying and counting ask for an amount when no question word asks for something else."""

_CLOCK = re.compile(
    r"\b\d{1,2}[:：]\d{2}\b|\d{1,2}\s*(?:点|時|时)(?:\s*\d{1,2}\s*分|半)?|\b\d{1,2}\s*[ap]\.?m\b"
)
_NUMBER = re.compile(r"\d[\d,.]*")
_PLACE = re.compile(
    r"\b(?:[Ii]n|[Aa]t|[Ff]rom|[Nn]ear)\s+(?P<en>[A-Z][^\W\d_]+)|(?:在|于)(?P<zh>[^\W\d_]{2})"
)
"""A place is where a locative word puts it: "headquarters *in* Lyon", "总部设*在*霁洲市" (a
name: "from *last* week" names no place)."""
_THING = re.compile(
    r"\b(?:is|are|was|were)\s+"
    r"(?:(?:the|an?)\s+[^\s,;]+(?:\s+[^\s,;]+){0,3}?\s*[.!]*|[\"“][^\"”]+[\"”][.!]*)\s*$"
    r"|是\s*[“「《\"]"
)
"""A value a statement ends with, written with an article ("… is *the* Heron e-bike") or in
quotes ("主打产品是*“*青鸾”平板"): a thing or a title, as no person's name is written."""


_SUFFIX = re.compile(r"(?:ing|ers|ors|er|or|ed|es|s)$")
STEM_CHARS = 5
"""An English word is compared by its first characters, once a suffix is cut off."""


def stem(word: str) -> str:
    """A crude English stem: "coaches", "coach" → "coach"; "lives", "lived" → "liv".

    >>> stem("coaches"), stem("editor"), stem("live"), stem("lived"), stem("京")
    ('coach', 'edit', 'liv', 'liv', '京')
    """
    if len(word) < 4 or not word.isascii() or not word.isalpha():
        return word
    return _SUFFIX.sub("", word).removesuffix("e")[:STEM_CHARS] or word


def asked_kind(question: str) -> str | None:
    """The kind of value ``question`` asks for (``person``, ``number``, ``time``, ``place``)."""
    folded = fold(question)
    for kind, words in _ASKS:
        if words.search(folded):
            return kind
    return None


def held_kinds(statement: str, question: str = "") -> frozenset[str]:
    """The kinds of value ``statement`` holds that ``question`` does not name itself.

    A clock time is a ``time``; other digits a ``number``; a word after a locative ("in",
    "在") a ``place``; a value ending the statement with an article or in quotes a ``thing``.
    ``statement`` should come without its numbering ("第9条：", "(24)").
    """
    asked = fold(question)
    return frozenset(
        kind for kind, value in held_values(statement) if value is None or value not in asked
    )


@per_process
def held_values(statement: str) -> tuple[tuple[str, str | None], ...]:
    """The values ``statement`` holds, ``(kind, value as folded)``; a thing's value ``None``.

    A function of the statement alone, kept for the process (:func:`held_kinds` asks it of
    the same recalled lines at every recall; the question is compared afterwards).

    >>> held_values("The museum opens at 9:30 in Lyon.")
    (('time', '9:30'), ('place', 'lyon'))
    """
    folded = fold(statement)
    found: list[tuple[str, str | None]] = []
    rest = folded
    for match in _CLOCK.finditer(folded):
        found.append((TIME, match[0]))
        rest = rest.replace(match[0], " ")
    found += [(NUMBER, number) for number in _NUMBER.findall(rest)]
    for match in _PLACE.finditer(unicodedata.normalize("NFKC", statement)):
        name = fold(match["en"] or match["zh"] or "")
        if name:
            found.append((PLACE, name))
    if _THING.search(folded):
        found.append((THING, None))
    return tuple(found)


def fits(asked: str | None, held: frozenset[str]) -> int:
    """+1 when ``held`` has the kind asked, -1 when a person is asked and only others are held.

    0 otherwise: a statement need not show its value's kind ("the captain is Ada Moss").
    """
    if asked is None:
        return 0
    if asked == PERSON:
        return -1 if held else 0
    return 1 if asked in held else 0
