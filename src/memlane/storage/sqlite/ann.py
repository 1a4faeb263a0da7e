"""Approximate nearest neighbours for SQLite's large scopes: usearch HNSW, a cache of the database.

A scope (tenant, subject or the whole tenant, kind, model) with more than :data:`THRESHOLD`
embedded vectors is searched through an in-memory HNSW graph (usearch) instead of the exact scan;
smaller scopes, and large ones whose graph is still being built, are scanned exactly
(``bench/ann.py`` measured the candidates and the crossover, docs/recall.md).

The graph is only ever a cache of ``search_docs``; the database decides every answer:

- **fresh**: before a search, the database's change stamp (``PRAGMA data_version``, which moves
  when another connection commits, and this connection's ``total_changes``) is compared with the
  one the graph was synced at; on any difference the docs this connection changed since are
  read from its log (:mod:`.doc_changes`), or, after another connection's commit, the scope's
  embedded doc ids are compared whole; new vectors are added and gone ones removed, so no
  vector written (here or by another process) is missed;
- **filtered**: the candidates (twice as many as asked for) are read back from the database in
  the scope (tenant, subject, kind, not deleted, model), and ranked by their stored vectors, so a
  forgotten, purged or other tenant's doc is never returned; a purge drops the subject's graphs;
- **derived**: graphs are built in a background thread from the database at first need, and
  searches scan exactly until one is ready. That thread's queries run on the database's
  read-only connections, as any thread's outside a write transaction do, so its long reads
  never hold the shared one. A built graph is saved beside the database file
  (:data:`.graph_files.GRAPH_DIRECTORY`) and used by the next process instead of being built
  again (about a minute for 10^5 vectors on a busy 2-core machine, while every search scanned
  exactly). A saved graph is a read-only base
  mapped from its file, never loaded or copied whole (usearch holds the GIL for all of a copy,
  a load or a save: every thread of the process waits, 3-9 s for a load at 10^6); vectors
  stored since go into a small in-memory delta beside it and the base's docs removed since are
  hidden (:class:`.scope_graph.Graph`). The first search that finds the file maps it and uses
  it at once, its freshness unknown: it ranks the newest :data:`RANKED_BEHIND` docs above its
  highest id beside it, as when the log cannot tell, and the building thread compares it with
  the scope's ids whole (no search reads the scope whole to test it), so a file behind the
  database (or ahead of it) costs a patch, never an answer. Only the delta is saved beside
  the base; once it outgrows a fraction of the base the graph is built again whole.
  A purge deletes the files of the scopes it touched, with their vectors.

What is done to one graph (what it lacks, its patches, its candidates and their ranking, a
build) is :mod:`.scope_graph`'s; the building thread (builds, catch-ups, following the indexer)
is :mod:`.graph_builder`'s; this module keeps the graphs, searches them and decides when.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from memlane.storage.sql.dialect import DocScope, Vector
from memlane.storage.sqlite import graph_files, scope_graph
from memlane.storage.sqlite.doc_changes import Position
from memlane.storage.sqlite.graph_builder import GraphBuilder, Upkeep
from memlane.storage.sqlite.graph_files import usearch_index
from memlane.storage.sqlite.graph_rows import (
    Ids,
    ScopeKey,
    Stamp,
    change_stamp,
    contains,
    embedded_count,
    newest_embedded,
)
from memlane.storage.sqlite.recent_vectors import RecentVectors
from memlane.storage.sqlite.scope_graph import IN_STEP, NO_IDS, Graph, Lacking

if TYPE_CHECKING:
    from memlane.storage.sqlite.database import SQLiteDatabase

_log = logging.getLogger(__name__)

THRESHOLD = 2_000
"""Embedded vectors in a scope above which it is searched through a graph, not scanned.

``bench/ann.py --crossover``: from 2,000 vectors the scan's matrix product cost 20-40 ms on a
busy machine (the graph 1-2 ms), and after a write the scan reloads the whole scope."""
MAX_GRAPHS = 16
"""Graphs kept per database (least recently used dropped first)."""
MAX_GRAPH_VECTORS = 1_000_000
"""Vectors kept in graphs per database, all graphs together (about 1.6 GB at 384 dimensions)."""
MAX_SMALL = 10_000
"""Scopes remembered as small (below the threshold) before that memory is cleared."""
OVERFETCH = 2
"""Candidates asked of the graph per result wanted, before the database filters them."""
PATCH_IN_SEARCH = 256
"""Most new vectors a search adds to a graph itself. A graph further behind (a backlog being
embedded) answers for what it holds, what it lacks is ranked beside its candidates by the stored
vectors, and the building thread brings it up to date: no search adds thousands of vectors
or scans the whole scope because its graph is behind."""
RANKED_BEHIND = 2_000
"""Most vectors a graph lacks that a search ranks beside its candidates (the newest, by id):
what an exact scan of a scope just under :data:`THRESHOLD` reads. A graph further behind (an
import outrunning its building thread) leaves its older lacking vectors to be found by their
words until it catches up, as items not yet embedded are, instead of reading tens of thousands
of vectors in the first recall after the import."""
FOLLOWED_MOST = RANKED_BEHIND
"""Most docs changed since a graph was last looked at that a search follows in the log
(:meth:`VectorIndexes._behind`). More (an import just written by this connection: 35,000 docs
at the first recall after one of 10^5 notes, read and compared in 0.25 s) are the building
thread's to catch up with; meanwhile the search ranks the newest :data:`RANKED_BEHIND` beside
the graph, as when the log cannot tell."""
PREPARE_PASSES = 3
"""Most rounds of :meth:`VectorIndexes.prepare`: a graph caught up in the background holds what
was stored when its catch-up began, so a second round patches the last few."""


class VectorIndexes(GraphBuilder):
    """The graphs of one SQLite database's large scopes, kept in step with it.

    Args:
        database: the database whose ``search_docs`` the graphs index.
        threshold: embedded vectors in a scope above which a graph is used
            (:data:`THRESHOLD` if ``None``).
    """

    def __init__(self, database: SQLiteDatabase, threshold: int | None = None) -> None:
        self.db: SQLiteDatabase = database
        self.threshold = THRESHOLD if threshold is None else threshold
        self.directory = graph_files.directory_of(database)
        """Where graphs are saved and loaded (``None``: nowhere, e.g. an in-memory database)."""
        self._index_class = usearch_index()
        self.recent = RecentVectors(database) if self._index_class is not None else None
        """The vectors stored last, kept for ranking what a graph lacks (none without graphs)."""
        self._changes = database.doc_changes
        self._graphs: OrderedDict[ScopeKey, Graph] = OrderedDict()
        self._small: dict[ScopeKey, Stamp] = {}  # scopes found small at a stamp
        self._lock = threading.Lock()
        self._closed = False
        self._start_building()

    # -- searching ----------------------------------------------------------------------

    def nearest(self, scope: DocScope, model: str, vector: Vector, limit: int) -> list[int] | None:
        """Owner ids as the exact scan would rank them, or ``None``: scan exactly instead."""
        if self._index_class is None or self._closed or self.db.in_transaction:
            return None  # inside a write: what it changed may yet be rolled back
        key: ScopeKey = (*scope, model)
        stamp = change_stamp(self.db)
        with self._lock:
            if self._small.get(key) == stamp:
                return None
            graph = self._graphs.get(key)
            if graph is not None:
                self._graphs.move_to_end(key)
        if graph is None:
            graph = self._consider(key, stamp)
            if graph is None:
                return self._unbuilt(key, vector, limit)
        with graph.lock:
            behind = self._sync(key, graph, stamp) if graph.stamp != stamp else IN_STEP
            if behind is None:
                return None
            candidates = scope_graph.candidates(graph, vector, OVERFETCH * limit)
            lacking = behind.new[-RANKED_BEHIND:]
            wanted = min(limit, len(graph.ids) + len(lacking))
        found = self._ranked(key, candidates, lacking.tolist(), vector, limit)
        return found if len(found) >= wanted else None

    def _ranked(
        self, key: ScopeKey, candidates: list[int], lacking: list[int], vector: Vector, limit: int
    ) -> list[int]:
        """The graph's ``candidates`` and the ``lacking`` docs ranked by their stored vectors.

        The lacking ones are mostly what this process stored last: their vectors are taken
        from :attr:`recent` where it has them, not read again.
        """
        docs = [*candidates, *lacking]
        if self.recent is None or not lacking:
            return scope_graph.rank(self.db, key, docs, vector, limit)
        try:
            known = self.recent.known(key[3], lacking, vector)
            return scope_graph.rank(self.db, key, docs, vector, limit, known)
        except scope_graph.Stale as stale:
            _log.warning("vectors kept in memory let go of: %s", stale)
            self.recent.forget()
            return scope_graph.rank(self.db, key, docs, vector, limit)

    def _unbuilt(self, key: ScopeKey, vector: Vector, limit: int) -> list[int] | None:
        """A scope without a graph: ``None`` (scan it exactly), or its newest vectors ranked.

        Only a scope past :data:`.graph_builder.SCANNED_MAX` whose graph is being built is
        not scanned.
        """
        with self._lock:
            if key not in self._unscanned:
                return None
        newest = newest_embedded(self.db, key, 0, RANKED_BEHIND)
        return self._ranked(key, [], newest.tolist(), vector, limit)

    def _consider(self, key: ScopeKey, stamp: Stamp) -> Graph | None:
        """A large scope's saved graph, mapped; else mark a small scope, or have one built.

        A saved graph is used at once, its freshness unknown (:func:`.scope_graph.loaded`):
        no search reads the scope whole to test it (1 s of a first search at 10^6 ids); the
        building thread compares it whole, on its own connection (scheduled here).
        """
        with self._lock:
            if key in self._building:
                return None  # its count was taken; the graph comes
        saved = graph_files.read(self.directory, key) if self._index_class else None
        graph = None if saved is None else self._loaded(key, saved)
        if graph is not None and len(graph.ids) > self.threshold:
            with self._lock:
                if self._closed:
                    return None
                graph = self._graphs.setdefault(key, graph)  # unless another thread's came first
                self._graphs.move_to_end(key)
                self._evict()
            self._schedule(key)  # compared whole with the scope, patched
            return graph
        count = self._counted(key)
        if count <= self.threshold:
            with self._lock:
                if len(self._small) >= MAX_SMALL:
                    self._small.clear()
                self._small[key] = stamp
            return None
        self._build_soon(key, count)
        return None

    def _loaded(self, key: ScopeKey, saved: dict[str, Any]) -> Graph | None:
        """The scope's saved graph (:func:`.scope_graph.loaded`), if there is a readable one."""
        assert self.directory is not None
        try:
            return scope_graph.loaded(self.directory, self._index_class, saved)
        except (OSError, ValueError, KeyError, TypeError, RuntimeError) as error:
            _log.debug("saved vector graph of %s not loaded: %s", key[:3], error)
            return None

    def _sync(self, key: ScopeKey, graph: Graph, stamp: Stamp) -> Lacking | None:
        """Bring ``graph`` up to the database (holding its lock) for a search.

        Returns what the graph still lacks (nothing: in step), its ``new`` docs to be ranked
        beside its candidates, or ``None``: scan exactly for now. A graph more than
        :data:`PATCH_IN_SEARCH` docs behind, or not known to be in step, is left to the
        building thread (scheduled here).
        """
        lacking = self._behind(key, graph, self._changes.position())
        if len(lacking.new) > PATCH_IN_SEARCH or graph.frozen or not lacking.whole:
            graph.lacking = lacking
            self._schedule(key)
            return lacking
        if not self._patch(key, graph, lacking.new, lacking.gone):
            return None
        graph.stamp, graph.position, graph.lacking = stamp, lacking.position, None
        return IN_STEP  # what it lacked is in it now: nothing to rank beside it

    def _behind(self, key: ScopeKey, graph: Graph, now: Position) -> Lacking:
        """What ``graph`` lacks at ``now``, for a search: from what it lacked when last looked.

        The docs this connection changed since come from its log, and only those are read
        again. When the log cannot tell (another connection's commit, or the log was emptied,
        as an import does), a graph already behind, or found far behind by its newest docs,
        is not compared whole here: the newest :data:`RANKED_BEHIND` docs above its highest
        id are ranked beside it until the building thread's comparison catches it up. So
        too when more than :data:`FOLLOWED_MOST` docs changed since, and then it is never
        compared whole here: the building thread catches the graph up.
        """
        known = graph.last_look()
        changed = self._changes.since(known.position, now, FOLLOWED_MOST)
        if changed is not None:
            return scope_graph.followed(self.db, key, graph.ids, known, now, changed)
        above = int(graph.ids[-1]) if len(graph.ids) else 0
        newest = newest_embedded(self.db, key, above, RANKED_BEHIND)
        if (
            graph.lacking is None
            and not graph.frozen
            and len(newest) <= PATCH_IN_SEARCH
            and not self._changes.tells(known.position, now)  # (else: too many to follow)
        ):
            # A few behind: compared whole, and patched in the search.
            return scope_graph.compared(self.db, key, graph.ids, now)
        return Lacking(now, newest, NO_IDS, whole=False)

    def _patch(self, key: ScopeKey, graph: Graph, new: Ids, gone: Ids) -> bool:
        """Add ``new`` docs' vectors and remove ``gone`` ones, unless rebuilding is better.

        Holding the graph's lock. Which is better: :meth:`_patch_or_rebuild`. Docs it already
        holds are not added again (usearch refuses a key twice), nor are docs it does not hold
        removed. A graph on a mapped base takes new docs into its delta and hides gone ones of
        its base (never a copy of the base); once they outgrow the base, the building thread
        builds it again whole.
        """

        @functools.cache
        def changing() -> tuple[Ids, Ids]:
            """Only these change it: what outgrows a base is counted of them (found once)."""
            return new[~contains(graph.ids, new)], gone[contains(graph.ids, gone)]

        upkeep = self._patch_or_rebuild(
            graph, len(graph.ids), len(new), len(gone), lambda: sum(map(len, changing()))
        )
        if upkeep is Upkeep.SMALL:  # (decided by the counts: nothing filtered for it)
            self.drop(lambda k: k == key)
            return False
        if upkeep is Upkeep.REBUILD:
            self._schedule(key)  # cheaper to build again than to patch
            return False
        adding, removing = changing()
        if upkeep is Upkeep.OUTGROWN:
            self._schedule(key)  # built again whole in the background; patched meanwhile
        if len(removing):
            scope_graph.remove(graph, removing)
        if len(adding):
            added = scope_graph.add_vectors(self.db, graph, key, adding)
            if added is None:
                return False
            added = np.sort(added)
            graph.ids = np.insert(graph.ids, np.searchsorted(graph.ids, added), added)
        return True

    def _evict(self) -> None:
        """Drop the least recently used graphs past the limits (holding ``_lock``)."""
        while len(self._graphs) > 1 and (
            len(self._graphs) > MAX_GRAPHS
            or sum(len(graph.ids) for graph in self._graphs.values()) > MAX_GRAPH_VECTORS
        ):
            self._graphs.popitem(last=False)

    # -- lifecycle ----------------------------------------------------------------------

    def prepare(self, tenant: str | None, model: str, timeout: float | None = None) -> bool:
        """Load or build the graph of every large subject scope of ``tenant``, and wait.

        What ``mem.index.wait()`` ends with: a graph is part of the index, and searches scan
        exactly while it is built. A graph already held is brought up to the database first
        (one built at a first search while the backlog was still embedded lacks the rest; if
        patching it costs more than building it again, the build is waited for).
        Tenant-wide scopes (``subject=None``) are left to their first search. False if
        ``timeout`` seconds passed first.
        """
        if self._index_class is None or self._closed:
            return True
        where = "subject IS NOT NULL AND deleted_at IS NULL AND model = %(model)s"
        parameters: dict[str, Any] = {"model": model}
        if tenant is not None:
            where += " AND tenant = %(tenant)s"
            parameters["tenant"] = tenant
        large = self.db.fetchall(
            f"SELECT tenant, subject, kind FROM search_docs WHERE {where} "
            "GROUP BY tenant, subject, kind HAVING count(*) > %(threshold)s",
            {**parameters, "threshold": self.threshold},
        )
        deadline = None if timeout is None else time.monotonic() + timeout
        for _ in range(PREPARE_PASSES):
            behind = False
            for owner, subject, kind in large:
                behind |= self._prepare_one((owner, subject, kind, model))
            remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
            if not self.wait(remaining):
                return False
            if not behind:
                break
        return True

    def _prepare_one(self, key: ScopeKey) -> bool:
        """Load, build or bring up to date one scope's graph; False if it was in step."""
        stamp = change_stamp(self.db)
        with self._lock:
            building, graph = key in self._building, self._graphs.get(key)
        if building:
            return True  # caught up or built from what was stored when it began: look again
        if graph is None:
            graph = self._consider(key, stamp)
            if graph is None:
                return True
        with graph.lock:  # a graph built before the backlog drained misses its vectors:
            if graph.stamp == stamp:  # patched now, or brought up to date (waited for)
                return False
            behind = self._sync(key, graph, stamp)
        return behind is None or len(behind.new) > 0 or not behind.whole

    def building_count(self, tenant: str | None, model: str) -> int:
        """Vectors in ``tenant``'s scopes of ``model`` whose graph is being built."""
        with self._lock:
            building = [k for k in self._building if tenant in (None, k[0]) and k[3] == model]
        return sum(embedded_count(self.db, key) for key in building)

    def wait(self, timeout: float | None = None) -> bool:
        """Block until no graph is being built; False if ``timeout`` seconds passed first."""
        with self._idle:
            return self._idle.wait_for(lambda: not self._building, timeout)

    def scopes(self) -> list[ScopeKey]:
        """The scopes that have a graph now: ``(tenant, subject, kind, model)``."""
        with self._lock:
            return list(self._graphs)

    def drop(self, which: Any) -> None:
        """Forget the graphs (and small marks) whose scope key ``which(key)`` accepts."""
        with self._lock:
            for key in [k for k in self._graphs if which(k)]:
                del self._graphs[key]
            for key in [k for k in self._small if which(k)]:
                del self._small[key]

    def purged(self, tenant: str, subject: str) -> None:
        """A subject's deleted docs were removed: drop every graph that held them, saved too."""

        def held(key: Sequence[Any]) -> bool:
            return key[0] == tenant and key[1] in (subject, None)

        self.drop(held)
        graph_files.delete(self.directory, held)

    def close(self) -> None:
        """Stop building, save what the graphs' files lack, and forget every graph.

        (Before the connection closes.) The next process then maps each graph as it was.
        """
        with self._lock:
            self._closed = True
        self._stop_building()
        self._save_unsaved()
        self.drop(lambda key: True)
