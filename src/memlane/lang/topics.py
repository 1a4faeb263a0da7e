"""Whom a question is about: the subject, or some other thing it names.

"Which city is the conference in?", "Which company organised the trip?" use an attribute
word ("city", "company") but name no one of the subject ("I", "the user", "she") and name
another thing ("the conference"): the attribute belongs to that thing, not to the subject.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache

from memlane.lang import en
from memlane.lang.script import fold

_EN_THING = re.compile(en.THING)


def about_another_thing(question: str, attribute_spans: Iterable[tuple[int, int]] = ()) -> bool:
    """Whether an English ``question`` names a thing and no one of the subject.

    ``attribute_spans`` (in the folded question) are the attribute words themselves ("the
    phone number" names no other thing).

    >>> about_another_thing("Which city is the conference in?")
    True
    >>> about_another_thing("Which city is the customer in?"), about_another_thing("city?")
    (False, False)
    >>> about_another_thing("what's the phone number", [(11, 23)])
    False
    """
    folded = fold(question).casefold()
    if _self().search(folded):
        return False
    blanked = list(folded)
    for start, end in attribute_spans:
        blanked[start:end] = " " * (end - start)
    text = "".join(blanked)
    return any(
        match["thing"] not in en.STOP_WORDS and match["thing"] not in en.NEUTRAL_MODIFIERS
        for match in _EN_THING.finditer(text)
    )


@cache
def _self() -> re.Pattern[str]:
    words = sorted((re.escape(word) for word in en.SELF), key=len, reverse=True)
    return re.compile(rf"\b(?:{'|'.join(words)})\b")
