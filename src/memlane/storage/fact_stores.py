"""The exact lane's storage protocol: how a backend reads and writes bi-temporal facts.

A backend executes the plans that :mod:`memlane.facts.temporal` computes. Instants cross
this boundary as integer microseconds since the epoch; an open end is ``FOREVER``.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol

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


@dataclass(slots=True)  # not frozen: a batch makes thousands, and frozen ones cost 3x
class NewVersion:
    """A version a batch inserts at transaction time ``tx``: its columns, flat.

    ``text`` is the value's canonical JSON, ``key`` what it is compared by, ``stated`` when
    its reason was given (``tx`` for a new one). ``tx_to`` is set when the same batch
    already superseded it again.
    """

    subject: str
    attribute: str
    key: str
    start: int
    end: int
    value: Any
    text: str
    source: str | None
    reason: str | None
    confidence: float
    provenance: tuple[str, ...]
    stated: int
    tx: int
    tx_to: int | None = None


@dataclass(frozen=True, slots=True)
class KeyWrite:
    """A write transaction of one key, as :meth:`FactStore.write_key` opens it."""

    writer: FactWriter
    tx: int
    definition: AttributeDef | None
    believed: list[Span]


class FactWriter(Protocol):
    """The write side, valid only inside :meth:`FactStore.transaction`."""

    def next_tx(self, now: int) -> int:
        """Return a transaction time ``>= now`` and strictly above every one issued before."""
        ...

    def next_txs(self, now: int, count: int) -> int:
        """The first of ``count`` consecutive transaction times, as :meth:`next_tx` gives them."""
        ...

    def believed_of(
        self, tenant: str, ranges: Sequence[tuple[str, str, int, int]]
    ) -> dict[tuple[str, str], list[Span]]:
        """Believed versions of several keys, by ``(subject, attribute)``: one query.

        Each of ``ranges`` is ``(subject, attribute, lo, hi)``: the versions touching ``[lo, hi]``.
        """
        ...

    def write_versions(
        self,
        tenant: str,
        closes: Sequence[tuple[int, int]],
        versions: Sequence[NewVersion],
        *,
        returning: bool = True,
    ) -> list[Fact]:
        """Close each stored ``(id, tx)`` and insert ``versions`` in bulk; the inserted facts.

        ``returning=False``: nothing is returned (an empty list), and nothing built for it.
        """
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
        *,
        last: bool = False,
    ) -> Applied:
        """Close ``supersede`` at ``tx`` and insert ``insert`` with ``tx_from = tx``.

        ``last``: nothing is written after it in the transaction, so a backend may commit
        in the same round trip (when the transaction is not nested in another).
        """
        ...


class FactStore(Protocol):
    """Persistence of the exact lane for one database, every tenant."""

    def transaction(
        self, keys: Sequence[tuple[str, str, str]] | None = None, *, issue_at: int | None = None
    ) -> AbstractContextManager[FactWriter]:
        """A write transaction holding the write lock; nested calls join the outer one.

        ``keys``: the ``(tenant, subject, attribute)`` keys it writes facts of, and nothing
        else; a backend may then lock only them, so writers of other keys run at once.
        ``issue_at``: the clock's time of a write that takes one transaction time; a backend
        may issue it as it takes the locks (the next ``next_tx`` then returns it).
        """
        ...

    def write_key(
        self,
        tenant: str,
        subject: str,
        attribute: str,
        *,
        now: int,
        start: int | None,
        end: int | None,
    ) -> AbstractContextManager[KeyWrite]:
        """A write transaction of one key, opened with what a single write plans from.

        It holds the key's lock, its transaction time (``>= now``), the attribute's stored
        definition and the believed versions of every value touching ``[start, end]``
        (``start`` defaults to the transaction time, ``end`` to forever): read together
        after the lock is taken, in one round trip where the database allows it.
        """
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

    def subjects_with(
        self, tenant: str, attribute: str, keys: Sequence[str], scope: Scope
    ) -> list[str]:
        """Subjects whose ``attribute`` holds a value under one of ``keys``, each once, sorted."""
        ...

    def profile(self, tenant: str, subject: str, scope: Scope) -> list[Fact]:
        """Every version of a subject valid in ``scope``, by attribute."""
        ...

    def close(self) -> None:
        """Release the connection; the handle is unusable afterwards."""
        ...
