"""The threads storage and the lanes start beside the requests they serve.

A background thread (the indexer's worker, the vector graphs' builder) runs at a lower CPU
priority than the requests, which get the cores first. Here, under storage, so that the
graphs' builder may import it too (storage imports nothing above it).
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading


def lower_priority(nice: int) -> None:
    """Lower the calling thread's CPU priority by ``nice`` (Linux only; 0: unchanged).

    On Linux niceness belongs to a thread (elsewhere ``setpriority`` would lower the whole
    process), and threads it starts later inherit it.
    """
    if sys.platform == "linux" and nice > 0:
        me = threading.get_native_id()
        with contextlib.suppress(OSError):  # not allowed: run as it is
            os.setpriority(os.PRIO_PROCESS, me, os.getpriority(os.PRIO_PROCESS, me) + nice)
