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
from memlane.storage.sqlite.doc_changes import DocChanges
from memlane.storage.sqlite.schema import migrate

BUSY_TIMEOUT_SECONDS = 30.0
MMAP_BYTES = 256 * 1024 * 1024
CACHE_KIB = 32 * 1024
VOCABULARY = "CREATE VIRTUAL TABLE temp.search_vocab USING fts5vocab(main, search_fts, 'row')"
"""How many documents hold a term, read from FTS5's index: each connection's own table."""
_PLACEHOLDER = re.compile(r"%(?:\((\w+)\)s|(s)|(%))")


class SQLiteDatabase(Database):
    """A connection shared by the lanes of one ``Memory`` handle, and read connections beside it.

    Writes take the database's write lock up front (``BEGIN IMMEDIATE``), so concurrent
    writers in other processes wait (up to the busy timeout) instead of failing half-way.
    Nested transactions join the outer one; if a nested block fails after it wrote, the
    whole outer transaction is rolled back, so a failed write never leaves a trace.
    Statements are written with psycopg's placeholders and rewritten for SQLite (:func:`native`).

    A query (:func:`reads_only`) from a thread outside a write transaction, not holding
    :attr:`lock`, runs on a read-only connection of the same file (:class:`ReadConnections`):
    in WAL mode it waits for no writer (the indexer's claims and vector writes held the shared
    connection 35-92 ms of a first recall at 10^5 notes), and it sees every transaction
    committed before it began, so a write that returned is read by the next query on any
    thread. Inside a write transaction reads stay on the shared connection (they see its own
    rows), as do a thread's reads while it holds the lock (a snapshot's read transaction, the
    connection's temporary tables). ``:memory:`` has the one connection.
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
            self.connection.execute(VOCABULARY)
        except sqlite3.Error as error:
            raise StorageError(f"cannot open SQLite database {self.path!r}: {error}") from error
        self._last_tx: int | None = None
        self._commits = Commits()
        self._readers: ReadConnections | None = None
        self._watch: ReadConnection | None = None  # asked for data_version (change_stamp)
        if self.path != ":memory:":
            self._readers = ReadConnections(self.path, busy_timeout)
            self._watch = ReadConnection(self.path, busy_timeout)
        self.doc_changes = DocChanges(self)
        """The shared connection's log of changed search docs: one per connection (its
        positions mean something only to the log that gave them)."""
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
        self._commits.committed()

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
            with self.lock.plain:
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
        """Run a statement and return every row: a query on a read connection if it may."""
        if self._readers is not None and reads_only(sql) and not self._on_shared():
            with self._readers.lent() as reader:
                return reader.fetchall(sql, parameters)
        return _rows(self.connection, self.lock.plain, sql, parameters)

    def fetchone(self, sql: str, parameters: Parameters = ()) -> Any:
        """Run a query and return its first row, or ``None`` (every row is read)."""
        rows = self.fetchall(sql, parameters)
        return rows[0] if rows else None

    def change_stamp(self) -> tuple[int, int]:
        """Moves whenever anything was committed (here or in another process) or written here.

        The count of commits seen (:class:`Commits`: ``PRAGMA data_version`` of the connection
        asked, and each commit of this one) and the shared connection's ``total_changes``.
        Outside a write transaction it is asked of a read connection of its own (one, so each
        commit counts once), so it waits for no writer. Take it before the reads a cache
        keeps under it: a commit after it moves it.
        """
        try:
            with self._stamping() as connection:
                version = connection.execute("PRAGMA data_version").fetchone()[0]
                seen = self._commits.seen(connection, version)
            return seen, self.connection.total_changes
        except sqlite3.Error as error:
            raise StorageError(f"SQLite error: {error}") from error

    def stamp_row(self, sql: str) -> Any:
        """The first row of a query a cache's stamp is read from, as :meth:`change_stamp` reads.

        On the connection of its own outside a write transaction: no wait for a writer.
        """
        try:
            with self._stamping() as connection:
                return connection.execute(native(sql)).fetchone()
        except sqlite3.Error as error:
            raise StorageError(f"SQLite error: {error}") from error

    @contextmanager
    def _stamping(self) -> Iterator[sqlite3.Connection]:
        """The connection stamps are read from, held: the shared one where reads run on it."""
        if self._watch is None or self._on_shared():
            with self.lock:
                yield self.connection
        else:
            with self._watch.lock:
                yield self._watch.connection

    def _on_shared(self) -> bool:
        """Whether this thread's reads run on the shared connection.

        Inside its write transaction (they see its own rows), or while it holds :attr:`lock`
        (a read transaction of a snapshot, a temporary table: what the shared connection
        alone holds).
        """
        return self._nesting.open_here or self.lock.held_here

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> int:
        """Run one statement per row of parameters; return the number of rows they touched."""
        try:
            with self.lock.plain:
                return self.connection.executemany(native(sql), rows).rowcount
        except sqlite3.Error as error:
            raise StorageError(f"SQLite error: {error}") from error

    def close(self) -> None:
        """Close the connections (rolling back an unfinished transaction)."""
        self.dialect.close()
        if self._readers is not None and self._watch is not None:
            self._readers.close()
            self._watch.close()
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


_WRITING = re.compile(
    r"\b(?:INSERT|UPDATE|DELETE|REPLACE|UPSERT|CREATE|DROP|ALTER|PRAGMA|BEGIN|COMMIT|ROLLBACK"
    r"|SAVEPOINT|RELEASE|VACUUM|ANALYZE|REINDEX|ATTACH|DETACH)\b",
    re.IGNORECASE,
)


@lru_cache(maxsize=1024)
def reads_only(sql: str) -> bool:
    """Whether a statement is a query that writes nothing, so a read connection may run it.

    It begins ``SELECT``, ``WITH`` or ``VALUES`` and names no keyword of a statement that
    writes (nor ``PRAGMA``): an ``UPDATE ... RETURNING`` claim is fetched like a query. A
    query that merely names such a word stays on the shared connection, slower but right; a
    read connection refuses any write (``query_only``), so none is ever lost there.

    >>> reads_only("SELECT id FROM search_docs WHERE deleted_at IS NULL")
    True
    >>> reads_only("WITH c AS (SELECT 1) UPDATE search_docs SET model = NULL RETURNING id")
    False
    """
    head = sql.lstrip()[:6].upper()
    return head.startswith(("SELECT", "WITH", "VALUES")) and _WRITING.search(sql) is None


@lru_cache(maxsize=512)
def native(sql: str) -> str:
    """A statement in psycopg's placeholders (``%s``, ``%(name)s``, ``%%``) as SQLite's.

    >>> native("SELECT * FROM t WHERE a = %s AND b = %(b)s AND c LIKE 'x%%'")
    "SELECT * FROM t WHERE a = ? AND b = :b AND c LIKE 'x%'"
    """
    return _PLACEHOLDER.sub(lambda m: f":{m[1]}" if m[1] else "?" if m[2] else "%", sql)


class ReadConnection:
    """A read-only connection to a database file: a pool's (:class:`ReadConnections`), the stamps'.

    The building thread of the vector graphs reads whole scopes and their vectors while an
    import writes and searches read: on the shared connection each of its statements took
    the lock every search and write waits for. WAL readers wait for no one, and each statement
    sees what was committed when it began (never a write still open on another connection).
    """

    def __init__(
        self, path: str, busy_timeout: float = BUSY_TIMEOUT_SECONDS, *, vocabulary: bool = False
    ) -> None:
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
            if vocabulary:  # as the shared connection has it (a connection's own table)
                self.connection.execute(VOCABULARY)
            self.connection.execute("PRAGMA query_only = ON")
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


class ReadConnections:
    """Read-only connections to a database file, each lent to one statement at a time.

    A pool, not one per thread: a server's threads come and go (each would leave its
    connection open until :meth:`close`), and the pool holds only as many as ever read at
    once. The last returned is lent first, its page cache warm.
    """

    def __init__(self, path: str, busy_timeout: float = BUSY_TIMEOUT_SECONDS) -> None:
        self.path = path
        self.busy_timeout = busy_timeout
        self._idle: list[ReadConnection] = []
        self._open: list[ReadConnection] = []
        self._lock = threading.Lock()
        self._closed = False

    @contextmanager
    def lent(self) -> Iterator[ReadConnection]:
        """A connection no other statement uses until the block ends (opened if none is idle)."""
        with self._lock:
            if self._closed:
                raise StorageError(f"the SQLite database {self.path!r} is closed")
            reader = self._idle.pop() if self._idle else None
        if reader is None:
            reader = ReadConnection(self.path, self.busy_timeout, vocabulary=True)
            with self._lock:
                self._open.append(reader)
        try:
            yield reader
        finally:
            with self._lock:
                if not self._closed:
                    self._idle.append(reader)
                    reader = None
            if reader is not None:
                reader.close()

    def close(self) -> None:
        """Close every connection (one still lent is closed when it is given back)."""
        with self._lock:
            self._closed = True
            idle, self._idle, self._open = self._idle, [], []
        for reader in idle:
            reader.close()


class Commits:
    """A count that moves whenever a connection of this database saw a commit.

    ``PRAGMA data_version`` moves when another connection commits (in this process or
    another), and means something only within one connection: the shared one's and a read
    connection's differ. Each connection's last version is kept, and any change of one
    counts; the shared connection's own commits count too (its version does not move for
    them). A commit after a count was read moves the count before any later read of it
    returns: each connection's first version read after the commit differs from the one it
    kept before it.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._count = 0
        self._versions: dict[sqlite3.Connection, int] = {}

    def seen(self, connection: sqlite3.Connection, version: int) -> int:
        """The count, once ``connection``'s ``version`` (read just now) is counted."""
        with self._lock:
            if self._versions.get(connection) != version:
                self._versions[connection] = version
                self._count += 1
            return self._count

    def committed(self) -> None:
        """The shared connection committed."""
        with self._lock:
            self._count += 1
