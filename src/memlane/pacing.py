"""Long pure-Python work lets the requests in progress go first.

CPython runs the Python of one thread at a time. A large write (a turn of 100,000 characters
read for facts, notes and its summary) is seconds of such work; run beside a recall, it takes
half of every 5 ms and, worse, each time the recall's thread comes back from the database it
waits for the writer to hand the interpreter over. A recall then takes twice as long or more.

So the loops of that work call :func:`pause` once per sentence. Outside :func:`paced` it does
nothing. Inside, at most every :data:`STEP_SECONDS` it calls the pacer's ``wait``, which
returns once the requests in progress are done (or a bounded time passed): the large write
takes longer when other requests run, and they are delayed by a step at most.

>>> calls = []
>>> with paced(lambda: calls.append("waited"), step=0.0):
...     pause()
>>> pause()  # not paced: nothing happens
>>> calls
['waited']
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

STEP_SECONDS = 0.005
"""Most work between two waits of paced work (CPython switches threads every 5 ms)."""


class _Pacer:
    __slots__ = ("_last", "_step", "_wait")

    def __init__(self, wait: Callable[[], object], step: float) -> None:
        self._wait = wait
        self._step = step
        self._last = time.perf_counter()

    def pause(self) -> None:
        if time.perf_counter() - self._last >= self._step:
            self._wait()
            self._last = time.perf_counter()


_CURRENT: ContextVar[_Pacer | None] = ContextVar("memlane_pacer", default=None)


@contextmanager
def paced(wait: Callable[[], object], *, step: float | None = None) -> Iterator[None]:
    """Within the block, :func:`pause` calls ``wait()`` after each ``step`` seconds of work.

    ``step`` is :data:`STEP_SECONDS` unless given.
    The pacing is the calling thread's own (a context variable): other threads are not paced.
    """
    token = _CURRENT.set(_Pacer(wait, STEP_SECONDS if step is None else step))
    try:
        yield
    finally:
        _CURRENT.reset(token)


def pause() -> None:
    """A point where paced work may wait for the requests in progress; cheap otherwise."""
    pacer = _CURRENT.get()
    if pacer is not None:
        pacer.pause()
