"""SQLite's approximate vector index: a cache of the database that never changes an answer.

Above the threshold a scope is searched through a usearch HNSW graph (memlane.storage.sqlite.ann);
the answers must be the exact scan's on a clear-cut set, and nothing the database no longer
holds in scope (forgotten, purged, another tenant's, another subject's) may ever come back,
whether the graph is fresh, stale, being built or gone after a restart.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest

import memlane
from memlane.storage import vectors
from memlane.storage.sql import SQLSummaryStore
from memlane.storage.sqlite import ann, doc_changes, graph_rows, scope_graph
from memlane.storage.sqlite.database import SQLiteDatabase

MODEL = "test-model"
DIMS = 24
THRESHOLD = 150


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "m.db"


@pytest.fixture
def store(path: Path, monkeypatch) -> Iterator[SQLSummaryStore]:
    monkeypatch.setattr(ann, "THRESHOLD", THRESHOLD)
    store = SQLSummaryStore(SQLiteDatabase(path))
    yield store
    store.db.close()


def indexes(store: SQLSummaryStore) -> ann.VectorIndexes:
    return store.db.dialect.vector_indexes  # type: ignore[attr-defined,no-any-return]


def add(store: SQLSummaryStore, tenant: str, subject: str, matrix: np.ndarray) -> list[int]:
    """One note per row, embedded with the row; the notes' ids."""
    with store.transaction() as writer:
        tx = writer.next_tx(1)
        notes = [
            writer.put_note(
                tenant,
                subject,
                f"note {i}",
                said_at=i,
                session_id=None,
                source=None,
                provenance=(),
                tx=tx,
            ).id
            for i in range(len(matrix))
        ]
    rows = store.db.fetchall(
        "SELECT owner_id, id FROM search_docs WHERE kind = 'note' AND tenant = %s", (tenant,)
    )
    doc_of = dict(rows)
    store.put_vectors(
        MODEL,
        [
            (doc_of[n], np.asarray(v, np.float32).tobytes())
            for n, v in zip(notes, matrix, strict=True)
        ],
    )
    return notes


def unit(rng: np.random.Generator, count: int) -> np.ndarray:
    matrix = rng.standard_normal((count, DIMS)).astype(np.float32)
    return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


def search(store: SQLSummaryStore, tenant: str, subject: str | None, query, k: int = 10):
    return store.nearest(tenant, subject, "note", MODEL, query, k)


def built(store: SQLSummaryStore, tenant: str, subject: str | None, query) -> list[int]:
    """Search once (which starts the build), wait for the graph, search through it."""
    search(store, tenant, subject, query)
    assert indexes(store).wait(30)
    found = search(store, tenant, subject, query)
    assert (tenant, subject, "note", MODEL) in indexes(store).scopes()
    return found


def held_catch_ups(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """Hold every graph's catch-up until the returned event is set: searches see it behind."""
    gate = threading.Event()
    catch_up = ann.VectorIndexes._catch_up
    monkeypatch.setattr(
        ann.VectorIndexes, "_catch_up", lambda self, *a: gate.wait(30) and catch_up(self, *a)
    )
    return gate


def held_builds(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """Hold every graph's build until the returned event is set: searches find none yet."""
    gate = threading.Event()
    build = scope_graph.build
    monkeypatch.setattr(scope_graph, "build", lambda *a: gate.wait(30) and build(*a))
    return gate


def whole_reads(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """The scopes whose embedded ids are read whole from now on (the list grows)."""
    whole: list[object] = []
    reads = scope_graph.embedded_ids

    def counted(database: SQLiteDatabase, key: object, among: object = None) -> object:
        if among is None:
            whole.append(key)
        return reads(database, key, among)  # type: ignore[arg-type]

    monkeypatch.setattr(scope_graph, "embedded_ids", counted)
    return whole


def test_graph_answers_as_the_exact_scan_does(store: SQLSummaryStore) -> None:
    rng = np.random.default_rng(1)
    matrix = unit(rng, 600)
    owners = add(store, "t", "U-1", matrix)
    built(store, "t", "U-1", matrix[0])
    for query in unit(rng, 25):
        expected = vectors.nearest(query, owners, matrix, 10)
        assert search(store, "t", "U-1", query) == expected
    assert search(store, "t", "U-1", matrix[7], k=1) == [owners[7]]


def test_small_scopes_are_scanned_without_a_graph(store: SQLSummaryStore) -> None:
    matrix = unit(np.random.default_rng(2), THRESHOLD)
    owners = add(store, "t", "U-1", matrix)
    assert search(store, "t", "U-1", matrix[3], k=1) == [owners[3]]
    assert indexes(store).wait(5)
    assert indexes(store).scopes() == []


def test_vectors_written_after_the_build_are_found_at_once(store: SQLSummaryStore) -> None:
    rng = np.random.default_rng(3)
    add(store, "t", "U-1", unit(rng, 400))
    probe = unit(rng, 1)
    built(store, "t", "U-1", probe[0])
    [late] = add(store, "t", "U-1", probe)
    assert search(store, "t", "U-1", probe[0], k=1) == [late]
    assert indexes(store).scopes()  # patched, not dropped


def test_another_connection_s_writes_are_found(store: SQLSummaryStore, path: Path) -> None:
    rng = np.random.default_rng(4)
    add(store, "t", "U-1", unit(rng, 400))
    probe = unit(rng, 1)
    built(store, "t", "U-1", probe[0])
    other = SQLiteDatabase(path)
    try:
        [late] = add(SQLSummaryStore(other), "t", "U-1", probe)
    finally:
        other.close()
    assert search(store, "t", "U-1", probe[0], k=1) == [late]


def test_a_deleted_doc_never_comes_back(store: SQLSummaryStore) -> None:
    rng = np.random.default_rng(5)
    matrix = unit(rng, 400)
    owners = add(store, "t", "U-1", matrix)
    assert built(store, "t", "U-1", matrix[9])[0] == owners[9]
    store.db.execute("UPDATE search_docs SET deleted_at = 1 WHERE owner_id = %s", (owners[9],))
    found = search(store, "t", "U-1", matrix[9], k=20)
    assert owners[9] not in found and len(found) == 20
    assert found == vectors.nearest(
        matrix[9], owners[:9] + owners[10:], np.delete(matrix, 9, 0), 20
    )


def test_a_stale_graph_is_filtered_by_the_database(store: SQLSummaryStore, monkeypatch) -> None:
    """Even a graph that missed a deletion (its stamp frozen) never returns the deleted doc."""
    rng = np.random.default_rng(6)
    matrix = unit(rng, 400)
    owners = add(store, "t", "U-1", matrix)
    built(store, "t", "U-1", matrix[0])
    monkeypatch.setattr(ann, "change_stamp", lambda database: (0, 0))
    search(store, "t", "U-1", matrix[0])  # synced once at the frozen stamp
    store.db.execute("UPDATE search_docs SET deleted_at = 1 WHERE owner_id = %s", (owners[0],))
    store.db.execute("DELETE FROM search_docs WHERE owner_id = %s", (owners[1],))
    found = search(store, "t", "U-1", matrix[0], k=5)
    assert owners[0] not in found and owners[1] not in found


def test_other_tenants_and_subjects_never_come_back(store: SQLSummaryStore) -> None:
    rng = np.random.default_rng(7)
    matrix = unit(rng, 400)
    mine = add(store, "t", "U-1", matrix)
    theirs = add(store, "other", "U-1", matrix)  # the very same vectors, another tenant
    neighbours = add(store, "t", "U-2", matrix[:200])  # the same tenant, another subject
    built(store, "t", "U-1", matrix[0])
    built(store, "other", "U-1", matrix[0])
    for i in range(0, 400, 37):
        found = search(store, "t", "U-1", matrix[i], k=30)
        assert found[0] == mine[i] and set(found) <= set(mine)
    tenant_wide = built(store, "t", None, matrix[0])
    assert set(tenant_wide) <= set(mine) | set(neighbours)
    assert not set(search(store, "t", None, matrix[5], k=50)) & set(theirs)


def test_a_restart_loads_the_saved_graph_and_brings_it_up_to_the_database(
    store: SQLSummaryStore, path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A built graph is saved beside the file; the next process reads it, never builds again.

    Written while no graph was open (here: a connection that searched nothing), new vectors
    and a deletion are found by comparing the loaded graph's ids with the scope's; a file
    behind the database is read by the building thread, not in a search (which scans, or
    ranks the newest of a scope past SCANNED_MAX, meanwhile).
    """
    rng = np.random.default_rng(8)
    matrix = unit(rng, 400)
    owners = add(store, "t", "U-1", matrix)
    built(store, "t", "U-1", matrix[0])
    assert len(list(Path(f"{path}-vectors").glob("*.usearch"))) == 1
    store.db.close()
    writer = SQLSummaryStore(SQLiteDatabase(path))
    try:
        more = unit(rng, 30)
        owners += add(writer, "t", "U-1", more)
        writer.db.execute("UPDATE search_docs SET deleted_at = 1 WHERE owner_id = %s", (owners[5],))
    finally:
        writer.db.close()
    matrix = np.vstack([matrix, more])
    alive = [i for i in range(len(owners)) if i != 5]
    monkeypatch.setattr(scope_graph, "build", lambda *_: pytest.fail("built again"))
    reopened = SQLSummaryStore(SQLiteDatabase(path))
    try:
        for query in [matrix[5], matrix[410], *unit(rng, 10)]:
            expected = vectors.nearest(query, [owners[i] for i in alive], matrix[alive], 10)
            assert search(reopened, "t", "U-1", query) == expected
            assert indexes(reopened).wait(30)  # the file read and caught up, not built
        assert ("t", "U-1", "note", MODEL) in indexes(reopened).scopes()
    finally:
        reopened.db.close()


def test_a_restart_on_an_unchanged_database_maps_the_saved_graph(
    store: SQLSummaryStore, path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A saved graph whose ids sum up as the scope's is mapped, not read, and not compared.

    The first search then reads neither the graph's file whole nor the scope's ids; the
    process's own writes later patch a copy of it in memory (a mapped graph is read only).
    """
    rng = np.random.default_rng(28)
    matrix = unit(rng, 400)
    owners = add(store, "t", "U-1", matrix)
    built(store, "t", "U-1", matrix[0])
    store.db.close()
    monkeypatch.setattr(ann.VectorIndexes, "_schedule", lambda *_: pytest.fail("built again"))
    whole = scope_graph.embedded_ids

    def among_only(database, key, among=None):
        assert among is not None, "the scope's ids were compared whole"
        return whole(database, key, among)

    monkeypatch.setattr(scope_graph, "embedded_ids", among_only)
    reopened = SQLSummaryStore(SQLiteDatabase(path))
    try:
        for query in [matrix[7], *unit(rng, 5)]:
            assert search(reopened, "t", "U-1", query) == vectors.nearest(query, owners, matrix, 10)
        graph = indexes(reopened)._graphs[("t", "U-1", "note", MODEL)]
        assert graph.viewed
        more = unit(rng, 20)
        owners += add(reopened, "t", "U-1", more)
        reopened.db.execute(
            "UPDATE search_docs SET deleted_at = 1 WHERE owner_id = %s", (owners[3],)
        )
        matrix = np.vstack([matrix, more])
        alive = [i for i in range(len(owners)) if i != 3]
        for query in [matrix[3], matrix[405], *unit(rng, 5)]:
            expected = vectors.nearest(query, [owners[i] for i in alive], matrix[alive], 10)
            assert search(reopened, "t", "U-1", query) == expected
        assert not indexes(reopened)._graphs[("t", "U-1", "note", MODEL)].viewed
    finally:
        reopened.db.close()


def test_the_signature_tells_exchanged_ids_apart() -> None:
    """Same count and highest id, same sum: the squares still differ."""
    ids = [np.asarray(chosen, dtype=np.int64) for chosen in ([1, 4, 8, 9], [1, 5, 7, 9])]
    assert ann.signature(ids[0])[:3] == ann.signature(ids[1])[:3]
    assert ann.signature(ids[0]) != ann.signature(ids[1])
    assert ann.signature(np.zeros(0, dtype=np.int64)) == (0, 0, 0, 0)


def test_an_unreadable_saved_graph_is_built_again(store: SQLSummaryStore, path: Path) -> None:
    rng = np.random.default_rng(18)
    matrix = unit(rng, 300)
    owners = add(store, "t", "U-1", matrix)
    built(store, "t", "U-1", matrix[0])
    store.db.close()
    for saved in Path(f"{path}-vectors").glob("*.usearch"):
        saved.write_bytes(b"not a graph")
    reopened = SQLSummaryStore(SQLiteDatabase(path))
    try:
        query = unit(rng, 1)[0]
        expected = vectors.nearest(query, owners, matrix, 10)
        assert search(reopened, "t", "U-1", query) == expected  # exact while building
        assert built(reopened, "t", "U-1", query) == expected
    finally:
        reopened.db.close()


def test_a_purge_drops_the_subject_s_graphs(store: SQLSummaryStore) -> None:
    rng = np.random.default_rng(9)
    matrix = unit(rng, 400)
    add(store, "t", "U-1", matrix)
    built(store, "t", "U-1", matrix[0])
    built(store, "t", None, matrix[0])
    saved = Path(f"{store.db.path}-vectors")
    assert len(list(saved.glob("*.usearch"))) == 2
    store.db.dialect.purge_index("t", "U-1")
    assert indexes(store).scopes() == []
    assert list(saved.iterdir()) == []  # the saved graphs held the purged vectors too


def test_without_usearch_the_scan_answers(store: SQLSummaryStore, monkeypatch) -> None:
    monkeypatch.setattr(ann, "usearch_index", lambda: None)
    database = SQLiteDatabase(store.db.path)
    try:
        fresh = SQLSummaryStore(database)
        matrix = unit(np.random.default_rng(10), 400)
        owners = add(fresh, "t", "U-1", matrix)
        assert search(fresh, "t", "U-1", matrix[4], k=1) == [owners[4]]
        assert indexes(fresh).wait(5) and indexes(fresh).scopes() == []
    finally:
        database.close()


def test_searches_and_writes_from_many_threads(store: SQLSummaryStore) -> None:
    rng = np.random.default_rng(11)
    matrix = unit(rng, 400)
    live = set(add(store, "t", "U-1", matrix))
    built(store, "t", "U-1", matrix[0])
    errors: list[BaseException] = []
    stop = threading.Event()

    def searching(seed: int) -> None:
        local = np.random.default_rng(seed)
        try:
            while not stop.is_set():
                found = search(store, "t", "U-1", unit(local, 1)[0], k=10)
                assert len(found) == 10 and len(set(found)) == 10
        except BaseException as error:  # reported below
            errors.append(error)

    threads = [threading.Thread(target=searching, args=(s,)) for s in range(3)]
    for thread in threads:
        thread.start()
    for _ in range(10):
        live |= set(add(store, "t", "U-1", unit(rng, 5)))
    stop.set()
    for thread in threads:
        thread.join()
    assert not errors
    assert set(search(store, "t", "U-1", matrix[1], k=50)) <= live


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
    matrix = unit(rng, 2 * ann.CHUNK + 100)  # over a building chunk and ten times the graph
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


def test_index_wait_includes_the_graph(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """After ``mem.index.wait()`` a large subject's first search goes through its graph."""
    monkeypatch.setattr(ann, "THRESHOLD", 40)
    with memlane.Memory(tmp_path / "mem.db", embedder="hash") as mem:
        for i in range(60):
            mem.remember("U-1", f"I walked {i} miles with my friend number {i}")
        assert mem.index.wait(60)
        assert mem.index.pending() == 0
        graphs = mem._backend.summaries.db.dialect.vector_indexes  # type: ignore[attr-defined]
        assert [key[:3] for key in graphs.scopes()] == [(mem.tenant, "U-1", "note")]


def test_forgotten_notes_never_come_back_through_memory(tmp_path: Path, monkeypatch) -> None:
    """The public path: remember, index, forget an attribute; its mentions are gone."""
    monkeypatch.setattr(ann, "THRESHOLD", 40)
    with memlane.Memory(tmp_path / "mem.db", embedder="hash") as mem:
        mem.facts.set("U-1", "pet", "Quokkaberry")
        for i in range(60):
            mem.remember("U-1", f"I walked {i} miles with my friend number {i}")
        secret = mem.remember("U-1", "My pet Quokkaberry sleeps all day")
        mem.summaries.index()
        graphs = mem._backend.summaries.db.dialect.vector_indexes  # type: ignore[attr-defined]
        mem.summaries.search_notes("U-1", "pet sleeps all day", k=5)
        assert graphs.wait(30) and graphs.scopes()
        hits = mem.summaries.search_notes("U-1", "pet Quokkaberry sleeps all day", k=5)
        assert hits[0].note.id == secret.id
        mem.forget("U-1", "pet")
        hits = mem.summaries.search_notes("U-1", "pet Quokkaberry sleeps all day", k=60)
        assert secret.id not in {hit.note.id for hit in hits}
        assert graphs.scopes()  # still served by the graph


def test_inside_a_write_the_scan_answers(store: SQLSummaryStore) -> None:
    """What a write changed may be rolled back: the graph is not synced to it."""
    rng = np.random.default_rng(12)
    matrix = unit(rng, 400)
    owners = add(store, "t", "U-1", matrix)
    built(store, "t", "U-1", matrix[0])
    with pytest.raises(RuntimeError), store.transaction():
        store.db.execute("DELETE FROM search_docs WHERE owner_id = %s", (owners[2],))
        assert owners[2] not in search(store, "t", "U-1", matrix[2], k=3)
        raise RuntimeError("roll back")
    assert search(store, "t", "U-1", matrix[2], k=1) == [owners[2]]


def test_vector_counts_are_kept_only_until_the_database_changes(
    store: SQLSummaryStore, path: Path
) -> None:
    """The embedded-vectors count every search asks is cached by change stamp, never stale."""
    rng = np.random.default_rng(13)
    add(store, "t", "U-1", unit(rng, 3))
    assert store.vector_state("t", "U-1", "note", MODEL)[:2] == (3, 3)
    other = SQLiteDatabase(path)
    try:
        add(SQLSummaryStore(other), "t", "U-1", unit(rng, 2))
    finally:
        other.close()
    assert store.vector_state("t", "U-1", "note", MODEL)[:2] == (5, 5)
    with pytest.raises(RuntimeError), store.transaction():
        store.db.execute("UPDATE search_docs SET deleted_at = 1 WHERE tenant = 't'")
        assert store.vector_state("t", "U-1", "note", MODEL)[:2] == (0, 0)
        raise RuntimeError("roll back")
    assert store.vector_state("t", "U-1", "note", MODEL)[:2] == (5, 5)


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


def test_graphs_past_the_limit_are_dropped_least_recent_first(
    store: SQLSummaryStore, monkeypatch
) -> None:
    monkeypatch.setattr(ann, "MAX_GRAPH_VECTORS", 500)
    rng = np.random.default_rng(16)
    first, second = unit(rng, 400), unit(rng, 400)
    add(store, "t", "U-1", first)
    owners = add(store, "t", "U-2", second)
    built(store, "t", "U-1", first[0])
    built(store, "t", "U-2", second[0])
    assert indexes(store).scopes() == [("t", "U-2", "note", MODEL)]
    assert search(store, "t", "U-2", second[5], k=1) == [owners[5]]


def test_contains_searches_sorted_ids() -> None:
    ids = np.asarray([2, 5, 9], dtype=np.int64)
    values = np.asarray([1, 2, 6, 9, 12], dtype=np.int64)
    assert ann.contains(ids, values).tolist() == [False, True, False, True, False]
    assert ann.contains(ids[:0], values).tolist() == [False] * 5


def test_owners_are_looked_up_by_their_index_not_the_tenants_range(
    store: SQLSummaryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Which owners lack a vector, and their vectors: a few lookups, whatever the tenant holds.

    Without statistics SQLite led with ``tenant = ?`` on the scope index and read the
    tenant's every doc (66 ms at 10^5 notes, at each recall while a backlog is embedded).
    """
    notes = add(store, "t", "U-1", unit(np.random.default_rng(40), 300))
    plans: list[str] = []
    fetchall = store.db.fetchall

    def explained(sql: str, parameters: object = ()) -> list:
        if "owner_id" in sql and sql.lstrip().startswith("SELECT owner_id"):
            plan = fetchall("EXPLAIN QUERY PLAN " + sql, parameters)
            plans.append(" ".join(str(row[-1]) for row in plan))
        return fetchall(sql, parameters)

    monkeypatch.setattr(store.db, "fetchall", explained)
    assert store.unembedded("t", "note", notes[:5], MODEL) == set()
    assert sorted(store.vectors("t", "note", notes[:5], MODEL)) == sorted(notes[:5])
    assert len(plans) == 2
    assert all("(kind=? AND owner_id=?)" in plan for plan in plans), plans


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
        store.db.dialect, "_matrix", lambda *a: pytest.fail("scanned the whole scope")
    )
    (graph,) = indexes(store)._graphs.values()
    for query in [late[5], late[399], *unit(rng, 10)]:
        assert search(store, "t", "U-1", query) == vectors.nearest(query, owners, everything, 10)
    assert len(graph.ids) == 300  # nothing added inside the searches
    gate.set()
    assert store.graphs_ready("t", MODEL, 30)
    (caught_up,) = indexes(store)._graphs.values()
    assert len(caught_up.ids) == 700  # a copy brought up to date in the building thread
    assert len(graph.ids) == 300  # the searches' graph was never changed under them


def test_a_graph_far_behind_ranks_only_the_newest_vectors_it_lacks(
    store: SQLSummaryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past RANKED_BEHIND, the older lacking vectors wait for the graph (found by words)."""
    monkeypatch.setattr(ann, "PATCH_IN_SEARCH", 20)
    monkeypatch.setattr(ann, "RANKED_BEHIND", 50)
    rng = np.random.default_rng(44)
    matrix = unit(rng, 300)
    owners = add(store, "t", "U-1", matrix)
    built(store, "t", "U-1", matrix[0])
    gate = held_catch_ups(monkeypatch)
    late = unit(rng, 200)
    late_owners = add(store, "t", "U-1", late)
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
    monkeypatch.setattr(ann, "FOLLOW_EVERY", 10, raising=False)
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
    monkeypatch.setattr(ann, "PATCH_IN_SEARCH", 20)
    rng = np.random.default_rng(46)
    matrix = unit(rng, 300)
    owners = add(store, "t", "U-1", matrix)
    built(store, "t", "U-1", matrix[0])
    gate = held_catch_ups(monkeypatch)
    monkeypatch.setattr(doc_changes, "LOG_LIMIT", 5)
    late = unit(rng, 200)
    owners += add(store, "t", "U-1", late)
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
    monkeypatch.setattr(ann, "SCANNED_MAX", 250)
    monkeypatch.setattr(ann, "RANKED_BEHIND", 50)
    rng = np.random.default_rng(48)
    matrix = unit(rng, 400)
    owners = add(store, "t", "U-1", matrix)
    gate = held_builds(monkeypatch)
    scan = store.db.dialect._matrix  # type: ignore[attr-defined]
    monkeypatch.setattr(
        store.db.dialect, "_matrix", lambda *a: pytest.fail("scanned the whole scope")
    )
    newest = vectors.nearest(matrix[-1], owners[-50:], matrix[-50:], 10)
    assert search(store, "t", "U-1", matrix[-1]) == newest
    assert owners[3] not in search(store, "t", "U-1", matrix[3])  # found by words meanwhile
    monkeypatch.setattr(store.db.dialect, "_matrix", scan)
    gate.set()
    assert indexes(store).wait(30)
    for query in [matrix[3], *unit(rng, 5)]:
        assert search(store, "t", "U-1", query) == vectors.nearest(query, owners, matrix, 10)


def test_a_scope_under_the_scan_limit_is_scanned_while_its_graph_is_built(
    store: SQLSummaryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ann, "SCANNED_MAX", 250)
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
    monkeypatch.setattr(ann, "FOLLOW_EVERY", 10)
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
