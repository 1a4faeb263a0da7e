"""Helpers of the SQLite vector-graph tests (tests/storage/test_sqlite_ann*.py).

A store whose graphs start at :data:`THRESHOLD` vectors (fixture ``store``), notes added with
their vectors, and holds on a graph's build or catch-up so that a test can search while it is
behind.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pytest

from memlane.storage.sql import SQLSummaryStore
from memlane.storage.sqlite import ann, doc_changes, scope_graph
from memlane.storage.sqlite.database import SQLiteDatabase

MODEL = "test-model"
DIMS = 24
THRESHOLD = 150


@pytest.fixture(name="store")
def store_fixture(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SQLSummaryStore]:
    """``store``: a summary store on ``m.db`` in the test's folder (:func:`opened_store`).

    A test module of the vector graphs takes it by importing it (``store_fixture``): no other
    module's ``store`` is this one.
    """
    yield from opened_store(tmp_path / "m.db", monkeypatch)


def opened_store(path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SQLSummaryStore]:
    """A summary store on ``path`` whose scopes get a graph past :data:`THRESHOLD` vectors."""
    monkeypatch.setattr(ann, "THRESHOLD", THRESHOLD)
    store = SQLSummaryStore(SQLiteDatabase(path))
    yield store
    store.db.close()


@contextmanager
def reopened_store(path: Path) -> Iterator[SQLSummaryStore]:
    """The database at ``path`` opened again, as the next process would; closed after."""
    store = SQLSummaryStore(SQLiteDatabase(path))
    try:
        yield store
    finally:
        store.db.close()


def saved_graph(store: SQLSummaryStore, matrix: np.ndarray) -> list[int]:
    """``matrix`` stored in subject U-1 of tenant t, its graph built and saved, and the store
    closed (what the next process finds); the owners of the vectors."""
    owners = add(store, "t", "U-1", matrix)
    built(store, "t", "U-1", matrix[0])
    store.db.close()
    return owners


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


class Behind(NamedTuple):
    """A built graph whose catch-ups are held, with vectors stored since (:func:`behind`)."""

    rng: np.random.Generator
    matrix: np.ndarray  # the 300 vectors the graph holds
    owners: list[int]  # their notes
    late: np.ndarray  # the 200 stored since
    late_owners: list[int]
    gate: threading.Event  # set it to let the catch-ups run


def behind(
    store: SQLSummaryStore, monkeypatch: pytest.MonkeyPatch, seed: int, log_limit: int = 0
) -> Behind:
    """Subject U-1's graph built of 300 vectors, held behind 200 stored after it.

    Searches patch at most 20 docs themselves (``PATCH_IN_SEARCH``), so they rank the 200
    beside the graph; ``log_limit``: the change log's limit while the 200 are stored (0: as
    it is).
    """
    monkeypatch.setattr(ann, "PATCH_IN_SEARCH", 20)
    rng = np.random.default_rng(seed)
    matrix = unit(rng, 300)
    owners = add(store, "t", "U-1", matrix)
    built(store, "t", "U-1", matrix[0])
    gate = held_catch_ups(monkeypatch)
    if log_limit:
        monkeypatch.setattr(doc_changes, "LOG_LIMIT", log_limit)
    late = unit(rng, 200)
    return Behind(rng, matrix, owners, late, add(store, "t", "U-1", late), gate)
