"""One SQLite file (or ``:memory:``): the connection, its lock and its write transactions."""

from __future__ import annotations

import re
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any

from memlane.errors import StorageError
from memlane.storage.base import WriteKey
from memlane.storage.sql.dialect import Database, Parameters, Statement
from memlane.storage.sqlite.dialect import SQLiteDialect
from memlane.storage.sqlite.schema import migrate

BUSY_TIMEOUT_SECONDS = 30.0
MMAP_BYTES = 256 * 1024 * 1024
CACHE_KIB = 32 * 1024
_PLACEHOLDER = re.compile(r"%(?:\((\w+)\)s|(s)|(%))")


class SQLiteDatabase(Database):
    """A connection shared by the lanes of one ``Memory`` handle.

    Writes take the database's write lock up front (``BEGIN IMMEDIATE``), so concurrent
    writers in other processes wait (up to the busy timeout) instead of failing half-way.
    Nested transactions join the outer one; if a nested block fails after it wrote, the
    whole outer transaction is rolled back, so a failed write never leaves a trace.
    Statements are written with psycopg's placeholders and rewritten for SQLite (:func:`native`).
    """

    def __init__(self, path: str | Path, *, busy_timeout: float = BUSY_TIMEOUT_SECONDS) -> None:
        super().__init__()
        self.path = str(path)
        self.busy_timeout = busy_timeout
        try:
            self.connection = sqlite3.connect(
                self.path, isolation_level=None, check_same_thread=False, timeout=busy_timeout
            )
            self.connection.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
            if self.path != ":memory:":
                self.connection.execute("PRAGMA journal_mode = WAL")
            # In WAL mode NORMAL loses no committed transaction when a process dies; only an
            # OS crash or power loss can lose the last few.
            self.connection.execute("PRAGMA synchronous = NORMAL")
            # Point reads on a large file: map it instead of copying pages through read().
            self.connection.execute(f"PRAGMA mmap_size = {MMAP_BYTES}")
            self.connection.execute(f"PRAGMA cache_size = -{CACHE_KIB}")
            migrate(self.connection)
            # How many documents hold a term, read from FTS5's index (no storage of its own).
            self.connection.execute(
                "CREATE VIRTUAL TABLE temp.search_vocab USING fts5vocab(main, search_fts, 'row')"
            )
        except sqlite3.Error as error:
            raise StorageError(f"cannot open SQLite database {self.path!r}: {error}") from error
        self._last_tx: int | None = None
        self.dialect: SQLiteDialect = SQLiteDialect(self)

    @property
    def in_transaction(self) -> bool:
        """True inside :meth:`write`, on the thread that opened it.

        Another thread's open write is not this thread's: a search that took it for its own
        scanned a scope of 10^6 vectors exactly (19 s) instead of using its graph.
        """
        return self._nesting.open_here

    @contextmanager
    def _transaction(
        self,
        keys: Sequence[WriteKey] | None = None,
        derived: bool = False,
        issue_at: int | None = None,
        opening: Statement | None = None,
    ) -> Iterator[None]:
        # ``derived`` changes nothing: in WAL mode at synchronous NORMAL no commit waits
        # for the disk; nor do ``issue_at`` and ``opening``: no statement is a round trip
        # here (``write`` runs the opening query itself).
        self._begin()
        try:
            yield
            self._save_clock()
            self.execute("COMMIT")
        except BaseException:
            self._rollback()
            raise

    def next_tx(self, now: int) -> int:
        """A transaction time ``>= now`` above every one issued before, in any process.

        Valid only inside :meth:`write`, whose lock makes the read-increment-store atomic.
        """
        if self._last_tx is None:
            self._last_tx = self.fetchone("SELECT last_tx FROM tx_clock")[0]
        assert self._last_tx is not None
        self._last_tx = max(now, self._last_tx + 1)
        return self._last_tx

    def _save_clock(self) -> None:
        if self._last_tx is not None:
            self.execute("UPDATE tx_clock SET last_tx = %s", (self._last_tx,))
            # Another process may write next: read the clock afresh in the next transaction.
            self._last_tx = None

    def cursor(self, sql: str, parameters: Parameters = ()) -> sqlite3.Cursor:
        """Run one statement and return its cursor; driver errors become StorageError."""
        try:
            with self.lock:
                return self.connection.execute(native(sql), parameters)
        except sqlite3.Error as error:
            raise StorageError(f"SQLite error: {error}") from error

    def execute(self, sql: str, parameters: Parameters = ()) -> int:
        """Run one statement; return the number of rows it touched."""
        return self.cursor(sql, parameters).rowcount

    def insert(self, sql: str, parameters: Parameters = ()) -> int:
        """Run one ``INSERT``; the new row's id is its ``rowid`` (no RETURNING to step)."""
        row_id = self.cursor(sql, parameters).lastrowid
        assert row_id is not None
        return row_id

    def fetchall(self, sql: str, parameters: Parameters = ()) -> list[Any]:
        """Run a query and return every row."""
        return _rows(self.connection, self.lock, sql, parameters)

    def fetchone(self, sql: str, parameters: Parameters = ()) -> Any:
        """Run a query and return its first row, or ``None`` (every row is read)."""
        rows = self.fetchall(sql, parameters)
        return rows[0] if rows else None

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> int:
        """Run one statement per row of parameters; return the number of rows they touched."""
        try:
            with self.lock:
                return self.connection.executemany(native(sql), rows).rowcount
        except sqlite3.Error as error:
            raise StorageError(f"SQLite error: {error}") from error

    def reader(self) -> SQLiteDatabase | ReadConnection:
        """A connection of its own for a background thread's reads (this one for ``:memory:``)."""
        if self.path == ":memory:":
            return self
        return ReadConnection(self.path, self.busy_timeout)

    def close(self) -> None:
        """Close the connection (rolling back an unfinished transaction)."""
        self.dialect.close()
        with self.lock:
            self.connection.close()

    def _begin(self) -> None:
        try:
            self.connection.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as error:
            raise StorageError(f"cannot take the write lock on {self.path!r}: {error}") from error

    def _rollback(self) -> None:
        if self.connection.in_transaction:
            self.connection.execute("ROLLBACK")
        self._last_tx = None


def _rows(connection: sqlite3.Connection, lock: Any, sql: str, parameters: Parameters) -> list[Any]:
    """Every row of a query on ``connection``, under its ``lock``; errors as StorageError."""
    try:
        with lock:
            return connection.execute(native(sql), parameters).fetchall()
    except sqlite3.Error as error:
        raise StorageError(f"SQLite error: {error}") from error


@lru_cache(maxsize=512)
def native(sql: str) -> str:
    """A statement in psycopg's placeholders (``%s``, ``%(name)s``, ``%%``) as SQLite's.

    >>> native("SELECT * FROM t WHERE a = %s AND b = %(b)s AND c LIKE 'x%%'")
    "SELECT * FROM t WHERE a = ? AND b = :b AND c LIKE 'x%'"
    """
    return _PLACEHOLDER.sub(lambda m: f":{m[1]}" if m[1] else "?" if m[2] else "%", sql)


class ReadConnection:
    """A read-only connection to a database file, for a background thread's many reads.

    The building thread of the vector graphs reads whole scopes and their vectors while an
    import writes and searches read: on the shared connection each of its statements took
    the lock every search and write waits for. WAL readers wait for no one, and each statement
    sees what was committed when it began (never a write still open on another connection).
    """

    def __init__(self, path: str, busy_timeout: float = BUSY_TIMEOUT_SECONDS) -> None:
        self.lock = threading.Lock()
        try:
            self.connection = sqlite3.connect(
                Path(path).absolute().as_uri() + "?mode=ro",
                uri=True,
                isolation_level=None,
                check_same_thread=False,
                timeout=busy_timeout,
            )
            self.connection.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
            self.connection.execute(f"PRAGMA mmap_size = {MMAP_BYTES}")
            self.connection.execute(f"PRAGMA cache_size = -{CACHE_KIB}")
        except sqlite3.Error as error:
            raise StorageError(f"cannot open SQLite database {path!r} to read: {error}") from error

    def fetchall(self, sql: str, parameters: Parameters = ()) -> list[Any]:
        """Run a query and return every row."""
        return _rows(self.connection, self.lock, sql, parameters)

    def fetchone(self, sql: str, parameters: Parameters = ()) -> Any:
        """Run a query and return its first row, or ``None``."""
        rows = self.fetchall(sql, parameters)
        return rows[0] if rows else None

    def close(self) -> None:
        """Close the connection."""
        with self.lock:
            self.connection.close()
