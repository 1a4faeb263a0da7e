"""The exact search of scopes without a graph: each scope's vectors as one matrix, kept in step.

A scope below :data:`.ann.THRESHOLD` vectors (or one whose graph is not built yet) is searched
by multiplying its matrix with the query. The matrix is read whole the first time the scope is
searched, then kept in step with the database from this connection's log of changed docs
(:mod:`.doc_changes`): a search after a write reads only the docs the write touched. An agent
writes a note and recalls at every turn, and each such recall read the subject's matrix whole
again (about 5 ms of a 15 ms recall at 1,000 notes).

The log is read only while no write transaction is open (holding the database's lock, waited
for at most :data:`LOCK_WAIT_SECONDS`), so every change it lists was committed, and a read
after it sees them all. When the log cannot tell (another connection committed, the log was
emptied, a writer held the lock, or more than :data:`PATCH_MOST` docs changed), the scope's
vector state (count, embedded count, highest id), read before a matrix is read whole then,
decides whether that matrix still holds. A matrix the log follows from the moment it was
read (a scope's first search, usually) or a patched one has no such state (counting a scope
of 10^4 docs cost 1.2 ms of a first recall's 20; and what another process committed meanwhile
may be in the state and not in the docs a patch read), so it is read whole again when the
log cannot tell.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from memlane.storage import vectors
from memlane.storage.sqlite.doc_changes import DocChanges, Position
from memlane.storage.sqlite.graph_rows import Ids, ScopeKey, contains, docs_of

if TYPE_CHECKING:
    from memlane.storage.sqlite.database import SQLiteDatabase

Matrix = npt.NDArray[np.float32]
State = tuple[int, int, int]
"""A scope's ``(docs, docs embedded by its model, highest doc id)``."""

KEPT_SCOPES = 64
"""How many scopes' matrices a database keeps in memory (the least recently searched go)."""
PATCH_MOST = 2_000
"""Most changed docs read to patch a kept matrix; past it the scope is read whole."""
LOCK_WAIT_SECONDS = 0.005
"""How long a search waits for the database's lock to read the log: a vector write of the
background indexer holds it about a millisecond, an import's transaction for seconds."""


@dataclass(frozen=True, slots=True)
class ScanMatrix:
    """One scope's embedded docs, by id: their owners and vectors, as of ``position``.

    ``position``: where the connection's log stood before the rows were read (``None``: not
    known). ``state``: the scope's, read before the rows of a matrix read whole (``None``: a
    patched matrix; see the module).
    """

    position: Position | None
    state: State | None
    ids: Ids
    owners: list[int]
    matrix: Matrix


class ScanMatrices:
    """The kept matrices of one database's scopes (thread-safe; entries are never changed).

    Args:
        database: the database whose ``search_docs`` are searched.
        changes: the shared connection's log of changed docs.
        state_of: a scope's :data:`State` (read once the database changed).
    """

    def __init__(
        self,
        database: SQLiteDatabase,
        changes: DocChanges,
        state_of: Callable[[ScopeKey], State],
    ) -> None:
        self.db = database
        self.changes = changes
        self.state_of = state_of
        self._kept: OrderedDict[ScopeKey, ScanMatrix] = OrderedDict()
        self._lock = threading.Lock()

    def matrix(self, key: ScopeKey) -> ScanMatrix:
        """The scope's matrix as the database holds it now: kept, patched, or read whole."""
        with self._lock:
            kept = self._kept.get(key)
        now, changed = self._logged_since(None if kept is None else kept.position)
        if kept is None and now is not None:
            found = self._read(key, now, None)  # the log follows it from here: no state yet
        elif kept is not None and changed is not None:
            if not changed:
                found = replace(kept, position=now)  # the next look reads a shorter log
            else:
                found = self._patched(key, kept, now, changed) or self._read(key, now, None)
        else:
            state = self.state_of(key)
            if kept is not None and kept.state is not None and kept.state == state:
                return kept
            found = self._read(key, now, state)
            if self.db.in_transaction:
                return found  # not kept: rolled back, its ids may be taken again by other docs
        self._keep(key, found)
        return found

    def forget(self, key: ScopeKey) -> None:
        """Drop the scope's matrix (a graph searches it now)."""
        with self._lock:
            self._kept.pop(key, None)

    def _keep(self, key: ScopeKey, found: ScanMatrix) -> None:
        with self._lock:
            self._kept[key] = found
            self._kept.move_to_end(key)
            while len(self._kept) > KEPT_SCOPES:
                self._kept.popitem(last=False)

    def _logged_since(self, position: Position | None) -> tuple[Position | None, list[int] | None]:
        """The log's position now, and the docs changed since ``position`` (``None``: unknown).

        Both ``None`` inside this thread's write (the log holds what may be rolled back) or
        while another thread holds the lock (a write open there: the log may list docs a
        read would not see yet).
        """
        if self.db.in_transaction or not self.db.lock.acquire(timeout=LOCK_WAIT_SECONDS):
            return None, None
        try:
            now = self.changes.position()
            changed = None if position is None else self.changes.since(position, now, PATCH_MOST)
        finally:
            self.db.lock.release()
        return now, changed

    def _read(self, key: ScopeKey, now: Position | None, state: State | None) -> ScanMatrix:
        """The scope read whole, with ``state`` (read before the rows; ``None``: none read)."""
        return ScanMatrix(now, state, *self._rows(key))

    def _rows(self, key: ScopeKey, among: Ids | None = None) -> tuple[Ids, list[int], Matrix]:
        """The scope's embedded docs (``among`` these ids), by id: ids, owners, vectors."""
        rows = docs_of(self.db, key, among, "id, owner_id, vector")
        ids = np.fromiter((row[0] for row in rows), dtype=np.int64, count=len(rows))
        return ids, [row[1] for row in rows], vectors.as_matrix([row[2] for row in rows])

    def _patched(
        self, key: ScopeKey, kept: ScanMatrix, now: Position | None, changed: list[int]
    ) -> ScanMatrix | None:
        """``kept`` with the ``changed`` docs read again; ``None`` if a vector's width differs.

        A changed doc leaves the matrix, and comes back (in id order) if it is still embedded
        in the scope: its vector, scope or deletion may have changed, or it is new.
        """
        touched = np.unique(np.asarray(changed, dtype=np.int64))
        ids, owners, matrix = self._rows(key, touched)
        if len(ids) and len(kept.ids) and matrix.shape[1] != kept.matrix.shape[1]:
            return None
        stays = ~contains(touched, kept.ids)
        if stays.all() and (not len(ids) or not len(kept.ids) or ids[0] > kept.ids[-1]):
            # Only docs newer than all it holds: appended (one copy of the matrix).
            all_ids = np.concatenate([kept.ids, ids])
            return ScanMatrix(
                now, None, all_ids, kept.owners + owners, _stacked(kept.matrix, matrix)
            )
        all_ids = np.concatenate([kept.ids[stays], ids])
        order = np.argsort(all_ids, kind="stable")
        all_owners = np.asarray(kept.owners, dtype=np.int64)[stays].tolist() + owners
        stacked = _stacked(kept.matrix[stays], matrix)
        return ScanMatrix(
            now, None, all_ids[order], [all_owners[i] for i in order.tolist()], stacked[order]
        )


def _stacked(first: Matrix, second: Matrix) -> Matrix:
    """The rows of both (either may be empty, even of no width)."""
    if not len(first):
        return second
    if not len(second):
        return first
    return np.concatenate([first, second])
