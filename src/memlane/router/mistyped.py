"""Codes a question names with one or two characters changed: another code, not the one asked.

A code of letters alone ("reservation hjvyqt") or with a digit or two ("ynr9kn") is not
recognized as an identifier by its shape (:mod:`memlane.extract._codes` needs digits, and
nothing tells such a token from a word in a question); so no lane looks it up exactly, and
similarity finds the statement of a code that differs from it in a character or two
("Confirmation code HJVYQX") as readily as that of the code itself. Such a statement
answers a question about another code: memory does not know the one asked about.

The codes of a statement are what :func:`memlane.extract.find_identifiers` finds there and
any word of five characters or more written in capitals after a code's cue word ("code
HJVYQX", "reservation TANVUY": :data:`memlane.lang.codes.CUES`), each written as one word
(a code written in parts is recognized by its shape in the question too). A word of
the question is the code mistyped when it has as many characters as that code and differs
from it in one or two places, letter case aside; a word the statement also holds is not.
A word of the question found to be a code this way is asked for as written: only what holds
it answers.
"""

from __future__ import annotations

import re
from operator import ne

from memlane.extract import find_identifiers
from memlane.extract._codes import cue_before
from memlane.extract._text import fold as fold_width
from memlane.extract._text import lower_ascii
from memlane.extract.rules import IDENTIFIER_ATTRIBUTES
from memlane.lang.script import fold
from memlane.memo import per_process
from memlane.router.candidates import Candidate

__all__ = ["mistyped_codes", "without_other_codes"]

MIN_CHARS = 5
"""Shorter words differ in a character or two from too many others to tell a mistyped code."""

MAX_CHANGED = 2
"""Characters a mistyped code differs in: more, and it is a code of its own."""

_WORD = re.compile(rf"[A-Za-z0-9]{{{MIN_CHARS},}}")
_CAPITALS = re.compile(
    rf"(?<![A-Za-z0-9])(?=[A-Z0-9]*[A-Z])[A-Z0-9]{{{MIN_CHARS},}}(?![A-Za-z0-9])"
)
_NOT_ALNUM = re.compile(r"[^0-9a-z]+")


def without_other_codes(candidates: list[Candidate], question: str) -> list[Candidate]:
    """``candidates`` left after a code the question mistypes (see the module docstring).

    A word of the question that some candidate's code differs from in one or two places is
    a code, asked for as written: only what holds that word answers, as a recognized
    identifier is answered only by what names it. Nothing else changes.
    """
    mistyped = frozenset().union(*(mistyped_codes(question, c.statement) for c in candidates))
    if not mistyped:
        return candidates
    return [c for c in candidates if mistyped & _words(c.statement)]


def mistyped_codes(question: str, statement: str) -> frozenset[str]:
    """The words of ``question`` that are a code of ``statement`` changed in 1–2 places.

    >>> sorted(mistyped_codes("where is reservation hjvyqt?", "Confirmation code HJVYQX"))
    ['hjvyqt']
    """
    asked = _words(question)
    if not asked:
        return frozenset()
    held = _by_length(statement)
    near = {
        word: nearby
        for word in asked - _words(statement)
        if (nearby := [token for token in held.get(len(word), ()) if _changed(word, token)])
    }
    if not near:  # most statements: no word of theirs is one a question word nearly spells
        return frozenset()
    codes = _codes(statement)
    return frozenset(word for word, nearby in near.items() if codes.intersection(nearby))


@per_process
def _words(text: str) -> frozenset[str]:
    return frozenset(_WORD.findall(fold(text)))  # fold: NFKC and case-folded already


@per_process
def _by_length(text: str) -> dict[int, frozenset[str]]:
    grouped: dict[int, set[str]] = {}
    for word in _words(text):
        grouped.setdefault(len(word), set()).add(word)
    return {length: frozenset(words) for length, words in grouped.items()}


@per_process
def _codes(statement: str) -> frozenset[str]:
    folded = fold_width(statement)  # full-width forms folded, letter case kept
    found = {
        _NOT_ALNUM.sub("", mention.text.casefold())
        for mention in find_identifiers(folded)
        if mention.kind in IDENTIFIER_ATTRIBUTES
    }
    lowered = lower_ascii(folded)
    found.update(
        match[0].casefold()
        for match in _CAPITALS.finditer(folded)
        if cue_before(lowered, match.start()) is not None
    )
    return frozenset(code for code in found if len(code) >= MIN_CHARS)


def _changed(word: str, code: str) -> bool:
    """Whether ``word`` is ``code`` with one or two characters changed (not ``code`` itself)."""
    if len(word) != len(code):
        return False
    differing: int = sum(map(ne, word, code))
    return 0 < differing <= MAX_CHANGED
