"""One scope's HNSW graph: the doc ids it holds, what it lacks of the database, how it reads.

:mod:`.ann` keeps the graphs of a database's large scopes and decides when each is searched,
patched, caught up or built; this module is what it does to one graph. Every read goes to
``search_docs`` through :mod:`.graph_rows`, in the scope of the graph's key.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from memlane.storage.sql.dialect import Vector
from memlane.storage.sqlite.doc_changes import Position
from memlane.storage.sqlite.graph_files import EXPANSION_SEARCH, new_graph
from memlane.storage.sqlite.graph_rows import (
    Ids,
    Reads,
    ScopeKey,
    Stamp,
    as_rows,
    contains,
    embedded_ids,
    highest_embedded,
    scope_sql,
    signature,
    vector_chunk,
    vectors_of,
)

NO_IDS: Ids = np.empty(0, dtype=np.int64)


class Lacking(NamedTuple):
    """What a graph lacks as of ``position`` in the change log.

    ``new``: docs embedded in its scope it does not hold; ``gone``: docs it holds no longer
    there. ``whole``: found by comparing every id of the scope (or followed in the log since);
    otherwise only the newest docs above the graph's highest id were looked at, and the rest
    waits for the building thread's comparison.
    """

    position: Position
    new: Ids
    gone: Ids
    whole: bool = True


IN_STEP = Lacking(Position(-1, -1, 0), NO_IDS, NO_IDS)
"""What a graph in step with the database lacks."""


class SearchesFirst:
    """A graph's lock that searches take before the building thread's next piece.

    A plain lock is no queue: the building thread, releasing it after one piece and taking
    it again for the next, won it back from a waiting search piece after piece (a search
    waited for a whole catch-up: 1.1 s at 10^5). Between pieces it takes the lock only once
    no search waits for it (:meth:`after_searches`), so a search waits one piece at most.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._turns = threading.Condition()
        self._waiting = 0  # threads waiting in __enter__

    def __enter__(self) -> None:
        with self._turns:
            self._waiting += 1
        self._lock.acquire()
        with self._turns:
            self._waiting -= 1
            self._turns.notify_all()

    def __exit__(self, *_: object) -> None:
        self._lock.release()

    @contextmanager
    def after_searches(self) -> Iterator[None]:
        """Hold the lock, taken once no thread waits for it."""
        with self._turns:
            self._turns.wait_for(lambda: self._waiting == 0)
        with self._lock:
            yield


@dataclass
class Graph:
    """One scope's HNSW graph and the doc ids in it, as of ``stamp``."""

    ids: Ids
    index: Any  # usearch.index.Index
    dims: int
    stamp: Stamp | None
    position: Position
    removed: int = 0
    lock: SearchesFirst = field(default_factory=SearchesFirst)
    viewed: bool = False
    """``index`` maps a saved file (read only): it is copied into memory before a patch."""
    frozen: bool = False
    """The building thread is bringing it up to date (``VectorIndexes._catch_up``): no search
    adds to it."""
    saved: int = 0
    """How many ids it held when it was last saved (or read from its file)."""
    lacking: Lacking | None = None
    """What a search last found it lacks, while it is behind: the next search reads only the
    docs changed since, not the scope's ids again."""

    def last_look(self) -> Lacking:
        """What it lacked when last looked at (nothing, as of its own position, if never)."""
        return self.lacking or Lacking(self.position, NO_IDS, NO_IDS)


def loaded(
    directory: Path,
    index_class: Any,
    saved: dict[str, Any],
    state: tuple[int, int, int, int] | None,
    at: tuple[Stamp, Position] | None,
) -> Graph | None:
    """A scope's graph saved in ``directory`` (``saved``: its file names), or ``None``.

    When the scope's embedded ids (``state``: :func:`.graph_rows.embedded_signature`, read
    after the database was at ``at``) still sum up as the saved ones did (:func:`signature`),
    the file is mapped, not read (a 10^5-vector graph: about 1 ms instead of 0.3 s), and is
    in step as of now. A file behind the database is read whole only without a ``state``:
    by the building thread, which brings it up to date as a catch-up does, while searches
    treat the scope as one whose graph is being built (reading 10^6 vectors' graph took 4 s
    of a first search). Raises what reading a damaged or missing file raises.
    """
    dims = int(saved["dims"])
    ids = np.load(directory / saved["ids"], allow_pickle=False).astype(np.int64)
    in_step = saved.get("signature") == list(signature(ids)) == list(state or ())
    if state is not None and not in_step:
        return None
    index = new_graph(index_class, dims)
    if in_step:
        index.view(str(directory / saved["graph"]))
    else:
        index.load(str(directory / saved["graph"]))
    if len(ids) != len(index):
        return None
    if in_step and at is not None:
        return Graph(ids, index, dims, *at, viewed=True, saved=len(ids))  # patched from ``at``
    # An impossible position: its catch-up compares the scope's ids whole.
    return Graph(ids, index, dims, None, Position(-1, -1, 0), saved=len(ids))


def followed(
    db: Reads, key: ScopeKey, ids: Ids, known: Lacking, now: Position, changed: list[int]
) -> Lacking:
    """What a graph holding ``ids`` lacks at ``now``: ``known``, and the docs ``changed``."""
    touched = np.unique(np.asarray(changed, dtype=np.int64))
    in_scope = embedded_ids(db, key, among=touched)
    # An untouched doc lacks (or is gone) as it did; a touched one is judged again.
    new = in_scope[~contains(ids, in_scope)]
    gone = touched[contains(ids, touched) & ~contains(in_scope, touched)]
    return Lacking(
        now,
        np.union1d(known.new[~contains(touched, known.new)], new),
        np.union1d(known.gone[~contains(touched, known.gone)], gone),
        known.whole,
    )


def compared(db: Reads, key: ScopeKey, ids: Ids, now: Position) -> Lacking:
    """What a graph holding ``ids`` lacks, from every embedded id of its scope."""
    in_scope = embedded_ids(db, key)
    new = np.setdiff1d(in_scope, ids, assume_unique=True)
    return Lacking(now, new, np.setdiff1d(ids, in_scope, assume_unique=True))


def add_vectors(db: Reads, graph: Graph, key: ScopeKey, new: Ids) -> Ids | None:
    """Add the vectors of docs ``new`` still in scope; ``None`` if one has another width."""
    rows = vectors_of(db, key, new)
    matrix = as_rows(rows, graph.dims)
    if matrix is None:
        return None
    added = np.asarray([row[0] for row in rows], dtype=np.int64)
    graph.index.add(added.astype(np.uint64), matrix, threads=1)
    return added


def candidates(graph: Graph, vector: Vector, count: int) -> list[int]:
    """The ``count`` doc ids the graph finds nearest (at most all it holds)."""
    count = min(len(graph.ids), count)
    graph.index.expansion_search = max(EXPANSION_SEARCH, 2 * count)  # not below count
    matches = graph.index.search(vector.astype(np.float32), count, threads=1)
    return [int(k) for k in np.asarray(matches.keys).reshape(-1)]


def rank(db: Reads, key: ScopeKey, docs: Sequence[int], vector: Vector, limit: int) -> list[int]:
    """Owner ids of the docs still in scope, by their stored vectors: best first, ties by id."""
    if not docs:
        return []
    where, parameters = scope_sql(key, by_id=True)
    rows = db.fetchall(
        "SELECT id, owner_id, vector FROM search_docs WHERE "
        f"id IN (SELECT value FROM json_each(%(ids)s)) AND {where}",
        {**parameters, "ids": json.dumps(list(docs))},
    )
    matrix = as_rows([(row[0], row[2]) for row in rows], len(vector))
    if matrix is None:
        return []
    scores = matrix @ vector
    order = np.lexsort((np.asarray([row[0] for row in rows]), -scores))[:limit]
    return [int(rows[i][1]) for i in order]


def build(
    db: Reads,
    index_class: Any,
    key: ScopeKey,
    at: tuple[Stamp, Position],
    closed: Callable[[], bool],
) -> Graph | None:
    """A graph of the scope's embedded vectors, read ``CHUNK`` at a time (``None``: stopped).

    Only those stored when it began (up to the highest id then, the database being at ``at``):
    vectors stored meanwhile are patched in by a catch-up, so a build during an import ends
    instead of chasing it.
    """
    index, dims, after, upto = None, 0, 0, highest_embedded(db, key)
    ids: list[int] = []
    while not closed():
        rows = vector_chunk(db, key, after, upto)
        if not rows:
            break
        if index is None:
            dims = len(rows[0][1]) // 4
            index = new_graph(index_class, dims)
        matrix = as_rows(rows, dims)
        if matrix is None:
            return None
        keys = np.asarray([row[0] for row in rows], dtype=np.uint64)
        index.add(keys, matrix, threads=1)
        ids.extend(int(row[0]) for row in rows)
        after = ids[-1]
    if index is None or closed():
        return None
    return Graph(np.asarray(ids, dtype=np.int64), index, dims, *at)
