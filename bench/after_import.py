"""The recalls right after an import: each one's time and CPU, and what the collector took.

``memlane bench scale`` times one first recall per size, a single sample: whether the
collector's full pass or a building thread's turn fell into it decides much of it. This
script imports N notes of bench scale's kind into a fresh subject (``add_notes``, 5,000 a
transaction), in a fresh process per round, then times the next ``--recalls`` recalls at
once (the backlog still being embedded and its graph built): wall time, the recall thread's
own CPU (the rest it waited: for the cores or the interpreter), the milliseconds the cyclic
collector ran meanwhile (any thread's collections, timed by a ``gc`` callback), and ``*``
where one of them walked every object (a generation-2 collection). The import's own
collections are reported too. Run it against two trees alternately to compare them; each
round uses a new string-hash seed:

    PYTHONPATH=src python bench/after_import.py --sizes 10000 --rounds 3 --out /tmp/a.json
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from collector_time import CollectorTime
from memlane.bench.backends import _note
from memlane.bench.report import machine
from memlane.bench.scale import BATCH, SUBJECT, _notes
from memlane.memory import Memory


def one_round(size: int, recalls: int, embedder: str) -> dict[str, Any]:
    """In this process: import ``size`` notes, then time ``recalls`` recalls."""
    with tempfile.TemporaryDirectory() as folder:
        url = str(Path(folder) / "m.db")
        with Memory(url, tenant="warm-up", embedder=embedder) as mem:
            mem.recall(SUBJECT, _note(0)[2])  # what any process pays once, timed apart
        with (
            Memory(url, tenant="imported", embedder=embedder) as mem,
            CollectorTime() as collections,
        ):
            started = time.perf_counter()
            for offset in range(0, size, BATCH):
                mem.summaries.add_notes(_notes(range(offset, min(size, offset + BATCH)), True))
            imported = time.perf_counter() - started
            import_gc_ms, import_full = collections.reset()
            rng = random.Random(size)
            timed = []
            for _ in range(recalls):
                started, cpu = time.perf_counter(), time.thread_time()
                mem.recall(SUBJECT, _note(rng.randrange(size))[2])
                elapsed = (time.perf_counter() - started) * 1000
                cpu = (time.thread_time() - cpu) * 1000
                gc_ms, full = collections.reset()
                timed.append({"ms": elapsed, "cpu_ms": cpu, "gc_ms": gc_ms, "full": full})
    return {
        "import_s": imported,
        "import_gc_ms": import_gc_ms,
        "import_full_collections": import_full,
        "recalls": timed,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--recalls", type=int, default=10)
    parser.add_argument("--embedder", default="hash")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--round", type=int, help=argparse.SUPPRESS)  # a child's one round
    args = parser.parse_args()
    if args.round is not None:
        print(json.dumps(one_round(args.sizes[0], args.recalls, args.embedder)))
        return
    results: dict[str, Any] = {"machine": machine(), "params": vars(args) | {"out": None}}
    print("recalls after the import: ms (thread CPU ms, collector ms), * a full collection")
    for size in args.sizes:
        rounds = []
        for number in range(args.rounds):
            child = [sys.executable, __file__, "--sizes", str(size), "--round", str(number)]
            child += ["--recalls", str(args.recalls), "--embedder", args.embedder]
            seed = {"PYTHONHASHSEED": str(random.randrange(2**32))}
            output = subprocess.run(
                child, env=os.environ | seed, capture_output=True, text=True, check=True
            ).stdout
            measured = json.loads(output.splitlines()[-1])
            rounds.append(measured)
            shown = " ".join(
                f"{r['ms']:.0f}({r['cpu_ms']:.0f},{r['gc_ms']:.0f}){'*' * r['full']}"
                for r in measured["recalls"]
            )
            print(
                f"{size:>8,}  import {measured['import_s']:.1f} s, collector "
                f"{measured['import_gc_ms']:.0f} ms ({measured['import_full_collections']} "
                f"full); recalls {shown}"
            )
        firsts = [measured["recalls"][0]["ms"] for measured in rounds]
        later = [r["ms"] for measured in rounds for r in measured["recalls"][1:]]
        results[str(size)] = {
            "rounds": rounds,
            "first_median_ms": statistics.median(firsts),
            "later_median_ms": statistics.median(later) if later else None,
        }
        print(f"{size:>8,}  first recall median {results[str(size)]['first_median_ms']:.1f} ms")
    if args.out:
        args.out.write_text(json.dumps(results, indent=2) + "\n")
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
