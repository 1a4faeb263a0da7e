"""Client processes that write at once for a while, started together: their summed rate."""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable
from typing import Any

Worker = Callable[[str, int, float, Any, Any], None]
"""``worker(url, index, seconds, barrier, queue)``: a process's work. It waits at ``barrier``
once ready, writes for ``seconds``, then puts how many writes it made on ``queue`` (or, if it
failed, a message, after aborting the barrier). A module-level function: processes spawn."""


def summed_rate(worker: Worker, url: str, count: int, seconds: float) -> float:
    """Writes per second of ``count`` processes running ``worker`` at once.

    Raises:
        RuntimeError: a process failed (its message, and the others').
    """
    context = multiprocessing.get_context("spawn")
    barrier, queue = context.Barrier(count), context.Queue()
    processes = [
        context.Process(target=worker, args=(url, index, seconds, barrier, queue), daemon=True)
        for index in range(count)
    ]
    for process in processes:
        process.start()
    outcomes = [queue.get(timeout=seconds + 600) for _ in processes]
    for process in processes:
        process.join(timeout=60)
    failures = [outcome for outcome in outcomes if isinstance(outcome, str)]
    if failures:
        raise RuntimeError("; ".join(failures))
    return float(sum(outcomes)) / seconds
