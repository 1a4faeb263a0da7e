"""Exact row copies out of and into SQLite, for ``memlane export`` / ``memlane import``."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from memlane.errors import StorageError
from memlane.storage.archive import CLOCK, Key, Table, partition, table_named
from memlane.storage.base import ArchiveRow
from memlane.storage.sqlite.database import SQLiteDatabase
from memlane.storage.sqlite.summaries import fts_tokens

_LOOKUP_CHUNK = 400
"""Keys per lookup statement (two parameters each at most; SQLite allows 32,766)."""


class SQLiteArchiveReader:
    """Reads inside :meth:`SQLiteArchiveStore.snapshot` (one read transaction)."""

    def __init__(self, database: SQLiteDatabase) -> None:
        self.db = database

    def count(self, table: str) -> int:
        """The number of rows in ``table``."""
        spec = table_named(table)
        return int(self.db.fetchall(f"SELECT count(*) FROM {spec.name}")[0][0])

    def rows(self, table: str, chunk: int) -> Iterator[list[ArchiveRow]]:
        """Every row by primary key (turns by insertion order), ``chunk`` at a time."""
        spec = table_named(table)
        # rowid is the order in which turns said at the same instant are read back.
        order = "rowid" if spec.name == "turns" else ", ".join(spec.key)
        cursor = self.db.execute(
            f"SELECT {', '.join(spec.names)} FROM {spec.name} ORDER BY {order}"
        )
        while True:
            try:
                fetched = cursor.fetchmany(chunk)
            except sqlite3.Error as error:
                raise StorageError(f"SQLite error: {error}") from error
            if not fetched:
                return
            yield [dict(zip(spec.names, row, strict=True)) for row in fetched]


class SQLiteArchiveStore:
    """:class:`memlane.storage.base.ArchiveStore` on one SQLite database."""

    def __init__(self, database: SQLiteDatabase) -> None:
        self.db = database

    @contextmanager
    def snapshot(self) -> Iterator[SQLiteArchiveReader]:
        """One read transaction: in WAL mode, the file as of its first read."""
        with self.db.lock:
            began = not self.db.connection.in_transaction
            if began:
                self.db.execute("BEGIN")
            try:
                yield SQLiteArchiveReader(self.db)
            finally:
                if began and self.db.connection.in_transaction:
                    self.db.execute("COMMIT")

    def match(self, table: str, rows: Sequence[ArchiveRow]) -> int:
        """How many of ``rows`` are stored already, identical (the clock never counts)."""
        spec = table_named(table)
        if spec.name == CLOCK or not rows:
            return 0
        with self.db.lock:
            _, matched = partition(spec, rows, self._stored(spec, rows))
        return matched

    def load(self, table: str, rows: Sequence[ArchiveRow]) -> int:
        """Insert the rows not stored yet (and their full-text entries) in one transaction."""
        spec = table_named(table)
        if not rows:
            return 0
        if spec.name == CLOCK:
            return self._raise_clock(rows)
        with self.db.write():
            fresh, _ = partition(spec, rows, self._stored(spec, rows))
            if not fresh:
                return 0
            self.db.wrote()
            marks = ", ".join("?" * len(spec.names))
            self._executemany(
                f"INSERT INTO {spec.name} ({', '.join(spec.names)}) VALUES ({marks})",
                [tuple(row[name] for name in spec.names) for row in fresh],
            )
            if spec.name == "search_docs":
                self._executemany(
                    "INSERT INTO search_fts (rowid, tokens) VALUES (?, ?)",
                    [(row["id"], _fts_tokens(row)) for row in fresh],
                )
        return len(fresh)

    def finish(self) -> None:
        """Nothing to do: SQLite picks the next id after the largest one stored."""

    # -- internals ----------------------------------------------------------------------

    def _stored(self, spec: Table, rows: Sequence[ArchiveRow]) -> dict[Key, ArchiveRow]:
        """The stored rows that have the keys of ``rows``."""
        keys = list(dict.fromkeys(spec.key_of(row) for row in rows))
        width = len(spec.key)
        found: dict[Key, ArchiveRow] = {}
        for start in range(0, len(keys), _LOOKUP_CHUNK):
            part = keys[start : start + _LOOKUP_CHUNK]
            if width == 1:
                where = f"{spec.key[0]} IN ({', '.join('?' * len(part))})"
            else:
                one = "(" + ", ".join("?" * width) + ")"
                where = f"({', '.join(spec.key)}) IN (VALUES {', '.join([one] * len(part))})"
            stored = self.db.fetchall(
                f"SELECT {', '.join(spec.names)} FROM {spec.name} WHERE {where}",
                [value for key in part for value in key],
            )
            for values in stored:
                row: ArchiveRow = dict(zip(spec.names, values, strict=True))
                found[spec.key_of(row)] = row
        return found

    def _raise_clock(self, rows: Sequence[ArchiveRow]) -> int:
        """Raise the transaction clock to the loaded value, never lower it."""
        value = max(int(row["last_tx"] or 0) for row in rows)
        with self.db.write():
            self.db.wrote()
            cursor = self.db.execute(
                "UPDATE tx_clock SET last_tx = ? WHERE id = 1 AND last_tx < ?", (value, value)
            )
            return cursor.rowcount

    def _executemany(self, sql: str, rows: list[tuple[object, ...]]) -> None:
        try:
            self.db.connection.executemany(sql, rows)
        except sqlite3.Error as error:
            raise StorageError(f"SQLite error: {error}") from error


def _fts_tokens(row: ArchiveRow) -> str:
    """What the summary store indexes for a loaded search item."""
    tenant, subject, kind, text = (str(row[name]) for name in ("tenant", "subject", "kind", "text"))
    return fts_tokens(tenant, subject, kind, text)
