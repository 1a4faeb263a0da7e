"""The vectors this process stored last, kept for the searches that rank them next.

A graph behind its scope (an import outrunning its building thread) has the newest docs it
lacks ranked beside its candidates (:data:`.ann.RANKED_BEHIND`), as has a scope whose graph is
being built. Read back from the database at every search, those ~2,000 rows cost each recall
during a 10^5-note import's drain 9-15 ms of CPU (docs/benchmarks.md, stop 44): they are the
vectors this process's indexer has just stored. So each committed ``put_vectors`` leaves them
here, rows of one matrix per model, and a search reads only those it does not find
(:meth:`RecentVectors.known`): no row read, no blob joined into a matrix again, and no copy
of the rows either: the runs of rows asked are scored in place (:func:`spans_scored`; a fresh
2 MB array cost 5-6 ms of page faults a recall on this VM; docs/benchmarks.md, stop 44).

A doc's vector does not change while its row exists (its text never changes; another model's
vector is another scope), but its id can be taken again once the row is deleted: SQLite gives
a new row the highest id plus one. So all that is kept is let go of

- when a row of ``search_docs`` is deleted on the shared connection (a purge, a summary's doc
  replaced: a temporary trigger calls :meth:`RecentVectors.forget`),
- when another connection committed (``PRAGMA data_version`` moved): nothing is known of what
  it deleted; vectors are kept only if none did between their write and their keeping.

Vectors are kept once their write committed: a write rolled back keeps nothing.

The rows ranked first are read back anyway (their owners, and that each is still in scope):
a kept score found to differ from the stored vector's there raises :class:`.scope_graph.Stale`,
and the search ranks by the stored vectors alone.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, NamedTuple

import numpy as np
import numpy.typing as npt

from memlane.storage.sql.dialect import Vector

if TYPE_CHECKING:
    from memlane.storage.sqlite.database import SQLiteDatabase

KEPT_VECTORS = 8_000
"""Most vectors kept per model, the newest stored (a graph ranks 2,000 beside it; a few
subjects imported at once share the rest): about 12 MB at 384 dimensions."""
SPAN_GAP = 64
"""Rows of a ring this near are scored as one run with those between (:func:`spans_scored`)."""
MOST_SPANS = 8
"""Past this many runs, the rows from the first asked to the last are scored at once."""
LOCK_WAIT_SECONDS = 0.005
"""How long keeping or looking up waits for the shared connection (held by an import's
transaction for seconds): past it nothing is kept, or nothing found, this time."""
_FORGET = "memlane_recent_vectors_forget"
_TRIGGER = (
    f"CREATE TEMP TRIGGER IF NOT EXISTS {_FORGET} AFTER DELETE ON main.search_docs "
    f"BEGIN SELECT {_FORGET}(); END"
)


class Known(NamedTuple):
    """The scores of some docs' kept vectors against a query: ``scores[at[doc]]`` is ``doc``'s."""

    at: dict[int, int]
    scores: npt.NDArray[np.float32]


def spans_scored(
    matrix: npt.NDArray[np.float32], rows: npt.NDArray[np.intp], vector: Vector
) -> npt.NDArray[np.float32]:
    """``matrix[rows] @ vector``, each run of near rows scored in place (no row copied).

    The docs a search asks of a ring were mostly stored one after another, so their rows
    make one or two runs (the ring wraps) of the 8,000: only the rows of the runs are read
    (``bench/kept_scores.py``: 0.25 -> 0.19 ms for 2,000 of 8,000), where a gather of the
    rows would fill a fresh array of their size (page faults: docs/benchmarks.md, stop 44).
    Rows scattered into more than :data:`MOST_SPANS` runs are scored from first to last.
    """
    ordered = np.sort(rows)
    cuts = np.flatnonzero(np.diff(ordered) > SPAN_GAP) + 1
    starts, ends = ordered[np.r_[0, cuts]], ordered[np.r_[cuts - 1, len(ordered) - 1]] + 1
    if len(starts) > MOST_SPANS:
        starts, ends = starts[:1], ends[-1:]
    scores = np.empty(int(ends[-1]), dtype=np.float32)
    for start, end in zip(starts.tolist(), ends.tolist(), strict=True):
        np.matmul(matrix[start:end], vector, out=scores[start:end])
    return scores[rows]


class _Ring:
    """One model's kept vectors: a matrix whose oldest row is the next one written."""

    def __init__(self, width: int) -> None:
        self.width = width
        self.matrix = np.zeros((KEPT_VECTORS, width // 4), dtype=np.float32)
        self.row_of: dict[int, int] = {}
        self.doc_at: list[int | None] = [None] * KEPT_VECTORS
        self.next = 0

    def put(self, doc_id: int, blob: bytes) -> None:
        row = self.row_of.get(doc_id)
        if row is None:
            row, self.next = self.next, (self.next + 1) % len(self.doc_at)
            evicted = self.doc_at[row]
            if evicted is not None:
                del self.row_of[evicted]
            self.row_of[doc_id], self.doc_at[row] = row, doc_id
        self.matrix[row] = np.frombuffer(blob, dtype=np.float32)


class RecentVectors:
    """The newest vectors stored through one database's shared connection, by model and doc.

    Thread-safe. The shared connection's lock is taken before this one's, never the other way.
    """

    def __init__(self, database: SQLiteDatabase) -> None:
        self.db = database
        self._rings: dict[str, _Ring] = {}
        self._version: int | None = None  # the shared connection's data_version when kept
        self._installed = False
        self._lock = threading.Lock()

    def written_at(self) -> int:
        """The version a write inside its transaction gives :meth:`keep` (under the lock)."""
        return self._data_version()

    def keep(self, model: str, vectors: Sequence[tuple[int, bytes]], written_at: int) -> None:
        """Keep ``vectors`` of ``model``, committed by a write that began at ``written_at``.

        Called after the commit. Nothing is kept if another connection committed since
        (it may have deleted one of these docs and given its id to another), or if the shared
        connection stays busy for :data:`LOCK_WAIT_SECONDS`.
        """
        with self._version_now(install=True) as version:
            if version is None:
                return
            if version != self._version:
                self._rings.clear()
                self._version = version
            if version != written_at:
                return
            for doc_id, blob in vectors:
                ring = self._rings.get(model)
                if ring is None or ring.width != len(blob):  # (a model's width never changes)
                    ring = self._rings[model] = _Ring(len(blob))
                ring.put(doc_id, blob)

    def known(self, model: str, doc_ids: Collection[int], vector: Vector) -> Known | None:
        """The scores against ``vector`` of these docs' kept vectors.

        ``None``: none kept, none trusted now, or kept at another width.
        """
        if not self._rings:
            return None
        with self._version_now() as version:
            ring = self._rings.get(model)
            if version is None or ring is None:
                return None
            if version != self._version:
                self._rings.clear()
                return None
            rows = [(doc, row) for doc in doc_ids if (row := ring.row_of.get(doc)) is not None]
            if not rows or ring.matrix.shape[1] != len(vector):
                return None
            at = np.fromiter((row for _, row in rows), dtype=np.intp, count=len(rows))
            scores = spans_scored(ring.matrix, at, vector)
            return Known({doc: i for i, (doc, _) in enumerate(rows)}, scores)

    def forget(self) -> None:
        """Let go of every kept vector."""
        with self._lock:
            self._rings.clear()

    @contextmanager
    def _version_now(self, install: bool = False) -> Iterator[int | None]:
        """Holding both locks, the shared connection's ``data_version`` (``None``: busy, closed).

        ``install``: first have deletes call :meth:`forget` (before anything is kept). The
        database's lock is held throughout: no delete comes between the version and its use.
        """
        if not self.db.lock.acquire(timeout=LOCK_WAIT_SECONDS):
            with self._lock:
                yield None
            return
        try:
            try:
                if install and not self._installed:
                    self.db.connection.create_function(_FORGET, 0, self.forget)
                    self.db.connection.execute(_TRIGGER)
                    self._installed = True
                version: int | None = self._data_version()
            except sqlite3.Error:  # closed meanwhile
                version = None
            with self._lock:
                yield version
        finally:
            self.db.lock.release()

    def _data_version(self) -> int:
        """The shared connection's ``PRAGMA data_version`` (holding the database's lock)."""
        return int(self.db.connection.execute("PRAGMA data_version").fetchone()[0])
