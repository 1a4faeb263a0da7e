"""The building thread of SQLite's vector graphs: builds, catch-ups, following the indexer.

:class:`GraphBuilder` is the side of :class:`.ann.VectorIndexes` that runs in the background
(the searching side and the lifecycle are :mod:`.ann`'s). One thread per database builds a
scope's graph from its rows, brings a held or saved graph up to the database in place, a piece
at a time, saves it, and looks at the scopes the background indexer stored vectors to. It reads
through the database as any thread does: outside a write transaction, not holding its lock,
each query runs on one of its read-only connections (:class:`.database.ReadConnections`), so
its long reads never hold the shared connection that searches and writes wait for. They see
what was committed, at least as much as the stamp taken before them, and a graph found ahead
of its stamp costs nothing (the docs changed since are judged again).

The seam: the building side uses of the searching side only what :class:`GraphBuilder`
declares (the graphs held, ``_patch``, ``_loaded``, ``_evict``); the searching side asks it to
``_schedule`` a scope, ``_build_soon`` a large one, or count one (``_counted``).
"""

from __future__ import annotations

import json
import logging
import queue
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memlane.errors import StorageError
from memlane.pacing import paced, pause
from memlane.storage.sqlite import graph_files, scope_graph
from memlane.storage.sqlite.doc_changes import DocChanges
from memlane.storage.sqlite.graph_rows import (
    CHUNK,
    Ids,
    ScopeKey,
    Stamp,
    change_stamp,
    embedded_count,
)
from memlane.storage.sqlite.scope_graph import NO_IDS, Graph
from memlane.storage.threads import lower_priority

if TYPE_CHECKING:
    from memlane.storage.sqlite.database import SQLiteDatabase

_log = logging.getLogger("memlane.storage.sqlite.ann")

SCANNED_MAX = 20_000
"""Most vectors of a scope a search scans exactly while the scope's graph is being built. A
larger scope ranks its newest :data:`.ann.RANKED_BEHIND` vectors until its graph is ready, and the
rest is found by words meanwhile, as items not yet embedded are: the exact scan of 10^6 vectors
read a gigabyte per search (seconds) for the many minutes such a build takes."""
PATCH_PIECE = 16
"""Vectors the building thread adds to a graph at a time, each piece under the graph's lock
(:meth:`GraphBuilder._catch_up`): a search of the scope waits for one piece at most (~8 ms
at ~0.5 ms a vector in a graph of 10^6; usearch releases the GIL while it adds). Recalls
while a 10^5-note import's backlog drained waited 6.3-6.8 ms (median) for the lock with
pieces of 32, 2.8 with 16 and 0.0-0.9 with 8, the drain taking 6.7-8.0, 7.7 and 8.3-8.8 s
(docs/benchmarks.md, stop 43)."""
FOLLOW_EVERY = CHUNK
"""Vectors the background indexer stores between two looks at the scopes they went to
(:meth:`GraphBuilder.follow`): large ones get their graph built or brought up to date."""
BUILD_NICE = 5
"""The building thread's niceness (Linux), added to the process's: the searches it serves
meanwhile (exact scans) get the cores first. As the indexer's worker
(:data:`memlane.summaries.indexer.WORKER_NICE`). Niceness shares the cores, not the
interpreter: between its steps the thread also lets the requests in progress go first
(:meth:`GraphBuilder.pace`)."""


class Upkeep(Enum):
    """What changes to a held graph call for (:meth:`GraphBuilder._patch_or_rebuild`)."""

    PATCH = "patch"
    """Add the new docs and remove the gone ones in place."""
    SMALL = "small"
    """The scope is at or under the threshold now: it is scanned exactly, no graph kept."""
    REBUILD = "rebuild"
    """Too much of the graph would be removed docs: build it again instead of patching it."""
    OUTGROWN = "outgrown"
    """Its mapped base and delta would be outgrown: build it again whole (patched meanwhile)."""


@dataclass(frozen=True)
class _Follow:
    """Docs whose vectors of ``model`` the indexer stored (:meth:`GraphBuilder.follow`)."""

    model: str
    ids: list[int]


class GraphBuilder:
    """The building thread's side of a database's vector graphs (:class:`.ann.VectorIndexes`).

    Its state is the thread, its queue and which scopes are being built; what it reads and
    replaces of the searching side is declared here.
    """

    # -- the searching side, as the building thread uses it ---------------------------------

    db: SQLiteDatabase
    threshold: int
    directory: Path | None
    _index_class: Any
    _changes: DocChanges
    _graphs: OrderedDict[ScopeKey, Graph]
    _small: dict[ScopeKey, Stamp]
    _lock: threading.Lock
    _closed: bool

    def _patch(self, key: ScopeKey, graph: Graph, new: Ids, gone: Ids) -> bool:
        """Add and remove docs of a held graph (:meth:`.ann.VectorIndexes._patch`)."""
        raise NotImplementedError

    def _patch_or_rebuild(
        self,
        graph: Graph,
        held: int,
        new: int,
        gone: int,
        changes: int | Callable[[], int] | None = None,
    ) -> Upkeep:
        """Whether a graph holding ``held`` docs is patched with ``new`` and ``gone`` ones.

        For a search's patch (:meth:`.ann.VectorIndexes._patch`) and the building thread's
        catch-up (:meth:`_catch_up`) alike, in this order:

        - :attr:`Upkeep.SMALL` when the scope would hold ``threshold`` docs or fewer: a scope
          that small is scanned exactly (:data:`.ann.THRESHOLD`, where the scan stops costing
          more than a graph), so its graph is not kept up;
        - :attr:`Upkeep.REBUILD` when the docs removed from the graph (those before and
          ``gone``) pass a third of what it would hold: usearch only marks a removed vector,
          and a base only hides it, so every search still walks past them and their memory
          stays; a graph built again holds none (the third dates from the first graphs,
          285d741, no measurement of it is recorded);
        - :attr:`Upkeep.OUTGROWN` when a graph on a mapped base would pass its share of
          changes since the base with ``changes`` more (``new`` and ``gone`` unless given:
          those it does not hold already, or holds, when the caller knows; a function is
          asked only here, once the rules before did not decide):
          :meth:`.scope_graph.Graph.outgrown`, :data:`.scope_graph.DELTA_SHARE`;
        - else :attr:`Upkeep.PATCH`.
        """
        total = held + new - gone
        if total <= self.threshold:
            return Upkeep.SMALL
        if graph.removed + gone > total // 3:
            return Upkeep.REBUILD
        if changes is None:
            changes = new + gone
        if graph.outgrown(changes if isinstance(changes, int) else changes()):
            return Upkeep.OUTGROWN
        return Upkeep.PATCH

    def _loaded(self, key: ScopeKey, saved: dict[str, Any]) -> Graph | None:
        """The scope's saved graph (:meth:`.ann.VectorIndexes._loaded`)."""
        raise NotImplementedError

    def _evict(self) -> None:
        """Drop graphs past the limits (:meth:`.ann.VectorIndexes._evict`)."""
        raise NotImplementedError

    def _start_building(self) -> None:
        """The building side's state (after ``_lock`` is set): no thread until one is needed."""
        self._wait_for_requests: Callable[[], object] = _no_requests
        self._building: set[ScopeKey] = set()
        self._unscanned: set[ScopeKey] = set()  # building, and past SCANNED_MAX
        self._queue: queue.SimpleQueue[ScopeKey | _Follow | None] = queue.SimpleQueue()
        self._stored: dict[str, list[int]] = {}  # model -> docs stored since the last look
        self._worker: threading.Thread | None = None
        self._idle = threading.Condition(self._lock)

    def _stop_building(self) -> None:
        """End the building thread, if it runs (``_closed`` set first)."""
        with self._lock:
            worker = self._worker
        if worker is not None:
            self._queue.put(None)
            worker.join()

    def pace(self, wait_for_requests: Callable[[], object]) -> None:
        """Between its steps the building thread calls ``wait_for_requests()`` (paced work).

        The caller's requests in progress then go first: a catch-up beside the first recall
        after an import of 10^5 notes, reading ids and adding vectors in 5 ms turns of the
        interpreter, made that recall wait 29 of its 84 ms (stop 42). It waits after every
        step, not once per 5 ms of steps as long writes do: each time a recall's thread comes
        back from the database or numpy it waits for whichever thread holds the interpreter,
        and a catch-up that went on for 5 ms of steps beside recalls took 70 ms of CPU
        during ten of them, 40 ms waiting after each step (docs/benchmarks.md, stop 44).
        A step (a piece of :data:`PATCH_PIECE` vectors, a chunk of a build, one read) is
        never cut; the wait is bounded by ``wait_for_requests`` (the indexer's
        :meth:`~memlane.summaries.indexer.Indexer.requests_first`), so requests that never
        pause delay a build, never stop it.
        """
        self._wait_for_requests = wait_for_requests

    # -- building -------------------------------------------------------------------------

    def _schedule(self, key: ScopeKey) -> None:
        with self._lock:
            if key in self._building or self._closed:
                return
            self._building.add(key)
            self._start_worker()
        self._queue.put(key)

    def _start_worker(self) -> None:
        """Start the building thread unless it runs (holding ``_lock``)."""
        if self._worker is None:
            self._worker = threading.Thread(
                target=self._work, name="memlane-vector-index", daemon=True
            )
            self._worker.start()

    def _work(self) -> None:
        lower_priority(BUILD_NICE)
        with paced(lambda: self._wait_for_requests(), step=0.0):  # (see ``pace``)
            self._serve()

    def _serve(self) -> None:
        """Build, catch up and follow until closed (the building thread's loop)."""
        while (key := self._queue.get()) is not None:
            pause()
            if isinstance(key, _Follow):
                self._follow_scopes(key)
                continue
            try:
                graph = self._refresh(key)  # caught up in place, or built again
            except StorageError as error:  # the database closed or failed: scan exactly
                _log.debug("vector graph of %s not built: %s", key[:3], error)
                graph = None
            except Exception:  # a bug must not stop the worker; the scope is scanned instead
                _log.exception("vector graph of %s not built", key[:3])
                graph = None
            if graph is not None:
                self._save(key, graph)
                with graph.lock:
                    graph.frozen = False  # searches patch it again
            with self._lock:
                self._building.discard(key)
                self._unscanned.discard(key)
                if graph is not None and not self._closed:
                    self._graphs.pop(key, None)
                    self._graphs[key] = graph  # the most recently used
                    self._small.pop(key, None)
                    self._evict()
                self._idle.notify_all()

    def _save(self, key: ScopeKey, graph: Graph) -> None:
        """Save the graph once it doubled since last saved (each size once).

        Frozen or not yet shared: no search patches it meanwhile. A graph on a mapped base
        saves only its delta and hidden ids beside the base (a small save: usearch holds the
        GIL for all of one), once they doubled; one without saves all of it.
        """
        if graph.base is not None:
            due = graph.changed_since_base() >= 2 * graph.delta_saved
        else:
            due = len(graph.ids) >= 2 * graph.saved
        if due:
            self._write(key, graph)

    def _save_unsaved(self) -> None:
        """Save what each held graph's files lack, once the building thread has ended.

        The doubling rule of :meth:`_save` leaves up to half of a graph unsaved (an import of
        10^5 notes ended with 50,200 saved): the next process then ranked the newest
        :data:`.ann.RANKED_BEHIND` vectors beside the saved graph at every search, found the
        other missing ones by their words only, and built the graph again (~35 s at 10^5).
        A delta that outgrew its base is not saved: the next process builds it again whole
        anyway (:meth:`.scope_graph.Graph.outgrown`).
        """
        with self._lock:
            held = list(self._graphs.items())
        for key, graph in held:
            with graph.lock:
                if graph.unsaved and not graph.outgrown():
                    self._write(key, graph)

    def _write(self, key: ScopeKey, graph: Graph) -> None:
        """Write the graph's files: its delta beside its mapped base, else all of it."""
        if graph.base is not None:
            changed = graph.changed_since_base()
            if not changed or graph.base_files is None:
                return
            delta = graph.delta_ids()
            graph_files.save_delta(
                self.directory, key, graph.base_files, graph.index, delta, graph.hidden
            )
            graph.delta_saved = changed
        else:
            graph_files.save(self.directory, key, graph.index, graph.ids, graph.dims)
            graph.saved = len(graph.ids)
        graph.unsaved = 0

    def _refresh(self, key: ScopeKey) -> Graph | None:
        """The held graph (or the saved one) brought up to date, or a new one built.

        In the building thread. :meth:`_save` saves the graph again once it holds twice what
        was saved (a graph following an import is written a few times, not at every catch-up).
        """
        with self._lock:
            held = self._graphs.get(key)
        if held is None and self._index_class is not None:
            saved = graph_files.read(self.directory, key)  # mapped here, then compared whole
            held = None if saved is None else self._loaded(key, saved)
        caught_up = None if held is None else self._catch_up(key, held)
        return caught_up if caught_up is not None else self._build(key)

    def follow(self, model: str, doc_ids: Sequence[int]) -> None:
        """The background indexer stored vectors of ``model`` for these docs.

        Every :data:`FOLLOW_EVERY` of them, the building thread looks at the subject scopes
        they went to: one past :data:`THRESHOLD` without a graph gets one built, a held graph
        is brought up to date. So a search right after an import finds a graph (nearly) in
        step instead of scanning every vector of the subject.
        """
        if self._index_class is None or self._closed:
            return
        with self._lock:
            stored = self._stored.setdefault(model, [])
            stored.extend(doc_ids)
            if len(stored) < FOLLOW_EVERY:
                return
            del self._stored[model]
            self._start_worker()
        self._queue.put(_Follow(model, stored))

    def _follow_scopes(self, follow: _Follow) -> None:
        """Build or bring up to date the graphs of the scopes ``follow`` went to.

        A subject's graph is built once it passes the threshold; a tenant-wide one is kept up
        to date once a search had it built (it is large, and few tenants are searched whole).
        """
        try:
            rows = self.db.fetchall(
                "SELECT DISTINCT tenant, subject, kind FROM search_docs "
                "WHERE id IN (SELECT value FROM json_each(%(ids)s)) AND subject IS NOT NULL",
                {"ids": json.dumps(list(follow.ids))},
            )
            subjects = [(tenant, subject, kind, follow.model) for tenant, subject, kind in rows]
            tenants = {(tenant, None, kind, follow.model): None for tenant, _, kind in rows}
            for key in [*subjects, *tenants]:
                with self._lock:
                    if key in self._building:
                        continue
                    held = key in self._graphs
                if held:
                    self._schedule(key)
                elif key[1] is not None and (count := self._counted(key)) > self.threshold:
                    self._build_soon(key, count)
        except StorageError as error:  # the database closed or failed: searches decide
            _log.debug("vector graphs not followed: %s", error)

    def _counted(self, key: ScopeKey) -> int:
        """The scope's embedded vectors, counted only as far as deciding on it needs."""
        return embedded_count(self.db, key, max(self.threshold, SCANNED_MAX) + 1)

    def _build_soon(self, key: ScopeKey, count: int) -> None:
        """Have a graph built for a scope of ``count`` vectors that has none.

        Past :data:`SCANNED_MAX` it is marked first as not to be scanned: until the graph is
        ready a search ranks its newest vectors instead (``VectorIndexes._unbuilt``), whether
        a search or the indexer (:meth:`_follow_scopes`) asked for the build; else every
        recall of an imported 10^5-note subject scanned all its vectors until then.
        """
        if count > SCANNED_MAX:
            with self._lock:
                self._unscanned.add(key)
        self._schedule(key)

    def _catch_up(self, key: ScopeKey, held: Graph) -> Graph | None:
        """The held graph brought up to the database in place; ``None``: build it again.

        In the building thread. The graph is frozen first: searches add nothing to it any
        more (they rank what it lacks beside it), so what it lacks is found once and added
        :data:`PATCH_PIECE` vectors at a time, each piece under its lock: a search waits for
        one piece at most. It is never copied whole: usearch holds the GIL for all of a copy
        (~1.2 us a vector, so every thread of the process stood still for over a second at
        10^6), and an import has its graph caught up every :data:`FOLLOW_EVERY` vectors. It
        stays frozen until :meth:`_serve` has saved it (if it doubled). A graph on a mapped
        base takes what it lacks into its delta; if base and delta are then outgrown
        (:meth:`.scope_graph.Graph.outgrown`), it is built again whole instead.
        """
        with held.lock:
            held.frozen = True
            known, ids = held.last_look(), held.ids  # (patches replace ``ids``, never write it)
        pause()
        stamp, now = change_stamp(self.db), self._changes.position()
        changed = self._changes.since(known.position, now) if known.whole else None
        pause()
        if changed is None:
            _, new, gone, _ = scope_graph.compared(self.db, key, ids, now)
        else:
            _, new, gone, _ = scope_graph.followed(self.db, key, ids, known, now, changed)
        if self._patch_or_rebuild(held, len(ids), len(new), len(gone)) is not Upkeep.PATCH:
            return None
        # However many vectors are new, adding them costs less than building again: a build
        # adds the held ones too (~0.5 ms each).
        with held.lock:
            if not self._patch(key, held, NO_IDS, gone):
                return None
        for start in range(0, len(new), PATCH_PIECE):
            piece = new[start : start + PATCH_PIECE]
            pause()
            with held.lock.after_searches():  # a search waits one piece at most
                if self._closed or not self._patch(key, held, piece, NO_IDS):
                    return None
        with held.lock:
            held.stamp, held.position, held.lacking = stamp, now, None
        return held

    def _build(self, key: ScopeKey) -> Graph | None:
        """A new graph of the scope (:func:`.scope_graph.build`), stopped if this closes."""
        at = change_stamp(self.db), self._changes.position()
        return scope_graph.build(self.db, self._index_class, key, at, lambda: self._closed)


def _no_requests() -> None:
    """What the building thread waits for until :meth:`GraphBuilder.pace` is called: nothing."""
