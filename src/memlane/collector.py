"""The cyclic garbage collector held off while a bulk write builds its many short-lived objects.

``set_many`` makes a few objects per version (the checked call, the planned row, the fact it
returns) that all live until it returns and form no cycle, so reference counting frees them;
``add_notes`` so too per note (the checked note, its keys, the stored note). With the collector
running, each young collection during the call finds them alive and promotes them, and once
enough were promoted a full collection walks every object of the process: after a process had
recalled over a 10^5-note subject, 40% of a 20,000-version ``set_many`` was spent so
(docs/benchmarks.md, stop 40), and the promotions an import of notes counted made the first
recall after it pay a full collection (44 ms of its 66 at 10^4 notes, stop 42). :func:`paused`
keeps the collector off for the block; when it allocated many objects, the young
generations are collected as it ends, so that what the caller kept is walked once, there.

The collector is one per process: blocks of several threads overlap, so the last one to leave
turns it back on, and only if it was on when the first one came in.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_inside = 0  # blocks of every thread inside :func:`paused` now
_resume = False  # whether the collector was on when the first of them came in


@contextmanager
def paused() -> Iterator[None]:
    """Within the block (and any other thread's overlapping one) the collector does not run."""
    global _inside, _resume
    with _lock:
        if _inside == 0:
            _resume = gc.isenabled()
            gc.disable()
        _inside += 1
    try:
        yield
    finally:
        with _lock:
            _inside -= 1
            if _inside == 0 and _resume:
                _settle_young()
                gc.enable()


def _settle_young() -> None:
    """Collect the young generations now if the paused block left many objects in them.

    What the block kept (a bulk write's memos, the facts it returns) is young when the
    collector comes back on: the next young collections, in whatever the process does next,
    walk it (9 ms of the second recall after a 10^4-note import, stop 43). When the block
    allocated more than a middle-generation collection's worth, one collection of both young
    generations here, at the bulk write's cost, moves what survives to the oldest.
    """
    young, middle, _ = gc.get_threshold()
    if young and gc.get_count()[0] > young * middle:
        gc.collect(1)
