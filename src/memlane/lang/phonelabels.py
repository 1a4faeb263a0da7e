"""Words that label a phone number written right after them, typed fast or abbreviated.

"pls update my contact *nmbr* to 3035550170", "*ph no.* 3035550170", "*mob* 3035550170": a
bare run of digits is a phone number when such a label stands right before it (and the
``phonenumbers`` library finds the run a valid number; see :mod:`memlane.extract.identifiers`).
People shorten these words by dropping vowels ("nmbr", "phn"), cutting them ("num", "mob"),
or mistyping one letter ("numbet"): :func:`is_phone_label` asks a word's structure against
the few labels below, not a list of spellings.
"""

from __future__ import annotations

import re

__all__ = ["PHONE_LABELS", "ends_with_phone_label", "is_phone_label"]

PHONE_LABELS = (
    "phone", "telephone", "cellphone", "mobile", "cell", "number", "tel", "whatsapp",
    "contact", "call", "text", "reach",
)  # fmt: skip
"""Words that say a phone number follows (nouns, and the verbs one dials with)."""

ZH_PHONE_LABELS = ("手机号码", "手机号", "手机", "电话号码", "电话", "号码", "联系方式")
"""Chinese labels of a phone number."""

_ABBREVIATION = re.compile(r"(?:\b(?:no|num|nr)\b|#|№|nº)\.?\s*[:：=]?\s*$", re.IGNORECASE)
"""The number sign right before digits ("no. 303…", "# 303…"): a label with a phone word."""

_BREAK = re.compile(r"[;!?\n。；！？]|\.(?=\s+[A-Z])|\b(?:and|but|or)\b")
_WORD = re.compile(r"[a-z]+")
_VOWELS = frozenset("aeiouy")
_LOOKBACK_WORDS = 4
"""A label stands among the few words before the digits ("contact nmbr *to* 303…")."""
_MIN_CUT = 3


def is_phone_label(word: str) -> bool:
    """Whether ``word`` (lower case) is one of :data:`PHONE_LABELS`, however shortened.

    >>> [is_phone_label(w) for w in ("nmbr", "numbr", "num", "phn", "numbet", "to", "me")]
    [True, True, True, True, True, False, False]
    """
    return any(_shortens(word, label) for label in PHONE_LABELS)


def ends_with_phone_label(before: str) -> bool:
    """Whether the text ``before`` a run of digits ends with a phone label in its clause.

    >>> ends_with_phone_label("pls update my contact nmbr to "), ends_with_phone_label("ph no. ")
    (True, True)
    >>> ends_with_phone_label("my order is "), ends_with_phone_label("call me. My id is ")
    (False, False)
    """
    clause = _BREAK.split(before)[-1]
    if any(label in clause[-8:] for label in ZH_PHONE_LABELS) or _ABBREVIATION.search(clause):
        return True
    words = _WORD.findall(clause.lower())[-_LOOKBACK_WORDS:]
    return any(is_phone_label(word) for word in words)


def _shortens(word: str, label: str) -> bool:
    """``word`` is ``label`` as written, cut (``num``), without vowels (``nmbr``), or mistyped."""
    if word == label:
        return True
    if len(word) < _MIN_CUT or word[0] != label[0]:
        return False
    if label.startswith(word) or (word.startswith(label) and len(word) <= len(label) + 2):
        return True  # "num", "numbers", "called"
    consonants = [char for char in label if char not in _VOWELS]
    return (_subsequence(word, label) and _subsequence("".join(consonants), word)) or (
        len(label) >= 5 and len(word) == len(label) and _one_substitution(word, label)
    )


def _subsequence(short: str, long: str) -> bool:
    remaining = iter(long)
    return all(char in remaining for char in short)


def _one_substitution(word: str, label: str) -> bool:
    return sum(left != right for left, right in zip(word, label, strict=True)) == 1
