"""What recall needs of each note, stored when the note is written and read back by index.

A note's keys (``(kind, key)`` pairs: its words, claims, slots, cited turns...) are derived
from it above the storage layer (see :mod:`memlane.router.evidence`); here they are only
kept, one ``note_keys`` row each, and queried: the notes holding a key, how many do. Rows of
forgotten notes are removed with the forgetting, so no query needs to look at ``notes`` to
skip deleted ones; notes without rows yet wait in ``note_keys_pending``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from memlane.storage.base import ANY, TIMED_KINDS, KeysMoved, Visible, scope_key
from memlane.storage.sql import rows as decode
from memlane.storage.sql import schema
from memlane.storage.sql.dialect import Database, SQLStore
from memlane.summaries.model import Note
from memlane.timeutil import to_micros

_NOTE_COLUMNS = ", ".join(f"n.{column}" for column in decode.NOTE_COLUMNS.split(", "))
_NOTE_ORDER = " ORDER BY n.said_at, n.id"
TIMED_KEYS = schema.TIMED_KEYS.replace("%", "%%")
"""The condition of the partial index ``note_keys_recent``, stated by each read that uses it."""
TOLD_KEYS_MOST = 20_000
"""Most keys a transaction's :class:`~memlane.storage.base.KeysMoved` lists (a note holds ~100):
past it (an import), it is told as not only added, and what was kept of the subject is read
anew, as most of it would be dropped anyway."""


def padded_kinds(count: int, most: int) -> int:
    """How many parts a statement reading ``count`` kinds has: the next power of two.

    At most ``most`` (the dialect's ``kinds_per_read``); the parts past ``count`` match
    nothing. So the texts are a handful, each compiled once per connection and kept in its
    statement cache (psycopg prepares a text run five times). Compiling one takes ~40 us a
    part on SQLite (2.6 ms for 64); with a text per count of kinds, a fresh connection
    compiled one at most of its first fifty recalls.

    >>> [padded_kinds(count, 32) for count in (1, 2, 3, 5, 17, 32)]
    [1, 2, 4, 8, 32, 32]
    """
    return min(most, 1 << (count - 1).bit_length())


class SQLNoteKeys(SQLStore):
    """The ``note_keys`` side of :class:`memlane.storage.sql.summaries.SQLSummaryStore`."""

    def put_note_keys(
        self, tenant: str, subject: str, keyed: Sequence[tuple[Note, Sequence[tuple[str, str]]]]
    ) -> None:
        """Store (or replace) what recall needs of notes, ``(note, keys)`` each; none pends."""
        if not keyed:
            return
        ids = self.dialect.ids([note.id for note, _ in keyed])
        # Keys are derived from the notes again if lost: the commit need not wait for the disk.
        with self.db.write([scope_key(tenant, subject, "notes")], derived=True):
            self.db.wrote()
            # A note forgotten since it was read (keys are derived outside any lock) gets no
            # rows: forgetting removed its rows already and would not again.
            live = {
                row[0]
                for row in self.db.fetchall(
                    f"SELECT id FROM notes WHERE {self.dialect.any_of('id')} "
                    "AND deleted_at IS NULL",
                    (ids,),
                )
            }
            where = self.dialect.any_of("note_id")
            replaced = self.db.execute(f"DELETE FROM note_keys WHERE {where}", (ids,))
            self.db.execute(f"DELETE FROM note_keys_pending WHERE {where}", (ids,))
            given = [(note, keys) for note, keys in keyed if note.id in live]
            added = [(note.id, keys) for note, keys in given]
            moved_keys(self.db, tenant, subject, None if replaced else added)
            rows = [
                row
                for note, keys in given
                for row in _key_rows(
                    tenant, subject, (note.id, to_micros(note.at), to_micros(note.tx_from)), keys
                )
            ]
            self.dialect.insert_note_keys(rows)  # all of them in one round trip

    @property
    def key_rows_per_write(self) -> int | None:
        """Most key rows a note writes with it (the dialect's; ``None``: no limit)."""
        return self.dialect.key_rows_per_write

    def add_note_keys(
        self,
        tenant: str,
        subject: str,
        note: Note,
        keys: Sequence[tuple[str, str]],
        *,
        last: bool,
    ) -> bool:
        """Add a part of the keys of a note still waiting for them; ``last``: it waits no more.

        A long note's keys are written a part per write, so that no write holds the lock
        long; meanwhile the note waits, and the first recall of its subject keys it whole
        (:meth:`put_note_keys` replaces the parts), after which no part is added.
        """
        with self.db.write([scope_key(tenant, subject, "notes")], derived=True):
            waiting = self.db.fetchone(
                "SELECT n.id FROM note_keys_pending AS p JOIN notes AS n ON n.id = p.note_id "
                "WHERE p.note_id = %s AND n.deleted_at IS NULL",
                (note.id,),
            )
            if waiting is None:
                return False
            self.db.wrote()
            moved_keys(self.db, tenant, subject, [(note.id, keys)])
            stored = (note.id, to_micros(note.at), to_micros(note.tx_from))
            if keys:
                self.dialect.insert_note_keys(_key_rows(tenant, subject, stored, keys))
            if last:
                self.db.execute("DELETE FROM note_keys_pending WHERE note_id = %s", (note.id,))
        return True

    def write_keys(
        self,
        tenant: str,
        subject: str,
        note: tuple[int, int, int],
        keys: Sequence[tuple[str, str]] | None,
    ) -> None:
        """Inside a write: the rows of a note ``(id, said at, stored at)``, or mark it pending."""
        moved_keys(self.db, tenant, subject, [(note[0], keys or ())])
        if keys is None:
            self.db.execute(
                "INSERT INTO note_keys_pending (note_id, tenant, subject) VALUES (%s, %s, %s)",
                (note[0], tenant, subject),
            )
            return
        self.dialect.insert_note_keys(_key_rows(tenant, subject, note, keys))

    def note_stamp(self, tenant: str, subject: str) -> int:
        """The subject's stamp: it moves with every write of its notes' keys (0: none yet).

        Every such write moves it in its own transaction (:func:`moved_keys`), and it never
        goes back, so two reads that find the same stamp saw the same keys between them.
        """
        row = self.db.fetchone(
            "SELECT stamp FROM note_stamps WHERE tenant = %s AND subject = %s", (tenant, subject)
        )
        return 0 if row is None else int(row[0])

    def watch_keys(self, watcher: Callable[[KeysMoved], None]) -> None:
        """Have ``watcher`` told what moved a note stamp, after each commit that moved one."""
        self.db.keys_watchers.append(watcher)

    def unkeyed_notes(self, tenant: str, subject: str, limit: int) -> list[Note]:
        """Up to ``limit`` live notes of a subject whose keys are not stored yet."""
        rows = self.db.fetchall(
            f"SELECT {_NOTE_COLUMNS} FROM note_keys_pending AS p JOIN notes AS n "
            "ON n.id = p.note_id WHERE p.tenant = %s AND p.subject = %s "
            "AND n.deleted_at IS NULL ORDER BY p.note_id LIMIT %s",  # in the index's order
            (tenant, subject, limit),
        )
        return [decode.note(row) for row in rows]

    def waiting_notes(
        self, tenant: str | None, subject: str | None, limit: int
    ) -> list[tuple[str, str, Note]]:
        """Up to ``limit`` live notes waiting for keys, ``(tenant, subject, note)``, oldest first.

        Of ``tenant`` (``None``: any) and ``subject`` (``None``: any of the tenant's): the
        background indexer's queue of notes to key (:class:`memlane.summaries.indexer.Indexer`).
        """
        where, parameters = _waiting_scope(tenant, subject)
        rows = self.db.fetchall(
            f"SELECT p.tenant, p.subject, {_NOTE_COLUMNS} FROM note_keys_pending AS p "
            f"JOIN notes AS n ON n.id = p.note_id WHERE n.deleted_at IS NULL{where} "
            "ORDER BY p.note_id LIMIT %s",
            [*parameters, limit],
        )
        return [(row[0], row[1], decode.note(row[2:])) for row in rows]

    def unkeyed_count(self, tenant: str | None, subject: str | None = None) -> int:
        """How many live notes of ``tenant`` (``None``: any; or of ``subject``) wait for keys."""
        where, parameters = _waiting_scope(tenant, subject)
        row = self.db.fetchone(
            "SELECT count(*) FROM note_keys_pending AS p JOIN notes AS n ON n.id = p.note_id "
            f"WHERE n.deleted_at IS NULL{where}",
            parameters,
        )
        return int(row[0])

    def unkeyed_subjects(self) -> list[tuple[str, str]]:
        """Every ``(tenant, subject)`` with live notes whose keys are not stored yet."""
        rows = self.db.fetchall(
            "SELECT DISTINCT p.tenant, p.subject FROM note_keys_pending AS p JOIN notes AS n "
            "ON n.id = p.note_id WHERE n.deleted_at IS NULL ORDER BY p.tenant, p.subject",
            (),
        )
        return [(tenant, subject) for tenant, subject in rows]

    def keyed_notes(self, tenant: str, subject: str, kind: str, keys: Sequence[str]) -> list[Note]:
        """The live notes of a subject holding one of ``keys`` of ``kind``, in the order said."""
        if not keys:
            return []
        rows = self.db.fetchall(
            f"SELECT {_NOTE_COLUMNS} FROM notes AS n WHERE n.id IN (SELECT note_id "
            "FROM note_keys WHERE tenant = %s AND subject = %s AND kind = %s "
            f"AND {self.dialect.any_of('key')}) AND n.deleted_at IS NULL{_NOTE_ORDER}",
            (tenant, subject, kind, self.dialect.ids(list(keys))),
        )
        return [decode.note(row) for row in rows]

    def latest_keyed(
        self, tenant: str, subject: str, kind: str, key: str, page: tuple[int, int]
    ) -> list[Note]:
        """A page (offset, limit) of the live notes holding ``key``, latest first.

        Latest: said last, then stored last (then the lower id); read in that order from
        the index, so a page costs its size, not the number of holders.
        """
        rows = self.db.fetchall(
            f"SELECT {_NOTE_COLUMNS} FROM note_keys AS k JOIN notes AS n ON n.id = k.note_id "
            "WHERE k.tenant = %s AND k.subject = %s AND k.kind = %s AND k.key = %s "
            "AND n.deleted_at IS NULL "
            "ORDER BY k.said_at DESC, k.tx_from DESC, k.note_id LIMIT %s OFFSET %s",
            (tenant, subject, kind, key, page[1], page[0]),
        )
        return [decode.note(row) for row in rows]

    def recent_keyed(
        self, tenant: str, subject: str, kinds: Sequence[str], visible: Visible, limit: int
    ) -> dict[str, list[tuple[str, int, int, int]]]:
        """Per kind, its ``limit`` latest live rows: ``(key, note id, said at, stored at)``.

        Of notes said and stored by ``visible`` (times in microseconds), latest first (said,
        then stored, then the lower id); every kind of ``kinds`` is in the answer. Each kind
        is read from ``note_keys_recent`` (kinds of :data:`TIMED_KINDS` only) in that order
        and stops after ``limit`` rows, so its cost is ``limit``, not how many notes hold
        the kind; the kinds are read together, the dialect's ``kinds_per_read`` a
        statement, by statements of a few shapes (:func:`padded_kinds`).
        """
        found: dict[str, list[tuple[str, int, int, int]]] = {kind: [] for kind in kinds}
        if any(not kind.startswith(TIMED_KINDS) for kind in found):
            raise ValueError(f"only kinds starting with {TIMED_KINDS!r} are indexed by time")
        where = f"k.tenant = %s AND k.subject = %s AND k.kind = %s AND {TIMED_KEYS}"
        bounds: list[Any] = []
        for column, bound in zip(("said_at", "tx_from"), visible, strict=True):
            if bound is not None:
                where += f" AND k.{column} <= %s"
                bounds.append(bound)
        one = (
            "SELECT * FROM (SELECT k.kind, k.key, k.note_id, k.said_at, k.tx_from "
            f"FROM note_keys AS k WHERE {where} "
            "ORDER BY k.said_at DESC, k.tx_from DESC, k.note_id LIMIT %s) AS r{}"
        )
        # Liveness by the note's id, in a subquery per row: a join might be planned as a hash
        # join on an estimate of the rows, reading every note of the tenant.
        live = "(SELECT n.id FROM notes AS n WHERE n.id = r.note_id AND n.deleted_at IS NULL)"
        wanted: list[str | None] = list(found)
        most = self.dialect.kinds_per_read
        for first in range(0, len(wanted), most):
            chunk = wanted[first : first + most]
            chunk += [None] * (padded_kinds(len(chunk), most) - len(chunk))  # `kind = NULL`
            union = " UNION ALL ".join(one.format(index) for index in range(len(chunk)))
            parameters = [
                value for kind in chunk for value in (tenant, subject, kind, *bounds, limit)
            ]
            rows = self.db.fetchall(
                f"SELECT r.kind, r.key, r.note_id, r.said_at, r.tx_from, {live} "
                f"FROM ({union}) AS r",
                parameters,
            )
            for kind, key, note_id, said, stored, alive in rows:
                if alive is not None:
                    found[kind].append((key, int(note_id), int(said), int(stored)))
        for rows_of_kind in found.values():
            rows_of_kind.sort(key=lambda row: (-row[2], -row[3], row[1]))
        return found

    def keyed_ids(
        self, tenant: str, subject: str, kind: str, keys: Sequence[str]
    ) -> dict[str, list[int]]:
        """Per key of ``kind``, the ids of the notes holding it, in id order."""
        found: dict[str, list[int]] = {}
        if not keys:
            return found
        for key, note_id in self.db.fetchall(
            "SELECT key, note_id FROM note_keys WHERE tenant = %s AND subject = %s "
            f"AND kind = %s AND {self.dialect.any_of('key')} ORDER BY key, note_id",
            (tenant, subject, kind, self.dialect.ids(list(keys))),
        ):
            found.setdefault(key, []).append(note_id)
        return found

    def keys_of(
        self, tenant: str, ids: Sequence[int], kind: str, among: Sequence[str] | None = None
    ) -> dict[int, list[str]]:
        """The keys of ``kind`` of the given notes (only those of ``tenant``), ``among`` these.

        ``among``: only these keys (by the ``(note_id, kind, key)`` index: a note's other
        keys are not read).
        """
        found: dict[int, list[str]] = {}
        if not ids or (among is not None and not among):
            return found
        # The tenant's notes first, by id (the tenant only filtering: not by the tenant's
        # index, which would be read whole), then their keys from the index by note alone: one
        # row of ``notes`` read per note, none of ``note_keys`` per key.
        owned = (
            f"SELECT n.id FROM notes AS n WHERE {self.dialect.any_of('n.id')} "
            f"AND {self.dialect.filter_only('n.tenant')} = %s"
        )
        sql = f"SELECT note_id, key FROM note_keys WHERE note_id IN ({owned}) AND kind = %s"
        parameters: tuple[Any, ...] = (self.dialect.ids(ids), tenant, kind)
        if among is not None:
            sql += f" AND {self.dialect.any_of('key')}"
            parameters += (self.dialect.ids(list(among)),)
        for note_id, key in self.db.fetchall(sql, parameters):
            found.setdefault(note_id, []).append(key)
        return found

    def key_counts(
        self, tenant: str, subject: str, kind: str, keys: Sequence[str]
    ) -> dict[str, int]:
        """Per key of ``kind``, how many live notes of the subject hold it (0: absent)."""
        counts = dict.fromkeys(keys, 0)
        if keys:
            for key, count in self.db.fetchall(
                "SELECT key, count(*) FROM note_keys WHERE tenant = %s AND subject = %s "
                f"AND kind = %s AND {self.dialect.any_of('key')} GROUP BY key",
                (tenant, subject, kind, self.dialect.ids(list(keys))),
            ):
                counts[key] = int(count)
        return counts

    def count_keyed(
        self, tenant: str, subject: str, kind: str, keys: Sequence[str], visible: Visible = ANY
    ) -> int:
        """How many live notes said and stored by ``visible`` hold one of ``keys`` of ``kind``."""
        if not keys:
            return 0
        match = self.dialect.any_of("k.key")
        return self._count(tenant, subject, kind, (match, self.dialect.ids(list(keys))), visible)

    def count_containing(
        self, tenant: str, subject: str, kind: str, text: str, visible: Visible = ANY
    ) -> int:
        """How many live notes said and stored by ``visible`` hold a key that contains ``text``."""
        return self._count(tenant, subject, kind, ("k.key LIKE %s", f"%{text}%"), visible)

    def _count(
        self, tenant: str, subject: str, kind: str, match: tuple[str, Any], visible: Visible
    ) -> int:
        sql = (
            "SELECT count(DISTINCT k.note_id) FROM note_keys AS k WHERE k.tenant = %s "
            f"AND k.subject = %s AND k.kind = %s AND {match[0]}"
        )
        parameters: list[Any] = [tenant, subject, kind, match[1]]
        said_until, known_at = visible
        if said_until is not None or known_at is not None:
            sql += " AND k.note_id IN (SELECT id FROM notes WHERE tenant = %s AND subject = %s"
            parameters += [tenant, subject]
            if known_at is not None:
                sql += " AND tx_from <= %s"
                parameters.append(known_at)
            if said_until is not None:
                sql += " AND said_at <= %s"
                parameters.append(said_until)
            sql += ")"
        return int(self.db.fetchone(sql, parameters)[0])


def _waiting_scope(tenant: str | None, subject: str | None) -> tuple[str, list[str]]:
    """The condition on ``note_keys_pending AS p`` of a scope, and its parameters."""
    if tenant is None:
        return "", []
    if subject is None:
        return " AND p.tenant = %s", [tenant]
    return " AND p.tenant = %s AND p.subject = %s", [tenant, subject]


def _key_rows(
    tenant: str, subject: str, note: tuple[int, int, int], keys: Sequence[tuple[str, str]]
) -> list[tuple[Any, ...]]:
    """The ``note_keys`` rows of a note ``(id, said at, stored at)``, each key once."""
    return [(tenant, subject, kind, key, *note) for kind, key in dict.fromkeys(keys)]


def moved_keys(
    database: Database,
    tenant: str,
    subject: str,
    added: Sequence[tuple[int, Sequence[tuple[str, str]]]] | None = None,
) -> None:
    """Inside a write: the subject's notes' keys change, so move its stamp (once a transaction).

    Every write of ``note_keys`` calls it (a note stored, keyed with it, later in parts or
    again, forgotten, purged): what recall keeps of the keys across recalls is kept per stamp.
    ``added``: the notes given keys, ``(note id, keys)`` each, when that is all the write
    does; ``None``: keys are replaced or removed. Once the transaction commits, the
    database's :attr:`~memlane.storage.sql.dialect.Database.keys_watchers` are told what moved
    the stamp (:class:`~memlane.storage.base.KeysMoved`), so that what was kept at the stamp
    before may be carried over what was only added.
    """
    moved = database.of_transaction(
        ("note_stamps", tenant, subject), lambda: _moving(database, tenant, subject)
    )
    if not moved.only_added:
        return
    if added is not None:
        for note_id, keys in added:
            moved.notes.add(note_id)
            moved.keys.update(keys)
    if added is None or len(moved.keys) > TOLD_KEYS_MOST:
        moved.only_added = False
        moved.notes.clear()
        moved.keys.clear()


def _moving(database: Database, tenant: str, subject: str) -> KeysMoved:
    """Move the subject's stamp: the record of what moved it, told once the write commits.

    (Outside a write transaction nothing could tell what the write does: nothing is told.)
    """
    (stamp,) = database.fetchone(
        "INSERT INTO note_stamps (tenant, subject, stamp) VALUES (%s, %s, 1) "
        "ON CONFLICT (tenant, subject) DO UPDATE SET stamp = note_stamps.stamp + 1 "
        "RETURNING stamp",
        (tenant, subject),
    )
    moved = KeysMoved(tenant, subject, int(stamp), set(), set())

    def tell() -> None:
        for watcher in database.keys_watchers:
            watcher(moved)

    if database.in_transaction:
        database.after_commit(tell)
    return moved


def drop_deleted_keys(database: Database, tenant: str, subject: str) -> None:
    """Inside a write: remove the key rows of the subject's deleted notes."""
    moved_keys(database, tenant, subject)
    for table in ("note_keys", "note_keys_pending"):
        database.execute(
            f"DELETE FROM {table} WHERE tenant = %s AND subject = %s AND note_id IN "
            "(SELECT id FROM notes WHERE tenant = %s AND subject = %s "
            "AND deleted_at IS NOT NULL)",
            (tenant, subject, tenant, subject),
        )
