"""Normalizers turn a value into the key that equality and reverse lookups compare.

Identifiers are stored as written and compare by a key computed from them: ``"ORD-2026-10003"``,
``"ord 2026 10003"`` and ``"ＯＲＤ２０２６１０００３"`` share the key ``"ord202610003"``
(:func:`code_key`), and ``"+86 137 0000 3333"`` and ``"137-0000-3333"`` are one phone number
(:mod:`memlane.facts.phones`). Every other value compares by its canonical JSON.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from typing import Any

from memlane.errors import InvalidInput
from memlane.facts.phones import phone_keys
from memlane.lang.codes import EMAIL_WORDS, PHONE_WORDS, POSTAL_COUNTRY
from memlane.lang.script import fold

Normalizer = Callable[[Any], str]

# One encoder for every call: json.dumps with options builds a new encoder each time.
_CANONICAL = json.JSONEncoder(
    ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=False
)


def canonical_json(value: Any, field: str = "value") -> str:
    """Serialize ``value`` to canonical JSON (sorted keys, no spaces, UTF-8 kept).

    Raises:
        InvalidInput: the value is not JSON (a set, an object, NaN, ...).
    """
    try:
        return _CANONICAL.encode(value)
    except (TypeError, ValueError) as error:
        raise InvalidInput(field, f"must be JSON-serializable: {error}") from error


# What people put between the parts of an id: spaces, dashes of every kind, dots, slashes.
_SEPARATORS = re.compile(r"[\s\-\u2010-\u2015\u2212./\\·・]+")


def code_key(value: Any) -> str:
    """The key of an order id, tracking number or account: NFKC, case-folded, no separators.

    ``"K31-560-X-B"``, ``"k31 560 x b"`` and ``"K31560XB"`` share a key; ids that differ in
    one letter or digit, or in a trailing segment, never do.

    >>> code_key("ＯＲＤ-2026 10003")
    'ord202610003'

    Raises:
        InvalidInput: the value is empty, not text or a number, or only separators.
    """
    key = _SEPARATORS.sub("", fold(_as_text(value)))
    if not key:
        raise InvalidInput("value", f"{value!r} has nothing but separators")
    return key


def normalize_phone(value: Any) -> str:
    """Keep the digits: ``"+86 138-0000-1234"`` → ``"8613800001234"``.

    The normalizer of attributes defined before phone numbers were parsed (``"e164"``, in
    :mod:`memlane.facts.phones`, is the one new definitions get).
    """
    digits = "".join(ch for ch in _as_text(value) if ch.isdigit() and ch.isascii())
    if not digits:
        raise InvalidInput("value", f"{value!r} has no digits to form a phone number")
    return digits


def normalize_email(value: Any) -> str:
    """Trim, NFKC and case-fold: ``" Alice@Example.COM "`` → ``"alice@example.com"``."""
    text = fold(_as_text(value)).strip()
    if "@" not in text or text.startswith("@") or text.endswith("@"):
        raise InvalidInput("value", f"{value!r} is not an e-mail address")
    return text


def normalize_casefold(value: Any) -> str:
    """Trim and case-fold, for identifiers such as user names or order ids."""
    return _as_text(value).strip().casefold()


def normalize_exact(value: Any) -> str:
    """Compare the text exactly as given."""
    return _as_text(value)


BUILTIN_NORMALIZERS: dict[str, Normalizer] = {
    "phone": normalize_phone,
    "email": normalize_email,
    "casefold": normalize_casefold,
    "code": code_key,
    "exact": normalize_exact,
    "json": canonical_json,
}


PHONE_NORMALIZER = "e164"
"""Phone numbers parsed with ``phonenumbers`` (needs the memory's region, so not a plain
function of the value; see :mod:`memlane.facts.phones`)."""

IDENTIFIER_NORMALIZERS: tuple[str, ...] = tuple(
    sorted({*BUILTIN_NORMALIZERS, PHONE_NORMALIZER} - {"json"})
)
"""The normalizers ``facts.define`` accepts by name (``json`` is that of non-identifiers)."""


def infer_normalizer(attribute: str) -> str:
    """Pick a normalizer for an identifier from its name (phone/mobile/tel, email/mail, code)."""
    name = attribute.casefold()
    if any(word in name for word in PHONE_WORDS):
        return PHONE_NORMALIZER
    if any(word in name for word in EMAIL_WORDS):
        return "email"
    return "code"


def match_keys(attribute: str, value: Any) -> frozenset[str]:
    """Keys under which two written forms of an identifier are the same one.

    For matching text against text (an id in a question against a fact's value or a note),
    where no memory's region applies: two forms name one identifier if their keys meet.

    >>> bool(match_keys("phone", "+86 137 0000 3333") & match_keys("phone", "13700003333"))
    True
    """
    if infer_normalizer(attribute) == PHONE_NORMALIZER:
        try:
            return frozenset(phone_keys(_as_text(value)))
        except InvalidInput:
            return frozenset()
    normalize = normalize_email if infer_normalizer(attribute) == "email" else code_key
    try:
        return frozenset([normalize(value)])
    except InvalidInput:
        return frozenset()


def written_keys(attribute: str, value: Any) -> frozenset[str]:
    """:func:`match_keys` of an identifier written in a text, and the short forms it names.

    A postal tracking number also names itself without its country ("RK819227791GB" is
    asked as "rk 8192 2779 1"): the short form, asked, finds the whole number; asked with
    another country ("RK819227791US") it finds nothing, as any other code one letter off.

    >>> sorted(written_keys("tracking", "RK819227791GB"))
    ['rk819227791', 'rk819227791gb']
    """
    keys = match_keys(attribute, value)
    return keys | {POSTAL_COUNTRY.sub("", key) for key in keys if POSTAL_COUNTRY.search(key)}


def _as_text(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise InvalidInput("value", f"an identifier must be a string or number, got {value!r}")
    if isinstance(value, float) and not math.isfinite(value):
        raise InvalidInput("value", f"an identifier must be finite, got {value!r}")
    text = str(value)
    if not text.strip():
        raise InvalidInput("value", "an identifier must not be empty")
    return text
