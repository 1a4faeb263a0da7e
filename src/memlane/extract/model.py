"""What an extractor returns: fact operations for the exact lane and typed mentions."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from typing import Any, Literal, Protocol

OpKind = Literal["set", "add", "retract"]
MentionKind = Literal[
    "phone",
    "email",
    "order_id",
    "user_id",
    "tracking",
    "account",
    "reference",
    "amount",
    "time",
    "url",
    "person",
]


@dataclass(frozen=True, slots=True)
class FactOp:
    """One write the text asks for, e.g. ``set location = "北京"`` from "我搬到北京了".

    ``value`` is JSON; identifiers keep the text as written (the exact lane normalizes them).
    ``valid_from`` is the resolved start of validity ("上周" → that week's start) or ``None``
    for "from the moment it was said".
    """

    kind: OpKind
    attribute: str
    value: Any
    valid_from: datetime | None = None
    confidence: float = 1.0
    evidence: str = ""
    span: tuple[int, int] = (0, 0)


@dataclass(frozen=True, slots=True)
class Mention:
    """A typed piece of the text: an identifier, an amount or a resolved time.

    ``value`` is the normalized form: digits for phones, lower case for e-mails,
    ``{"amount": "12.50", "currency": "CNY"}`` for amounts, an ISO-8601 date or datetime
    string (or ``{"from": ..., "to": ...}`` for a range such as "上周") for times.
    """

    kind: MentionKind
    text: str
    value: Any
    span: tuple[int, int] = (0, 0)


@dataclass(frozen=True, slots=True)
class Extraction:
    """Everything one text yielded."""

    ops: tuple[FactOp, ...] = ()
    mentions: tuple[Mention, ...] = ()
    notes: tuple[str, ...] = field(default=())
    retracted: tuple[str, ...] = ()
    """Old values the text says no longer hold ("我离开华为了", "the Visa's gone"), as read by
    :func:`memlane.lang.retractions`: facts naming them are closed when the text is stored."""
    replaces: bool = False
    """The text says its values replace others of their kind ("新邮箱", "换成…", "new number")."""


@dataclass(frozen=True, slots=True)
class AttributeSpec:
    """How the exact lane should define an attribute an extractor emits."""

    name: str
    cardinality: Literal["one", "many"]
    identifier: bool = False


class Extractor(Protocol):
    """Turns one statement into fact operations and mentions; never raises on odd text."""

    def extract(self, text: str, *, at: datetime, timezone: tzinfo) -> Extraction:
        """Extract from ``text`` said at ``at`` (aware); relative times resolve in ``timezone``."""
        ...

    def attributes(self) -> Sequence[AttributeSpec]:
        """The attributes this extractor may emit, so the exact lane can define them first."""
        ...
