"""One PostgreSQL database: a connection pool, write locks and write transactions."""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg.pq import TransactionStatus
from psycopg_pool import ConnectionPool

from memlane.errors import InvalidInput, StorageError
from memlane.storage.base import WriteKey
from memlane.storage.nesting import HeldLock, Nesting
from memlane.storage.postgres import wire
from memlane.storage.postgres.dialect import PostgresDialect
from memlane.storage.postgres.functions import WRITE_LOCK
from memlane.storage.postgres.schema import migrate
from memlane.storage.sql.dialect import Database, Statement

LOCK_TIMEOUT_SECONDS = 30.0
MAX_KEY_LOCKS = 256
"""A write naming more keys than this locks the database instead (the write lock exclusive).

Each key lock is an entry in the server's shared lock table, which holds about
``max_locks_per_transaction`` (64 by default) times ``max_connections`` entries for every
session together: a batch of 20,000 keys failed with "out of shared memory" on a default
server, and three concurrent batches of 5,000 did too."""
CONNECT_TIMEOUT_SECONDS = 10.0
DEFAULT_POOL_SIZE = 8
POOL_SIZE_ENV = "MEMLANE_PG_POOL_SIZE"
NO_CONNECTION = "memlane: the name of no connection"
"""What :meth:`PostgresDatabase.settle` gives ``memlane_settle`` as the connections whose
writes it need not wait for: none (a thread never settles inside its own transaction)."""


class PostgresDatabase(Database):
    """A connection pool shared by the lanes of one ``Memory`` handle.

    Reads borrow any pooled connection, so threads read in parallel; so do write
    transactions, each on its thread's own connection (no lock of the process orders them).
    A write transaction holds one connection and, first thing, its locks (advisory,
    transaction-scoped):

    * a *keyed* write (a fact write naming its ``(tenant, subject, attribute)`` keys) takes
      the database's write lock shared and each key's lock exclusive, so writers of
      different keys run (and commit) at once, and those of one key one after the other;
    * every other write, and one naming over :data:`MAX_KEY_LOCKS` keys (a large
      ``set_many``), takes the write lock exclusive, as ``BEGIN IMMEDIATE`` does on SQLite.

    Transaction times come from a sequence (``memlane_next_tx``): strictly increasing, never
    below the writer's clock. For one key they are issued under its lock, so their order is
    the commit order. Across keys a smaller time may commit later; each write transaction
    therefore marks its first time with a lock that a read as of an earlier-or-equal time
    waits for (:meth:`settle`), so such a read never changes afterwards. The argument is in
    docs/bitemporal.md, "Concurrent writers". Nested transactions join the outer one; if a
    nested block fails after it wrote, the whole outer transaction rolls back, so a failed
    write never leaves a trace.
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
        # Names this process's connections: a read never waits for its own process's writes.
        self.application_name = f"memlane-{os.getpid()}"
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
            kwargs={
                "autocommit": True,
                "connect_timeout": int(CONNECT_TIMEOUT_SECONDS),
                "application_name": self.application_name,
            },
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
        self._tx = _Transaction()  # this thread's write transaction
        self._begun = 0  # outermost write transactions begun, by every thread
        self._counting = threading.Lock()
        self.dialect = PostgresDialect(self)

    @property
    def in_transaction(self) -> bool:
        """True inside :meth:`write`, on the thread that opened it."""
        return self._tx.nesting.depth > 0

    @property
    def transactions(self) -> int:
        """How many outermost write transactions have begun, in any thread of this process."""
        return self._begun

    def _writing(self) -> tuple[HeldLock, Nesting]:
        """This thread's own: threads write at once, each in its transaction on its connection.

        What orders them is PostgreSQL's locks, taken first thing (see :meth:`_begin`),
        as between processes.
        """
        return self._tx.lock, self._tx.nesting

    @contextmanager
    def _transaction(
        self,
        keys: Sequence[WriteKey] | None = None,
        derived: bool = False,
        issue_at: int | None = None,
        opening: Statement | None = None,
    ) -> Iterator[None]:
        try:
            with self.pool.connection() as connection:
                try:
                    self._tx.issue_at, self._tx.opening = issue_at, opening  # read by _begin
                    self._begin(connection, keys, derived)
                    with self._counting:
                        self._begun += 1
                    self._tx.connection = connection
                    yield
                    if not self._tx.committed:  # else its last statement committed it
                        self._sync_sequence(connection)
                        connection.execute("COMMIT")
                except BaseException:
                    if not self._tx.committed:
                        self._rollback(connection)
                        self._give_back(connection)
                    raise
                finally:
                    self._tx.connection = None
                    self._tx.last_tx, self._tx.issued, self._tx.issues = None, None, 0
                    self._tx.issue_at, self._tx.prepaid = None, None
                    self._tx.opening, self._tx.opened, self._tx.committed = None, None, False
        except psycopg.Error as error:
            raise StorageError(f"PostgreSQL error: {error}") from error

    def _opened(self) -> list[Any] | None:
        """The opening query's rows, read with ``BEGIN`` and the locks (see :meth:`_begin`)."""
        rows, self._tx.opened = self._tx.opened, None
        return rows

    def fetchall_last(self, sql: str, parameters: Sequence[Any] | dict[str, Any] = ()) -> list[Any]:
        """The transaction's last statement and its ``COMMIT``, in one round trip.

        Only for an outermost keyed transaction that no failed nested block poisoned (else
        a plain query: the ``COMMIT`` comes when the block ends, or never). An exclusive one
        may have to move the sequence of transaction times before it commits, so it does too.
        Both go as one simple query, the parameters bound on this side
        (:mod:`~memlane.storage.postgres.wire`); if the statement fails, the ``COMMIT`` does
        not run and the transaction is rolled back.
        """
        tx = self._tx
        if tx.nesting.depth != 1 or tx.nesting.poisoned or tx.exclusive:
            return self.fetchall(sql, parameters)
        with self._statement() as connection:
            rows = wire.simple_query(
                connection, f"{wire.bound(connection, sql, parameters)}; COMMIT"
            )
            tx.committed = True
            return rows[0]

    @staticmethod
    def _rollback(connection: Any) -> None:
        """End a failed transaction; a broken connection is left to the pool to discard."""
        status = connection.info.transaction_status
        if status in (TransactionStatus.INTRANS, TransactionStatus.INERROR):
            with contextlib.suppress(psycopg.Error):
                connection.execute("ROLLBACK")

    def _sync_sequence(self, connection: Any) -> None:
        """Times issued here under the exclusive lock: move the sequence past them."""
        if (
            self._tx.last_tx is not None
            and self._tx.issued
            and self._tx.last_tx != self._tx.issued[1]
        ):
            connection.execute(
                "SELECT setval('memlane_tx', greatest(last_value, %s)) FROM memlane_tx",
                (self._tx.last_tx,),
            )

    def _give_back(self, connection: Any) -> None:
        """After a rollback: return the times issued, if nobody was issued any since.

        So a failed write leaves no trace, not even a gap in transaction times (the next
        write takes the clock's time as if the failed one had never been).
        """
        if self._tx.issues != 1 or self._tx.issued is None:
            return
        # If the connection is gone, so be it: a gap in transaction times is harmless.
        with contextlib.suppress(psycopg.Error):
            connection.execute("SELECT memlane_give_back_tx(%s, %s)", self._tx.issued)

    def _join(self, keys: Sequence[WriteKey] | None) -> None:
        """A nested write: lock its keys too, or the whole database if it names none."""
        if self._tx.exclusive:
            return
        with self._statement() as connection:
            if keys is None or _too_many(keys):
                connection.execute("SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK,))
                self._tx.exclusive = True
            else:
                connection.execute(
                    "SELECT memlane_lock_keys(%s, %s)", (_key_locks(keys), self._timeout())
                )

    def next_tx(self, now: int) -> int:
        """A transaction time ``>= now`` above every one issued before, in any process."""
        return self.next_txs(now, 1)

    def next_txs(self, now: int, count: int) -> int:
        """The first of ``count`` consecutive transaction times (see :meth:`next_tx`).

        Under the exclusive lock nobody else issues times, so after the first (which marks
        the transaction) they are counted here and the sequence is moved at commit.
        """
        if not self.in_transaction:
            raise StorageError("transaction times are issued only inside a write transaction")
        prepaid, self._tx.prepaid = self._tx.prepaid, None
        if prepaid is not None and count == 1:
            return prepaid  # issued with the locks (see :meth:`_begin`), for this very call
        if self._tx.exclusive and self._tx.last_tx is not None:
            first = max(now, self._tx.last_tx + 1)
        else:
            row = self.fetchone(
                "SELECT memlane_next_tx(%s, %s, %s)", (now, count, self._tx.last_tx is None)
            )
            first = int(row[0])
            self._tx.issued, self._tx.issues = (first, first + count - 1), self._tx.issues + 1
        self._tx.last_tx = first + count - 1
        return first

    def settle(self, known_at: int) -> None:
        """Wait until no other write can still add versions known at ``known_at``.

        That is, until the write transactions whose first time is ``<= known_at`` have ended,
        those of this process's other threads included (they write at once too). Inside a
        write transaction it does not wait: an exclusive one has no other writer in flight,
        and a keyed one waiting while it holds its keys could deadlock.
        """
        if self.in_transaction:
            return
        self.execute(
            "SELECT memlane_settle(%s, %s, %s)", (known_at, NO_CONNECTION, self._timeout())
        )

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

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> int:
        """Run one statement per row of parameters, in one round of the pipeline.

        Returns the number of rows they touched.
        """
        if not rows:
            return 0
        with self._statement() as connection, connection.cursor() as cursor:
            cursor.executemany(sql, rows)
            return int(cursor.rowcount)

    def copy(self, sql: str, types: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
        """``COPY ... FROM STDIN`` of ``rows`` in binary, columns of the given types.

        The cheapest way in for many rows: no parameter arrays to format and parse.
        """
        with (
            self._statement() as connection,
            connection.cursor() as cursor,
            cursor.copy(sql) as copy,
        ):
            copy.set_types(list(types))
            for row in rows:
                copy.write_row(row)

    def close(self) -> None:
        """Close every pooled connection (rolling back an unfinished transaction)."""
        self.pool.close()

    # -- internals ----------------------------------------------------------------------

    @contextmanager
    def _statement(self) -> Iterator[Any]:
        """The connection a statement runs on: the open transaction's, or a pooled one."""
        try:
            if self.in_transaction:
                yield self._tx.connection
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

    def _timeout(self) -> str:
        return f"{int(self.lock_timeout * 1000)}ms"

    def _begin(self, connection: Any, keys: Sequence[WriteKey] | None, derived: bool) -> None:
        """``BEGIN``, the locks, the first time and the opening query (if asked): one round trip.

        Statements in one simple query, run in order (if one fails, the rest do not run):
        the time is issued after the locks are held, as :meth:`next_txs` would, and the
        opening query reads after both. The lock keys, the clock's time and the timeout are
        integers written into the query; the opening query's parameters are bound on this
        side, and the query sent and read on libpq (:mod:`~memlane.storage.postgres.wire`).
        A ``derived`` transaction commits without waiting for its WAL to reach the disk
        (``synchronous_commit`` off for it alone: after a crash it is there whole or not at
        all, never in part): waiting took 2-9 ms of a recall that keys a subject's notes.
        """
        self._tx.exclusive = keys is None or _too_many(keys)
        issue_at, opening = self._tx.issue_at, self._tx.opening
        if keys is None or self._tx.exclusive:
            locks = (
                f"SELECT set_config('lock_timeout', '{self._timeout()}', true), "
                f"pg_advisory_xact_lock({WRITE_LOCK})"
            )
        else:
            array = ",".join(str(lock) for lock in _key_locks(keys))
            locks = f"SELECT memlane_lock_keys('{{{array}}}'::bigint[], '{self._timeout()}')"
        if derived:
            locks += ", set_config('synchronous_commit', 'off', true)"
        issue = "" if issue_at is None else f"; SELECT memlane_next_tx({int(issue_at)}, 1, true)"
        first = "" if opening is None else f"; {wire.bound(connection, *opening)}"
        try:
            results = wire.simple_query(connection, f"BEGIN; {locks}{issue}{first}")
        except psycopg.errors.LockNotAvailable as error:
            raise self._lock_error(error) from error
        if issue_at is not None:
            first_tx = int(results[2][0][0])  # after BEGIN's and the locks' results
            self._tx.prepaid, self._tx.issues = first_tx, 1
            self._tx.issued = (first_tx, first_tx)
            self._tx.last_tx = first_tx
        if opening is not None:
            self._tx.opened = results[-1]

    def _lock_error(self, error: Exception) -> StorageError:
        return StorageError(
            f"cannot take the write lock on {_redacted(self.url)} within "
            f"{self.lock_timeout:g} s: {error}"
        )


class _Transaction(threading.local):
    """The write transaction of one thread: its connection and what it was issued."""

    def __init__(self) -> None:
        self.lock = HeldLock()  # held by this thread only: nothing to wait for
        self.nesting = Nesting()
        self.connection: Any = None
        self.last_tx: int | None = None  # the latest time this transaction issued
        self.issued: tuple[int, int] | None = None  # the sequence's last issue to it
        self.issues = 0  # how many times the sequence issued to it
        self.issue_at: int | None = None  # the clock's time to issue one with the locks at
        self.prepaid: int | None = None  # issued in the BEGIN round trip, not yet asked for
        self.exclusive = False
        self.opening: Statement | None = None  # the query to run with the locks
        self.opened: list[Any] | None = None  # its rows, not yet taken
        self.committed = False  # by its last statement (fetchall_last)


def _too_many(keys: Sequence[WriteKey]) -> bool:
    """Whether a write naming ``keys`` locks the database instead (:data:`MAX_KEY_LOCKS`)."""
    return len(keys) > MAX_KEY_LOCKS


def _key_locks(keys: Sequence[WriteKey]) -> list[int]:
    """The advisory lock of each key (64 bits of a hash), sorted: the order they are taken in."""
    locks = set()
    for key in keys:
        digest = hashlib.blake2b("\x1f".join(key).encode(), digest_size=8).digest()
        locks.add(int.from_bytes(digest, "big", signed=True))
    return sorted(locks)


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
