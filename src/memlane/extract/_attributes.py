"""Which attribute a value read after a cue names, if any: ``classify(cue, value)``.

Each function takes the cue's text and the value read after it and returns the attribute
("location", "employer", …) or None when the value cannot be one (a vague place, a word that
names no employer, a name on the block list).
"""

from __future__ import annotations

import re

from memlane.extract._text import is_cjk
from memlane.extract.gazetteer import is_en_place, is_zh_place
from memlane.lang import en
from memlane.lang import statements as cues

_ZH_NOT_PLACES = cues.ZH_NOT_PLACES
_NOT_EMPLOYERS = cues.NOT_EMPLOYERS
_ZH_VAGUE_START = cues.ZH_VAGUE_START
_NAME_BLOCKLIST = cues.NAME_BLOCKLIST
_ZH_NAME_BAD_START = cues.ZH_NAME_BAD_START


def place_ok(value: str) -> bool:
    return value not in _ZH_NOT_PLACES and not value.startswith(_ZH_VAGUE_START)


def location(cue: str, value: str) -> str | None:
    return "location" if place_ok(value) else None


_LEFT_PLACE = re.compile(cues.LEFT_PLACE)
EN_STATE_CUE = re.compile(en.STATE_CUE)
""""I'm in …", "now with …": the cue of :func:`state` (and of its rule)."""


def lives(cue: str, value: str) -> str | None:
    """A place lived in; "moved out of Xiamen" names the place left, not where one lives."""
    return None if _LEFT_PLACE.search(cue.lower()) else location(cue, value)


def employer(cue: str, value: str) -> str | None:
    ok = value.casefold() not in _NOT_EMPLOYERS and not value.startswith(_ZH_VAGUE_START)
    return "employer" if ok else None


def state(cue: str, value: str) -> str | None:
    """Where the speaker is: "I'm in Lyon" a place; "I'm at Acme", "now with Acme" an employer."""
    match = EN_STATE_CUE.match(cue.lower())
    preposition = match["prep"] if match else cues.EN_STATE_IN
    if is_en_place(value) or preposition == cues.EN_STATE_IN:
        return location(cue, value)
    if preposition == cues.EN_STATE_WITH and not cue.lower().startswith(cues.EN_STATE_NOW):
        return None  # "I'm with Sam": company, not an employer, unless it says "now with"
    return employer(cue, value)


def work_location(cue: str, value: str) -> str | None:
    return "work_location" if place_ok(value) else None


def hometown(cue: str, value: str) -> str | None:
    if cues.ZH_FROM_CUE in cue and not (is_zh_place(value) or is_en_place(value)):
        return None  # "我来自一家创业公司", "我来自Google": not a hometown
    return "hometown" if place_ok(value) else None


def name(cue: str, value: str) -> str | None:
    return "name" if name_ok(value) else None


def preferred(cue: str, value: str) -> str | None:
    return "preferred_name" if name_ok(value) else None


def occupation(cue: str, value: str) -> str | None:
    return "occupation" if value.casefold() not in _NAME_BLOCKLIST and len(value) <= 40 else None


def name_ok(value: str) -> bool:
    if value.casefold() in _NAME_BLOCKLIST or not value:
        return False
    if is_cjk(value[0]):
        return 2 <= len(value) <= 4 and value[0] not in _ZH_NAME_BAD_START
    return True
