"""The cyclic garbage collector's time while watched: a ``gc`` callback shared by the scripts.

Imported by the scripts beside it (``bench/batch_writes.py``, ``bench/steady_recalls.py``,
``bench/after_import.py``), never from ``memlane``: they run against older trees too
(``PYTHONPATH``), which need not have it.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from types import TracebackType
from typing import Any


class CollectorTime:
    """Every collection of any thread while watched: time (by ``clock``), count, full passes.

    ``with CollectorTime() as collector:`` watches for the block; :meth:`reset` takes what
    was counted so far and starts again.
    """

    def __init__(self, clock: Callable[[], float] = time.perf_counter) -> None:
        self._clock = clock
        self.seconds, self.count, self.full = 0.0, 0, 0
        self._began = 0.0

    def __enter__(self) -> CollectorTime:
        gc.callbacks.append(self._seen)
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, _: TracebackType | None
    ) -> None:
        gc.callbacks.remove(self._seen)

    @property
    def ms(self) -> float:
        """The time counted, in milliseconds."""
        return self.seconds * 1000

    def reset(self) -> tuple[float, int]:
        """The milliseconds and full passes counted so far; counting starts again."""
        taken = self.ms, self.full
        self.seconds, self.count, self.full = 0.0, 0, 0
        return taken

    def _seen(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._began = self._clock()
            return
        self.seconds += self._clock() - self._began
        self.count += 1
        self.full += info["generation"] == 2
