"""Recall latency against how much one subject has said (issue 15, item 2).

One subject is given N notes with ``mem.remember`` (varied first-person statements, some of
them updating earlier ones), the backlog is embedded, then the same queries are recalled
``--repeat`` times each; reported per N: recall p50 and p95 (ms) and the growth of p50
against the smallest N. The hash embedder keeps the numbers about memlane, not a model.

With ``--same-shape``, the N notes are one statement said again and again ("note 7: the user
tried a new tea"): what recall reads should not grow with how often a subject repeats itself.

Run from the repo root, against this tree or another one (the numbers before a change):

    PYTHONPATH=src python bench/recall_cost.py --sizes 200,1000,5000 --out /tmp/recall.json
    PYTHONPATH=src python bench/recall_cost.py --sizes 10,100,1000 --same-shape
    PYTHONPATH=src python bench/recall_cost.py --profile 1000   # cProfile of the recalls
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import random
import statistics
import time
from pathlib import Path
from typing import Any

import memlane
from embedders import machine  # the sibling script: bench/ is on the path when run

SUBJECT = "U-001"
PLACES = ["Lyon", "Porto", "Oslo", "Kyoto", "Denver", "Quito", "Hanoi", "Perth", "Tunis", "Riga"]
THINGS = ["team", "book", "band", "dish", "film", "game", "colour", "author", "sport", "drink"]
FRIENDS = ["Alice", "Bruno", "Chen", "Dana", "Emil", "Farah", "Goran", "Hana", "Ivo", "Jun"]
QUERIES = [
    "what is my favourite team?",
    "where did I go with Alice?",
    "which book am I reading?",
    "what did I cook last weekend?",
    "where do I live now?",
    "who did I meet at the concert?",
]
SAME_QUERIES = [
    "what tea did the user try?",
    "what did the user try?",
    "what is new?",
    "which drink did I try last?",
    "tell me about tea",
    "what happened?",
]


SYLLABLES = ["ka", "lo", "mi", "ren", "sa", "tor", "vel", "zu", "bri", "dan", "fe", "gor"]


def statement(rng: random.Random) -> str:
    """One varied statement; made-up rare words ("kalotor") keep the vocabulary growing."""
    place, thing, friend = rng.choice(PLACES), rng.choice(THINGS), rng.choice(FRIENDS)
    rare = "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4)))
    return rng.choice(
        [
            f"My favourite {thing} is now {rare}",
            f"I went to {place} with {friend} and we saw {rare}",
            f"I am reading a book called {rare} that {friend} gave me",
            f"Last weekend I cooked {rare} for {friend}",
            f"I moved to {place} last month",
            f"I met {friend} at the {rare} concert in {place}",
            f"{friend} told me about {rare}, a {thing} from {place}",
        ]
    )


def fill(mem: memlane.Memory, notes: int, same: bool = False) -> float:
    """Remember ``notes`` statements (``same``: one shape); returns the seconds it took."""
    rng = random.Random(15)
    started = time.perf_counter()
    for number in range(notes):
        text = f"note {number}: the user tried a new tea" if same else statement(rng)
        mem.remember(SUBJECT, text)
    return time.perf_counter() - started


def recall_times(mem: memlane.Memory, repeat: int, same: bool = False) -> list[float]:
    """Milliseconds of every recall (one warm-up pass first)."""
    queries = SAME_QUERIES if same else QUERIES
    for query in queries:
        mem.recall(SUBJECT, query)
    times = []
    for _ in range(repeat):
        for query in queries:
            started = time.perf_counter()
            mem.recall(SUBJECT, query)
            times.append((time.perf_counter() - started) * 1000)
    return times


def settle(mem: memlane.Memory) -> float:
    """Seconds until SQLite's vector graphs, built in the background at first need, are ready.

    Found with ``getattr``: 0 on a tree without them (or on another backend).
    """
    database = getattr(getattr(mem, "_backend", None), "summaries", None)
    graphs = getattr(
        getattr(getattr(database, "db", None), "dialect", None), "vector_indexes", None
    )
    started = time.perf_counter()
    if graphs is not None:
        for query in QUERIES:  # the first searches of a large scope start its graph
            mem.recall(SUBJECT, query)
        graphs.wait(600)
    return time.perf_counter() - started


def measure(size: int, repeat: int, same: bool = False) -> dict[str, Any]:
    """Fill a fresh memory with ``size`` notes and time its recalls (once graphs are built)."""
    with memlane.Memory(":memory:", embedder="hash") as mem:
        write_seconds = fill(mem, size, same)
        mem.summaries.index()
        graph_seconds = settle(mem)
        times = sorted(recall_times(mem, repeat, same))
    return {
        "notes": size,
        "write_s": round(write_seconds, 2),
        "graph_s": round(graph_seconds, 2),
        "recalls": len(times),
        "p50_ms": round(statistics.median(times), 2),
        "p95_ms": round(times[int(0.95 * (len(times) - 1))], 2),
    }


def profile(size: int, repeat: int, same: bool = False) -> None:
    """Print where recall time goes at ``size`` notes."""
    with memlane.Memory(":memory:", embedder="hash") as mem:
        fill(mem, size, same)
        mem.summaries.index()
        settle(mem)
        recall_times(mem, 1, same)
        profiler = cProfile.Profile()
        profiler.enable()
        recall_times(mem, repeat, same)
        profiler.disable()
    pstats.Stats(profiler).sort_stats("cumulative").print_stats(35)


def main() -> None:
    """Parse arguments, measure every size, print the table and write the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sizes", default="200,1000,5000", help="notes per subject, comma-separated"
    )
    parser.add_argument("--repeat", type=int, default=5, help="passes over the queries")
    parser.add_argument("--profile", type=int, help="profile the recalls at this size instead")
    parser.add_argument("--out", type=Path, help="write the results here as JSON")
    parser.add_argument(
        "--same-shape", action="store_true", help="every note the same statement but its number"
    )
    args = parser.parse_args()
    if args.profile:
        profile(args.profile, args.repeat, args.same_shape)
        return
    rows = [measure(int(size), args.repeat, args.same_shape) for size in args.sizes.split(",")]
    base = rows[0]["p50_ms"]
    print(
        f"{'notes':>7} {'write s':>8} {'graph s':>8} {'p50 ms':>8} {'p95 ms':>8} {'p50 growth':>10}"
    )
    for row in rows:
        row["growth"] = round(row["p50_ms"] / base, 2)
        print(
            f"{row['notes']:>7} {row['write_s']:>8} {row['graph_s']:>8} {row['p50_ms']:>8} "
            f"{row['p95_ms']:>8} {row['growth']:>9}x"
        )
    if args.out:
        params = {
            "repeat": args.repeat,
            "same_shape": args.same_shape,
            "memlane": str(Path(memlane.__file__).parent),  # which tree ran
            "machine": machine(),  # CPU model, cores, load
        }
        document = {"suite": "recall_cost", "params": params}
        args.out.write_text(json.dumps(document | {"rows": rows}, indent=2) + "\n")


if __name__ == "__main__":
    main()
