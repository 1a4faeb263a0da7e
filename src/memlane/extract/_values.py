"""Reading the value after a cue: where a place, a name or a company name ends.

Chinese has no spaces, so a Chinese value runs until a particle or a word that cannot be part
of a name (了, 的, 已经, 工作, 两年, 和家人, …); a known place name at its start is never cut
("多伦多", "成都"). An English value is a run of capitalized words ("New York", "Frankfurt am
Main"); a lower-case one counts only if it is a known place ("i live in new york").
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from memlane.extract._text import is_cjk
from memlane.lang import employment, en, names_other_person
from memlane.lang.places import EN_VALUE_STOP as _EN_STOP
from memlane.lang.places import NAME_CONNECTORS as _CONNECTORS
from memlane.lang.places import ZH_COME, is_en_place, longest_zh_place_prefix
from memlane.lang.places import ZH_NAME_STOP as _ZH_NAME_STOP
from memlane.lang.places import ZH_VALUE_STOP as _ZH_STOP
from memlane.lang.script import CJK_RANGES

if TYPE_CHECKING:
    from memlane.extract._doc import Doc

Span = tuple[int, int]

_ZH_RUN = re.compile(f"[{CJK_RANGES}·]+")
_LATIN_WORD = re.compile(r"[A-Za-z\u00c0-\u024f][A-Za-z0-9\u00c0-\u024f'.&-]*")
_TRAILING = ".'-&"


def zh_value(doc: Doc, start: int, limit: int) -> Span | None:
    """A Chinese value (place, company, job) from ``start``; Latin text is read as English."""
    text = doc.text
    start = _skip_spaces(text, start, limit)
    if start >= limit:
        return None
    if _LATIN_WORD.match(text, start, limit):
        return en_place(doc, start, limit)
    run = _ZH_RUN.match(text, start, limit)
    if run is None or _ZH_STOP.match(text, start, limit):
        return None
    protected = longest_zh_place_prefix(text[start : run.end()])
    stop = _ZH_STOP.search(text, start + max(protected, 1), run.end())
    if stop is not None and _ends_the_name(start, stop):
        stop = _ZH_STOP.search(text, stop.start() + 1, run.end())
    return (start, stop.start() if stop else run.end())


def _ends_the_name(start: int, stop: re.Match[str]) -> bool:
    """A stop whose first character ends a one-character value instead: "去蔚来了" is 蔚来.

    A directional 来 follows a whole name ("搬到北京来了"); no place or company is one
    character, so after one it is the name's own.
    """
    return stop.start() - start < 2 and stop.group().startswith(ZH_COME)


def zh_name(doc: Doc, start: int, limit: int) -> Span | None:
    """A person's name in Chinese (cut at particles), or an English one."""
    text = doc.text
    start = _skip_spaces(text, start, limit)
    if start >= limit:
        return None
    if _LATIN_WORD.match(text, start, limit):
        return en_name(doc, start, limit)
    run = _ZH_RUN.match(text, start, limit)
    if run is None:
        return None
    stop = _ZH_NAME_STOP.search(text, start + 1, run.end())
    return (start, stop.start() if stop else run.end())


def en_place(doc: Doc, start: int, limit: int) -> Span | None:
    """A place in English: capitalized words, or a known place in lower case."""
    start = _skip_spaces(doc.text, start, limit)
    if start < limit and is_cjk(doc.text[start]):
        return zh_value(doc, start, limit)
    return en_proper(doc, start, limit) or en_known_place(doc, start, limit)


def en_proper(doc: Doc, start: int, limit: int) -> Span | None:
    """A run of capitalized words ("New York", "Frankfurt am Main", "AT&T"); else ``None``."""
    words = _words(doc.text, start, limit, 6)
    chosen: list[Span] = []
    for index, (word_start, word_end) in enumerate(words):
        word = doc.text[word_start:word_end]
        if word[0].isupper() and word != "I":
            chosen.append((word_start, word_end))
            continue
        following = words[index + 1] if index + 1 < len(words) else None
        if chosen and word in _CONNECTORS and following and doc.text[following[0]].isupper():
            chosen.append((word_start, word_end))
            continue
        break
    if not chosen:
        return None
    return (chosen[0][0], _trim(doc.text, chosen[0][0], chosen[-1][1]))


def en_known_place(doc: Doc, start: int, limit: int) -> Span | None:
    """The longest run of up to four words that is a known place, in any case."""
    words = _words(doc.text, start, limit, 4)
    for count in range(len(words), 0, -1):
        end = _trim(doc.text, words[0][0], words[count - 1][1])
        if is_en_place(doc.text[words[0][0] : end]):
            return (words[0][0], end)
    return None


def en_name(doc: Doc, start: int, limit: int) -> Span | None:
    """A name: up to three capitalized words, or one lower-case word ("call me sam")."""
    start = _skip_spaces(doc.text, start, limit)
    if start < limit and is_cjk(doc.text[start]):
        return zh_name(doc, start, limit)
    words = _words(doc.text, start, limit, 3)
    if not words:
        return None
    first = doc.text[words[0][0] : words[0][1]]
    if not first[0].isupper():
        end = _trim(doc.text, words[0][0], words[0][1])
        # A lower-case word followed by a preposition heads a phrase ("instead of texting").
        following = doc.text[words[1][0] : words[1][1]].lower() if len(words) > 1 else ""
        if first.lower() in _EN_STOP or following in en.PREPOSITIONS:
            return None
        return (words[0][0], end)
    chosen = [words[0]]
    for word_start, word_end in words[1:]:
        if not doc.text[word_start].isupper() or doc.text[word_start:word_end] == "I":
            break
        chosen.append((word_start, word_end))
    return (chosen[0][0], _trim(doc.text, chosen[0][0], chosen[-1][1]))


def en_phrase(doc: Doc, start: int, limit: int) -> Span | None:
    """Up to four words until a function word ("software engineer" in "… at Google")."""
    chosen: list[Span] = []
    for word_start, word_end in _words(doc.text, start, limit, 4):
        if doc.text[word_start:word_end].lower() in _EN_STOP:
            break
        chosen.append((word_start, word_end))
    if not chosen:
        return None
    return (chosen[0][0], _trim(doc.text, chosen[0][0], chosen[-1][1]))


def _words(text: str, start: int, limit: int, most: int) -> list[Span]:
    """Consecutive Latin words from ``start``, separated by single spaces."""
    found: list[Span] = []
    position = _skip_spaces(text, start, limit)
    while len(found) < most:
        match = _LATIN_WORD.match(text, position, limit)
        if match is None:
            break
        found.append(match.span())
        if match.end() + 1 >= limit or text[match.end()] != " ":
            break
        position = match.end() + 1
    return found


def _trim(text: str, start: int, end: int) -> int:
    """Drop trailing punctuation and a possessive "'s" from a value ending at ``end``."""
    if text[max(start, end - 2) : end] == "'s":
        end -= 2
    while end > start + 1 and text[end - 1] in _TRAILING:
        end -= 1
    return end


def _skip_spaces(text: str, start: int, limit: int) -> int:
    while start < limit and text[start] == " ":
        start += 1
    return start


def zh_known_place(doc: Doc, start: int, limit: int) -> Span | None:
    """The known place a Chinese value opens with ("苏州" of "苏州常驻了"), if any."""
    size = longest_zh_place_prefix(doc.text[start:limit])
    return (start, start + size) if size else None


_EN_NAMES = re.compile(employment.EN_ORGANISATION)
_PLACE_LEAD = re.compile(employment.EN_PLACE_LEAD)


def en_place_pointed_at(doc: Doc, since: int, cue_start: int, at: int) -> Span | None:
    """The place "there" at ``at`` points back to, named between ``since`` and the cue.

    The last name before the cue that is a known place or follows a preposition of place:
    "Got transferred to our Perth office, so I'm living there now" lives in Perth.
    """
    end = at + len(employment.EN_THERE)
    if doc.lowered[at:end] != employment.EN_THERE or doc.lowered[end : end + 1].isalpha():
        return None
    if names_other_person(doc.text[since:cue_start]):
        return None  # "my sister was born in Leeds, grew up there": hers
    for name in reversed(list(_EN_NAMES.finditer(doc.text, since, cue_start))):
        if is_en_place(name[0]) or _PLACE_LEAD.search(doc.lowered, since, name.start()):
            return name.span()
    return None
