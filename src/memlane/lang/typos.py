"""Chinese change verbs typed with a homophone: "跳巢" for 跳槽, "般到" for 搬到.

Chinese is typed by sound, so its typos are homophones: one character of a word replaced by
another read the same (tones aside, and with the initials z/zh, c/ch, s/sh that many
speakers do not tell apart). :func:`repaired` writes such a word back as the change verb it
stands for, one character for one, so every span of the text stays where it was — but only
where the frame of the verb still holds: a move verb before a known place, a job verb before
a verb of arriving. Readings come from `pypinyin <https://github.com/mozillazg/python-pinyin>`_
(its character table; loaded on first use). Without it, nothing is repaired.
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from collections.abc import Callable
from functools import cache

from memlane.lang.script import is_cjk

MOVE_VERBS = ("搬到", "搬去", "迁居", "定居", "落户")
"""Verbs of moving, repaired only before a known place."""

JOB_VERBS = ("跳槽", "入职", "离职", "辞职")
"""Verbs of changing jobs, repaired only before a verb of arriving or at a clause's end."""

JOB_FRAME = re.compile(r"(?=[去到进了，,。!！]|$)")
"""What follows a job verb in its frame ("跳槽去…", "离职了")."""

_FUZZY_INITIALS = (("zh", "z"), ("ch", "c"), ("sh", "s"))


def _sound(reading: str) -> str:
    """A reading without tones, the initials zh/ch/sh folded to z/c/s: "cháo" → "cao"."""
    bare = "".join(c for c in unicodedata.normalize("NFD", reading) if not unicodedata.combining(c))
    for retroflex, flat in _FUZZY_INITIALS:
        if bare.startswith(retroflex):
            return flat + bare[len(retroflex) :]
    return bare


@cache
def _homophones() -> dict[str, frozenset[str]] | None:
    """Each character of a change verb → the other characters read like it (or ``None``)."""
    try:
        from pypinyin.pinyin_dict import pinyin_dict
    except ImportError:  # pragma: no cover - pypinyin is a core dependency
        return None
    by_sound: dict[str, set[str]] = defaultdict(set)
    sounds: dict[str, set[str]] = {}
    for code, readings in pinyin_dict.items():
        char = chr(code)
        if is_cjk(char):
            sounds[char] = {_sound(reading) for reading in readings.split(",")}
            for sound in sounds[char]:
                by_sound[sound].add(char)
    wanted = {char for verb in (*MOVE_VERBS, *JOB_VERBS) for char in verb}
    return {
        char: frozenset(set().union(*(by_sound[s] for s in sounds.get(char, ()))) - {char})
        for char in wanted
    }


@cache
def _typos() -> tuple[re.Pattern[str], tuple[str, ...]] | None:
    """One pattern of every verb with one character typed as a homophone; group i → verb i."""
    table = _homophones()
    if table is None:
        return None
    alternatives: list[str] = []
    verbs: list[str] = []
    for verb in (*MOVE_VERBS, *JOB_VERBS):
        first, second = verb[0], verb[1]
        for body in (
            f"{first}[{''.join(sorted(table[second]))}]" if table[second] else "",
            f"[{''.join(sorted(table[first]))}]{second}" if table[first] else "",
        ):
            if body:
                alternatives.append(f"(?P<v{len(verbs)}>{body})")
                verbs.append(verb)
    return re.compile("|".join(alternatives)), tuple(verbs)


def repaired(text: str, known_place: Callable[[str], int]) -> str:
    """``text`` with change verbs typed with a homophone written back, where their frame holds.

    ``known_place(rest)`` is the length of the known place ``rest`` opens with (0 if none).
    The result has the length of ``text``.

    >>> from memlane.extract.gazetteer import longest_zh_place_prefix as place
    >>> repaired("跳巢去联想了哈哈", place), repaired("我已经般到苏州了哈", place)
    ('跳槽去联想了哈哈', '我已经搬到苏州了哈')
    >>> repaired("我一般到了晚上就睡", place), repaired("跳草玩", place)
    ('我一般到了晚上就睡', '跳草玩')
    """
    typos = _typos() if _may_hold_typo(text) else None
    if typos is None:
        return text
    pattern, verbs = typos
    pieces: list[str] = []
    cursor = 0
    for match in pattern.finditer(text):
        verb = verbs[int((match.lastgroup or "v0")[1:])]
        if _frame_holds(verb, text[match.end() :], known_place):
            pieces += [text[cursor : match.start()], verb]
            cursor = match.end()
    return "".join(pieces) + text[cursor:] if pieces else text


def _may_hold_typo(text: str) -> bool:
    """A cheap test: one character of a change verb is there, the verb itself is not."""
    for verb in (*MOVE_VERBS, *JOB_VERBS):
        if verb not in text and (verb[0] in text or verb[1] in text):
            return True
    return False


def _frame_holds(verb: str, rest: str, known_place: Callable[[str], int]) -> bool:
    if verb in MOVE_VERBS:
        rest = rest.removeprefix("了")
        return known_place(rest) > 0
    return JOB_FRAME.match(rest) is not None
