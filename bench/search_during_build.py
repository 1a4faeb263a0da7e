"""Searches of a small scope while the building thread builds a large scope's graph.

The building thread reads a whole scope's ids and vectors (chunks of :data:`CHUNK` rows) while
searches read theirs; this measures what its reads cost the searches meanwhile, and how many
read-only connections the database holds. A database of ``--vectors`` vectors in subject
``big`` (its graph is built) and ``--small`` in subject ``small`` (below the threshold: every
search scans it exactly, reading its vectors on a read connection) is made once; each round
copies it (no saved graph), opens it, times ``--searches`` searches of ``small`` with nothing
built, then starts the build of ``big`` and times searches of ``small`` until it ends.

Run from the repo root, alternating the trees compared (``PYTHONPATH`` picks the tree):

    PYTHONPATH=src python bench/search_during_build.py --vectors 100000 --rounds 2 \
        --out /tmp/search-during-build.json
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from memlane.bench.processes import open_files
from memlane.bench.report import machine
from memlane.storage.sql import SQLSummaryStore
from memlane.storage.sqlite import ann
from memlane.storage.sqlite.database import ReadConnection, SQLiteDatabase
from memlane.storage.sqlite.graph_rows import CHUNK

MODEL = "bench-model"
DIMS = 384
PACE = 0.02


def filled(path: Path, vectors: int, small: int, seed: int = 7) -> None:
    """Subjects ``big`` and ``small`` of tenant ``t``: one note a vector, embedded."""
    rng = np.random.default_rng(seed)
    store = SQLSummaryStore(SQLiteDatabase(path))
    try:
        for subject, count in (("big", vectors), ("small", small)):
            for start in range(0, count, 10_000):
                size = min(10_000, count - start)
                with store.transaction() as writer:
                    tx = writer.next_tx(1)
                    notes = [
                        writer.put_note(
                            "t", subject, f"note {start + i}", said_at=start + i,
                            session_id=None, source=None, provenance=(), tx=tx,
                        ).id
                        for i in range(size)
                    ]  # fmt: skip
                doc_of = dict(
                    store.db.fetchall(
                        "SELECT owner_id, id FROM search_docs WHERE kind = 'note' "
                        "AND owner_id IN (SELECT value FROM json_each(%s))",
                        (json.dumps(notes),),
                    )
                )
                matrix = rng.standard_normal((size, DIMS)).astype(np.float32)
                matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
                store.put_vectors(
                    MODEL, [(doc_of[n], v.tobytes()) for n, v in zip(notes, matrix, strict=True)]
                )
    finally:
        store.db.close()


SCAN = (
    "SELECT id, vector FROM search_docs WHERE tenant = 't' AND subject = 'small' "
    "AND kind = 'note' AND model = %s AND deleted_at IS NULL"
)
"""What an exact scan of subject ``small`` reads (a search's cache would answer it unread)."""


def timed_scan(store: SQLSummaryStore) -> tuple[float, float]:
    """Read subject ``small``'s vectors as a search scans them: wall and thread CPU time (ms).

    Then wait :data:`PACE` s: searches at a recall's rate, not a loop taking the GIL.
    """
    wall, cpu = time.perf_counter(), time.thread_time()
    rows = store.db.fetchall(SCAN, (MODEL,))
    assert rows, "nothing scanned"
    took = 1000 * (time.perf_counter() - wall), 1000 * (time.thread_time() - cpu)
    time.sleep(PACE)
    return took


@contextmanager
def building_statements() -> Iterator[list[float]]:
    """How long each statement of the building thread held its read connection (ms), from now.

    Old trees read on a connection of the building thread's own, new ones on the database's
    pool: both :class:`ReadConnection`, whose ``fetchall`` is timed on that thread.
    """
    held: list[float] = []
    fetchall = ReadConnection.fetchall

    def timed(self: ReadConnection, sql: str, parameters: Any = ()) -> list[Any]:
        if threading.current_thread().name != "memlane-vector-index":
            return fetchall(self, sql, parameters)
        started = time.perf_counter()
        try:
            return fetchall(self, sql, parameters)
        finally:
            held.append(1000 * (time.perf_counter() - started))

    ReadConnection.fetchall = timed  # type: ignore[method-assign]
    try:
        yield held
    finally:
        ReadConnection.fetchall = fetchall  # type: ignore[method-assign]


def one_round(source: Path, searches: int, seed: int) -> dict[str, Any]:
    """Searches of ``small`` idle, then during the build of ``big`` (times in ms)."""
    rng = np.random.default_rng(seed)
    with tempfile.TemporaryDirectory() as folder, building_statements() as held:
        path = Path(folder) / "m.db"
        shutil.copy(source, path)
        store = SQLSummaryStore(SQLiteDatabase(path))
        indexes: ann.VectorIndexes = store.db.dialect.vector_indexes  # type: ignore[attr-defined]
        try:
            queries = rng.standard_normal((searches, DIMS)).astype(np.float32)
            idle = [timed_scan(store) for _ in range(searches)]
            started = time.perf_counter()
            store.nearest("t", "big", "note", MODEL, queries[0], 10)  # starts the build
            during: list[tuple[float, float]] = []
            most_files = 0
            done = threading.Event()

            def wait() -> None:
                indexes.wait()
                done.set()

            waiter = threading.Thread(target=wait)
            waiter.start()
            while not done.is_set():
                during.append(timed_scan(store))
                most_files = max(most_files, open_files("self", path)[1])
            built = time.perf_counter() - started
            waiter.join()
            assert ("t", "big", "note", MODEL) in indexes.scopes(), "no graph built"
        finally:
            store.db.close()
    return {
        "idle_p50_ms": statistics.median(w for w, _ in idle),
        "idle_cpu_p50_ms": statistics.median(c for _, c in idle),
        "during_p50_ms": statistics.median(w for w, _ in during),
        "during_p90_ms": float(np.percentile([w for w, _ in during], 90)),
        "during_cpu_p50_ms": statistics.median(c for _, c in during),
        "during_searches": len(during),
        "build_s": built,
        "read_only_files_max": most_files,
        "building_statements": len(held),
        "building_statement_p50_ms": statistics.median(held) if held else 0.0,
        "building_statement_max_ms": max(held, default=0.0),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--vectors", type=int, default=100_000)
    parser.add_argument("--small", type=int, default=1_500)
    parser.add_argument("--searches", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--db", type=Path, help="the database made before (made if missing)")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        source = args.db or Path(folder) / "source.db"
        if not source.exists():
            filled(source, args.vectors, args.small)
        rounds = [one_round(source, args.searches, seed) for seed in range(args.rounds)]
    print(f"{args.vectors} vectors building (chunks of {CHUNK}), load {os.getloadavg()}")
    for key in rounds[0]:
        print(f"{key:>26}: " + "  ".join(f"{r[key]:9.2f}" for r in rounds))
    if args.out:
        result = {"machine": machine(), "vectors": args.vectors, "rounds": rounds}
        args.out.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
