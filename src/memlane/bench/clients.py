"""Client processes that write at once for a while, started together: their summed rate."""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

Worker = Callable[[str, int, float, Any, Any], None]
"""``worker(url, index, seconds, barrier, queue)``: a process's work. It waits at ``barrier``
once ready, writes for ``seconds``, then puts how many writes it made on ``queue`` (or, if it
failed, a message, after aborting the barrier). A module-level function: processes spawn;
its body is :func:`work`."""


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


def work(
    writes: AbstractContextManager[Callable[[int], object]],
    index: int,
    seconds: float,
    barrier: Any,
    queue: Any,
) -> None:
    """A :data:`Worker`'s body: ``writes`` opened (and warmed), then ``write(n)`` until time is up.

    Every process starts writing at once (``barrier``); how many it wrote goes on ``queue``,
    or a message if it failed, which the parent raises.
    """
    try:
        with writes as write:
            barrier.wait(timeout=600)
            stop, done = time.monotonic() + seconds, 0
            while time.monotonic() < stop:
                write(done)
                done += 1
        queue.put(done)
    except Exception as error:  # reported to the parent, which raises
        barrier.abort()
        queue.put(f"client {index}: {error!r}")
