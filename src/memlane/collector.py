"""The cyclic garbage collector held off while a bulk write builds its many short-lived objects.

``set_many`` makes a few objects per version (the checked call, the planned row, the fact it
returns) that all live until it returns and form no cycle, so reference counting frees them;
``add_notes`` so too per note (the checked note, its keys, the stored note). With the collector
running, each young collection during the call finds them alive and promotes them, and once
enough were promoted a full collection walks every object of the process: after a process had
recalled over a 10^5-note subject, 40% of a 20,000-version ``set_many`` was spent so
(docs/benchmarks.md, stop 40), and the promotions an import of notes counted made the first
recall after it pay a full collection (44 ms of its 66 at 10^4 notes, stop 42). :func:`paused`
keeps the collector off for the block; the first collection after it finds only what the
caller kept.

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
                gc.enable()
