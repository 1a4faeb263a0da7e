"""The storage protocol: what the lanes need from a backend, and nothing about which one.

A backend executes the plans that :mod:`memlane.facts.temporal` computes. Instants cross
this boundary as integer microseconds since the epoch; an open end is ``FOREVER``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Protocol

from memlane.facts.model import AttributeDef, Fact
from memlane.facts.temporal import Insert, Span


@dataclass(frozen=True, slots=True)
class Scope:
    """Which versions a read sees.

    ``known_at=None`` reads the current belief; an instant reads the belief as of that
    transaction time. ``valid_at=None`` (timelines) means every valid time.
    """

    valid_at: int | None
    known_at: int | None


@dataclass(frozen=True, slots=True)
class Applied:
    """What a write changed: the versions it superseded (now with ``tx_to``) and inserted."""

    superseded: list[Fact]
    inserted: list[Fact]


class FactWriter(Protocol):
    """The write side, valid only inside :meth:`FactStore.transaction`."""

    def next_tx(self, now: int) -> int:
        """Return a transaction time ``>= now`` and strictly above every one issued before."""
        ...

    def attribute(self, tenant: str, name: str) -> AttributeDef | None:
        """The definition as stored now (never from a cache)."""
        ...

    def put_attribute(self, tenant: str, definition: AttributeDef, now: int) -> None:
        """Create or replace a definition."""
        ...

    def attribute_in_use(self, tenant: str, name: str) -> bool:
        """True if any version of the attribute is stored, deleted or not."""
        ...

    def believed_near(
        self, tenant: str, subject: str, attribute: str, key: str | None, start: int, end: int
    ) -> list[Span]:
        """Believed, undeleted versions that touch ``[start, end)`` (of one value if ``key``)."""
        ...

    def apply(
        self,
        tenant: str,
        subject: str,
        attribute: str,
        supersede: Sequence[int],
        insert: Sequence[Insert],
        tx: int,
    ) -> Applied:
        """Close ``supersede`` at ``tx`` and insert ``insert`` with ``tx_from = tx``."""
        ...


class FactStore(Protocol):
    """Persistence of the exact lane for one database, every tenant."""

    def transaction(self) -> AbstractContextManager[FactWriter]:
        """A write transaction holding the write lock; nested calls join the outer one."""
        ...

    def attribute(self, tenant: str, name: str) -> AttributeDef | None:
        """A tenant's attribute definition, or ``None`` if undeclared."""
        ...

    def attributes(self, tenant: str) -> list[AttributeDef]:
        """Every definition of a tenant, by name."""
        ...

    def fact(self, tenant: str, fact_id: int) -> Fact | None:
        """One version by id, or ``None``."""
        ...

    def valid_at(
        self, tenant: str, subject: str, attribute: str, scope: Scope, limit: int | None
    ) -> list[Fact]:
        """Versions of one key valid at ``scope.valid_at``, latest ``valid_from`` first."""
        ...

    def timeline(
        self, tenant: str, subject: str, attribute: str, known_at: int | None
    ) -> list[Fact]:
        """Every version of one key believed at ``known_at``, ordered by valid time."""
        ...

    def versions(self, tenant: str, subject: str, attribute: str | None) -> list[Fact]:
        """Every version ever stored (superseded and deleted too), by transaction time."""
        ...

    def subjects_with(self, tenant: str, attribute: str, key: str, scope: Scope) -> list[str]:
        """Subjects whose ``attribute`` holds the value with normalized ``key``."""
        ...

    def profile(self, tenant: str, subject: str, scope: Scope) -> list[Fact]:
        """Every version of a subject valid in ``scope``, by attribute."""
        ...

    def close(self) -> None:
        """Release the connection; the handle is unusable afterwards."""
        ...


def iter_chunks(items: Sequence[int], size: int = 500) -> Iterator[Sequence[int]]:
    """Split ids into chunks small enough for one parameterized statement."""
    for offset in range(0, len(items), size):
        yield items[offset : offset + size]


@dataclass(frozen=True, slots=True)
class Backend:
    """The stores of one database, as handed to the lanes."""

    url: str
    facts: FactStore
    close: Callable[[], None]
