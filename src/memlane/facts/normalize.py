"""Normalizers turn a value into the key that equality and reverse lookups compare.

Identifiers compare by their normalized text (``"138-0000-1234"`` and ``"13800001234"`` are
one phone number); every other value compares by its canonical JSON.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

from memlane.errors import InvalidInput

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


def normalize_phone(value: Any) -> str:
    """Keep the digits: ``"+86 138-0000-1234"`` → ``"8613800001234"``."""
    digits = "".join(ch for ch in _as_text(value) if ch.isdigit() and ch.isascii())
    if not digits:
        raise InvalidInput("value", f"{value!r} has no digits to form a phone number")
    return digits


def normalize_email(value: Any) -> str:
    """Trim and lower-case: ``" Alice@Example.COM "`` → ``"alice@example.com"``."""
    text = _as_text(value).strip().lower()
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
    "exact": normalize_exact,
    "json": canonical_json,
}


def infer_normalizer(attribute: str) -> str:
    """Pick a normalizer for an identifier from its name (phone/mobile/tel, email/mail)."""
    name = attribute.casefold()
    if any(word in name for word in ("phone", "mobile", "tel")):
        return "phone"
    if "mail" in name:
        return "email"
    return "casefold"


def _as_text(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise InvalidInput("value", f"an identifier must be a string or number, got {value!r}")
    if isinstance(value, float) and not math.isfinite(value):
        raise InvalidInput("value", f"an identifier must be finite, got {value!r}")
    text = str(value)
    if not text.strip():
        raise InvalidInput("value", "an identifier must not be empty")
    return text
