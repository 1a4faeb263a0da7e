"""A statement in the frame of a relation: "The head *coach* of the Falcons is …".

A knowledge base told as sentences fills one frame again and again: a relation, the one it
holds for, and a value — "the head coach of the Wendridge Falcons is Agnes Oake",
"澜峪飞马队的队长是沈星野". English names the relation first and links its holder with "of"
(or "at", "in", "for") and the value with "is"; Chinese puts the holder first, links the
relation with 的 and the value with 是. Only these linking words are written down (a closed
class of each language); relations, holders and values are whatever fills the frame.

The whole clause must be the frame (a short value ends it): a chat turn that happens to
hold "the best part of the trip is that we …" is no statement of a relation.

>>> relation_frame("the head coach of the tovmarsh comets is magnus moyo")
Frame(relation='head coach', holder='tovmarsh comets', value='magnus moyo')
>>> relation_frame("澜峪飞马队的队长是沈星野")
Frame(relation='队长', holder='澜峪飞马队', value='沈星野')
>>> relation_frame("luxlith biotech has its headquarters in yelridge") is None
True
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memlane.lang.kinds import stem
from memlane.lang.script import CJK_RANGES, fold, whole_latin
from memlane.memo import per_process

EN_LINKS = ("of", "at", "in", "for")
"""The words that link a relation to its holder ("the captain *of* …", "the chef *at* …")."""
EN_ARTICLE = "the"
EN_COPULA = "is"
ZH_LINK = "的"
ZH_COPULA = "是"

MAX_RELATION_WORDS = 4
MAX_HOLDER_WORDS = 6
MAX_VALUE_WORDS = 6
MAX_ZH_HOLDER = 16
MAX_ZH_RELATION = 6
MAX_ZH_VALUE = 16

_LINKING = "|".join((*EN_LINKS, EN_ARTICLE, EN_COPULA))
_EN_WORD = rf"(?!(?:{_LINKING})\b)[a-z][\w'’&.-]*"
_EN_FRAME = re.compile(
    rf"^{EN_ARTICLE}\s+(?P<relation>{_EN_WORD}(?:\s+{_EN_WORD}){{0,{MAX_RELATION_WORDS - 1}}})"
    rf"\s+(?:{'|'.join(EN_LINKS)})\s+(?:{EN_ARTICLE}\s+)?"
    rf"(?P<holder>{_EN_WORD}(?:\s+{_EN_WORD}){{0,{MAX_HOLDER_WORDS - 1}}})"
    rf"\s+{EN_COPULA}\s+(?P<value>\S+(?:\s+\S+){{0,{MAX_VALUE_WORDS - 1}}})$"
)
_ZH_NAME = f'[{CJK_RANGES}《》〈〉“”"A-Za-z0-9]'
_ZH_FRAME = re.compile(
    rf"^(?P<holder>(?:(?!{ZH_LINK}){_ZH_NAME}){{2,{MAX_ZH_HOLDER}}})"
    rf"{ZH_LINK}(?P<relation>(?:(?![{ZH_LINK}{ZH_COPULA}])[{CJK_RANGES}]){{1,{MAX_ZH_RELATION}}})"
    rf"{ZH_COPULA}(?P<value>.{{1,{MAX_ZH_VALUE}}})$"
)
_NOT_NAME = re.compile(r"[^\w]+")
_LATIN_WORD = re.compile(r"[a-z][a-z'’-]*")


@dataclass(frozen=True, slots=True)
class Frame:
    """A relation, the one it holds for, and its value, as one clause states them (folded)."""

    relation: str
    holder: str
    value: str


@per_process
def relation_frame(clause: str) -> Frame | None:
    """The frame ``clause`` states, if the whole clause is one (see the module docstring).

    ``clause`` should come folded, without numbering or a speaker's label
    (:func:`memlane.router.slots.clauses` gives it so).
    """
    folded = fold(clause).strip()
    found = _EN_FRAME.match(folded) or _ZH_FRAME.match(folded)
    if found is None:
        return None
    holder = found["holder"]
    if not _NOT_NAME.sub("", holder):
        return None
    return Frame(found["relation"], holder, found["value"])


def names_holder(question: str, holder: str) -> bool:
    """Whether ``question`` names ``holder`` whole ("Who coaches the Yelford Comets?").

    >>> names_holder("Who coaches the Yelford Comets?", "yelford comets")
    True
    >>> names_holder("Who coaches the Comets?", "yelford comets")
    False
    >>> names_holder("谁戴着《棠矶周刊》的袖标", "棠矶周刊》")
    True
    """
    return _holder_pattern(holder).search(fold(question)) is not None


def without_holder(question: str, holder: str) -> str:
    """``question`` with ``holder`` cut out: what it asks of them.

    >>> without_holder("Who coaches the Yelford Comets?", "yelford comets")
    'who coaches the  ?'
    """
    return _holder_pattern(holder).sub(" ", fold(question))


def asks_relation(rest: str, relation: str) -> bool:
    """Whether ``rest`` (a question without its holder) names the head of ``relation``.

    A noun phrase ends with its head: a *head coach* is a coach, asked of as "coaches".
    A Chinese relation is asked by its whole word ("队长袖标" holds 队长). A relation asked
    in other words is found by its meaning (:mod:`memlane.lang.meanings`), not here.

    >>> asks_relation("who coaches the  ?", "head coach")
    True
    >>> asks_relation("who heads the  ?", "head coach")
    False
    >>> asks_relation("谁戴着 的队长袖标？", "队长")
    True
    """
    folded = fold(rest)
    if not relation.isascii():
        return relation in folded
    head = relation.split()[-1]
    return stem(head) in {stem(word) for word in _LATIN_WORD.findall(folded)}


def _holder_pattern(holder: str) -> re.Pattern[str]:
    name = _NOT_NAME.sub("", holder) if not holder.isascii() else holder
    if not holder.isascii():
        return re.compile(re.escape(name))
    return re.compile(whole_latin(r"\s+".join(re.escape(word) for word in name.split())))
