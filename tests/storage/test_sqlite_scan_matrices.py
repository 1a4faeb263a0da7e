"""The exact scan's kept matrices: patched from the connection's log, never a stale answer.

A scope without a graph is searched through its matrix (memlane.storage.sqlite.scan_matrices).
After a write only the docs it touched are read again; whatever changed (added, re-embedded,
deleted, moved to another subject, written by another connection, rolled back), every search
answers as an exact scan of the database would.
"""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest

from memlane.storage import vectors
from memlane.storage.sql import SQLSummaryStore
from memlane.storage.sqlite import scan_matrices
from memlane.storage.sqlite.database import SQLiteDatabase
from tests.support.ann_graphs import (
    MODEL,
    THRESHOLD,
    add,
    search,
    store_fixture,  # noqa: F401 (the fixture ``store``)
    unit,
)


@pytest.fixture
def path(tmp_path: Path) -> Path:
    """The file the ``store`` fixture opens."""
    return tmp_path / "m.db"


@pytest.fixture
def whole_reads(store: SQLSummaryStore, monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """The scopes whose matrix is read whole from now on (the list grows)."""
    whole: list[object] = []
    read = scan_matrices.ScanMatrices._read

    def counted(self: scan_matrices.ScanMatrices, key: object, *rest: object) -> object:
        whole.append(key)
        return read(self, key, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(scan_matrices.ScanMatrices, "_read", counted)
    return whole


def _doc_ids(store: SQLSummaryStore, owners: list[int]) -> list[int]:
    return [
        store.db.fetchone("SELECT id FROM search_docs WHERE owner_id = %s", (owner,))[0]
        for owner in owners
    ]


def test_a_search_after_a_write_reads_only_the_docs_it_touched(
    store: SQLSummaryStore, whole_reads: list[object]
) -> None:
    rng = np.random.default_rng(1)
    matrix = unit(rng, THRESHOLD - 50)
    owners = add(store, "t", "U-1", matrix)
    assert search(store, "t", "U-1", matrix[3]) == vectors.nearest(matrix[3], owners, matrix, 10)
    assert len(whole_reads) == 1
    for round_ in range(3):
        more = unit(rng, 5)
        owners += add(store, "t", "U-1", more)
        matrix = np.vstack([matrix, more])
        for query in [more[0], matrix[round_], *unit(rng, 3)]:
            assert search(store, "t", "U-1", query) == vectors.nearest(query, owners, matrix, 10)
    assert len(whole_reads) == 1  # every later search patched the kept matrix


def test_deleted_moved_and_re_embedded_docs_are_patched_out_or_in(
    store: SQLSummaryStore, whole_reads: list[object]
) -> None:
    rng = np.random.default_rng(2)
    matrix = unit(rng, 60)
    owners = add(store, "t", "U-1", matrix)
    add(store, "t", "U-2", unit(rng, 10))  # another subject, another scope
    search(store, "t", "U-1", matrix[0])
    docs = _doc_ids(store, owners)
    store.db.execute("UPDATE search_docs SET deleted_at = 1 WHERE id = %s", (docs[4],))
    store.db.execute("UPDATE search_docs SET subject = 'U-2' WHERE id = %s", (docs[9],))
    turned = unit(rng, 1)[0]
    store.put_vectors(MODEL, [(docs[20], turned.tobytes())])
    matrix[20] = turned
    alive = [i for i in range(len(owners)) if i not in (4, 9)]
    for query in [matrix[4], matrix[9], turned, *unit(rng, 5)]:
        expected = vectors.nearest(query, [owners[i] for i in alive], matrix[alive], 10)
        assert search(store, "t", "U-1", query) == expected
    assert search(store, "t", "U-1", turned, k=1) == [owners[20]]
    assert owners[4] not in search(store, "t", "U-1", matrix[4], k=60)
    assert len(whole_reads) == 1


def test_another_connection_s_commit_is_found(
    store: SQLSummaryStore, path: Path, whole_reads: list[object]
) -> None:
    """The log holds this connection's changes only: another's commit reads the scope whole."""
    rng = np.random.default_rng(3)
    matrix = unit(rng, 40)
    owners = add(store, "t", "U-1", matrix)
    search(store, "t", "U-1", matrix[0])
    other = SQLSummaryStore(SQLiteDatabase(path))
    try:
        more = unit(rng, 4)
        owners += add(other, "t", "U-1", more)
    finally:
        other.db.close()
    matrix = np.vstack([matrix, more])
    assert search(store, "t", "U-1", more[2], k=1) == [owners[-2]]
    assert search(store, "t", "U-1", matrix[1]) == vectors.nearest(matrix[1], owners, matrix, 10)
    assert len(whole_reads) == 2


def test_a_scope_s_first_search_reads_no_state_only_a_search_the_log_cannot_follow_does(
    store: SQLSummaryStore, path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Counting the scope (its state) costs as much as the scope is large; the log needs none."""
    scans = store.dialect.scans  # type: ignore[attr-defined]
    counted: list[object] = []
    state_of = scans.state_of
    monkeypatch.setattr(scans, "state_of", lambda key: counted.append(key) or state_of(key))
    rng = np.random.default_rng(8)
    matrix = unit(rng, 20)
    owners = add(store, "t", "U-1", matrix)
    assert search(store, "t", "U-1", matrix[0]) == vectors.nearest(matrix[0], owners, matrix, 10)
    more = unit(rng, 2)
    owners += add(store, "t", "U-1", more)  # this connection's: the log follows it
    matrix = np.vstack([matrix, more])
    assert search(store, "t", "U-1", more[0], k=1) == [owners[-2]]
    assert counted == []
    other = SQLSummaryStore(SQLiteDatabase(path))
    try:
        owners += add(other, "t", "U-1", unit(rng, 1))
    finally:
        other.db.close()
    assert search(store, "t", "U-1", matrix[1], k=1) == [owners[1]]
    assert len(counted) == 1  # read whole once the log could not tell, with its state


class _Undone(Exception):
    """Raised to roll a write back."""


def _undone_write(store: SQLSummaryStore, written: np.ndarray) -> tuple[list[int], list[int]]:
    """``written`` added in a write rolled back after a search of its first vector inside it:
    the owners the write gave them, and what that search found."""
    seen: list[list[int]] = []
    with pytest.raises(_Undone), store.transaction():
        seen.append(add(store, "t", "U-1", written))
        seen.append(search(store, "t", "U-1", written[0], k=1))
        raise _Undone
    return seen[0], seen[1]


def test_a_write_rolled_back_leaves_nothing_in_the_kept_matrix(store: SQLSummaryStore) -> None:
    rng = np.random.default_rng(4)
    matrix = unit(rng, 30)
    owners = add(store, "t", "U-1", matrix)
    search(store, "t", "U-1", matrix[0])
    ghost = unit(rng, 1)
    ghost_owners, found = _undone_write(store, ghost)
    assert found == ghost_owners  # inside the write, its own doc
    assert search(store, "t", "U-1", ghost[0]) == vectors.nearest(ghost[0], owners, matrix, 10)
    more = unit(rng, 2)
    owners += add(store, "t", "U-1", more)
    matrix = np.vstack([matrix, more])
    assert search(store, "t", "U-1", ghost[0]) == vectors.nearest(ghost[0], owners, matrix, 10)


def test_a_search_waits_for_no_writer_holding_the_lock(store: SQLSummaryStore) -> None:
    """A writer's open transaction holds the lock for as long as it writes (an import: seconds);
    the search then checks the scope's state instead of reading the log, and answers."""
    rng = np.random.default_rng(5)
    matrix = unit(rng, 30)
    owners = add(store, "t", "U-1", matrix)
    search(store, "t", "U-1", matrix[0])
    more = unit(rng, 3)
    owners += add(store, "t", "U-1", more)  # committed: to be found
    matrix = np.vstack([matrix, more])
    held, release = threading.Event(), threading.Event()

    def writer() -> None:
        with store.db.lock:
            held.set()
            release.wait(30)

    holder = threading.Thread(target=writer)
    holder.start()
    answers: list[list[int]] = []
    try:
        assert held.wait(10)
        searcher = threading.Thread(
            target=lambda: answers.append(search(store, "t", "U-1", more[1]))
        )
        searcher.start()
        searcher.join(10)
        assert not searcher.is_alive(), "the search waited for the lock's holder"
    finally:
        release.set()
        holder.join()
    assert answers == [vectors.nearest(more[1], owners, matrix, 10)]


def test_many_changes_read_the_scope_whole(
    store: SQLSummaryStore, whole_reads: list[object], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(scan_matrices, "PATCH_MOST", 10)
    rng = np.random.default_rng(6)
    matrix = unit(rng, 20)
    owners = add(store, "t", "U-1", matrix)
    search(store, "t", "U-1", matrix[0])
    more = unit(rng, 11)
    owners += add(store, "t", "U-1", more)
    matrix = np.vstack([matrix, more])
    assert search(store, "t", "U-1", more[0]) == vectors.nearest(more[0], owners, matrix, 10)
    assert len(whole_reads) == 2


def test_a_matrix_read_inside_a_write_is_not_kept(store: SQLSummaryStore) -> None:
    """Rolled back, its doc ids are taken again by the next docs: a matrix kept from inside
    the write would match the scope's counts then and answer with the vectors undone."""
    rng = np.random.default_rng(7)
    matrix = unit(rng, 30)
    owners = add(store, "t", "U-1", matrix)
    search(store, "t", "U-1", matrix[0])
    ghost = unit(rng, 1)
    _undone_write(store, ghost)
    late = unit(rng, 1)
    owners += add(store, "t", "U-1", late)  # the undone note's and doc's ids again
    matrix = np.vstack([matrix, late])
    for query in [ghost[0], late[0], matrix[2]]:
        assert search(store, "t", "U-1", query) == vectors.nearest(query, owners, matrix, 10)
