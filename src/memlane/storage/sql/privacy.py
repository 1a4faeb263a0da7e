"""Logical deletion across every table of a subject, and the purge that removes the bytes."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from typing import Any

from memlane.errors import InvalidInput, StorageError
from memlane.privacy.model import Deletion, PurgeReport
from memlane.storage.base import MentionRule
from memlane.storage.redaction import (
    CONTENT_COLUMNS,
    DELETION_COLUMNS,
    TEXT_TABLES,
    counts_json,
    deletion,
    scope_name,
    written_forms,
)
from memlane.storage.sql.dialect import BytesCheck, Database, SQLStore
from memlane.storage.sql.note_keys import drop_deleted_keys

# Tables a purge deletes rows from.
_PURGED = ("facts", *(name for name, _ in TEXT_TABLES))


class SQLPrivacyStore(SQLStore):
    """Deletions and purges on one SQL database."""

    def __init__(self, database: Database) -> None:
        super().__init__(database)
        # Per deletion whose purge could not prove the bytes gone: the values to look for.
        self._pending: dict[int, frozenset[bytes]] = {}
        self._pending_lock = threading.Lock()

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
        rule: MentionRule | None = None,
    ) -> Deletion:
        """Mark a subject's data deleted in one transaction, and log the deletion.

        With ``attribute``: its versions and every text that mentions one of its values, as
        ``rule`` decides (:data:`memlane.privacy.matching.FORGET_RULE`).
        """
        if attribute is not None and rule is None:
            raise InvalidInput("rule", "forgetting an attribute needs the rule for its mentions")
        with self.db.write():
            self.db.wrote()
            counts: dict[str, int] = {}
            if attribute is None:
                counts["facts"] = self._mark("facts", tenant, subject, now)
                for table, _ in TEXT_TABLES:
                    counts[table] = self._mark(table, tenant, subject, now)
            elif rule is not None:
                values = self._values(tenant, subject, attribute, rule)
                counts["facts"] = self._mark(
                    "facts", tenant, subject, now, "attribute = %s", (attribute,)
                )
                # Other facts whose value or stated reason quotes a forgotten value go too.
                mentioned = (lambda text: rule.mentions(text, values)) if values else None
                counts["facts"] += self._mark_mentions(
                    "facts", "value || ' ' || coalesce(reason, '')", tenant, subject, mentioned, now
                )
                for table, column in TEXT_TABLES:
                    counts[table] = self._mark_mentions(
                        table, column, tenant, subject, mentioned, now
                    )
            drop_deleted_keys(self.db, tenant, subject)  # derived from the notes forgotten
            row = self.db.fetchone(
                "INSERT INTO deletions (tenant, subject, scope, requested_at, requested_by, "
                "reason, purge_due, counts) VALUES (%s, %s, %s, %s, %s, %s, %s, %s) "
                f"RETURNING {DELETION_COLUMNS}",
                (
                    tenant,
                    subject,
                    scope_name(attribute),
                    now,
                    requested_by,
                    reason,
                    purge_due,
                    counts_json(counts),
                ),
            )
            return deletion(row)

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

        The rows go in one transaction; then the dialect makes the bytes leave the database
        files (SQLite: FTS merge, VACUUM, WAL checkpoint, then a scan of every file for every
        written form of the purged values; PostgreSQL: ``VACUUM FULL``), and only then are the
        deletions logged as purged. If that fails, or the scan still finds a value (a reader
        on another connection holds an old snapshot), they stay due and the next purge
        compacts and scans again.

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
            # A purge that could not prove its bytes gone is retried whatever its due date.
            where += f" AND (purge_due <= %s OR {self.dialect.any_of('id')})"
            with self._pending_lock:
                parameters += [now, self.dialect.ids(sorted(self._pending))]
        rows: dict[str, int] = {}
        written: set[bytes] = set()
        with self.db.write():
            self.db.wrote()
            due = self.db.fetchall(
                f"SELECT id, subject, counts FROM deletions WHERE {where} ORDER BY id", parameters
            )
            removed = {
                name: self._remove(tenant, name, rows, written) for name in {r[1] for r in due}
            }
        if not due:
            return PurgeReport((), rows, vacuumed=False)
        ids = [row[0] for row in due]
        marked = [json.loads(row[2]) for row in due]
        with self._pending_lock:
            # Rows gone, values never seen here: an earlier purge in another process removed them.
            unknown = [
                row[0]
                for row, counts in zip(due, marked, strict=True)
                if not removed[row[1]] and row[0] not in self._pending and any(counts.values())
            ]
        needles = self._pending_needles(ids, written)
        tables = [t for t in _PURGED if rows.get(t) or any(c.get(t) for c in marked)]
        check = _unscanned(self.dialect.compact(tables, sorted(needles)), unknown)
        if check.verified is False:
            # The deletions stay due: the next purge compacts again and scans for the same
            # values (kept in this process only; the rows that held them are gone).
            return PurgeReport(
                tuple(ids), rows, vacuumed=True, bytes_verified=False, held=check.held
            )
        with self.db.write():
            self.db.wrote()
            self.db.execute(
                f"UPDATE deletions SET purged_at = %s WHERE {self.dialect.any_of('id')} "
                "AND purged_at IS NULL",
                (now, self.dialect.ids(ids)),
            )
        with self._pending_lock:
            for deletion_id in ids:
                self._pending.pop(deletion_id, None)
        return PurgeReport(
            tuple(ids), rows, vacuumed=True, bytes_verified=check.verified, held=check.held
        )

    def _pending_needles(self, ids: Sequence[int], written: set[bytes]) -> set[bytes]:
        """``written`` and what earlier, unverified purges of these deletions looked for."""
        needles = set(written)
        with self._pending_lock:
            for deletion_id in ids:
                needles |= self._pending.get(deletion_id, frozenset())
            for deletion_id in ids:
                self._pending[deletion_id] = frozenset(needles)
        return needles

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

    def _values(self, tenant: str, subject: str, attribute: str, rule: MentionRule) -> list[str]:
        """The texts by which an attribute's values (and their keys) may appear in free text."""
        rows = self.db.fetchall(
            "SELECT DISTINCT value, value_key FROM facts WHERE tenant = %s AND subject = %s "
            "AND attribute = %s",
            (tenant, subject, attribute),
        )
        return rule.needles([json.loads(value) for value, _ in rows] + [k for _, k in rows if k])

    def _mark_mentions(
        self,
        table: str,
        column: str,
        tenant: str,
        subject: str,
        mentioned: Callable[[str], bool] | None,
        now: int,
    ) -> int:
        if mentioned is None:
            return 0
        key = self.dialect.row_key(table)
        candidates = self.db.fetchall(
            f"SELECT {key}, {column} FROM {table} WHERE tenant = %s AND subject = %s "
            "AND deleted_at IS NULL",
            (tenant, subject),
        )
        hits = [row[0] for row in candidates if mentioned(row[1])]
        if hits:
            self.db.execute(
                f"UPDATE {table} SET deleted_at = %s WHERE tenant = %s "
                f"AND {self.dialect.any_of(key)}",
                (now, tenant, self.dialect.ids(hits)),
            )
        return len(hits)

    def _remove(self, tenant: str, subject: str, rows: dict[str, int], written: set[bytes]) -> int:
        """Delete a subject's deleted rows; collect what they wrote; return how many went."""
        total = 0
        drop_deleted_keys(self.db, tenant, subject)
        # A search entry's tokens and vector live in its own row, so deleting the row takes
        # them too, but for a separate index (SQLite's FTS5, counted as search_fts).
        for table, removed in self.dialect.purge_index(tenant, subject).items():
            rows[table] = rows.get(table, 0) + removed
        for table in _PURGED:
            columns = CONTENT_COLUMNS[table]
            for row in self.db.fetchall(
                f"SELECT {', '.join(columns)} FROM {table} WHERE tenant = %s AND subject = %s "
                "AND deleted_at IS NOT NULL",
                (tenant, subject),
            ):
                written |= written_forms(row)
            removed = self.db.execute(
                f"DELETE FROM {table} WHERE tenant = %s AND subject = %s "
                "AND deleted_at IS NOT NULL",
                (tenant, subject),
            )
            rows[table] = rows.get(table, 0) + removed
            total += removed
        return total


def _unscanned(check: BytesCheck, unknown: Sequence[int]) -> BytesCheck:
    """``check``, unless some deletions' values could not be looked for (``unknown``).

    Their rows went in an earlier, unproven purge in another process, the only one that
    knew the values. A complete rewrite still leaves no page from before it; a scan for
    nothing proves nothing, so the answer is unknown (or not done, while a reader holds on).
    """
    if not unknown or check.verified is not True:
        return check
    ids = ", ".join(map(str, unknown))
    if not check.complete:
        return BytesCheck(
            False,
            (
                f"deletion(s) {ids}: {_UNKNOWN}; and a reader still holds an "
                "old snapshot, so the log could not be checkpointed",
            ),
            False,
        )
    return BytesCheck(
        None,
        (
            f"deletion(s) {ids}: {_UNKNOWN}; the file has since been rewritten "
            "and its log wholly checkpointed, so no page predates the purge",
        ),
    )


_UNKNOWN = (
    "their rows were removed by an earlier purge in another process that could not prove the "
    "bytes gone, and only it knew the values, so they could not be scanned for"
)
