"""Logical deletion across every table of a subject on PostgreSQL, and the purge that removes it."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import psycopg

from memlane.errors import StorageError
from memlane.privacy.model import Deletion, PurgeReport
from memlane.storage.postgres.database import PostgresDatabase
from memlane.storage.redaction import (
    DELETION_COLUMNS,
    TEXT_TABLES,
    counts_json,
    deletion,
    mentions,
    needles,
    scope_name,
)
from memlane.timeutil import from_micros

# The column that names one row of each table (turns are keyed by (tenant, id); ``seq`` is
# their own single-column identity, as SQLite's rowid is).
_ROW_KEY = {"turns": "seq"}
# Tables a purge deletes rows from.
_PURGED = ("facts", *(name for name, _ in TEXT_TABLES))
# Tables ``Memory.forget`` rewrites through the workflow lane's scrub: the store cannot tell
# whether a scrub changed them, and each changed row left its old version behind.
_SCRUBBED = ("workflow_runs", "workflows")


class PostgresPrivacyStore:
    """Deletions and purges on one PostgreSQL database."""

    def __init__(self, database: PostgresDatabase) -> None:
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
                    "facts", tenant, subject, now, "attribute = %s", (attribute,)
                )
                # Other facts whose value or stated reason quotes a forgotten value go too.
                counts["facts"] += self._mark_mentions(
                    "facts", "value || ' ' || coalesce(reason, '')", tenant, subject, values, now
                )
                for table, column in TEXT_TABLES:
                    counts[table] = self._mark_mentions(table, column, tenant, subject, values, now)
            scope = scope_name(attribute)
            row = self.db.fetchone(
                "INSERT INTO deletions (tenant, subject, scope, requested_at, requested_by, "
                "reason, purge_due, counts) VALUES (%s, %s, %s, %s, %s, %s, %s, %s) RETURNING id",
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
            return Deletion(
                int(row[0]),
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
            f"SELECT {DELETION_COLUMNS} FROM deletions WHERE tenant = %s ORDER BY id", (tenant,)
        )
        return [deletion(row) for row in rows]

    def purge(
        self, tenant: str, subject: str | None, *, now: int, immediately: bool
    ) -> PurgeReport:
        """Remove deleted rows whose retention has passed (or all, ``immediately``).

        The rows go in one transaction; then the touched tables are rewritten so the bytes
        leave the database files (see :meth:`_compact`), and only then are the deletions
        logged as purged: if the rewrite fails, they stay due and the next purge retries it.

        Raises:
            StorageError: called inside a write transaction (the rewrite would wait on it),
                or the rewrite could not take a table's lock within the lock timeout.
        """
        if self.db.in_transaction:
            raise StorageError("purge cannot run inside a write transaction")
        where = "tenant = %s AND purged_at IS NULL"
        parameters: list[Any] = [tenant]
        if subject is not None:
            where += " AND subject = %s"
            parameters.append(subject)
        if not immediately:
            where += " AND purge_due <= %s"
            parameters.append(now)
        rows: dict[str, int] = {}
        with self.db.write():
            self.db.wrote()
            due = self.db.fetchall(
                f"SELECT id, subject, counts FROM deletions WHERE {where} ORDER BY id", parameters
            )
            for name in sorted({row[1] for row in due}):
                self._remove(tenant, name, rows)
        if not due:
            return PurgeReport((), rows, vacuumed=False)
        marked = [json.loads(row[2]) for row in due]
        self._compact([t for t in _PURGED if rows.get(t) or any(c.get(t) for c in marked)])
        with self.db.write():
            self.db.wrote()
            self.db.execute(
                "UPDATE deletions SET purged_at = %s WHERE id = ANY(%s) AND purged_at IS NULL",
                (now, [row[0] for row in due]),
            )
        return PurgeReport(tuple(row[0] for row in due), rows, vacuumed=True)

    # -- internals ----------------------------------------------------------------------

    def _mark(
        self,
        table: str,
        tenant: str,
        subject: str,
        now: int,
        extra: str = "TRUE",
        extra_parameters: Sequence[Any] = (),
    ) -> int:
        return self.db.execute(
            f"UPDATE {table} SET deleted_at = %s WHERE tenant = %s AND subject = %s "
            f"AND deleted_at IS NULL AND {extra}",
            (now, tenant, subject, *extra_parameters),
        )

    def _values(self, tenant: str, subject: str, attribute: str) -> list[str]:
        """The texts by which an attribute's values may appear in free text."""
        rows = self.db.fetchall(
            "SELECT DISTINCT value, value_key FROM facts WHERE tenant = %s AND subject = %s "
            "AND attribute = %s",
            (tenant, subject, attribute),
        )
        return needles(rows)

    def _mark_mentions(
        self, table: str, column: str, tenant: str, subject: str, values: Sequence[str], now: int
    ) -> int:
        if not values:
            return 0
        key = _ROW_KEY.get(table, "id")
        candidates = self.db.fetchall(
            f"SELECT {key}, {column} FROM {table} WHERE tenant = %s AND subject = %s "
            "AND deleted_at IS NULL",
            (tenant, subject),
        )
        hits = [row[0] for row in candidates if mentions(row[1], values)]
        if hits:
            self.db.execute(
                f"UPDATE {table} SET deleted_at = %s WHERE tenant = %s AND {key} = ANY(%s)",
                (now, tenant, hits),
            )
        return len(hits)

    def _remove(self, tenant: str, subject: str, rows: dict[str, int]) -> None:
        # A search entry's tokens and vector live in its own row, so deleting the row takes
        # them too (SQLite also has to clear its separate FTS index, counted as search_fts).
        for table in _PURGED:
            removed = self.db.execute(
                f"DELETE FROM {table} WHERE tenant = %s AND subject = %s "
                "AND deleted_at IS NOT NULL",
                (tenant, subject),
            )
            rows[table] = rows.get(table, 0) + removed

    def _compact(self, tables: Sequence[str]) -> None:
        """Rewrite ``tables`` (and the workflow tables), so purged values leave the files.

        A DELETE (and the UPDATE that marked a row deleted, or scrubbed a workflow) only
        flags the old row version dead: its bytes stay in the heap page until VACUUM. A plain
        VACUUM is not enough: it prunes the page but leaves the freed bytes where they were
        (measured on PostgreSQL 18: a deleted value stays readable in the heap file), and a
        GIN index never drops the keys of emptied posting lists, so the search tokens of a
        purged text would stay in ``search_docs_tokens``. ``VACUUM FULL`` writes each table
        and its indexes to new files and truncates the old ones, as SQLite's VACUUM rebuilds
        its file. It cannot run in a transaction, hence after the commit, on a pooled
        autocommit connection. It holds each table's exclusive lock while copying it (one
        table at a time), as SQLite's VACUUM holds the whole file; while it waits for that
        lock every other query on the table queues behind it, so the wait is bounded by the
        database's lock timeout (a long export or a stuck transaction makes the purge fail
        instead of stalling every worker). The new files reach disk at the next checkpoint;
        WAL segments and base backups keep their copies until they are recycled.
        """
        names = ", ".join([*tables, *_SCRUBBED])
        timeout = f"{int(self.db.lock_timeout * 1000)}ms"
        # VACUUM skips a table its role may not maintain with only a WARNING; the purge
        # would then claim bytes gone that are still there, so warnings are errors here.
        warnings: list[str] = []

        def collect(notice: Any) -> None:
            if notice.severity_nonlocalized == "WARNING":
                warnings.append(str(notice.message_primary))

        try:
            # SET is per connection, so the pooled connection is borrowed for all three.
            with self.db.pool.connection() as connection:
                connection.add_notice_handler(collect)
                connection.execute(f"SET lock_timeout = '{timeout}'")
                try:
                    connection.execute(f"VACUUM FULL {names}")
                finally:
                    connection.execute("RESET lock_timeout")
                    connection.remove_notice_handler(collect)
        except psycopg.errors.LockNotAvailable as error:
            raise StorageError(
                f"purged rows are deleted, but rewriting {names} could not take a table lock "
                f"within {self.db.lock_timeout:g} s (a long transaction holds it); the "
                f"deletions stay due and the next purge retries: {error}"
            ) from error
        except psycopg.Error as error:
            raise StorageError(f"PostgreSQL error while rewriting {names}: {error}") from error
        if warnings:
            raise StorageError(
                f"purged rows are deleted, but rewriting {names} was refused: "
                f"{'; '.join(warnings)} (the role needs to own the tables, or the MAINTAIN "
                "privilege on them); the deletions stay due and the next purge retries"
            )
