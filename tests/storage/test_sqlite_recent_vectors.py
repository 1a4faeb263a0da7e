"""The vectors a process stored last, kept for ranking what a graph lacks (:mod:`.recent_vectors`).

A graph behind its scope has the newest docs it lacks ranked beside its candidates, by their
stored vectors. Those are the vectors this process just stored: kept in memory, only the docs
ranked first are read back. What is kept must never rank a doc by a vector it no longer has:
an id is taken again once its row is deleted, and another process may have done it.
"""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memlane.storage.sql import SQLSummaryStore
from memlane.storage.sqlite import recent_vectors, scope_graph
from memlane.storage.sqlite.recent_vectors import RecentVectors
from tests.support.ann_graphs import (
    DIMS,
    MODEL,
    add,
    behind,
    indexes,
    search,
    store_fixture,  # noqa: F401 (the fixture ``store``)
    unit,
)


def _recent(store: SQLSummaryStore) -> RecentVectors:
    recent = indexes(store).recent
    assert recent is not None
    return recent


def _reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The doc ids whose rows searches read from now on (the list grows)."""
    read: list[int] = []
    docs_of = scope_graph.docs_of

    def counted(database, key, ids, columns):  # type: ignore[no-untyped-def]
        read.extend(ids or ())
        return docs_of(database, key, ids, columns)

    monkeypatch.setattr(scope_graph, "docs_of", counted)
    return read


def _exact(matrix: np.ndarray, owners: list[int], query: np.ndarray, k: int = 10) -> list[int]:
    order = np.lexsort((np.arange(len(owners)), -(matrix @ query)))[:k]
    return [owners[i] for i in order]


def _kept(recent: RecentVectors, docs: list[int]) -> list[int]:
    """Which of ``docs`` have their vector kept (and trusted now), in order."""
    known = recent.known(MODEL, docs, np.ones(DIMS, dtype=np.float32))
    return [] if known is None else sorted(known.at)


def _doc_of(store: SQLSummaryStore, note: int) -> int:
    row = store.db.fetchone(
        "SELECT id FROM search_docs WHERE kind = 'note' AND owner_id = %s", (note,)
    )
    return int(row[0])


def test_a_search_reads_only_the_lacking_vectors_it_does_not_keep_and_ranks_as_the_scan(
    store: SQLSummaryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    setup = behind(store, monkeypatch, seed=81)  # graph of 300; 200 stored since, kept
    read = _reads(monkeypatch)
    everything = np.concatenate([setup.matrix, setup.late])
    owners = setup.owners + setup.late_owners
    for query in (setup.late[5], setup.matrix[7], setup.rng.standard_normal(24).astype("f4")):
        read.clear()
        assert search(store, "t", "U-1", query) == _exact(everything, owners, query)
        lacking_read = {
            doc for doc in read if doc in {_doc_of(store, n) for n in setup.late_owners}
        }
        assert len(lacking_read) <= 10  # those ranked first only, not the 200
    setup.gate.set()


def test_without_kept_vectors_the_lacking_ones_are_read(
    store: SQLSummaryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    setup = behind(store, monkeypatch, seed=82)
    _recent(store).forget()
    read = _reads(monkeypatch)
    query = setup.late[3]
    assert search(store, "t", "U-1", query)[0] == setup.late_owners[3]
    assert len(read) >= 200
    setup.gate.set()


def test_a_row_deleted_on_the_connection_lets_go_of_every_kept_vector(
    store: SQLSummaryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    setup = behind(store, monkeypatch, seed=83)
    recent = _recent(store)
    late_docs = [_doc_of(store, n) for n in setup.late_owners]
    assert _kept(recent, late_docs) == late_docs
    with store.db.write():
        store.db.execute("DELETE FROM search_docs WHERE id = %s", (late_docs[-1],))
    assert _kept(recent, late_docs) == []
    setup.gate.set()


def test_another_connection_s_commit_lets_go_of_every_kept_vector(
    store: SQLSummaryStore, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """It may have deleted a kept doc and given its id to a new one: nothing of it is known."""
    setup = behind(store, monkeypatch, seed=84)
    recent = _recent(store)
    late_docs = [_doc_of(store, n) for n in setup.late_owners]
    other = sqlite3.connect(tmp_path / "m.db", isolation_level=None)
    other.execute("UPDATE search_docs SET text = text || '.' WHERE id = ?", (late_docs[0],))
    other.close()
    assert _kept(recent, late_docs) == []
    read = _reads(monkeypatch)
    assert search(store, "t", "U-1", setup.late[9])[0] == setup.late_owners[9]
    assert len(read) >= 200  # read back, as none are kept now
    setup.gate.set()


def test_a_kept_vector_that_differs_from_the_stored_one_is_noticed(
    store: SQLSummaryStore, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Defence in depth: a wrong kept vector ranked first is caught where its owner is read,
    and the search ranks by the stored vectors alone."""
    setup = behind(store, monkeypatch, seed=85)
    recent = _recent(store)
    wrong = setup.late_owners[0]
    query = setup.matrix[11]  # a graph doc's vector: the wrong one is made its twin
    ring = recent._rings[MODEL]
    ring.matrix[ring.row_of[_doc_of(store, wrong)]] = query
    everything = np.concatenate([setup.matrix, setup.late])
    owners = setup.owners + setup.late_owners
    with caplog.at_level(logging.WARNING, logger="memlane.storage.sqlite.ann"):
        found = search(store, "t", "U-1", query)
    assert found == _exact(everything, owners, query) and wrong not in found
    assert "let go of" in caplog.text
    assert _kept(recent, [_doc_of(store, n) for n in setup.late_owners]) == []
    setup.gate.set()


def test_nothing_is_kept_of_a_write_rolled_back(store: SQLSummaryStore) -> None:
    rng = np.random.default_rng(86)
    notes = add(store, "t", "U-1", unit(rng, 3))
    recent = _recent(store)
    recent.forget()
    docs = [_doc_of(store, n) for n in notes]
    with pytest.raises(RuntimeError), store.transaction():
        store.put_vectors(MODEL, [(doc, unit(rng, 1)[0].tobytes()) for doc in docs])
        raise RuntimeError("the batch failed")
    assert _kept(recent, docs) == []
    store.put_vectors(MODEL, [(doc, unit(rng, 1)[0].tobytes()) for doc in docs])
    assert _kept(recent, docs) == docs  # committed: kept


def test_only_the_newest_are_kept(store: SQLSummaryStore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(recent_vectors, "KEPT_VECTORS", 50)
    rng = np.random.default_rng(87)
    matrix = unit(rng, 120)
    notes = add(store, "t", "U-1", matrix)
    docs = [_doc_of(store, n) for n in notes]
    assert _kept(_recent(store), docs) == docs[-50:]
    query = unit(rng, 1)[0]  # the ring went round: each kept doc still scores by its own vector
    known = _recent(store).known(MODEL, docs, query)
    assert known is not None
    scores = {doc: float(known.scores[at]) for doc, at in known.at.items()}
    assert scores == pytest.approx(
        {doc: float(matrix[i] @ query) for i, doc in enumerate(docs) if i >= 70}
    )


@settings(max_examples=300, deadline=None)
@given(
    rows=st.lists(st.integers(0, 999), min_size=1, max_size=400),
    seed=st.integers(0, 2**16),
)
def test_rows_scored_in_runs_score_as_the_rows_gathered(rows: list[int], seed: int) -> None:
    """Runs near and far, the ring's wrap, repeats, rows scattered past MOST_SPANS."""
    rng = np.random.default_rng(seed)
    matrix = rng.standard_normal((1000, 24)).astype(np.float32)
    query = rng.standard_normal(24).astype(np.float32)
    at = np.asarray(rows, dtype=np.intp)
    scored = recent_vectors.spans_scored(matrix, at, query)
    assert scored.shape == (len(rows),)
    np.testing.assert_allclose(scored, matrix[at] @ query, rtol=1e-5, atol=1e-5)


def test_a_search_of_the_newest_scores_only_their_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    """The rows asked of a ring that wrapped: two runs are scored, not the whole matrix."""
    spans: list[tuple[int, int]] = []
    matmul = np.matmul

    def counted(a, b, out=None):  # type: ignore[no-untyped-def]
        spans.append((len(a), len(b)))
        return matmul(a, b, out=out)

    monkeypatch.setattr(recent_vectors.np, "matmul", counted)
    rng = np.random.default_rng(5)
    matrix = rng.standard_normal((8000, 24)).astype(np.float32)
    rows = np.r_[np.arange(7000, 8000), np.arange(0, 1000)]  # the newest 2,000, wrapped
    query = rng.standard_normal(24).astype(np.float32)
    scored = recent_vectors.spans_scored(matrix, rows, query)
    np.testing.assert_allclose(scored, matrix[rows] @ query, rtol=1e-5, atol=1e-5)
    assert sorted(spans) == [(1000, 24), (1000, 24)]
