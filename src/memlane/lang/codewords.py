"""Code words: the nouns that ask for a code (or a booked event) of some kind.

"护照号", "身份证尾号", "passport no.", "the landline at my office": the noun says a code is
asked for, the words around it (:mod:`memlane.lang.qualifiers`) say which one. A statement
that holds a code of another purpose ("扣款用尾号9836的银行卡" for an ID card's last digits)
is a near miss, not the answer. So are booked events: "the eye doctor appointment" is not
answered by the dentist's date. The nouns are a closed class, in :mod:`memlane.lang.en` and
:mod:`memlane.lang.zh`.
"""

from __future__ import annotations

import re

from memlane.lang import en, zh
from memlane.lang.script import CJK_RANGES, fold, whole_latin

Span = tuple[int, int]

_CODE_NOUN = re.compile(
    whole_latin(en.CODE_NOUNS)
    + rf"|(?<=[{CJK_RANGES}])(?<![{zh.NOT_BEFORE_CODE}])(?:{zh.CODE_NOUNS})"
)
_EVENT_NOUN = re.compile(rf"{whole_latin(en.EVENT_NOUNS)}|{zh.EVENT_NOUNS}")
_DIGIT = re.compile(r"\d")


def code_nouns(folded: str) -> list[Span]:
    """The spans of the code nouns in folded text.

    >>> q = "我的护照号是多少？"
    >>> [q[start:end] for start, end in code_nouns(q)]
    ['号']
    >>> code_nouns("落东西的那间房是几号？")
    []
    """
    return [match.span() for match in _CODE_NOUN.finditer(folded)]


def event_nouns(folded: str) -> list[Span]:
    """The spans of nouns for one booked event among many ("eye doctor *appointment*").

    >>> q = "用户的眼科预约是哪天？"
    >>> [q[start:end] for start, end in event_nouns(q)]
    ['预约']
    """
    return [match.span() for match in _EVENT_NOUN.finditer(folded)]


def names_code(text: str) -> bool:
    """Whether ``text`` gives a code by a code noun and digits ("尾号9836", "ref no. 77").

    >>> names_code("扣款用尾号9836的银行卡"), names_code("尾号是多少")
    (True, False)
    """
    folded = fold(text)
    return any(_DIGIT.search(folded, end, end + 12) for _, end in code_nouns(folded))
