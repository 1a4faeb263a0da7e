"""The exact lane on SQLite: executes the plans of :mod:`memlane.facts.temporal`."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from memlane.errors import StorageError
from memlane.facts.model import AttributeDef, Fact
from memlane.facts.normalize import canonical_json
from memlane.facts.temporal import Insert, Span
from memlane.storage import rows as decode
from memlane.storage.base import Applied, Scope, iter_chunks
from memlane.storage.sqlite.database import SQLiteDatabase

_COLUMNS = decode.FACT_COLUMNS
_BELIEVED = "tx_to IS NULL AND deleted_at IS NULL"
_KNOWN_AT = "tx_from <= :known AND (tx_to IS NULL OR tx_to > :known) AND deleted_at IS NULL"


class SQLiteFactStore:
    """:class:`memlane.storage.base.FactStore` and its writer on one SQLite database."""

    def __init__(self, database: SQLiteDatabase) -> None:
        self.db = database
        # Definitions read inside the current write transaction: nobody else can change
        # them while we hold the write lock.
        self._tx_definitions: dict[tuple[str, str], AttributeDef | None] = {}
        database.on_commit(self._forget_definitions, self._forget_definitions)

    # -- transactions -------------------------------------------------------------------

    @contextmanager
    def transaction(self) -> Iterator[SQLiteFactStore]:
        """A write transaction (``BEGIN IMMEDIATE``); nested calls join the outer one."""
        with self.db.write():
            yield self

    def next_tx(self, now: int) -> int:
        """A transaction time above every earlier one, even if the clock stood still."""
        return self.db.next_tx(now)

    def _forget_definitions(self) -> None:
        self._tx_definitions.clear()

    # -- attribute definitions ----------------------------------------------------------

    def attribute(self, tenant: str, name: str) -> AttributeDef | None:
        """A tenant's definition of ``name``, or ``None``."""
        in_transaction = self.db.in_transaction
        if in_transaction and (tenant, name) in self._tx_definitions:
            return self._tx_definitions[tenant, name]
        rows = self.db.fetchall(
            "SELECT name, cardinality, identifier, normalizer FROM attributes "
            "WHERE tenant = ? AND name = ?",
            (tenant, name),
        )
        definition = decode.definition(rows[0]) if rows else None
        if in_transaction:
            self._tx_definitions[tenant, name] = definition
        return definition

    def attributes(self, tenant: str) -> list[AttributeDef]:
        """Every definition of a tenant."""
        rows = self.db.fetchall(
            "SELECT name, cardinality, identifier, normalizer FROM attributes "
            "WHERE tenant = ? ORDER BY name",
            (tenant,),
        )
        return [decode.definition(row) for row in rows]

    def put_attribute(self, tenant: str, definition: AttributeDef, now: int) -> None:
        """Store a definition, replacing an earlier one."""
        self.db.wrote()
        self._tx_definitions[tenant, definition.name] = definition
        self.db.execute(
            "INSERT OR REPLACE INTO attributes "
            "(tenant, name, cardinality, identifier, normalizer, defined_at) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (
                tenant,
                definition.name,
                definition.cardinality,
                int(definition.identifier),
                definition.normalizer,
                now,
            ),
        )

    def attribute_in_use(self, tenant: str, name: str) -> bool:
        """True if any version of ``name`` exists in the tenant."""
        rows = self.db.fetchall(
            "SELECT 1 FROM facts WHERE tenant = ? AND attribute = ? LIMIT 1", (tenant, name)
        )
        return bool(rows)

    # -- writes -------------------------------------------------------------------------

    def believed_near(
        self, tenant: str, subject: str, attribute: str, key: str | None, start: int, end: int
    ) -> list[Span]:
        """Believed versions touching ``[start, end)``, of the value ``key`` if given."""
        sql = (
            f"SELECT {decode.SPAN_COLUMNS} FROM facts "
            "WHERE tenant = ? AND subject = ? AND attribute = ? "
            f"AND {_BELIEVED} AND valid_from <= ? AND valid_to >= ?"
        )
        parameters: tuple[Any, ...] = (tenant, subject, attribute, end, start)
        if key is not None:
            sql += " AND value_key = ?"
            parameters += (key,)
        return [decode.span(row) for row in self.db.fetchall(sql, parameters)]

    def apply(
        self,
        tenant: str,
        subject: str,
        attribute: str,
        supersede: Sequence[int],
        insert: Sequence[Insert],
        tx: int,
    ) -> Applied:
        """Close ``supersede`` at ``tx``; insert ``insert``; return what changed."""
        self.db.wrote()
        superseded: list[Fact] = []
        for chunk in iter_chunks(supersede):
            marks = ",".join("?" * len(chunk))
            rows = self.db.execute(
                f"UPDATE facts SET tx_to = ? WHERE id IN ({marks}) AND tx_to IS NULL "
                f"RETURNING {_COLUMNS}",
                (tx, *chunk),
            ).fetchall()
            if len(rows) != len(chunk):
                raise StorageError("a version to supersede was no longer believed")
            superseded.extend(decode.fact(row) for row in rows)
        inserted = []
        for item in insert:
            payload = item.payload
            value_json = canonical_json(payload.value)
            cursor = self.db.execute(
                "INSERT INTO facts (tenant, subject, attribute, value, value_key, valid_from, "
                "valid_to, tx_from, source, reason, confidence, provenance, stated_tx) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    tenant,
                    subject,
                    attribute,
                    value_json,
                    item.key,
                    item.start,
                    item.end,
                    tx,
                    payload.source,
                    payload.reason,
                    payload.confidence,
                    canonical_json(list(payload.provenance)) if payload.provenance else "[]",
                    payload.stated or tx,
                ),
            )
            assert cursor.lastrowid is not None
            inserted.append(decode.inserted(cursor.lastrowid, subject, attribute, item, tx))
        return Applied(sorted(superseded, key=lambda fact: fact.id), inserted)

    # -- reads --------------------------------------------------------------------------

    def fact(self, tenant: str, fact_id: int) -> Fact | None:
        """One version by id, or ``None``."""
        rows = self.db.fetchall(
            f"SELECT {_COLUMNS} FROM facts WHERE tenant = ? AND id = ?", (tenant, fact_id)
        )
        return decode.fact(rows[0]) if rows else None

    def valid_at(
        self, tenant: str, subject: str, attribute: str, scope: Scope, limit: int | None
    ) -> list[Fact]:
        """Versions of one key valid at ``scope.valid_at``, latest start first."""
        parameters = {
            "tenant": tenant,
            "subject": subject,
            "attribute": attribute,
            "valid": scope.valid_at,
            "known": scope.known_at,
        }
        condition = _BELIEVED if scope.known_at is None else _KNOWN_AT
        sql = (
            f"SELECT {_COLUMNS} FROM facts WHERE tenant = :tenant AND subject = :subject "
            f"AND attribute = :attribute AND {condition} AND valid_from <= :valid "
        )
        if limit == 1 and scope.known_at is None:
            # Believed versions of a one-valued attribute never overlap, so the latest start
            # at or before the instant is the only candidate: one index seek, no scan.
            rows = self.db.fetchall(sql + "ORDER BY valid_from DESC LIMIT 1", parameters)
            return [decode.fact(row) for row in rows if row[5] > scope.valid_at]
        sql += "AND valid_to > :valid ORDER BY valid_from DESC, value_key"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        return [decode.fact(row) for row in self.db.fetchall(sql, parameters)]

    def timeline(
        self, tenant: str, subject: str, attribute: str, known_at: int | None
    ) -> list[Fact]:
        """Every version of one key believed at ``known_at``, by valid time."""
        condition = _BELIEVED if known_at is None else _KNOWN_AT
        sql = (
            f"SELECT {_COLUMNS} FROM facts WHERE tenant = :tenant AND subject = :subject "
            f"AND attribute = :attribute AND {condition} ORDER BY valid_from, value_key, id"
        )
        rows = self.db.fetchall(
            sql, {"tenant": tenant, "subject": subject, "attribute": attribute, "known": known_at}
        )
        return [decode.fact(row) for row in rows]

    def versions(self, tenant: str, subject: str, attribute: str | None) -> list[Fact]:
        """Every version ever stored, by transaction time."""
        sql = f"SELECT {_COLUMNS} FROM facts WHERE tenant = ? AND subject = ?"
        parameters: tuple[str, ...] = (tenant, subject)
        if attribute is not None:
            sql += " AND attribute = ?"
            parameters += (attribute,)
        rows = self.db.fetchall(sql + " ORDER BY tx_from, id", parameters)
        return [decode.fact(row) for row in rows]

    def subjects_with(self, tenant: str, attribute: str, key: str, scope: Scope) -> list[str]:
        """Subjects whose ``attribute`` holds the value with normalized ``key``."""
        condition = _BELIEVED if scope.known_at is None else _KNOWN_AT
        rows = self.db.fetchall(
            "SELECT DISTINCT subject FROM facts INDEXED BY facts_by_value WHERE tenant = :tenant "
            "AND attribute = :attribute AND value_key = :key "
            f"AND {condition} AND valid_from <= :valid AND valid_to > :valid ORDER BY subject",
            {
                "tenant": tenant,
                "attribute": attribute,
                "key": key,
                "valid": scope.valid_at,
                "known": scope.known_at,
            },
        )
        return [row[0] for row in rows]

    def profile(self, tenant: str, subject: str, scope: Scope) -> list[Fact]:
        """Every version of a subject valid at ``scope.valid_at``."""
        condition = _BELIEVED if scope.known_at is None else _KNOWN_AT
        rows = self.db.fetchall(
            f"SELECT {_COLUMNS} FROM facts WHERE tenant = :tenant AND subject = :subject "
            f"AND {condition} AND valid_from <= :valid AND valid_to > :valid "
            "ORDER BY attribute, valid_from, value_key",
            {
                "tenant": tenant,
                "subject": subject,
                "valid": scope.valid_at,
                "known": scope.known_at,
            },
        )
        return [decode.fact(row) for row in rows]

    def close(self) -> None:
        """Close the underlying database."""
        self.db.close()
