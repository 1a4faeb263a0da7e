"""The scores of ``memlane bench locomo``: evidence turns found, and answers in a context.

Kept apart from the runner (:mod:`memlane.bench.locomo`) so that what is measured can be
read, and tested, without what replays the conversations.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence

from memlane.errors import InvalidInput
from memlane.lang.times import MONTH_NUMBERS
from memlane.storage.lexical import STOPWORDS
from memlane.summaries.text import clip_line, estimate_tokens

MIN_CLIP_TOKENS = 8
"""A context line is clipped to fit the room left only when at least this many tokens remain."""

WORDS = re.compile(r"[^\W_]+", re.UNICODE)
"""A word: letters or digits, any script."""
_ARTICLES = frozenset({"a", "an", "the"})
ANSWERLESS_WORDS = STOPWORDS | {"whom", "you", "your"}
"""Words that say nothing about an answer: the search stop words, plus a few pronouns."""
_DAY_MONTH_YEAR = re.compile(r"^(\d{1,2}) ([a-z]+) (\d{4})$")
_MONTH_DAY_YEAR = re.compile(r"^([a-z]+) (\d{1,2}) (\d{4})$")
_TURN_ID = re.compile(r"^D(\d+):(\d+)$")


def expand_turns(
    provenances: Iterable[Sequence[str]], known: Mapping[str, str], k: int
) -> list[str]:
    """LoCoMo turn ids of ranked items, in rank order, deduplicated, at most ``k``.

    Each item spends as many of the ``k`` as it has turns (in its provenance order); ids
    that name no turn of the conversation (sources, notes) spend nothing.

    >>> known = {"c-S1#1": "D1:1", "c-S1#2": "D1:2"}
    >>> expand_turns([["c-S1#2", "c-S1#1"], ["c-S1#2", "x"]], known, 5)
    ['D1:2', 'D1:1']
    """
    found: list[str] = []
    for provenance in provenances:
        for turn_id in provenance:
            dia_id = known.get(turn_id)
            if dia_id is not None and dia_id not in found:
                found.append(dia_id)
                if len(found) >= k:
                    return found
    return found


def session_of(dia_id: str) -> int:
    """The session number of a LoCoMo turn id: ``"D3:7"`` → 3.

    Raises:
        InvalidInput: not a normalized turn id.
    """
    match = _TURN_ID.match(dia_id)
    if match is None:
        raise InvalidInput("dia_id", f"not a LoCoMo turn id: {dia_id!r}")
    return int(match.group(1))


def turn_recall(ranked: Sequence[str], gold: Sequence[str], k: int) -> float:
    """Share of the gold turns among the first ``k`` ranked turns."""
    wanted = set(gold)
    return len(wanted & set(ranked[:k])) / len(wanted) if wanted else 0.0


def turn_hit(ranked: Sequence[str], gold: Sequence[str], k: int) -> float:
    """1.0 when at least one gold turn is among the first ``k`` ranked turns."""
    return 1.0 if set(gold) & set(ranked[:k]) else 0.0


def session_recall(ranked: Sequence[str], gold: Sequence[str], k: int) -> float:
    """Share of the gold turns' sessions among the sessions of the first ``k`` turns."""
    wanted = {session_of(dia_id) for dia_id in gold}
    got = {session_of(dia_id) for dia_id in ranked[:k]}
    return len(wanted & got) / len(wanted) if wanted else 0.0


def normalize_answer(text: str) -> str:
    """Lower case, no punctuation, no articles, single spaces: ``"The Sun!"`` → ``"sun"``."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(w for w in WORDS.findall(folded) if w not in _ARTICLES)


def answer_forms(gold: str) -> set[str]:
    """Normalized forms of a gold answer; a full date also in ISO form (``2023 05 07``)."""
    normal = normalize_answer(gold)
    forms = {normal} if normal else set()
    for pattern, day_at, month_at in ((_DAY_MONTH_YEAR, 1, 2), (_MONTH_DAY_YEAR, 2, 1)):
        match = pattern.match(normal)
        month = MONTH_NUMBERS.get(match.group(month_at), 0) if match else 0
        if match and month:
            forms.add(f"{match.group(3)} {month:02d} {int(match.group(day_at)):02d}")
    return forms


def contains_answer(context: str, gold: str) -> bool:
    """True when the normalized context contains a normalized form of ``gold`` as words."""
    haystack = f" {normalize_answer(context)} "
    return any(f" {form} " in haystack for form in answer_forms(gold))


def answer_token_recall(context: str, gold: str) -> float:
    """Share of the gold answer's content words found in the context (softer than exact)."""
    wanted = {w for w in normalize_answer(gold).split() if w not in ANSWERLESS_WORDS}
    if not wanted:
        return 0.0
    return len(wanted & set(normalize_answer(context).split())) / len(wanted)


def fill_budget(lines: Iterable[str], budget_tokens: int) -> str:
    """Lines joined in order while they fit ``budget_tokens``; one that does not is shortened.

    Like memlane's renderer: a line too long for the room left is clipped at clause
    boundaries when at least ``MIN_CLIP_TOKENS`` remain, else left out.
    """
    kept: list[str] = []
    used = 0
    for line in lines:
        room = budget_tokens - used - (1 if kept else 0)
        if room < MIN_CLIP_TOKENS:
            break
        if estimate_tokens(line) > room:
            line = clip_line(line, room)
            if estimate_tokens(line) > room:
                continue
        kept.append(line)
        used = estimate_tokens("\n".join(kept))
    return "\n".join(kept)
