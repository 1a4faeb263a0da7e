"""One SQLite file (or ``:memory:``): the connection, its lock and its write transactions."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from memlane.errors import StorageError
from memlane.storage.nesting import Nesting
from memlane.storage.sqlite.schema import migrate

BUSY_TIMEOUT_SECONDS = 30.0
MMAP_BYTES = 256 * 1024 * 1024
CACHE_KIB = 32 * 1024


class SQLiteDatabase:
    """A connection shared by the lanes of one ``Memory`` handle.

    Writes take the database's write lock up front (``BEGIN IMMEDIATE``), so concurrent
    writers in other processes wait (up to the busy timeout) instead of failing half-way.
    Nested transactions join the outer one; if a nested block fails after it wrote, the
    whole outer transaction is rolled back, so a failed write never leaves a trace.
    """

    def __init__(self, path: str | Path, *, busy_timeout: float = BUSY_TIMEOUT_SECONDS) -> None:
        self.path = str(path)
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
        except sqlite3.Error as error:
            raise StorageError(f"cannot open SQLite database {self.path!r}: {error}") from error
        self.lock = threading.RLock()
        self._nesting = Nesting()
        self._before_commit: list[Callable[[], None]] = [self._save_clock]
        self._after_rollback: list[Callable[[], None]] = [self._forget_clock]
        self._last_tx: int | None = None

    @property
    def in_transaction(self) -> bool:
        """True inside :meth:`write`."""
        return self._nesting.depth > 0

    def on_commit(self, before: Callable[[], None], rollback: Callable[[], None]) -> None:
        """Run ``before`` just before the outermost COMMIT, ``rollback`` after a ROLLBACK."""
        self._before_commit.append(before)
        self._after_rollback.append(rollback)

    @contextmanager
    def write(self) -> Iterator[None]:
        """A write transaction; nested calls join the outermost one."""
        with self.lock:
            if self._nesting.depth:
                with self._nesting.nested():
                    yield
                return
            self._begin()
            try:
                with self._nesting.outermost():
                    yield
                for hook in self._before_commit:
                    hook()
                self.execute("COMMIT")
            except BaseException:
                self._rollback()
                raise

    def next_tx(self, now: int) -> int:
        """A transaction time ``>= now`` above every one issued before, in any process.

        Valid only inside :meth:`write`, whose lock makes the read-increment-store atomic.
        """
        if self._last_tx is None:
            self._last_tx = self.execute("SELECT last_tx FROM tx_clock").fetchone()[0]
        assert self._last_tx is not None
        self._last_tx = max(now, self._last_tx + 1)
        return self._last_tx

    def _save_clock(self) -> None:
        if self._last_tx is not None:
            self.execute("UPDATE tx_clock SET last_tx = ?", (self._last_tx,))
            # Another process may write next: read the clock afresh in the next transaction.
            self._last_tx = None

    def _forget_clock(self) -> None:
        self._last_tx = None

    def execute(self, sql: str, parameters: Any = ()) -> sqlite3.Cursor:
        """Run one statement, mapping driver errors to :class:`StorageError`."""
        try:
            with self.lock:
                return self.connection.execute(sql, parameters)
        except sqlite3.Error as error:
            raise StorageError(f"SQLite error: {error}") from error

    def fetchall(self, sql: str, parameters: Any = ()) -> list[Any]:
        """Run a query and return every row."""
        with self.lock:
            return self.execute(sql, parameters).fetchall()

    def wrote(self) -> None:
        """Record that the current transaction has written (see the nested rule above)."""
        self._nesting.wrote()

    def close(self) -> None:
        """Close the connection (rolling back an unfinished transaction)."""
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
        for hook in self._after_rollback:
            hook()
