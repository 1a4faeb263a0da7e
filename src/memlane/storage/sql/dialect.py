"""The seam between the shared SQL stores and one database: what SQLite and PostgreSQL do apart.

Every store in :mod:`memlane.storage.sql` writes its SQL once, in psycopg's placeholder style
(``%s``, ``%(name)s``, ``%%`` for a literal percent sign); the SQLite database rewrites a
statement to ``?`` and ``:name`` before running it. Everything else that differs (byte-order
collation, id lists, the write lock, search, purge, archive I/O) is a :class:`Dialect`'s job,
so a query is fixed in one place and nothing above the stores learns which database it is.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from functools import partial
from typing import Any, NamedTuple, Protocol, Self, TypeVar

import numpy as np
import numpy.typing as npt

from memlane.storage.archiving import ArchiveReader, ArchiveRow
from memlane.storage.base import Coverage, DocKind, KeysMoved, WriteKey
from memlane.storage.nesting import HeldLock, Nesting

Parameters = Sequence[Any] | dict[str, Any]
Statement = tuple[str, Parameters]
"""A query and its parameters."""
KeyRange = tuple[str, str, int, int]
"""``(subject, attribute, lo, hi)``: one key's versions touching ``[lo, hi]``."""
Vector = npt.NDArray[np.float32]
T = TypeVar("T")


NOTE_KEY_COLUMNS = "tenant, subject, kind, key, note_id, said_at, tx_from"
"""The columns of a ``note_keys`` row, in the order :meth:`Dialect.insert_note_keys` takes."""


class DocScope(NamedTuple):
    """Which search docs a ranking may return: a tenant's (one subject's, if given) of a kind."""

    tenant: str
    subject: str | None
    kind: DocKind


class BytesCheck(NamedTuple):
    """What a compaction proved: whether the purged values left the files, and if not, why.

    ``verified`` reads as :attr:`memlane.privacy.model.PurgeReport.bytes_verified`;
    ``complete``: the files were wholly rewritten, no page of them predates the purge
    (False while a reader holds an old snapshot).
    """

    verified: bool | None
    held: tuple[str, ...] = ()
    complete: bool = True


class Database(ABC):
    """Statements and write transactions on one database, with the dialect that speaks it.

    Nested write transactions join the outermost one, all or nothing (:class:`Nesting`); a
    database supplies :meth:`_transaction`, which opens the outermost one with the write lock
    held and commits it when its block ends (rolls back if the block raises).
    """

    dialect: Dialect
    """What this database does its own way."""

    def __init__(self) -> None:
        self.lock = HeldLock()
        self._nesting = Nesting()
        self.keys_watchers: list[Callable[[KeysMoved], None]] = []
        """Called after each commit that moved a subject's note stamp, with what moved it
        (:func:`memlane.storage.sql.note_keys.moved_keys`), in the committing thread."""

    @property
    def transactions(self) -> int:
        """How many outermost write transactions have begun (per-transaction caches key on it)."""
        return self._nesting.transactions

    def _writing(self) -> tuple[HeldLock, Nesting]:
        """The lock a write transaction holds and the nesting it joins, for this thread.

        Here one of each for every thread: write transactions take turns.
        """
        return self.lock, self._nesting

    @contextmanager
    def write(
        self,
        keys: Sequence[WriteKey] | None = None,
        *,
        derived: bool = False,
        issue_at: int | None = None,
        opening: Statement | None = None,
    ) -> Iterator[list[Any] | None]:
        """A write transaction holding the write lock; nested calls join the outermost one.

        ``keys``: the transaction writes facts of these keys only, so a database that can
        lock less than all of itself (PostgreSQL) locks just them (see :meth:`_join`).
        ``derived``: it writes only what can be derived again from what is stored (and
        is derived again when missing), so its commit need not wait for the disk: a crash
        loses it whole or not at all. ``issue_at``: the clock's time of a write that takes one
        transaction time, which a database may issue with the locks (saving a round trip).
        Both heeded when it opens the outermost transaction. ``opening``: a query run first
        in the block, once the locks are held; the block gets its rows (``None`` without
        one). A database may send it with ``BEGIN`` and the locks, in one round trip.
        """
        lock, nesting = self._writing()
        with nesting.write(lock, partial(self._transaction, keys, derived, issue_at, opening)):
            if nesting.depth > 1:
                self._join(keys)
            rows = self._opened()
            if rows is None and opening is not None:
                rows = self.fetchall(*opening)
            yield rows

    def _opened(self) -> list[Any] | None:
        """The rows of the opening query, if :meth:`_transaction` read them (once)."""
        return None

    def fetchall_last(self, sql: str, parameters: Parameters = ()) -> list[Any]:
        """Run the last statement of a write transaction and return its rows.

        Nothing may be written after it: a database may commit in the same round trip
        when the transaction is not nested in another (PostgreSQL). Here, a plain query.
        """
        return self.fetchall(sql, parameters)

    def _join(self, keys: Sequence[WriteKey] | None) -> None:  # noqa: B027 (a hook)
        """A nested write joins the open transaction: lock what it needs beyond it (nothing)."""

    def next_txs(self, now: int, count: int) -> int:
        """The first of ``count`` consecutive transaction times, as :meth:`next_tx` issues them.

        The first is issued, then one at least the last (:meth:`next_tx` gives a time ``>=``
        the one asked for): it never issues a time at or below one it issued, so those from
        the first up to that one belong to this write alone. Two calls for a batch, not one
        per version.
        """
        first = self.next_tx(now)
        if count > 1:
            self.next_tx(first + count - 1)
        return first

    def settle(self, known_at: int) -> None:  # noqa: B027 (a hook)
        """Before a read as of ``known_at``: wait for writes that could still add to it.

        Nothing to wait for where one write lock orders every write (SQLite).
        """

    def wrote(self) -> None:
        """Record that the current transaction has written (a nested failure then poisons it)."""
        self._writing()[1].wrote()

    def of_transaction(self, key: Hashable, make: Callable[[], T]) -> T:
        """What ``make()`` gave for ``key`` in this thread's write transaction (its first ask).

        Outside one: a new one each time. What a transaction needs done once per key
        (whatever it writes after: one statement per batch, not per row), and what it
        gathers as it goes for :meth:`after_commit`, is kept so.
        """
        return self._writing()[1].of_transaction(key, make)

    def after_commit(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` when this thread's write transaction has committed (now if none).

        It runs after the write lock is released, and not at all if the transaction rolls back.
        """
        self._writing()[1].after_commit(callback)

    @property
    @abstractmethod
    def in_transaction(self) -> bool:
        """True inside :meth:`write` (on the thread that opened it)."""

    @abstractmethod
    def _transaction(
        self,
        keys: Sequence[WriteKey] | None = None,
        derived: bool = False,
        issue_at: int | None = None,
        opening: Statement | None = None,
    ) -> AbstractContextManager[None]:
        """Open the outermost transaction, its locks taken (all of them if ``keys`` is None).

        A database that runs ``opening`` with the locks hands its rows to :meth:`_opened`.
        """

    @abstractmethod
    def next_tx(self, now: int) -> int:
        """A transaction time ``>= now`` above every one issued before, in any process."""

    @abstractmethod
    def fetchall(self, sql: str, parameters: Parameters = ()) -> list[Any]:
        """Run a query and return every row."""

    @abstractmethod
    def fetchone(self, sql: str, parameters: Parameters = ()) -> Any:
        """Run a query and return its first row, or ``None``."""

    @abstractmethod
    def execute(self, sql: str, parameters: Parameters = ()) -> int:
        """Run one statement; return the number of rows it touched."""

    @abstractmethod
    def insert(self, sql: str, parameters: Parameters = ()) -> int:
        """Run one ``INSERT`` of one row; return the ``id`` the database gave it."""

    @abstractmethod
    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> int:
        """Run one statement per row of parameters; return the number of rows they touched."""

    @abstractmethod
    def close(self) -> None:
        """Release every connection; the handle is unusable afterwards."""


class Dialect(Protocol):
    """What one database does differently, for the stores of :mod:`memlane.storage.sql`."""

    fact_slot: str
    """SQL computing ``facts.slot`` of an insert from ``(value key, tenant, attribute)``
    (PostgreSQL's exclusion constraint), or ``''``."""

    apply_function: str
    """A server-side function that supersedes and inserts one write's versions in one round
    trip (the arguments of ``memlane_apply``, returning the changed rows), or ``''``."""

    write_view_function: str
    """A server-side function returning what a single write plans from, planned once per
    connection (the arguments and rows of ``memlane_write_view``), or ``''``: the query."""

    turn_order: str
    """The column that orders turns said at the same instant in insertion order."""

    kinds_per_read: int
    """Most slot kinds one statement of ``recent_keyed`` reads, one part of a ``UNION ALL``
    each (padded to a power of two): a round trip per statement on a server, a compile per
    connection and a seek per part, padding included, on SQLite."""

    put_turn: str
    """``INSERT`` of a turn (``id, tenant, subject, session_id, role, speaker, content,
    said_at``) that replaces a turn stored under the same id, moving it behind the others."""

    doc_tokens: str
    """SQL computing ``search_docs.tokens`` from one more parameter (PostgreSQL), or ``''``."""

    skip_locked: str
    """What makes a claim's ``SELECT`` pass over rows another claim is locking, or ``''``
    (SQLite: one writer at a time already)."""

    def embedded_by_others(self, where: str, models: str) -> str:
        """A claim's condition: the doc of scope ``where`` has a vector from another model.

        ``models``: the wider scope whose models are looked for (the claim's tenant, or any).

        Named parameters ``model`` (the claiming model), ``now`` and ``limit`` of the claim.
        """
        ...

    key_rows_per_write: int | None
    """Most ``note_keys`` rows a note writes with it, or ``None`` (no limit): more wait for
    :meth:`memlane.storage.base.SummaryStore.add_note_keys`, a part per write, where every
    read waits for a write's lock (SQLite: one connection)."""

    vector_read: str
    """``search_docs.vector`` as a ``SELECT`` reads it for :func:`memlane.storage.vectors.
    as_vector`: float32 bytes (SQLite) or an array of reals (PostgreSQL)."""

    def bytewise(self, column: str) -> str:
        """``column`` compared byte by byte, for ``ORDER BY`` and ``DISTINCT``."""
        ...

    def ascii_lower(self, column: str) -> str:
        """``column`` with the ASCII letters A-Z lower-cased and every other character kept."""
        ...

    def any_of(self, column: str) -> str:
        """A condition: ``column`` is one of the ids bound (by :meth:`ids`) to one placeholder."""
        ...

    def filter_only(self, column: str) -> str:
        """``column`` in a condition that filters the rows another index found, never leads.

        For lookups by id or owner within a tenant: SQLite, without statistics, would read the
        tenant's whole index range for ``tenant = ?`` (10^5 rows) rather than look up the few
        ids.
        """
        ...

    def ids(self, ids: Sequence[int] | Sequence[str]) -> Any:
        """The one parameter :meth:`any_of` binds."""
        ...

    def array(self, values: Sequence[str | int | float | None]) -> Any:
        """One array argument of :attr:`apply_function` (bound to ``%s::type[]``)."""
        ...

    def key_ranges(self, ranges: Sequence[KeyRange]) -> tuple[str, tuple[Any, ...]]:
        """A ``FROM`` item ``k(subject, attribute, lo, hi)`` of these rows, and its parameters."""
        ...

    def new_ids(self, table: str, count: int) -> list[int]:
        """``count`` new ids for rows of ``table`` (inside the write transaction)."""
        ...

    def close_versions(self, closes: Sequence[tuple[int, int]]) -> int:
        """Set ``tx_to`` of each believed ``(id, tx)``; return how many were believed."""
        ...

    def insert_versions(self, tenant: str, rows: Sequence[Sequence[Any]]) -> None:
        """Insert fact versions of ``tenant``, given as rows of columns.

        Each row: ``id, tx_to, tenant, subject, attribute, value, value_key, valid_from,
        valid_to, tx_from, source, reason, confidence, provenance, stated_tx``; an ``id`` of
        ``None`` (in every row or none) leaves the numbering to the database.
        """
        ...

    def insert_note_keys(self, rows: Sequence[Sequence[Any]]) -> None:
        """Insert ``note_keys`` rows: ``tenant, subject, kind, key, note_id, said_at, tx_from``."""
        ...

    def index_hint(self, index: str) -> str:
        """A hint after ``FROM table`` that a query should use ``index`` (or ``''``)."""
        ...

    def row_key(self, table: str) -> str:
        """The column that names one row of ``table`` on its own."""
        ...

    # -- search -------------------------------------------------------------------------

    def add_doc(self, doc_id: int, tenant: str, subject: str, kind: DocKind, text: str) -> None:
        """Index a new search doc's text in a separate index (its row is inserted already)."""
        ...

    def drop_docs(self, doc_ids: Sequence[int]) -> None:
        """Remove deleted docs' index entries (their rows are deleted already)."""
        ...

    def put_vectors(self, model: str, vectors: Sequence[tuple[int, bytes]]) -> None:
        """Store float32 vectors of undeleted docs and end their claims (caller's transaction)."""
        ...

    def vectors_need_no_lock(self, widths: set[int]) -> bool:
        """Whether vectors of these widths (float32 counts) can be stored under no key's lock.

        A dialect that builds something for a new width first says False: that transaction
        then takes the write lock exclusive from its start.
        """
        ...

    def vector_state(self, scope: DocScope, model: str) -> tuple[int, int, int]:
        """``(docs in scope, docs embedded by model, highest doc id)`` of undeleted docs."""
        ...

    def coverage(self, scope: DocScope, model: str) -> Coverage:
        """Whether some undeleted docs in scope have a vector from ``model``, and some none."""
        ...

    def nearest(self, scope: DocScope, model: str, vector: Vector, limit: int) -> list[int]:
        """Owner ids of the undeleted docs in scope, largest inner product first (ties by id)."""
        ...

    def lexical(self, scope: DocScope, terms: Sequence[str], limit: int) -> list[int]:
        """Owner ids of the undeleted docs in scope matching any of ``terms``, best BM25 first."""
        ...

    # -- purge --------------------------------------------------------------------------

    def purge_index(self, tenant: str, subject: str) -> dict[str, int]:
        """Remove a subject's deleted docs from a separate search index; rows per index table."""
        ...

    def compact(self, tables: Sequence[str], needles: Sequence[bytes]) -> BytesCheck:
        """After a purge's commit: make the purged rows' bytes leave the database files.

        ``needles`` are every written form of the purged values; a dialect that can read its
        files scans them for each and reports what it found (and what holds it there).
        """
        ...

    # -- archive ------------------------------------------------------------------------

    def snapshot(self) -> AbstractContextManager[ArchiveReader]:
        """A read-only view of every table as of one instant."""
        ...

    def stored_rows(self, table: str, keys: Sequence[tuple[Any, ...]]) -> Iterator[ArchiveRow]:
        """The stored rows of ``table`` with these primary keys, as an archive moves them."""
        ...

    def insert_rows(self, table: str, rows: Sequence[ArchiveRow]) -> None:
        """Insert archive rows (and what is derived from them) in the current transaction."""
        ...

    def finish_load(self) -> None:
        """After a load: make new writes follow the loaded data (ids, indexes)."""
        ...


class SQLStore:
    """What every store shares: its database and dialect, write transactions, the clock."""

    def __init__(self, database: Database) -> None:
        self.db = database
        self.dialect = database.dialect

    @contextmanager
    def transaction(
        self, keys: Sequence[WriteKey] | None = None, *, issue_at: int | None = None
    ) -> Iterator[Self]:
        """A write transaction holding the write lock; nested calls join the outer one.

        ``keys``: a fact write that touches only these keys; ``issue_at``: its one
        transaction time may be issued with the locks (see :meth:`Database.write`).
        """
        with self.db.write(keys, issue_at=issue_at):
            yield self

    def next_tx(self, now: int) -> int:
        """A transaction time above every one issued before (shared by every lane)."""
        return self.db.next_tx(now)

    def next_txs(self, now: int, count: int) -> int:
        """The first of ``count`` consecutive transaction times (see :meth:`next_tx`)."""
        return self.db.next_txs(now, count)

    @property
    def in_transaction(self) -> bool:
        """True inside :meth:`transaction`."""
        return self.db.in_transaction
