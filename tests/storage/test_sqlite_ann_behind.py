"""SQLite's vector graphs behind the database: builds, catch-ups, the change log, the indexer.

A graph is a cache that lags the database while vectors are stored (an import, a backlog being
embedded, another process's writes). Searches must answer as the exact scan would for what they
rank, never read a large scope whole to find what the graph lacks, and leave the catching up to
the building thread.
"""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest

import memlane
from memlane.storage import vectors
from memlane.storage.sql import SQLSummaryStore
from memlane.storage.sqlite import ann, doc_changes, graph_builder, graph_rows, scope_graph
from memlane.storage.sqlite.database import SQLiteDatabase
from tests.support.ann_graphs import (
    MODEL,
    add,
    behind,
    built,
    held_builds,
    indexes,
    search,
    store_fixture,  # noqa: F401 (the fixture ``store``)
    unit,
    whole_reads,
)


def test_graphs_ready_builds_the_large_subjects_without_a_search(
    store: SQLSummaryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What ``mem.index.wait()`` ends with: graphs built, counted as pending meanwhile."""
    rng = np.random.default_rng(38)
    add(store, "t", "U-1", unit(rng, 400))
    add(store, "t", "U-2", unit(rng, 20))  # small: scanned
    add(store, "other", "U-1", unit(rng, 300))
    gate = threading.Event()
    build = ann.VectorIndexes._build
    monkeypatch.setattr(
        ann.VectorIndexes, "_build", lambda self, key: gate.wait(30) and build(self, key)
    )
    assert store.graphs_pending("t", MODEL) == 0
    assert not store.graphs_ready("t", MODEL, 0.05)
    assert store.graphs_pending("t", MODEL) == 400
    assert store.graphs_pending("other", MODEL) == 0
    gate.set()
    assert store.graphs_ready("t", MODEL, 30)
    assert store.graphs_pending("t", MODEL) == 0
    assert indexes(store).scopes() == [("t", "U-1", "note", MODEL)]


def test_graphs_ready_brings_a_graph_built_early_up_to_the_database(
    store: SQLSummaryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A graph built at a search while most vectors were still to come is rebuilt by then."""
    rng = np.random.default_rng(39)
    add(store, "t", "U-1", unit(rng, 200))
    early = built(store, "t", "U-1", unit(rng, 1)[0])  # the first search builds 200
    assert early
    add(store, "t", "U-1", unit(rng, 800))  # patched or built again, as is cheaper
    assert store.graphs_ready("t", MODEL, 30)
    (graph,) = indexes(store)._graphs.values()
    assert len(graph.ids) == 1000
    searched = []
    sync = ann.VectorIndexes._sync
    monkeypatch.setattr(ann.VectorIndexes, "_sync", lambda *a: searched.append(a) or sync(*a))
    assert len(search(store, "t", "U-1", unit(rng, 1)[0])) == 10
    assert not searched  # in step: nothing left to patch, no scan instead of the graph


def test_a_graph_far_behind_is_patched_not_built_again(
    store: SQLSummaryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Vectors stored faster than the graph follows are added to it, never a rebuild of all."""
    rng = np.random.default_rng(41)
    add(store, "t", "U-1", unit(rng, 200))
    assert built(store, "t", "U-1", unit(rng, 1)[0])
    builds = []
    build = ann.VectorIndexes._build
    monkeypatch.setattr(ann.VectorIndexes, "_build", lambda *a: builds.append(a) or build(*a))
    matrix = unit(rng, 2 * graph_rows.CHUNK + 100)  # over a building chunk and ten times the graph
    ids = add(store, "t", "U-1", matrix)
    assert store.graphs_ready("t", MODEL, 30)
    (graph,) = indexes(store)._graphs.values()
    assert len(graph.ids) == 200 + len(matrix) and not builds
    assert search(store, "t", "U-1", matrix[7])[0] == ids[7]


def test_a_build_reads_what_was_stored_when_it_began_and_catches_up_after(
    store: SQLSummaryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Vectors stored during a build are patched in after it, not chased by it (an import
    that stores vectors as fast as the build adds them would keep it from ending)."""
    rng = np.random.default_rng(43)
    first = add(store, "t", "U-1", unit(rng, 200))
    gate, reading, read = threading.Event(), threading.Event(), []
    chunk = scope_graph.vector_chunk

    def held_chunk(*args):  # type: ignore[no-untyped-def]
        rows = chunk(*args)
        read.extend(row[0] for row in rows)
        reading.set()
        assert gate.wait(30)
        return rows

    monkeypatch.setattr(scope_graph, "vector_chunk", held_chunk)
    search(store, "t", "U-1", unit(rng, 1)[0])  # starts the build
    assert reading.wait(30)
    later = add(store, "t", "U-1", unit(rng, 300))
    gate.set()
    assert indexes(store).wait(30)
    assert set(read) <= set(first)  # the build stopped where the scope ended when it began
    (graph,) = indexes(store)._graphs.values()
    assert sorted(graph.ids.tolist()) == sorted(first)
    assert store.graphs_ready("t", MODEL, 30)  # what mem.index.wait() ends with
    (caught_up,) = indexes(store)._graphs.values()
    assert sorted(caught_up.ids.tolist()) == sorted(first + later)


def test_own_writes_patch_the_graph_from_the_log(store: SQLSummaryStore, monkeypatch) -> None:
    """After this connection's writes only the docs they touched are read, not the scope."""
    rng = np.random.default_rng(14)
    matrix = unit(rng, 400)
    owners = add(store, "t", "U-1", matrix)
    built(store, "t", "U-1", matrix[0])
    whole = whole_reads(monkeypatch)
    probe = unit(rng, 1)
    [late] = add(store, "t", "U-1", probe)
    store.db.execute("UPDATE search_docs SET deleted_at = 1 WHERE owner_id = %s", (owners[3],))
    assert search(store, "t", "U-1", probe[0], k=1) == [late]
    assert owners[3] not in search(store, "t", "U-1", matrix[3], k=10)
    assert whole == []


def test_an_emptied_log_falls_back_to_comparing_the_scope(
    store: SQLSummaryStore, monkeypatch
) -> None:
    rng = np.random.default_rng(15)
    matrix = unit(rng, 400)
    owners = add(store, "t", "U-1", matrix)
    built(store, "t", "U-1", matrix[0])
    monkeypatch.setattr(doc_changes, "LOG_LIMIT", 5)
    probe = unit(rng, 4)
    late, *_ = add(store, "t", "U-1", probe)  # 8 entries (insert, vector): the log is emptied
    store.db.execute("UPDATE search_docs SET deleted_at = 1 WHERE owner_id = %s", (owners[3],))
    assert search(store, "t", "U-1", probe[0], k=1) == [late]
    assert owners[3] not in search(store, "t", "U-1", matrix[3], k=10)


def test_the_logs_ends_are_read_from_its_key_not_by_a_scan(store: SQLSummaryStore) -> None:
    """Every search of a process that writes asks where the log is, as it grows to 10^5."""
    log = store.db.doc_changes
    start = log.position()
    add(store, "t", "U-1", unit(np.random.default_rng(9), 3))  # an insert and a vector each
    assert log.position().seq == start.seq + 6
    with store.db.lock:
        plan = store.db.connection.execute("EXPLAIN QUERY PLAN " + doc_changes.ENDS).fetchall()
    steps = [str(row[-1]) for row in plan]
    assert not any(step.startswith("SCAN memlane_doc_changes") for step in steps), steps


def test_writes_after_the_log_was_emptied_are_followed(
    store: SQLSummaryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An emptied log starts its entries again from 1: a position taken as it was emptied
    must not point past them (on main it kept the old last entry, and the graph missed the
    next writes until the log grew past it)."""
    rng = np.random.default_rng(47)
    matrix = unit(rng, 400)
    owners = add(store, "t", "U-1", matrix)
    built(store, "t", "U-1", matrix[0])
    monkeypatch.setattr(doc_changes, "LOG_LIMIT", 5)
    probe = unit(rng, 4)
    owners += add(store, "t", "U-1", probe)
    assert search(store, "t", "U-1", probe[0], k=1) == [owners[400]]  # empties the log
    monkeypatch.setattr(doc_changes, "LOG_LIMIT", 100_000)
    for row in unit(rng, 3):
        [late] = add(store, "t", "U-1", row[None, :])
        assert search(store, "t", "U-1", row, k=1) == [late]
    (graph,) = indexes(store)._graphs.values()
    assert len(graph.ids) == 407  # patched from the log, each write as it came


def test_a_graph_far_behind_ranks_what_it_lacks_beside_it(
    store: SQLSummaryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A backlog embedded after the build: no whole-scope scan, no patch of it in the search.

    On main a graph lacking more than a quarter of its scope was built again while every
    search scanned all the scope's vectors (at 10^5 notes: seconds), and a smaller lack was
    added to the graph inside the search.
    """
    monkeypatch.setattr(ann, "PATCH_IN_SEARCH", 20, raising=False)
    rng = np.random.default_rng(40)
    matrix = unit(rng, 300)
    owners = add(store, "t", "U-1", matrix)
    built(store, "t", "U-1", matrix[0])
    gate = threading.Event()
    catch_up = getattr(ann.VectorIndexes, "_catch_up", None)  # (main: none)
    monkeypatch.setattr(
        ann.VectorIndexes,
        "_catch_up",
        lambda self, *a: gate.wait(30) and catch_up(self, *a),  # type: ignore[misc]
        raising=False,
    )
    late = unit(rng, 400)
    owners += add(store, "t", "U-1", late)
    everything = np.vstack([matrix, late])
    monkeypatch.setattr(
        store.db.dialect.scans, "matrix", lambda *a: pytest.fail("scanned the whole scope")
    )
    (graph,) = indexes(store)._graphs.values()
    for query in [late[5], late[399], *unit(rng, 10)]:
        assert search(store, "t", "U-1", query) == vectors.nearest(query, owners, everything, 10)
    assert len(graph.ids) == 300  # nothing added inside the searches
    gate.set()
    assert store.graphs_ready("t", MODEL, 30)
    (caught_up,) = indexes(store)._graphs.values()
    assert len(caught_up.ids) == 700  # brought up to date in the building thread
    assert caught_up is graph  # in place: never copied whole (usearch holds the GIL for it)


def test_a_graph_far_behind_ranks_only_the_newest_vectors_it_lacks(
    store: SQLSummaryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past RANKED_BEHIND, the older lacking vectors wait for the graph (found by words)."""
    monkeypatch.setattr(ann, "RANKED_BEHIND", 50)
    _, _, owners, late, late_owners, gate = behind(store, monkeypatch, 44)
    read = []
    rank = scope_graph.rank
    monkeypatch.setattr(
        scope_graph, "rank", lambda db, key, ids, *a: read.append(ids) or rank(db, key, ids, *a)
    )
    newest, older = late_owners[-50:], late_owners[:-50]
    assert search(store, "t", "U-1", late[-1])[0] == late_owners[-1]
    assert late_owners[3] not in search(store, "t", "U-1", late[3])  # not ranked yet
    assert all(set(ids) & set(newest) and not set(ids) & set(older) for ids in read)
    gate.set()
    assert store.graphs_ready("t", MODEL, 30)
    assert search(store, "t", "U-1", late[3])[0] == late_owners[3]  # caught up: found
    assert set(owners) <= set(indexes(store)._graphs[("t", "U-1", "note", MODEL)].ids.tolist())


def test_the_indexer_s_stored_vectors_get_their_graph_without_a_search(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An import's subject has its graph before any search or ``wait()`` (it follows the worker).

    On main the graph was scheduled by the first search (which scanned every vector) or by
    ``mem.index.wait()``; this test saw no graph.
    """
    monkeypatch.setattr(ann, "THRESHOLD", 40)
    monkeypatch.setattr(graph_builder, "FOLLOW_EVERY", 10, raising=False)
    with memlane.Memory(tmp_path / "mem.db", embedder="hash") as mem:
        at = datetime(2026, 1, 1, tzinfo=UTC)
        mem.summaries.add_notes(
            [{"subject": "U-1", "text": f"I walked {i} miles", "at": at} for i in range(60)]
        )
        graphs = mem._backend.summaries.db.dialect.vector_indexes  # type: ignore[attr-defined]
        deadline = time.monotonic() + 30
        while not graphs.scopes():
            assert time.monotonic() < deadline, "no graph was built"
            time.sleep(0.01)
        assert [key[:3] for key in graphs.scopes()] == [(mem.tenant, "U-1", "note")]


def test_a_graph_far_behind_is_never_compared_whole_in_a_search(
    store: SQLSummaryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While a graph waits for its catch-up, a search reads the docs changed since the last
    one looked (from the log) or, when the log cannot tell, the newest above the graph: on
    main every search after an emptied log (an import writes more than its limit) read the
    scope's ids again, 85,000 of them per recall at 10^5 notes."""
    rng, matrix, owners, late, late_owners, gate = behind(store, monkeypatch, 46, log_limit=5)
    owners += late_owners
    whole = whole_reads(monkeypatch)
    everything = np.vstack([matrix, late])
    # This search empties the log: the graph's position in it is lost.
    assert search(store, "t", "U-1", late[7]) == vectors.nearest(late[7], owners, everything, 10)
    monkeypatch.setattr(doc_changes, "LOG_LIMIT", 100_000)
    later = unit(rng, 30)
    owners += add(store, "t", "U-1", later)
    everything = np.vstack([everything, later])
    store.db.execute("UPDATE search_docs SET deleted_at = 1 WHERE owner_id = %s", (owners[305],))
    kept = [i for i, owner in enumerate(owners) if owner != owners[305]]
    for query in [later[3], late[5], matrix[5], *unit(rng, 5)]:
        expected = vectors.nearest(query, [owners[i] for i in kept], everything[kept], 10)
        assert search(store, "t", "U-1", query) == expected
    assert whole == []  # followed in the log after the first search, never compared whole
    gate.set()
    assert store.graphs_ready("t", MODEL, 30)
    assert len(whole) >= 1  # the building thread compared the scope whole
    (graph,) = indexes(store)._graphs.values()
    [(forgotten,)] = store.db.fetchall(
        "SELECT id FROM search_docs WHERE owner_id = %s AND kind = 'note'", (owners[305],)
    )
    assert len(graph.ids) == 529 and forgotten not in graph.ids.tolist()


def test_a_scope_past_the_scan_limit_ranks_its_newest_while_its_graph_is_built(
    store: SQLSummaryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No exact scan of a large scope without its graph (on main: every vector, each search,
    for the whole build: a gigabyte a search at 10^6 notes); its newest are ranked."""
    monkeypatch.setattr(graph_builder, "SCANNED_MAX", 250)
    monkeypatch.setattr(ann, "RANKED_BEHIND", 50)
    rng = np.random.default_rng(48)
    matrix = unit(rng, 400)
    owners = add(store, "t", "U-1", matrix)
    gate = held_builds(monkeypatch)
    scan = store.db.dialect.scans.matrix  # type: ignore[attr-defined]
    monkeypatch.setattr(
        store.db.dialect.scans, "matrix", lambda *a: pytest.fail("scanned the whole scope")
    )
    newest = vectors.nearest(matrix[-1], owners[-50:], matrix[-50:], 10)
    assert search(store, "t", "U-1", matrix[-1]) == newest
    assert owners[3] not in search(store, "t", "U-1", matrix[3])  # found by words meanwhile
    monkeypatch.setattr(store.db.dialect.scans, "matrix", scan)
    gate.set()
    assert indexes(store).wait(30)
    for query in [matrix[3], *unit(rng, 5)]:
        assert search(store, "t", "U-1", query) == vectors.nearest(query, owners, matrix, 10)


def test_a_scope_under_the_scan_limit_is_scanned_while_its_graph_is_built(
    store: SQLSummaryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(graph_builder, "SCANNED_MAX", 250)
    rng = np.random.default_rng(49)
    matrix = unit(rng, 240)
    owners = add(store, "t", "U-1", matrix)
    gate = held_builds(monkeypatch)
    for query in [matrix[3], *unit(rng, 5)]:
        assert search(store, "t", "U-1", query) == vectors.nearest(query, owners, matrix, 10)
    assert indexes(store).scopes() == []  # answered by the exact scan
    gate.set()
    assert indexes(store).wait(30)


def test_a_tenant_wide_graph_follows_the_indexer_once_a_search_made_it(
    store: SQLSummaryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On main only subject scopes followed the indexer: a tenant-wide graph was caught up by
    its next search, which ranked (or compared) everything stored since."""
    monkeypatch.setattr(graph_builder, "FOLLOW_EVERY", 10)
    rng = np.random.default_rng(50)
    matrix = unit(rng, 200)
    for part, subject in enumerate(["U-1", "U-2", "U-3", "U-4"]):
        add(store, "t", subject, matrix[50 * part : 50 * (part + 1)])  # each under the threshold
    built(store, "t", None, matrix[0])
    late = add(store, "t", "U-5", unit(rng, 30))
    docs = store.db.fetchall(
        "SELECT id FROM search_docs WHERE kind = 'note' AND subject = 'U-5'", ()
    )
    indexes(store).follow(MODEL, [row[0] for row in docs])
    deadline = time.monotonic() + 30
    key = ("t", None, "note", MODEL)
    while len(indexes(store)._graphs[key].ids) < 230:
        assert time.monotonic() < deadline, "the tenant-wide graph did not follow"
        time.sleep(0.01)
    assert [k[1] for k in indexes(store).scopes()] == [None]  # no subject was large enough
    assert late


def test_a_tenant_wide_scope_is_read_through_its_own_index_not_every_doc_of_the_tenant(
    store: SQLSummaryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A build's chunks, the newest and highest ids, and the coverage of a tenant-wide scope.

    Through the scope index (subject second) each read walked, and the id reads sorted, every
    doc of the tenant: 0.73 s per chunk of a 10^6-vector build (holding the connection a search
    waits for), 0.59 s per kind to learn whether any doc waits for a vector.
    """
    add(store, "t", "U-1", unit(np.random.default_rng(51), 30))
    add(store, "t", "U-2", unit(np.random.default_rng(52), 30))
    plans: list[str] = []
    fetchall = store.db.fetchall

    def explained(sql: str, parameters: object = ()) -> list:
        plan = fetchall("EXPLAIN QUERY PLAN " + sql, parameters)
        plans.append(" ".join(str(row[-1]) for row in plan))
        return fetchall(sql, parameters)

    monkeypatch.setattr(store.db, "fetchall", explained)
    tenant_wide: ann.ScopeKey = ("t", None, "note", MODEL)
    assert len(graph_rows.vector_chunk(store.db, tenant_wide, 0, 10**9)) == 60
    assert len(graph_rows.newest_embedded(store.db, tenant_wide, 0, 5)) == 5
    assert graph_rows.highest_embedded(store.db, tenant_wide) > 0
    assert store.coverage("t", None, "note", MODEL) == (True, False)
    assert len(plans) == 4
    assert all("search_docs_tenant_scope" in plan for plan in plans), plans
    assert not any("search_docs_scope " in plan or "TEMP B-TREE" in plan for plan in plans)
    plans.clear()
    subject: ann.ScopeKey = ("t", "U-1", "note", MODEL)
    assert len(graph_rows.vector_chunk(store.db, subject, 0, 10**9)) == 30
    assert all("search_docs_scope " in plan for plan in plans), plans


def test_docs_patched_in_a_search_are_not_ranked_again_beside_the_graph(
    store: SQLSummaryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A graph a few docs behind is patched in the search and is then in step: the docs it
    took in come back as its candidates only (ranked twice, each read twice, before)."""
    rng = np.random.default_rng(53)
    matrix = unit(rng, 300)
    owners = add(store, "t", "U-1", matrix)
    built(store, "t", "U-1", matrix[0])
    late = unit(rng, 5)
    owners += add(store, "t", "U-1", late)
    ranked: list[list[int]] = []
    rank = scope_graph.rank
    monkeypatch.setattr(
        scope_graph,
        "rank",
        lambda db, key, docs, *a: ranked.append(docs) or rank(db, key, docs, *a),
    )
    everything = np.vstack([matrix, late])
    assert search(store, "t", "U-1", late[2]) == vectors.nearest(late[2], owners, everything, 10)
    (docs,) = ranked
    assert len(docs) == len(set(docs)) == 20  # OVERFETCH candidates, nothing beside them


def test_a_scope_read_whole_is_read_in_pieces_that_searches_can_come_between(
    store: SQLSummaryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The building thread's whole read holds the shared connection one piece at a time."""
    rng = np.random.default_rng(41)
    owners = add(store, "t", "U-1", unit(rng, 50))
    store.db.execute("UPDATE search_docs SET deleted_at = 1 WHERE owner_id = %s", (owners[7],))
    monkeypatch.setattr(graph_rows, "IDS_PIECE", 8)
    returned: list[int] = []
    fetchall = store.db.fetchall
    monkeypatch.setattr(
        store.db, "fetchall", lambda *a: returned.append(len(rows := fetchall(*a))) or rows
    )
    ids = graph_rows.embedded_ids(store.db, ("t", "U-1", "note", MODEL))
    assert returned == [8] * 6 + [1]  # 49 ids: six full pieces, then the rest
    expected = fetchall(
        "SELECT id FROM search_docs WHERE tenant = 't' AND deleted_at IS NULL ORDER BY id"
    )
    assert ids.tolist() == [row[0] for row in expected] and len(ids) == 49


def test_a_search_after_many_writes_here_does_not_follow_each_of_them(
    store: SQLSummaryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past FOLLOWED_MOST changed docs, the newest are ranked beside the graph instead.

    On main the first recall after an import of 10^5 notes read every doc the import wrote
    from the log and looked each up in the scope (35,000: 0.25 s of its 0.5 s).
    """
    monkeypatch.setattr(ann, "FOLLOWED_MOST", 50)
    rng, matrix, owners, late, late_owners, gate = behind(store, monkeypatch, 48)
    owners += late_owners
    everything = np.vstack([matrix, late])
    whole = whole_reads(monkeypatch)
    followed: list[int] = []
    follow = scope_graph.followed
    monkeypatch.setattr(
        scope_graph,
        "followed",
        lambda db, key, ids, known, now, changed: (
            followed.append(len(changed)) or follow(db, key, ids, known, now, changed)
        ),
    )
    for query in [late[7], late[150], matrix[3], *unit(rng, 5)]:
        assert search(store, "t", "U-1", query) == vectors.nearest(query, owners, everything, 10)
    assert whole == [] and max(followed, default=0) <= 50  # the 200 written: not followed
    gate.set()
    assert store.graphs_ready("t", MODEL, 30)
    (graph,) = indexes(store)._graphs.values()
    assert len(graph.ids) == 500


def test_the_log_tells_at_most_what_is_asked() -> None:
    database = SQLiteDatabase(":memory:")
    try:
        changes = doc_changes.DocChanges(database)
        start = changes.position()
        store = SQLSummaryStore(database)
        add(store, "t", "U-1", unit(np.random.default_rng(3), 30))
        end = changes.position()
        assert len(changes.since(start, end) or []) == 30
        assert len(changes.since(start, end, 30) or []) == 30
        assert changes.since(start, end, 29) is None and changes.tells(start, end)
    finally:
        database.close()


def test_a_scope_past_the_scan_limit_whose_build_follows_the_indexer_is_not_scanned(
    store: SQLSummaryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A build the indexer's stored vectors started (not a search) marks the scope too.

    On main a search found the scope building, took the scan limit as untested and scanned
    every vector of it exactly, at each search until the graph was ready.
    """
    monkeypatch.setattr(graph_builder, "SCANNED_MAX", 250)
    monkeypatch.setattr(ann, "RANKED_BEHIND", 50)
    monkeypatch.setattr(graph_builder, "FOLLOW_EVERY", 10)
    rng = np.random.default_rng(50)
    matrix = unit(rng, 400)
    owners = add(store, "t", "U-1", matrix)
    gate = held_builds(monkeypatch)
    docs = [row[0] for row in store.db.fetchall("SELECT id FROM search_docs")]
    indexes(store).follow(MODEL, docs)
    deadline = time.monotonic() + 30
    while ("t", "U-1", "note", MODEL) not in indexes(store)._building:
        assert time.monotonic() < deadline, "no build followed the indexer"
        time.sleep(0.01)
    scan = store.db.dialect.scans.matrix  # type: ignore[attr-defined]
    monkeypatch.setattr(
        store.db.dialect.scans, "matrix", lambda *a: pytest.fail("scanned the whole scope")
    )
    newest = vectors.nearest(matrix[-1], owners[-50:], matrix[-50:], 10)
    assert search(store, "t", "U-1", matrix[-1]) == newest
    monkeypatch.setattr(store.db.dialect.scans, "matrix", scan)
    gate.set()
    assert indexes(store).wait(30)
    for query in [matrix[3], *unit(rng, 5)]:
        assert search(store, "t", "U-1", query) == vectors.nearest(query, owners, matrix, 10)
