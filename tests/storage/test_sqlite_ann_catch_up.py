"""SQLite's vector graphs caught up in place: a piece at a time, under a lock searches go first.

The building thread brings a held graph up to the database without copying it (usearch holds
the GIL for a whole copy), a piece at a time under the graph's lock, reading on the database's
read-only connections; a search waits one piece at most and never takes another thread's write
for its own.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

import memlane
from memlane import pacing
from memlane.storage import vectors
from memlane.storage.sql import SQLSummaryStore
from memlane.storage.sql.dialect import DocScope
from memlane.storage.sqlite import database, graph_builder, scope_graph
from tests.support.ann_graphs import (
    MODEL,
    add,
    behind,
    built,
    indexes,
    search,
    store_fixture,  # noqa: F401 (the fixture ``store``)
    unit,
)


class _SecondPieceWaits:
    """A graph's lock the building thread takes again, after its first piece, only on ``go``."""

    def __init__(self, graph: scope_graph.Graph) -> None:
        self.graph, self.lock, self.held = graph, graph.lock, len(graph.ids)
        self.waiting, self.go = threading.Event(), threading.Event()

    def __enter__(self) -> None:
        self.lock.__enter__()

    def __exit__(self, *_: object) -> None:
        self.lock.__exit__()

    @contextmanager
    def after_searches(self) -> Iterator[None]:
        if len(self.graph.ids) > self.held and not self.go.is_set():
            self.waiting.set()
            assert self.go.wait(30)
        with self.lock.after_searches():
            yield


def test_a_graph_is_caught_up_in_place_a_piece_at_a_time(
    store: SQLSummaryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a graph lacks is added to it in pieces, each under its lock: a search comes
    between two pieces and finds the first one in it. Before, the building thread copied the
    graph whole and patched the copy; usearch holds the GIL for all of a copy, so every
    thread of the process stood still while it ran (over a second at 10^6 vectors)."""
    monkeypatch.setattr(graph_builder, "PATCH_PIECE", 50)
    setup = behind(store, monkeypatch, seed=47)
    (graph,) = indexes(store)._graphs.values()
    paused = graph.lock = _SecondPieceWaits(graph)  # type: ignore[assignment]
    owners, everything = setup.owners + setup.late_owners, np.vstack([setup.matrix, setup.late])
    query = setup.late[120]
    assert search(store, "t", "U-1", query) == vectors.nearest(query, owners, everything, 10)
    setup.gate.set()  # the catch-up the search asked for runs, up to its second piece
    assert paused.waiting.wait(30)
    assert len(graph.ids) == 300 + 50  # the first piece, in the searches' own graph
    assert search(store, "t", "U-1", query) == vectors.nearest(query, owners, everything, 10)
    paused.go.set()
    assert store.graphs_ready("t", MODEL, 30)
    assert indexes(store)._graphs[("t", "U-1", "note", MODEL)] is graph
    assert len(graph.ids) == 500 and not graph.frozen


def test_a_patch_adds_no_doc_twice_and_removes_none_it_lacks(
    store: SQLSummaryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """usearch refuses a key it holds (the patch failed), and removing an id the graph lacks
    took another id out of its list (the list and the graph then disagreed)."""
    rng = np.random.default_rng(48)
    add(store, "t", "U-1", unit(rng, 200))
    built(store, "t", "U-1", unit(rng, 1)[0])
    key = ("t", "U-1", "note", MODEL)
    graph = indexes(store)._graphs[key]
    held = graph.ids.copy()
    with graph.lock:
        assert indexes(store)._patch(key, graph, held[:5], np.asarray([held[-1] + 1000]))
    assert np.array_equal(graph.ids, held) and len(graph.index) == len(held)


def test_another_thread_s_open_write_is_not_this_thread_s(
    store: SQLSummaryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A search while another thread holds a write open waits for it and uses the graph.
    Before, the connection's one nesting depth made every thread take any open write for its
    own, and a search inside a write scans exactly: the whole scope (19 s at 10^6 vectors,
    each time the background indexer was storing vectors)."""
    rng = np.random.default_rng(49)
    matrix = unit(rng, 300)
    owners = add(store, "t", "U-1", matrix)
    built(store, "t", "U-1", matrix[0])
    opened, done = threading.Event(), threading.Event()

    def write() -> None:
        with store.transaction():
            assert store.db.in_transaction  # its own
            opened.set()
            assert done.wait(30)

    writer = threading.Thread(target=write)
    writer.start()
    assert opened.wait(30)
    found: list[list[int] | None] = []
    scope = DocScope("t", "U-1", "note")
    searcher = threading.Thread(
        target=lambda: found.append(indexes(store).nearest(scope, MODEL, matrix[4], 10))
    )
    try:
        assert not store.db.in_transaction
        searcher.start()
        searcher.join(0.3)  # it waits for the writer's lock (before: answered "scan" at once)
    finally:
        done.set()
        writer.join(30)
    searcher.join(30)
    assert found[0] is not None and found[0][0] == owners[4]


def test_the_building_thread_reads_on_the_read_only_connections(
    store: SQLSummaryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A build's chunks (and a catch-up's ids and pieces) are read on the database's read-only
    connections, as every thread's reads outside a write transaction: on the shared one each
    of its statements held the lock that every search and write of the process waits for."""
    shared, read_on = store.db.connection, []
    rows = database._rows

    def recorded(connection: sqlite3.Connection, *args: Any) -> list[Any]:
        if threading.current_thread().name == "memlane-vector-index":
            read_on.append(connection)
        return rows(connection, *args)

    monkeypatch.setattr(database, "_rows", recorded)
    rng = np.random.default_rng(50)
    matrix = unit(rng, 300)
    owners = add(store, "t", "U-1", matrix)
    assert built(store, "t", "U-1", matrix[9])[0] == owners[9]
    assert read_on and shared not in read_on


def test_a_search_waiting_for_a_graph_goes_before_the_building_thread_s_next_piece(
    store: SQLSummaryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A plain lock is no queue: the building thread, taking the graph's lock again right after
    each piece, won it back from a waiting search piece after piece (1.1 s of waiting for one
    recall at 10^5). Now a search waiting while a piece is added goes next."""
    monkeypatch.setattr(graph_builder, "PATCH_PIECE", 10)
    setup = behind(store, monkeypatch, seed=51)  # 200 behind: 20 pieces
    (graph,) = indexes(store)._graphs.values()
    search(store, "t", "U-1", setup.late[0])  # has the catch-up scheduled
    pieces: list[int] = []
    searched_after: list[int] = []
    searcher = threading.Thread(target=lambda: search(store, "t", "U-1", setup.late[1]))
    add_vectors, candidates = scope_graph.add_vectors, scope_graph.candidates

    def piece(*args):  # type: ignore[no-untyped-def]
        pieces.append(len(args[3]))
        if len(pieces) == 3:  # a search comes while the building thread holds the lock
            searcher.start()
            deadline = time.monotonic() + 30
            while not graph.lock._waiting and time.monotonic() < deadline:
                time.sleep(0.001)
        return add_vectors(*args)

    monkeypatch.setattr(scope_graph, "add_vectors", piece)
    monkeypatch.setattr(
        scope_graph,
        "candidates",
        lambda *a: searched_after.append(len(pieces)) or candidates(*a),  # type: ignore[func-returns-value]
    )
    setup.gate.set()
    assert store.graphs_ready("t", MODEL, 30)
    searcher.join(30)
    assert len(pieces) == 20 and searched_after[0] == 3


def test_the_building_thread_waits_for_the_requests_before_each_step(
    store: SQLSummaryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Niceness shares the cores, not the interpreter: a catch-up beside a recall made it wait
    for the interpreter at every return from the database. Each step (a build's chunk, a
    catch-up's reads and pieces) now waits for the requests in progress: every step, not
    once per :data:`memlane.pacing.STEP_SECONDS` of them as paced writes do."""
    monkeypatch.setattr(pacing, "STEP_SECONDS", 60.0)  # a write's pacing would not wait here
    monkeypatch.setattr(graph_builder, "PATCH_PIECE", 10)
    request_ended = threading.Event()
    request_ended.set()  # none in progress while the graph is built
    waits: list[tuple[str, int]] = []

    def wait_for_requests() -> None:
        (graph,) = indexes(store)._graphs.values() or (None,)
        waits.append((threading.current_thread().name, 0 if graph is None else len(graph.ids)))
        assert request_ended.wait(30)

    store.graphs_pace(wait_for_requests)
    setup = behind(store, monkeypatch, seed=52)  # built of 300, 200 stored since
    waits.clear()
    request_ended.clear()  # a request in progress from now on
    search(store, "t", "U-1", setup.late[0])  # has the catch-up scheduled
    setup.gate.set()
    deadline = time.monotonic() + 30
    while not waits and time.monotonic() < deadline:  # the thread reaches its first step
        time.sleep(0.001)
    assert not store.graphs_ready("t", MODEL, 0.3)  # a request in progress: no step taken
    assert waits == [("memlane-vector-index", 300)]
    request_ended.set()
    assert store.graphs_ready("t", MODEL, 30)
    sizes = [size for _, size in waits]
    assert sizes[-20:] == list(range(300, 500, 10))  # before each of its 20 pieces too
    assert {name for name, _ in waits} == {"memlane-vector-index"}


def test_the_indexer_paces_the_graphs_of_its_store(tmp_path: Path) -> None:
    with memlane.Memory(str(tmp_path / "m.db"), embedder="hash") as mem:
        graphs = mem._resources.backend.summaries.dialect.vector_indexes  # type: ignore[attr-defined]
        assert graphs._wait_for_requests == mem._resources.indexer.requests_first


def test_patch_or_rebuild_decides_by_its_rules_in_order() -> None:
    """Small first, then removals past a third, then a mapped base outgrown (1/2), else patch."""
    upkeep = graph_builder.Upkeep
    builder = SimpleNamespace(threshold=100)

    def decided(
        removed: int, new: int, gone: int, changes: int | Callable[[], int] | None = None
    ) -> object:
        graph = scope_graph.Graph(
            ids=np.arange(300),
            index=[],  # nothing in its delta
            dims=4,
            stamp=None,
            position=scope_graph.UNKNOWN,
            removed=removed,
            base=object(),
            base_ids=np.arange(300),
        )
        decide = graph_builder.GraphBuilder._patch_or_rebuild
        return decide(builder, graph, 300, new, gone, changes)  # type: ignore[arg-type]

    assert decided(0, 0, 200) is upkeep.SMALL  # 100 left: scanned exactly
    assert decided(0, 0, 199) is upkeep.REBUILD  # 199 removed of 101
    assert decided(60, 0, 30) is upkeep.PATCH  # 90 removed of 270: not past a third
    assert decided(61, 0, 30) is upkeep.REBUILD
    assert decided(0, 151, 0) is upkeep.OUTGROWN  # 151 changes on a base of 300
    assert decided(0, 150, 0) is upkeep.PATCH
    assert decided(0, 151, 0, changes=10) is upkeep.PATCH  # only those that change it
    asked: list[int] = []

    def counted() -> int:  # the changes, found (filtered) only if a rule asks
        asked.append(10)
        return 10

    assert decided(0, 0, 200, changes=counted) is upkeep.SMALL
    assert decided(61, 0, 30, changes=counted) is upkeep.REBUILD
    assert not asked  # the counts decided: nothing filtered for them
    assert decided(0, 151, 0, changes=counted) is upkeep.PATCH and asked == [10]
