"""Which *where* a text speaks of: where one lives, where one comes from, where one went.

"Where is she from?", "Where did the user go last summer?" and "Where does the user live
now?" all ask for a place, and a note of each kind holds one: "based in Manchester", "Chicago
born and raised", "上次去悉尼旅游住的民宿". Only the note of the same kind answers. The cue
words here are closed classes of each language: verbs of living and moving house, of being
born and growing up, of travelling and visiting.

A text that tells of origin or of travel is of that kind even when it has a verb of living
too ("born and raised in Leeds, living in York" is both; "旅游住的民宿" is a trip): living
counts alone only when nothing else is told.

>>> sorted(whereabouts("where am I originally from?")), sorted(whereabouts("based in Manchester"))
(['origin'], ['residence'])
>>> sorted(whereabouts("上次去悉尼旅游住的民宿挺好的")), sorted(whereabouts("我现在住哪个城市？"))
(['travel'], ['residence'])
"""

from __future__ import annotations

import re

from memlane.lang.kinds import PLACE, asked_kind
from memlane.lang.script import fold
from memlane.memo import per_process

RESIDENCE, ORIGIN, TRAVEL = "residence", "origin", "travel"

EN_RESIDENCE = (
    r"\b(?:live[sd]?|living|based|resid(?:e|es|ed|ing)|settled|mov(?:e|es|ed|ing)|relocat\w*"
    r"|home\s+(?:is|town\s+now)|home['’]s)\b"
)
ZH_RESIDENCE = r"住|定居|居住|家在|搬"

EN_ORIGIN = (
    r"\b(?:originally|born|raised|grew\s+up|grow\s+up|hometown|native|birthplace"
    r"|(?:am|is|are|['’]m|['’]s|come|comes|came)\s+(?:originally\s+)?from)\b|\bfrom\s*[?？]*\s*$"
)
ZH_ORIGIN = r"老家|家乡|哪里人|哪儿人|籍贯|出生|祖籍|来自|长大"

EN_TRAVEL = (
    r"\b(?:visit(?:s|ed|ing)?|trips?|travel(?:s|led|ed|ling|ing)?|vacation\w*|holidays?"
    r"|went|go(?:es|ne)?|tour(?:s|ed|ing)?|sightseeing|stayed|getaway|honeymoon)\b"
)
ZH_TRAVEL = r"旅游|旅行|度假|出差|游玩|玩了|去玩|逛|蜜月|住的(?:酒店|民宿|宾馆|旅馆)|[那这一]趟"

PLACE_ASKED = (
    r"哪(?:个|座|些)?(?:城市|国家|地方|省|市|座城)"
    r"|\b(?:which|what)\s+(?:city|country|town|place|state)\b"
)
"""A question for a place by its kind of place ("哪个城市", "which city"), besides "where"."""

_PLACE_ASKED = re.compile(PLACE_ASKED)
_KINDS = (
    (ORIGIN, re.compile(f"{EN_ORIGIN}|{ZH_ORIGIN}")),
    (TRAVEL, re.compile(f"{EN_TRAVEL}|{ZH_TRAVEL}")),
)
_RESIDENCE = re.compile(f"{EN_RESIDENCE}|{ZH_RESIDENCE}")


@per_process
def whereabouts(text: str) -> frozenset[str]:
    """The kinds of *where* ``text`` speaks of (``residence``, ``origin``, ``travel``)."""
    folded = fold(text)
    found = {kind for kind, pattern in _KINDS if pattern.search(folded)}
    if not found and _RESIDENCE.search(folded):
        found.add(RESIDENCE)
    return frozenset(found)


def asks_where(question: str) -> bool:
    """Whether ``question`` asks for a place: "where", "哪里", "哪个城市", "which city".

    >>> asks_where("我现在住哪个城市？"), asks_where("When did she move?")
    (True, False)
    """
    return asked_kind(question) == PLACE or _PLACE_ASKED.search(fold(question)) is not None
