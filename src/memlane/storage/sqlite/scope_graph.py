"""One scope's HNSW graph: the doc ids it holds, what it lacks of the database, how it reads.

:mod:`.ann` keeps the graphs of a database's large scopes and decides when each is searched,
patched, caught up or built; this module is what it does to one graph. Every read goes to
``search_docs`` through :mod:`.graph_rows`, in the scope of the graph's key.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from memlane.pacing import pause
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
    docs_of,
    embedded_ids,
    highest_embedded,
    vector_chunk,
)
from memlane.storage.sqlite.recent_vectors import Known

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


DELTA_SHARE = 2
"""A graph on a mapped base is built again whole (in the background) once its delta and hidden
ids pass this fraction (1/2) of the base: until then each search asks both, and only the delta
is saved (:func:`.graph_files.save_delta`). A rebuild adds the base's vectors again, so it comes
at most every half base of changes (at most 3 adds per vector stored, amortized); and a next
process loads at most half a base of delta (usearch holds the GIL for a load: ~0.6 s at 10^6).
At 1/4, a 10^5-note subject saved 13,000 behind rebuilt itself during a 10,000-note import, and
the drain took 194 s instead of 47 (docs/benchmarks.md, ``delta37``)."""
UNKNOWN = Position(-1, -1, 0)
"""An impossible position: the change log never tells what changed since, so a graph at it is
compared whole (by the building thread) before it is known to be in step."""


@dataclass
class Graph:
    """One scope's HNSW graph and the doc ids in it, as of ``stamp``.

    A graph read from its file is a read-only **base** mapped from the file (``base``, never
    loaded or copied whole: usearch holds the GIL for all of a load or a copy) and a small
    in-memory ``index`` of the vectors added since (the **delta**); the base's ids removed
    since are ``hidden``. A graph built in this process has no base: ``index`` is all of it.
    """

    ids: Ids
    """Every doc id it holds, sorted (the base's not hidden, and the delta's)."""
    index: Any  # usearch.index.Index
    dims: int
    stamp: Stamp | None
    position: Position
    removed: int = 0
    lock: SearchesFirst = field(default_factory=SearchesFirst)
    base: Any = None
    """The saved graph mapped from its file (read only), or ``None``."""
    base_ids: Ids = field(default_factory=lambda: NO_IDS)
    """The ids of ``base``, sorted."""
    hidden: Ids = field(default_factory=lambda: NO_IDS)
    """Ids of ``base`` removed since it was saved, sorted: filtered out of its candidates."""
    base_files: tuple[str, str] | None = None
    """The file names of ``base`` and its ids (what a delta is saved beside)."""
    frozen: bool = False
    """The building thread is bringing it up to date (``VectorIndexes._catch_up``): no search
    adds to it."""
    saved: int = 0
    """How many ids it held when it was last saved whole (or read from its file)."""
    delta_saved: int = 0
    """How many delta and hidden ids were saved beside its base (or read from its files)."""
    unsaved: int = 0
    """Vectors added or removed since its files were last written (all of them, if never)."""
    lacking: Lacking | None = None
    """What a search last found it lacks, while it is behind: the next search reads only the
    docs changed since, not the scope's ids again."""

    @property
    def viewed(self) -> bool:
        """Whether it searches a base mapped from a saved file."""
        return self.base is not None

    def last_look(self) -> Lacking:
        """What it lacked when last looked at (nothing, as of its own position, if never)."""
        return self.lacking or Lacking(self.position, NO_IDS, NO_IDS)

    def changed_since_base(self) -> int:
        """Delta and hidden ids: how far it is from its base (0 without one)."""
        return len(self.index) + len(self.hidden) if self.base is not None else 0

    def outgrown(self, more: int = 0) -> bool:
        """Whether, ``more`` changes on, building it again whole beats its base and delta."""
        if self.base is None:
            return False
        return self.changed_since_base() + more > len(self.base_ids) // DELTA_SHARE

    def delta_ids(self) -> Ids:
        """The ids of its delta (all it holds without a base)."""
        if self.base is None:
            return self.ids
        return self.ids[~(contains(self.base_ids, self.ids) & ~contains(self.hidden, self.ids))]


def loaded(directory: Path, index_class: Any, saved: dict[str, Any]) -> Graph | None:
    """A scope's graph saved in ``directory`` (``saved``: its ``.json``), or ``None``.

    The base is mapped from its file, never read (a 10^5-vector graph: about 1 ms instead of
    0.3 s; 10^6: 4 s, holding the GIL); a delta saved beside it is loaded (it is small). The
    graph's freshness is unknown: searches rank the newest docs above its highest id beside
    it, and the building thread compares it whole with the scope. Raises what reading a
    damaged or missing file raises.
    """
    dims = int(saved["dims"])
    base_ids = np.load(directory / saved["ids"], allow_pickle=False).astype(np.int64)
    base = new_graph(index_class, dims)
    base.view(str(directory / saved["graph"]))
    if len(base_ids) != len(base):
        return None
    delta, delta_ids, hidden = new_graph(index_class, dims), NO_IDS, NO_IDS
    if saved.get("delta"):  # (an older file has none)
        delta.load(str(directory / saved["delta"]))
        delta_ids = np.load(directory / saved["delta_ids"], allow_pickle=False).astype(np.int64)
        hidden = np.load(directory / saved["hidden"], allow_pickle=False).astype(np.int64)
        if len(delta_ids) != len(delta):
            return None
    kept = base_ids[~contains(hidden, base_ids)] if len(hidden) else base_ids
    ids = _merged(kept, delta_ids)
    return Graph(
        ids,
        delta,
        dims,
        None,
        UNKNOWN,
        base=base,
        base_ids=base_ids,
        hidden=hidden,
        base_files=(str(saved["graph"]), str(saved["ids"])),
        saved=len(base_ids),
        delta_saved=len(delta_ids) + len(hidden),
        lacking=Lacking(UNKNOWN, NO_IDS, NO_IDS, whole=False),
    )


def _merged(ids: Ids, more: Ids) -> Ids:
    """Two sorted id arrays as one, without sorting the first again.

    (``np.union1d`` sorts both: 0.9 s for the 10^6 ids of a base, in a first search.)
    """
    return np.insert(ids, np.searchsorted(ids, more), more) if len(more) else ids


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
    rows = docs_of(db, key, new, "id, vector")
    matrix = as_rows(rows, graph.dims)
    if matrix is None:
        return None
    added = np.asarray([row[0] for row in rows], dtype=np.int64)
    graph.index.add(added.astype(np.uint64), matrix, threads=1)
    graph.unsaved += len(added)
    return added


def remove(graph: Graph, gone: Ids) -> None:
    """Take docs ``gone`` (all held) out of the graph: hidden in its base, or removed."""
    in_delta = gone
    if graph.base is not None:
        in_base = contains(graph.base_ids, gone) & ~contains(graph.hidden, gone)
        graph.hidden = np.union1d(graph.hidden, gone[in_base])
        in_delta = gone[~in_base]
    if len(in_delta):
        graph.index.remove(in_delta.astype(np.uint64))
    graph.removed += len(gone)
    graph.unsaved += len(gone)
    graph.ids = np.delete(graph.ids, np.searchsorted(graph.ids, gone))


def candidates(graph: Graph, vector: Vector, count: int) -> list[int]:
    """The ``count`` doc ids the graph finds nearest (at most all it holds).

    A base and its delta are both asked, and their matches merged by distance.
    """
    count = min(len(graph.ids), count)
    if count <= 0:
        return []
    query = vector.astype(np.float32)
    found = _searched(graph.index, query, min(len(graph.index), count))
    if graph.base is not None:
        found += _unhidden(graph, query, count)
    found.sort()
    return [key for _, key in found[:count]]


def _unhidden(graph: Graph, query: Vector, count: int) -> list[tuple[float, int]]:
    """The base's ``count`` nearest that are not hidden: more are asked while some were."""
    most = min(len(graph.base_ids), count + len(graph.hidden))
    asked = min(most, count + min(len(graph.hidden), count))
    while True:
        found = _searched(graph.base, query, asked)
        kept = [pair for pair in found if not _hides(graph.hidden, pair[1])]
        if len(kept) >= count or asked >= most:
            return kept[:count]
        asked = min(most, 2 * asked)


def _hides(hidden: Ids, key: int) -> bool:
    at = int(np.searchsorted(hidden, key))
    return at < len(hidden) and int(hidden[at]) == key


def _searched(index: Any, query: Vector, count: int) -> list[tuple[float, int]]:
    """``(distance, id)`` of the ``count`` nearest in one usearch index."""
    if count <= 0:
        return []
    index.expansion_search = max(EXPANSION_SEARCH, 2 * count)  # not below count
    matches = index.search(query, count, threads=1)
    keys = np.asarray(matches.keys).reshape(-1)
    distances = np.asarray(matches.distances).reshape(-1)
    return [(float(d), int(k)) for d, k in zip(distances, keys, strict=True)]


SAME_SCORE = 1e-5
"""Relative difference under which a kept vector's score is the stored vector's (:func:`rank`)."""


class Stale(Exception):
    """A vector kept in memory differs from the one stored for its doc (:func:`rank`)."""


def rank(
    db: Reads,
    key: ScopeKey,
    docs: Sequence[int],
    vector: Vector,
    limit: int,
    known: Known | None = None,
) -> list[int]:
    """Owner ids of the docs still in scope, by their stored vectors: best first, ties by id.

    ``known``: the scores of some of ``docs`` by their vectors kept in memory
    (:mod:`.recent_vectors`), not read again; only those ranked first are, for their owners,
    to drop any no longer in scope (the next ones then move up), and to check their scores:
    :class:`Stale` if one was kept wrong.
    """
    if not docs:
        return []
    kept = known.at if known is not None else {}
    unread = [doc for doc in dict.fromkeys(docs) if doc not in kept]
    rows = docs_of(db, key, unread, "id, owner_id, vector") if unread else []
    matrix = as_rows([(row[0], row[2]) for row in rows], len(vector))
    if matrix is None:
        return []
    ids = [row[0] for row in rows]
    owners: list[int | None] = [row[1] for row in rows]
    scores = matrix @ vector
    if known is not None and kept:
        ids += list(kept)  # (in the order of its scores)
        owners += [None] * len(kept)
        scores = np.concatenate([scores, known.scores])
    order = np.lexsort((np.asarray(ids, dtype=np.int64), -scores)).tolist()
    found: list[int] = []
    while order and len(found) < limit:
        first, order = order[: limit - len(found)], order[limit - len(found) :]
        unowned = [ids[i] for i in first if owners[i] is None]
        checked = _owners_checked(db, key, unowned, vector, known)
        for i in first:
            owner = owners[i] if owners[i] is not None else checked.get(ids[i])
            if owner is not None:  # (a kept doc no longer in scope has none)
                found.append(int(owner))
    return found


def _owners_checked(
    db: Reads, key: ScopeKey, docs: list[int], vector: Vector, known: Known | None
) -> dict[int, int]:
    """The owners of kept ``docs`` still in scope, each stored vector's score checked.

    A kept vector that scores as the stored one ranks as it (to float32's rounding, which
    differs between one product and a matrix's); one that does not was kept wrong.
    """
    if not docs or known is None:
        return {}
    owners = {}
    for doc, owner, stored in docs_of(db, key, docs, "id, owner_id, vector"):
        if len(stored) != 4 * len(vector):
            raise Stale(f"doc {doc}: the stored vector is of another width")
        kept = float(known.scores[known.at[doc]])
        score = float(np.frombuffer(stored, dtype=np.float32) @ vector)
        if abs(kept - score) > SAME_SCORE * max(1.0, abs(score)):
            raise Stale(f"doc {doc}: kept vector scores {kept}, the stored one {score}")
        owners[doc] = owner
    return owners


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
        pause()  # the requests in progress first (paced by the building thread)
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
    return Graph(np.asarray(ids, dtype=np.int64), index, dims, *at, unsaved=len(ids))
