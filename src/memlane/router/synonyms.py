"""The attribute registry: which words of a query ask for which exact-lane attribute.

Phrases are matched case-insensitively after Unicode NFKC folding. Latin phrases match
whole words (a final plural ``s``/``es`` is allowed); Chinese phrases match anywhere. A
``*`` stands for up to 40 characters ("where does * live"). When phrases overlap, the
longest wins ("order number" → ``order``, not ``phone`` for "number"); one phrase may be
registered under several attributes ("在哪里工作" → ``employer`` and ``work_location``).

Each :class:`~memlane.Memory` has its own registry, ``mem.router.synonyms``:

>>> registry = SynonymRegistry()
>>> registry.add("tier", "会员等级", "membership level")
>>> [intent.attribute for intent in registry.match("用户的会员等级和手机号")]
['tier', 'phone']
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from functools import lru_cache

from memlane.errors import InvalidInput
from memlane.lang import attributes, en
from memlane.lang.script import NOT_AFTER_LATIN, NOT_BEFORE_LATIN, fold
from memlane.router.model import AttributeIntent

MAX_PHRASE_CHARS = 100
_WILDCARD = r".{0,40}?"
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_LATIN_EDGE = re.compile(r"[a-z0-9]")
_STAR = re.compile(r"\s*\*\s*")
_DO_FORMS = f"(?:{'|'.join(en.DO_FORMS)})"

DEFAULT_SYNONYMS: dict[str, tuple[str, ...]] = attributes.PHRASES
"""The phrases every new registry starts with, by attribute (kept in :mod:`memlane.lang`)."""


class SynonymRegistry:
    """Phrases that ask for attributes; extend it with :meth:`add`.

    Args:
        synonyms: the starting phrases by attribute; ``None`` starts from
            :data:`DEFAULT_SYNONYMS`, ``{}`` from nothing.
    """

    def __init__(self, synonyms: Mapping[str, Iterable[str]] | None = None) -> None:
        self._phrases: dict[str, list[str]] = {}
        self._compiled: list[tuple[str, str, re.Pattern[str]]] | None = None
        for attribute, phrases in (DEFAULT_SYNONYMS if synonyms is None else synonyms).items():
            self.add(attribute, *phrases)

    def add(self, attribute: str, *phrases: str) -> None:
        """Register phrases that ask for ``attribute``; repeats are ignored.

        >>> mem.router.synonyms.add("location", "住在哪里", "where does * live")  # doctest: +SKIP

        Raises:
            InvalidInput: an empty attribute, or a phrase that is empty, only ``*``, longer
                than 100 characters or holds control characters.
        """
        attribute = _attribute(attribute)
        known = self._phrases.setdefault(attribute, [])
        for phrase in phrases:
            cleaned = _phrase(phrase)
            if cleaned not in known:
                known.append(cleaned)
        self._compiled = None

    def remove(self, attribute: str, *phrases: str) -> int:
        """Forget phrases of ``attribute`` (all of them if none is given); returns how many."""
        attribute = _attribute(attribute)
        known = self._phrases.get(attribute, [])
        drop = set(known) if not phrases else {fold(p).strip() for p in phrases}
        kept = [phrase for phrase in known if phrase not in drop]
        removed = len(known) - len(kept)
        if kept:
            self._phrases[attribute] = kept
        else:
            self._phrases.pop(attribute, None)
        self._compiled = None
        return removed

    def phrases(self, attribute: str) -> tuple[str, ...]:
        """The phrases registered for ``attribute`` (folded), in the order added."""
        return tuple(self._phrases.get(attribute, ()))

    def attributes(self) -> list[str]:
        """Every attribute with at least one phrase, sorted."""
        return sorted(self._phrases)

    def match(self, text: str) -> list[AttributeIntent]:
        """The attribute phrases in ``text``, in order; overlaps go to the longest phrase.

        Spans index the NFKC-folded text.
        """
        folded = fold(text)
        found = [
            AttributeIntent(attribute, phrase, match.span())
            for attribute, phrase, pattern in self._patterns()
            for match in pattern.finditer(folded)
            if match.end() > match.start()
        ]
        found.sort(key=lambda intent: (intent.span[0] - intent.span[1], intent.span[0]))
        chosen: list[AttributeIntent] = []
        for intent in found:
            clash = any(
                _overlap(intent.span, kept.span)
                and (intent.span != kept.span or intent.attribute == kept.attribute)
                for kept in chosen
            )
            if not clash:
                chosen.append(intent)
        chosen.sort(key=lambda intent: intent.span)
        return chosen

    def _patterns(self) -> list[tuple[str, str, re.Pattern[str]]]:
        if self._compiled is None:
            self._compiled = [
                (attribute, phrase, compile_phrase(phrase))
                for attribute, phrases in self._phrases.items()
                for phrase in phrases
            ]
        return self._compiled

    def __repr__(self) -> str:
        count = sum(len(p) for p in self._phrases.values())
        return f"SynonymRegistry({len(self._phrases)} attributes, {count} phrases)"


COMPILED_PHRASES = 4_096
"""Phrase patterns kept for the process: every memory (a tenant's, a bench size's) starts
from the same default phrases, and a first recall need not build their patterns again."""


@lru_cache(maxsize=COMPILED_PHRASES)
def compile_phrase(phrase: str) -> re.Pattern[str]:
    """The pattern of one phrase, over NFKC-folded text (see the module docstring).

    Kept for the process (:data:`COMPILED_PHRASES`): a function of the phrase alone.

    >>> bool(compile_phrase("where does * live").search("where does the user live?"))
    True
    >>> bool(compile_phrase("order").search("reorder"))
    False
    """
    pieces = [piece for piece in _STAR.split(fold(phrase).strip()) if piece]
    parts: list[str] = []
    for piece in pieces:
        body = r"\s+".join(_word(word) for word in piece.split())
        if _LATIN_EDGE.match(piece[0]):
            body = NOT_AFTER_LATIN + body
        if _LATIN_EDGE.match(piece[-1]):
            body += r"(?:s|es)?" + NOT_BEFORE_LATIN
        parts.append(body)
    return re.compile(_WILDCARD.join(parts))


def _word(word: str) -> str:
    """One word of a phrase: a form of "do" stands for all of them (the question's tense)."""
    return _DO_FORMS if word in en.DO_FORMS else re.escape(word)


def _overlap(first: tuple[int, int], second: tuple[int, int]) -> bool:
    return first[0] < second[1] and second[0] < first[1]


def _attribute(attribute: object) -> str:
    if not isinstance(attribute, str) or not attribute.strip() or attribute != attribute.strip():
        raise InvalidInput("attribute", f"must be a non-empty name, got {attribute!r}")
    return attribute


def _phrase(phrase: object) -> str:
    if not isinstance(phrase, str):
        raise InvalidInput("phrase", f"must be a string, got {type(phrase).__name__}")
    folded = fold(phrase).strip()
    if not folded.replace("*", "").strip():
        raise InvalidInput("phrase", f"must hold words, got {phrase!r}")
    if len(folded) > MAX_PHRASE_CHARS:
        raise InvalidInput("phrase", f"longer than {MAX_PHRASE_CHARS} characters")
    if _CONTROL.search(folded):
        raise InvalidInput("phrase", "must not contain control characters")
    return folded
