"""Plain data of the exact lane: fact versions and attribute definitions."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

Cardinality = Literal["one", "many"]


@dataclass(frozen=True, slots=True)
class Fact:
    """One stored fact version: a value, when it holds (valid time) and when we believed it.

    Intervals are half-open; ``valid_to=None`` means "until further notice" and
    ``tx_to=None`` means "still believed". See BITEMPORAL.md for the contract.
    """

    id: int
    subject: str
    attribute: str
    value: Any
    valid_from: datetime
    valid_to: datetime | None
    tx_from: datetime
    tx_to: datetime | None
    source: str | None = None
    reason: str | None = None
    confidence: float = 1.0
    provenance: tuple[str, ...] = ()
    deleted_at: datetime | None = None

    @property
    def believed(self) -> bool:
        """True while this version is part of the current belief (not superseded, not deleted)."""
        return self.tx_to is None and self.deleted_at is None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: times as ISO-8601 strings, ``None`` for open ends."""
        return {
            "id": self.id,
            "subject": self.subject,
            "attribute": self.attribute,
            "value": self.value,
            "valid_from": self.valid_from.isoformat(),
            "valid_to": _iso(self.valid_to),
            "tx_from": self.tx_from.isoformat(),
            "tx_to": _iso(self.tx_to),
            "source": self.source,
            "reason": self.reason,
            "confidence": self.confidence,
            "provenance": list(self.provenance),
            "deleted_at": _iso(self.deleted_at),
        }

    def holds_at(self, instant: datetime) -> bool:
        """True if ``instant`` lies in this version's valid interval."""
        return self.valid_from <= instant and (self.valid_to is None or instant < self.valid_to)


@dataclass(frozen=True, slots=True)
class AttributeDef:
    """How a tenant's attribute behaves: its cardinality and, for identifiers, its normalizer.

    ``normalizer`` names a built-in (``"phone"``, ``"email"``, ``"casefold"``, ``"exact"``),
    ``"json"`` for the canonical-JSON comparison of non-identifiers, or ``"callable:NAME"``
    for a function registered on this process's handle.
    """

    name: str
    cardinality: Cardinality = "one"
    identifier: bool = False
    normalizer: str = "json"


UNDECLARED = AttributeDef(name="")
"""The behaviour of an attribute nobody defined: one value at a time, not an identifier."""

DOCUMENT_KINDS = frozenset({"langgraph", "agents"})
"""Prefixes of the attributes framework adapters keep documents in ("langgraph:…"): facts
of the subject, versioned and forgotten like any other, but not part of its profile."""


def is_document(attribute: str) -> bool:
    """Whether ``attribute`` holds an adapter's document rather than a fact about the subject.

    >>> is_document('langgraph:["u-1","memories","k"]'), is_document("location")
    (True, False)
    """
    kind, separator, _ = attribute.partition(":")
    return bool(separator) and kind in DOCUMENT_KINDS


def _iso(instant: datetime | None) -> str | None:
    return None if instant is None else instant.isoformat()
