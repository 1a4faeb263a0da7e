"""Logical deletion across every table of a subject, and the purge that removes the bytes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memlane.privacy.model import Deletion, PurgeReport
from memlane.storage.redaction import (
    DELETION_COLUMNS,
    TEXT_TABLES,
    counts_json,
    deletion,
    mentions,
    needles,
    scope_name,
)
from memlane.storage.sqlite.database import SQLiteDatabase
from memlane.timeutil import from_micros


class SQLitePrivacyStore:
    """Deletions and purges on one SQLite database."""

    def __init__(self, database: SQLiteDatabase) -> None:
        self.db = database

    def forget(
        self,
        tenant: str,
        subject: str,
        attribute: str | None,
        *,
        now: int,
        purge_due: int,
        reason: str | None,
        requested_by: str | None,
    ) -> Deletion:
        """Mark a subject's data deleted in one transaction, and log the deletion.

        With ``attribute``: its versions and every text that mentions one of its values.
        """
        with self.db.write():
            self.db.wrote()
            counts: dict[str, int] = {}
            if attribute is None:
                counts["facts"] = self._mark("facts", tenant, subject, now)
                for table, _ in TEXT_TABLES:
                    counts[table] = self._mark(table, tenant, subject, now)
            else:
                values = self._values(tenant, subject, attribute)
                counts["facts"] = self._mark(
                    "facts", tenant, subject, now, "attribute = ?", (attribute,)
                )
                # Other facts whose value or stated reason quotes a forgotten value go too.
                counts["facts"] += self._mark_mentions(
                    "facts", "value || ' ' || coalesce(reason, '')", tenant, subject, values, now
                )
                for table, column in TEXT_TABLES:
                    counts[table] = self._mark_mentions(table, column, tenant, subject, values, now)
            scope = scope_name(attribute)
            cursor = self.db.execute(
                "INSERT INTO deletions (tenant, subject, scope, requested_at, requested_by, "
                "reason, purge_due, counts) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    tenant,
                    subject,
                    scope,
                    now,
                    requested_by,
                    reason,
                    purge_due,
                    counts_json(counts),
                ),
            )
            assert cursor.lastrowid is not None
            return Deletion(
                cursor.lastrowid,
                subject,
                scope,
                from_micros(now),
                reason,
                from_micros(purge_due),
                None,
                requested_by,
                counts,
            )

    def deletions(self, tenant: str) -> list[Deletion]:
        """Every deletion of a tenant, oldest first."""
        rows = self.db.fetchall(
            f"SELECT {DELETION_COLUMNS} FROM deletions WHERE tenant = ? ORDER BY id", (tenant,)
        )
        return [deletion(row) for row in rows]

    def purge(
        self, tenant: str, subject: str | None, *, now: int, immediately: bool
    ) -> PurgeReport:
        """Remove deleted rows whose retention has passed (or all, ``immediately``).

        Then the file is rebuilt so the bytes are gone (FTS merge, WAL checkpoint, VACUUM).
        """
        where = "tenant = ? AND purged_at IS NULL"
        parameters: list[Any] = [tenant]
        if subject is not None:
            where += " AND subject = ?"
            parameters.append(subject)
        if not immediately:
            where += " AND purge_due <= ?"
            parameters.append(now)
        rows: dict[str, int] = {}
        with self.db.write():
            self.db.wrote()
            due = self.db.fetchall(f"SELECT id, subject FROM deletions WHERE {where}", parameters)
            subjects = sorted({row[1] for row in due})
            for name in subjects:
                self._remove(tenant, name, rows)
            if due:
                marks = ",".join("?" * len(due))
                self.db.execute(
                    f"UPDATE deletions SET purged_at = ? WHERE id IN ({marks})",
                    (now, *(row[0] for row in due)),
                )
        if due:
            self._compact()
        return PurgeReport(tuple(row[0] for row in due), rows, vacuumed=bool(due))

    # -- internals ----------------------------------------------------------------------

    def _mark(
        self,
        table: str,
        tenant: str,
        subject: str,
        now: int,
        extra: str = "1 = 1",
        extra_parameters: Sequence[Any] = (),
    ) -> int:
        cursor = self.db.execute(
            f"UPDATE {table} SET deleted_at = ? WHERE tenant = ? AND subject = ? "
            f"AND deleted_at IS NULL AND {extra}",
            (now, tenant, subject, *extra_parameters),
        )
        return cursor.rowcount

    def _values(self, tenant: str, subject: str, attribute: str) -> list[str]:
        """The texts by which an attribute's values may appear in free text."""
        rows = self.db.fetchall(
            "SELECT DISTINCT value, value_key FROM facts WHERE tenant = ? AND subject = ? "
            "AND attribute = ?",
            (tenant, subject, attribute),
        )
        return needles(rows)

    def _mark_mentions(
        self, table: str, column: str, tenant: str, subject: str, values: Sequence[str], now: int
    ) -> int:
        if not values:
            return 0
        key = "rowid"
        candidates = self.db.fetchall(
            f"SELECT {key}, {column} FROM {table} WHERE tenant = ? AND subject = ? "
            "AND deleted_at IS NULL",
            (tenant, subject),
        )
        hits = [row[0] for row in candidates if mentions(row[1], values)]
        for start in range(0, len(hits), 500):
            chunk = hits[start : start + 500]
            self.db.execute(
                f"UPDATE {table} SET deleted_at = ? WHERE {key} IN ({','.join('?' * len(chunk))})",
                (now, *chunk),
            )
        return len(hits)

    def _remove(self, tenant: str, subject: str, rows: dict[str, int]) -> None:
        docs = self.db.fetchall(
            "SELECT id FROM search_docs WHERE tenant = ? AND subject = ? "
            "AND deleted_at IS NOT NULL",
            (tenant, subject),
        )
        for (doc_id,) in docs:
            self.db.execute("DELETE FROM search_fts WHERE rowid = ?", (doc_id,))
        rows["search_fts"] = rows.get("search_fts", 0) + len(docs)
        for table in ("facts", *(name for name, _ in TEXT_TABLES)):
            cursor = self.db.execute(
                f"DELETE FROM {table} WHERE tenant = ? AND subject = ? AND deleted_at IS NOT NULL",
                (tenant, subject),
            )
            rows[table] = rows.get(table, 0) + cursor.rowcount

    def _compact(self) -> None:
        """Make deleted bytes unrecoverable: merge FTS segments, checkpoint, VACUUM."""
        with self.db.lock:
            self.db.execute("INSERT INTO search_fts (search_fts) VALUES ('optimize')")
            if self.db.path != ":memory:":
                self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            self.db.execute("VACUUM")
            if self.db.path != ":memory:":
                self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
