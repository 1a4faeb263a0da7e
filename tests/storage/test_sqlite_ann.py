"""SQLite's approximate vector index: a cache of the database that never changes an answer.

Above the threshold a scope is searched through a usearch HNSW graph (memlane.storage.sqlite.ann);
the answers must be the exact scan's on a clear-cut set, and nothing the database no longer
holds in scope (forgotten, purged, another tenant's, another subject's) may ever come back,
whether the graph is fresh, stale, being built or gone after a restart.
"""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest

import memlane
from memlane.storage import vectors
from memlane.storage.sql import SQLSummaryStore
from memlane.storage.sqlite import ann, graph_files, scope_graph
from memlane.storage.sqlite.database import SQLiteDatabase
from tests.support.ann_graphs import (
    MODEL,
    THRESHOLD,
    add,
    built,
    indexes,
    reopened_store,
    saved_graph,
    search,
    store_fixture,  # noqa: F401 (the fixture ``store``)
    unit,
)


@pytest.fixture
def path(tmp_path: Path) -> Path:
    """The file the ``store`` fixture opens (a test opens it again as the next process)."""
    return tmp_path / "m.db"


def changed_by_another_process(
    path: Path, rng: np.random.Generator, matrix: np.ndarray, owners: list[int]
) -> tuple[np.ndarray, list[int], list[int]]:
    """30 vectors added and the doc of ``owners[5]`` deleted by another handle, no graph open.

    The vectors and their owners then, and the indexes of those not deleted.
    """
    with reopened_store(path) as writer:
        more = unit(rng, 30)
        owners = owners + add(writer, "t", "U-1", more)
        writer.db.execute("UPDATE search_docs SET deleted_at = 1 WHERE owner_id = %s", (owners[5],))
    return np.vstack([matrix, more]), owners, [i for i in range(len(owners)) if i != 5]


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
    matrix, owners, alive = changed_by_another_process(path, rng, matrix, owners)
    monkeypatch.setattr(scope_graph, "build", lambda *_: pytest.fail("built again"))
    with reopened_store(path) as reopened:
        for query in [matrix[5], matrix[410], *unit(rng, 10)]:
            expected = vectors.nearest(query, [owners[i] for i in alive], matrix[alive], 10)
            assert search(reopened, "t", "U-1", query) == expected
            assert indexes(reopened).wait(30)  # the file read and caught up, not built
        assert ("t", "U-1", "note", MODEL) in indexes(reopened).scopes()


def _whole_graph_operations(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every ``Index.load`` and ``Index.copy`` of usearch from now (each holds the GIL for a
    whole graph: 4 s for a load at 10^6 vectors), by name."""
    index_class = graph_files.usearch_index()
    operations: list[str] = []
    for name in ("load", "copy"):
        original = getattr(index_class, name)

        def counted(self, *args, _name=name, _original=original, **kwargs):  # type: ignore[no-untyped-def]
            operations.append(_name)
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(index_class, name, counted)
    return operations


def test_a_restart_maps_the_saved_graph_and_patches_a_delta_beside_it(
    store: SQLSummaryStore, path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A saved graph is mapped, never loaded or copied whole, and searched at once: the first
    search reads no whole-scope signature nor the scope's ids (the building thread compares
    them, on its own connection). The process's writes go to a small in-memory delta beside
    the mapped base; a forgotten doc of the base is hidden from its candidates.

    Before, the first search summed up the scope's ids (1 s at 10^6), and the building thread
    copied the mapped graph whole before its first patch (1.2 s at 10^6, the GIL held).
    """
    rng = np.random.default_rng(28)
    matrix = unit(rng, 400)
    owners = saved_graph(store, matrix)
    monkeypatch.setattr(ann.VectorIndexes, "_build", lambda *_: pytest.fail("built again"))
    whole = scope_graph.embedded_ids
    searcher = threading.current_thread()

    def among_only(database, key, among=None):  # type: ignore[no-untyped-def]
        if threading.current_thread() is searcher:
            assert among is not None, "a search compared the scope's ids whole"
        return whole(database, key, among)

    monkeypatch.setattr(scope_graph, "embedded_ids", among_only)
    operations = _whole_graph_operations(monkeypatch)
    reopened = SQLSummaryStore(SQLiteDatabase(path))
    statements: list[str] = []
    fetchone = reopened.db.fetchone
    monkeypatch.setattr(
        reopened.db, "fetchone", lambda sql, *a: statements.append(sql) or fetchone(sql, *a)
    )
    try:
        assert search(reopened, "t", "U-1", matrix[7])[0] == owners[7]
        assert not [sql for sql in statements if "sum(" in sql], "a whole-scope signature"
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
        assert indexes(reopened).wait(30)
        graph = indexes(reopened)._graphs[("t", "U-1", "note", MODEL)]
        assert graph.viewed and len(graph.index) == 20 and len(graph.hidden) == 1
        assert operations == []
    finally:
        reopened.db.close()


def test_graphs_hold_half_floats_and_a_float32_file_saved_before_is_still_mapped(
    store: SQLSummaryStore, path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A graph saved by a version that built float32 graphs is mapped as it is (usearch
    reads the scalar from the file), its delta beside it in half floats; answers stay exact.
    """
    scalar = graph_files.SCALAR
    monkeypatch.setattr(graph_files, "SCALAR", "f32")  # what earlier versions built
    rng = np.random.default_rng(29)
    matrix = unit(rng, 400)
    owners = saved_graph(store, matrix)
    monkeypatch.setattr(graph_files, "SCALAR", scalar)
    monkeypatch.setattr(ann.VectorIndexes, "_build", lambda *_: pytest.fail("built again"))
    with reopened_store(path) as reopened:
        more = unit(rng, 20)
        owners += add(reopened, "t", "U-1", more)
        matrix = np.vstack([matrix, more])
        for query in [matrix[7], matrix[410], *unit(rng, 5)]:
            assert search(reopened, "t", "U-1", query) == vectors.nearest(query, owners, matrix, 10)
        assert indexes(reopened).wait(30)
        graph = indexes(reopened)._graphs[("t", "U-1", "note", MODEL)]
        assert graph.viewed and len(graph.index) == 20
        assert (graph.base.dtype.name, graph.index.dtype.name) == ("F32", "F16")
        for query in [matrix[415], *unit(rng, 5)]:
            assert search(reopened, "t", "U-1", query) == vectors.nearest(query, owners, matrix, 10)


def test_hidden_ids_of_the_base_do_not_use_up_the_candidates_asked(
    store: SQLSummaryStore, path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A base's nearest ids that were removed are filtered out, and more are asked instead:
    the candidates asked for are all live ones."""
    rng = np.random.default_rng(30)
    matrix = unit(rng, 400)
    owners = saved_graph(store, matrix)
    with reopened_store(path) as reopened:
        search(reopened, "t", "U-1", matrix[0])
        assert indexes(reopened).wait(30)
        key = ("t", "U-1", "note", MODEL)
        graph = indexes(reopened)._graphs[key]
        nearest = scope_graph.candidates(graph, matrix[0], 30)
        with graph.lock:
            scope_graph.remove(graph, np.sort(np.asarray(nearest[:25], dtype=np.int64)))
        found = scope_graph.candidates(graph, matrix[0], 30)
        assert len(found) == 30 and not set(found) & set(nearest[:25])
        assert set(nearest[25:]) <= set(found)
        assert owners  # (the notes behind the docs)


def test_a_restart_saves_only_the_delta_beside_the_mapped_base(
    store: SQLSummaryStore, path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A graph mapped from its file is never saved whole again while its delta is small: the
    delta (and the base's removed ids) is saved beside it, and the next process maps the base
    and loads only the delta (usearch holds the GIL for all of a save or a load)."""
    rng = np.random.default_rng(29)
    matrix = unit(rng, 400)
    owners = saved_graph(store, matrix)
    saves: list[object] = []
    save = graph_files.save
    monkeypatch.setattr(graph_files, "save", lambda *a: saves.append(a[1]) or save(*a))
    matrix, owners, alive = changed_by_another_process(path, rng, matrix, owners)
    for _ in range(2):  # the second process maps the base and loads the delta saved
        with reopened_store(path) as reopened:
            search(reopened, "t", "U-1", matrix[1])
            assert indexes(reopened).wait(30)
            graph = indexes(reopened)._graphs[("t", "U-1", "note", MODEL)]
            assert graph.viewed and len(graph.ids) == 429 and len(graph.index) == 30
            for query in [matrix[5], matrix[410], *unit(rng, 5)]:
                expected = vectors.nearest(query, [owners[i] for i in alive], matrix[alive], 10)
                assert search(reopened, "t", "U-1", query) == expected
    assert saves == []
    (named,) = Path(f"{path}-vectors").glob("*.json")
    assert len(graph_files.saved_files(named)) == 5
    assert len(list(Path(f"{path}-vectors").iterdir())) == 6  # no file left behind


def test_a_closing_store_saves_what_its_graph_s_files_lack(
    store: SQLSummaryStore, path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A graph is saved again only once it doubled; what it gained since is saved at close,
    so the next process maps all of it: nothing ranked beside it, nothing built again."""
    rng = np.random.default_rng(41)
    matrix = unit(rng, 400)
    owners = add(store, "t", "U-1", matrix)
    built(store, "t", "U-1", matrix[0])  # built and saved with its 400 vectors
    more = unit(rng, 100)
    owners += add(store, "t", "U-1", more)
    search(store, "t", "U-1", more[0])  # patched in the search; 500 is not twice 400
    assert len(indexes(store)._graphs[("t", "U-1", "note", MODEL)].ids) == 500
    store.db.close()
    matrix = np.vstack([matrix, more])
    monkeypatch.setattr(scope_graph, "build", lambda *_: pytest.fail("built again"))
    monkeypatch.setattr(ann, "RANKED_BEHIND", 0)  # what the saved graph lacks goes unfound
    with reopened_store(path) as reopened:
        for query in [more[7], *unit(rng, 5)]:
            assert search(reopened, "t", "U-1", query) == vectors.nearest(query, owners, matrix, 10)
        graph = indexes(reopened)._graphs[("t", "U-1", "note", MODEL)]
        assert graph.viewed and len(graph.base_ids) == 500


def test_a_closing_store_saves_the_delta_its_files_lack(
    store: SQLSummaryStore, path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A delta saved beside the mapped base is saved again at close once it gained more."""
    rng = np.random.default_rng(43)
    matrix = unit(rng, 400)
    owners = saved_graph(store, matrix)
    monkeypatch.setattr(ann, "RANKED_BEHIND", 0)
    for step in (30, 10):  # the delta's first save (30); then 40 is not twice 30
        with reopened_store(path) as reopened:
            more = unit(rng, step)
            owners += add(reopened, "t", "U-1", more)
            matrix = np.vstack([matrix, more])
            search(reopened, "t", "U-1", more[0])
            assert indexes(reopened).wait(30)
            search(reopened, "t", "U-1", more[0])
    with reopened_store(path) as reopened:
        for query in [matrix[-1], *unit(rng, 5)]:
            assert search(reopened, "t", "U-1", query) == vectors.nearest(query, owners, matrix, 10)
        graph = indexes(reopened)._graphs[("t", "U-1", "note", MODEL)]
        assert graph.viewed and len(graph.base_ids) == 400 and len(graph.index) == 40


def test_a_delta_outgrowing_its_base_has_the_graph_built_again_whole(
    store: SQLSummaryStore, path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once the delta passes a fraction of the mapped base, the building thread builds the
    graph again whole (where usearch's adds release the GIL) and saves it."""
    rng = np.random.default_rng(31)
    matrix = unit(rng, 200)
    owners = saved_graph(store, matrix)
    with reopened_store(path) as reopened:
        search(reopened, "t", "U-1", matrix[1])
        assert indexes(reopened).wait(30)
        more = unit(rng, 200 // scope_graph.DELTA_SHARE + 10)
        owners += add(reopened, "t", "U-1", more)
        matrix = np.vstack([matrix, more])
        search(reopened, "t", "U-1", matrix[1])
        assert indexes(reopened).wait(30)
        graph = indexes(reopened)._graphs[("t", "U-1", "note", MODEL)]
        assert not graph.viewed and len(graph.ids) == len(matrix)
        for query in [matrix[210], *unit(rng, 5)]:
            assert search(reopened, "t", "U-1", query) == vectors.nearest(query, owners, matrix, 10)


def test_an_unreadable_saved_graph_is_built_again(store: SQLSummaryStore, path: Path) -> None:
    rng = np.random.default_rng(18)
    matrix = unit(rng, 300)
    owners = saved_graph(store, matrix)
    for saved in Path(f"{path}-vectors").glob("*.usearch"):
        saved.write_bytes(b"not a graph")
    with reopened_store(path) as reopened:
        query = unit(rng, 1)[0]
        expected = vectors.nearest(query, owners, matrix, 10)
        assert search(reopened, "t", "U-1", query) == expected  # exact while building
        assert built(reopened, "t", "U-1", query) == expected


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
