"""One PostgreSQL database: a connection pool, the write lock and write transactions."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool

from memlane.errors import InvalidInput, StorageError
from memlane.storage.postgres.dialect import PostgresDialect
from memlane.storage.postgres.schema import migrate
from memlane.storage.sql.dialect import Database

LOCK_TIMEOUT_SECONDS = 30.0
CONNECT_TIMEOUT_SECONDS = 10.0
DEFAULT_POOL_SIZE = 8
POOL_SIZE_ENV = "MEMLANE_PG_POOL_SIZE"


class PostgresDatabase(Database):
    """A connection pool shared by the lanes of one ``Memory`` handle.

    Reads borrow any pooled connection, so threads read in parallel. A write transaction
    holds one connection and, first thing, the ``tx_clock`` row lock: the database-wide write
    lock, as ``BEGIN IMMEDIATE`` is on SQLite. Writers in every process therefore serialize,
    each plans against what the one before it committed, and transaction times increase in
    commit order. Nested transactions join the outer one; if a nested block fails after it
    wrote, the whole outer transaction rolls back, so a failed write never leaves a trace.
    """

    def __init__(
        self,
        url: str,
        *,
        pool_size: int | None = None,
        lock_timeout: float = LOCK_TIMEOUT_SECONDS,
    ) -> None:
        super().__init__()
        self.url = url
        self.lock_timeout = lock_timeout
        size = pool_size if pool_size is not None else _pool_size_from_env()
        try:
            # One direct connection first: an unreachable server or a bad password fails
            # at once with the server's own words, not after the pool's retries.
            with psycopg.connect(
                url, autocommit=True, connect_timeout=int(CONNECT_TIMEOUT_SECONDS)
            ) as connection:
                migrate(connection)
        except psycopg.Error as error:
            raise StorageError(
                f"cannot open PostgreSQL database {_redacted(url)}: {error}"
            ) from error
        self.pool = ConnectionPool(
            url,
            min_size=1,
            max_size=size,
            kwargs={"autocommit": True, "connect_timeout": int(CONNECT_TIMEOUT_SECONDS)},
            open=False,
            name="memlane",
        )
        try:
            self.pool.open(wait=True, timeout=CONNECT_TIMEOUT_SECONDS)
        except psycopg.Error as error:
            self.pool.close()
            raise StorageError(
                f"cannot open PostgreSQL database {_redacted(url)}: {error}"
            ) from error
        self.lock = threading.RLock()
        self._connection: Any = None
        self._owner: int | None = None
        self._last_tx: int | None = None
        self.dialect = PostgresDialect(self)

    @property
    def in_transaction(self) -> bool:
        """True inside :meth:`write`, on the thread that opened it."""
        return self._nesting.depth > 0 and self._owner == threading.get_ident()

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        try:
            with self.pool.connection() as connection, connection.transaction():
                self._take_write_lock(connection)
                self._connection, self._owner = connection, threading.get_ident()
                try:
                    yield
                    connection.execute(
                        "UPDATE tx_clock SET last_tx = %s WHERE id = 1", (self._last_tx,)
                    )
                finally:
                    self._connection, self._owner, self._last_tx = None, None, None
        except psycopg.Error as error:
            raise StorageError(f"PostgreSQL error: {error}") from error

    def next_tx(self, now: int) -> int:
        """A transaction time ``>= now`` above every one issued before, in any process."""
        if not self.in_transaction or self._last_tx is None:
            raise StorageError("transaction times are issued only inside a write transaction")
        self._last_tx = max(now, self._last_tx + 1)
        return self._last_tx

    # -- statements ---------------------------------------------------------------------

    def fetchall(self, sql: str, parameters: Sequence[Any] | dict[str, Any] = ()) -> list[Any]:
        """Run a query and return every row (as tuples)."""
        with self._statement() as connection:
            return list(connection.execute(sql, parameters).fetchall())

    def fetchone(self, sql: str, parameters: Sequence[Any] | dict[str, Any] = ()) -> Any:
        """Run a query and return its first row, or ``None``."""
        with self._statement() as connection:
            return connection.execute(sql, parameters).fetchone()

    def execute(self, sql: str, parameters: Sequence[Any] | dict[str, Any] = ()) -> int:
        """Run one statement; return the number of rows it touched."""
        with self._statement() as connection:
            return int(connection.execute(sql, parameters).rowcount)

    def insert(self, sql: str, parameters: Sequence[Any] | dict[str, Any] = ()) -> int:
        """Run one ``INSERT``; the new row's id comes back through ``RETURNING``."""
        return int(self.fetchone(f"{sql} RETURNING id", parameters)[0])

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        """Run one statement per row of parameters, in one round of the pipeline."""
        if not rows:
            return
        with self._statement() as connection, connection.cursor() as cursor:
            cursor.executemany(sql, rows)

    def close(self) -> None:
        """Close every pooled connection (rolling back an unfinished transaction)."""
        self.pool.close()

    # -- internals ----------------------------------------------------------------------

    @contextmanager
    def _statement(self) -> Iterator[Any]:
        """The connection a statement runs on: the open transaction's, or a pooled one."""
        try:
            if self.in_transaction:
                yield self._connection
            else:
                with self.pool.connection() as connection:
                    yield connection
        except psycopg.errors.ExclusionViolation as error:
            raise StorageError(
                "the write would make two believed versions overlap in valid time "
                f"(invariant 1): {error}"
            ) from error
        except psycopg.Error as error:
            raise StorageError(f"PostgreSQL error: {error}") from error

    def _take_write_lock(self, connection: Any) -> None:
        connection.execute(f"SET LOCAL lock_timeout = '{int(self.lock_timeout * 1000)}ms'")
        try:
            row = connection.execute(
                "SELECT last_tx FROM tx_clock WHERE id = 1 FOR UPDATE"
            ).fetchone()
        except psycopg.errors.LockNotAvailable as error:
            raise StorageError(
                f"cannot take the write lock on {_redacted(self.url)} within "
                f"{self.lock_timeout:g} s: {error}"
            ) from error
        self._last_tx = int(row[0])


def _pool_size_from_env() -> int:
    raw = os.environ.get(POOL_SIZE_ENV, "")
    if not raw:
        return DEFAULT_POOL_SIZE
    try:
        size = int(raw)
    except ValueError:
        size = 0
    if size < 1:
        raise InvalidInput(POOL_SIZE_ENV, f"must be a positive integer, got {raw!r}")
    return size


def _redacted(url: str) -> str:
    """The URL without its password, for error messages."""
    if "://" not in url or "@" not in url:
        return url
    scheme, rest = url.split("://", 1)
    credentials, host = rest.rsplit("@", 1)
    user = credentials.split(":", 1)[0]
    return f"{scheme}://{user}@{host}"
