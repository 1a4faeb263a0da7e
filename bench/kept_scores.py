"""Scoring kept vectors: the whole ring against only the runs of rows a search asks.

``RecentVectors.known`` scores the vectors this process stored last (a ring of 8,000 rows
per model) for the ~2,000 newest docs a graph behind its scope lacks. This times, on a ring
that wrapped (the newest 2,000 rows: its last 1,000 and first 1,000), the product of the
whole written ring then the rows taken (before) against :func:`spans_scored` (after), with
the CPU caches warm (the same call again and again) and cold (64 MiB written between calls,
as a recall's other work does between two searches). Median of ``--calls`` calls each:

    PYTHONPATH=src python bench/kept_scores.py --out /tmp/kept.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from memlane.bench.report import machine
from memlane.storage.sqlite.recent_vectors import KEPT_VECTORS, spans_scored
from memlane.tables import table

DIMS = 384
ASKED = 2_000


def _median_ms(score: Callable[[], Any], calls: int, flush: np.ndarray | None) -> float:
    times = []
    for _ in range(calls):
        if flush is not None:
            flush += 1.0  # evicts the ring from the CPU caches
        started = time.perf_counter()
        score()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def main() -> None:
    """Time both ways, warm and cold; print a table; write JSON if asked."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    ring = rng.standard_normal((KEPT_VECTORS, DIMS)).astype(np.float32)
    query = rng.standard_normal(DIMS).astype(np.float32)
    half = ASKED // 2
    rows = np.r_[np.arange(KEPT_VECTORS - half, KEPT_VECTORS), np.arange(half)].astype(np.intp)
    ways = {
        "whole ring, rows taken": lambda: (ring @ query)[rows],
        "runs of rows (spans_scored)": lambda: spans_scored(ring, rows, query),
    }
    assert np.allclose(ways["whole ring, rows taken"](), ways["runs of rows (spans_scored)"]())
    flush = np.ones(64 * 2**20 // 8)
    found = {
        name: {
            "warm_ms": _median_ms(score, args.calls, None),
            "cold_ms": _median_ms(score, args.calls, flush),
        }
        for name, score in ways.items()
    }
    print(
        table(
            ["way", "warm (ms)", "cold (ms)"],
            [[n, f"{f['warm_ms']:.3f}", f"{f['cold_ms']:.3f}"] for n, f in found.items()],
        )
    )
    if args.out:
        document = {"suite": "kept-scores", "params": {"machine": machine()}, "ways": found}
        args.out.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
