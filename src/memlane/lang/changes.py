"""Retractions: sentences that say a value no longer holds, in any relation.

"I left Acme", "moved from Porto to Lyon", "131那个号不用了", "建行的别扣了", "not vegan
anymore": each names an old value next to a cue (:data:`memlane.lang.zh.RETRACTED_AFTER` and
friends). :func:`retractions` reads the old value's words; whoever holds an earlier
statement or fact with those words knows it is superseded — no list of relations needed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, lru_cache

from memlane.lang import en, zh
from memlane.lang.script import fold
from memlane.lang.words import negates_next, possible_next, salient_terms, tells_episode

MAX_VALUE_CHARS = 40
_EN_CLAUSE_START = r"(?:^|[,.;:!?—–]\s*|\b(?:and|but|so)\s+)"


@dataclass(frozen=True, slots=True)
class Retraction:
    """A value a sentence says no longer holds: as written (folded), and its terms."""

    old: str
    terms: frozenset[str]


@lru_cache(maxsize=32_768)
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
    folded = fold(text)
    found: list[Retraction] = []
    for pattern in _patterns():
        for match in pattern.finditer(folded):
            before = folded[: match.start()].rstrip() + " "
            if negates_next(before) or possible_next(before):
                continue  # "I won't quit", "不会离开", "would quit": no cue of what happened
            old = match["old"].strip(" 　'\"“”‘’")
            terms = salient_terms(old)
            if terms and len(old) <= MAX_VALUE_CHARS and old not in {r.old for r in found}:
                found.append(Retraction(old, terms))
    return tuple(found)


def switches(text: str) -> bool:
    """Whether ``text`` says an arrangement switched ("window seat from now on", "快递换成韵达").

    >>> switches("Put me in a window seat from now on"), switches("I like window seats")
    (True, False)
    """
    return bool(_switch().search(fold(text)))


def takes_back(text: str) -> bool:
    """Whether ``text`` retracts a value or switches an arrangement: it may supersede others."""
    return bool(retractions(text)) or switches(text)


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
        re.compile(en.NOT_ANY_MORE),
        re.compile(rf"{_EN_CLAUSE_START}(?P<old>[a-z][\w' ]{{0,30}}?){en.RETRACTED_BEFORE}"),
    )


@cache
def _switch() -> re.Pattern[str]:
    return re.compile(f"{zh.SWITCH}|{en.SWITCH}")


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
