"""The keys a value is stored and matched under, by its attribute's normalizer.

A handle's normalizers: the built-ins (:mod:`memlane.facts.normalize`), the phone numbers of
its region (:mod:`memlane.facts.phones`), and the callables :meth:`FactsLane.define
<memlane.facts.lane.FactsLane.define>` registered on it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from memlane.errors import InvalidInput
from memlane.facts.model import AttributeDef
from memlane.facts.normalize import (
    BUILTIN_NORMALIZERS,
    IDENTIFIER_NORMALIZERS,
    PHONE_NORMALIZER,
    Normalizer,
    canonical_json,
    infer_normalizer,
)
from memlane.facts.phones import phone_key, phone_keys
from memlane.validation import fact_value


class IdentifierKeys:
    """Keys of values under one handle's normalizers (``region``: of national phone numbers)."""

    def __init__(self, region: str | None) -> None:
        self.region = region
        self.callables: dict[str, Normalizer] = {}

    def stored(self, definition: AttributeDef, value: Any) -> str:
        """The key ``value`` is stored under: the first of :meth:`of`, without the others."""
        if definition.identifier and definition.normalizer == PHONE_NORMALIZER:
            fact_value("value", value)
            return phone_key(_identifier_text(value), self.region)
        return self.of(definition, value)[0]

    def of(self, definition: AttributeDef, value: Any) -> tuple[str, ...]:
        """The comparison keys of ``value``, the one it is stored under first.

        The others are keys it may have been stored under when written another way (phone
        numbers only).

        The value itself is stored as given: an identifier is kept as the user wrote it.
        """
        fact_value("value", value)
        if not definition.identifier:
            return (canonical_json(value),)
        if definition.normalizer == PHONE_NORMALIZER:
            text = _identifier_text(value)
            stored = phone_key(text, self.region)
            return (stored, *(key for key in phone_keys(text, self.region) if key != stored))
        normalize = BUILTIN_NORMALIZERS.get(definition.normalizer) or self.callables.get(
            definition.normalizer
        )
        if normalize is None:
            raise InvalidInput(
                "attribute",
                f"{definition.name!r} uses normalizer {definition.normalizer!r}, which is not "
                "registered on this handle; call define() with the same callable first",
            )
        key = normalize(value)
        if not isinstance(key, str) or not key:
            raise InvalidInput("value", f"normalizer returned {key!r} for {value!r}")
        return (key,)

    def normalizer_name(
        self, attribute: str, identifier: bool, normalizer: str | Callable[[Any], str] | None
    ) -> str:
        """The stored name of a definition's normalizer (a callable is registered here)."""
        if not identifier:
            if normalizer is not None:
                raise InvalidInput("normalizer", "only identifiers have a normalizer")
            return "json"
        if normalizer is None:
            return infer_normalizer(attribute)
        if callable(normalizer):
            name = f"callable:{getattr(normalizer, '__qualname__', repr(normalizer))}"
            self.callables[name] = normalizer
            return name
        if normalizer not in IDENTIFIER_NORMALIZERS:
            choices = ", ".join(IDENTIFIER_NORMALIZERS)
            raise InvalidInput("normalizer", f"unknown {normalizer!r}; use one of {choices}")
        return normalizer


def _identifier_text(value: Any) -> str:
    """An identifier given as text or as a number (``13800001234``), as text."""
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise InvalidInput("value", f"an identifier must be a string or number, got {value!r}")
    return str(value)
