"""Phone numbers as exact-lane keys, parsed with the ``phonenumbers`` library.

A number written with its country (``+86 137 0000 3333``, ``0086 …``, ``+44 (0)7700 900 724``)
is keyed by its E.164 form (``+8613700003333``). A number written the national way
(``137-0000-3333``, ``(021) 6234-5678``, ``07700 900515``) belongs to a country only if the
memory has a default ``region``: then it is keyed by its E.164 form in that region. Without
one, the country is unknown, and the key is the national digits as written
(``13700003333``); a lookup then tries every reading of the number it is given:

- a national number: its digits, and its E.164 form in the region (with no region: in each
  of :data:`GUESS_REGIONS` where the number is possible);
- an international number: its E.164 form, and the national digits it is written as in its
  own country (with and without the trunk prefix: ``07700900515`` and ``7700900515``).

So ``+86 137 0000 3333``, ``137-0000-3333`` and ``13700003333`` find each other with or
without a region, and two numbers that differ in one digit never share a key.
"""

from __future__ import annotations

import re

import phonenumbers

from memlane.errors import InvalidInput
from memlane.memo import per_process

__all__ = ["GUESS_REGIONS", "check_region", "phone_key", "phone_keys"]

GUESS_REGIONS: tuple[str, ...] = ("CN", "US", "GB")
"""The countries a national number is read in when the memory has no default region."""

_INTERNATIONAL = re.compile(r"^[(\s]*(?:\+|00(?=[1-9]))")
_DIGITS = re.compile(r"\d")


def check_region(region: object) -> str | None:
    """Validate a default region: ``None`` or a two-letter region code such as ``"CN"``.

    >>> check_region("cn")
    'CN'

    Raises:
        InvalidInput: not a region ``phonenumbers`` knows.
    """
    if region is None:
        return None
    if not isinstance(region, str) or region.upper() not in phonenumbers.SUPPORTED_REGIONS:
        raise InvalidInput("region", f"must be a region code such as 'CN' or 'US', got {region!r}")
    return region.upper()


def phone_key(value: str, region: str | None = None) -> str:
    """The key a phone number is stored under: E.164 if its country is known, else its digits.

    >>> phone_key("+86 137-0000-3333"), phone_key("137 0000 3333", "CN")
    ('+8613700003333', '+8613700003333')
    >>> phone_key("137 0000 3333")
    '13700003333'

    Raises:
        InvalidInput: the text holds no digit.
    """
    digits = _digits(value)
    parsed = _international(value) or (None if region is None else _national(digits, region))
    return _e164(parsed) if parsed is not None else digits


def phone_keys(value: str, region: str | None = None) -> tuple[str, ...]:
    """Every key under which a number written this way may be stored (see the module doc).

    >>> phone_keys("+44 7700 900515")
    ('+447700900515', '07700900515', '7700900515')

    Raises:
        InvalidInput: the text holds no digit.
    """
    digits = _digits(value)
    international = _international(value)
    if international is not None:
        return _unique([_e164(international), *_national_forms(international)])
    regions = GUESS_REGIONS if region is None else (region,)
    readings = [_national(digits, each) for each in regions]
    return _unique([digits, *(_e164(number) for number in readings if number is not None)])


def _digits(value: str) -> str:
    text = _ascii_digits(value)
    digits = "".join(_DIGITS.findall(text))
    if not digits:
        raise InvalidInput("value", f"{value!r} has no digits to form a phone number")
    return digits


def _ascii_digits(value: str) -> str:
    """Full-width and other Unicode digits as ASCII (``１３７`` → ``137``)."""
    if value.isascii():
        return value
    return "".join(str(int(char)) if char.isdigit() else char for char in value)


@per_process
def _international(value: str) -> phonenumbers.PhoneNumber | None:
    """The number, if it is written with its country (``+`` or the ``00`` exit code)."""
    text = _ascii_digits(value)
    match = _INTERNATIONAL.match(text)
    if match is None:
        return None
    text = "+" + text[match.end() :]
    try:
        number = phonenumbers.parse(text, None)
    except phonenumbers.NumberParseException:
        return None
    return number if phonenumbers.is_possible_number(number) else None


@per_process
def _national(digits: str, region: str) -> phonenumbers.PhoneNumber | None:
    try:
        number = phonenumbers.parse(digits, region)
    except phonenumbers.NumberParseException:
        return None
    return number if phonenumbers.is_possible_number(number) else None


def _e164(number: phonenumbers.PhoneNumber) -> str:
    return phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)


def _national_forms(number: phonenumbers.PhoneNumber) -> list[str]:
    """The digits of the number written nationally, with and without the trunk prefix."""
    significant = phonenumbers.national_significant_number(number)
    region = phonenumbers.region_code_for_country_code(number.country_code or 0)
    metadata = phonenumbers.PhoneMetadata.metadata_for_region(region, None)
    prefix = getattr(metadata, "national_prefix", None) or ""
    return [prefix + significant, significant] if prefix else [significant]


def _unique(keys: list[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(keys))
