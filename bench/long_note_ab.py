"""Recalls beside a long note's write, with its text read in the request or by a child, alternately.

Issue 16: "a 1 MiB note never delays another request by more than 100 ms". On a loaded
machine a run of one setup then a run of the other compares two moments of the machine more
than two setups; this script alternates them note by note in one process. Two memories are
open, one with ``indexing="background"`` (a long note is read in the writing thread, paced
as before) and one with ``indexing="process"`` (read by a child, :mod:`memlane.textwork`);
both hold the same notes of subject U-2. For each of ``--notes`` rounds and each memory in
turn: a thread recalls U-2 with a new question every ``--pause-ms`` (each call marked as a
request, as the server marks its requests) for ``--quiet-seconds``, then the main thread
remembers a ``MAX_NOTE_CHARS`` note (a new text each time) while the recalls go on. A recall
overlapping the write is compared with the quiet median of the same memory in the same round
(its delay, and its ratio).

Run from the repo root:

    PYTHONPATH=src python bench/long_note_ab.py --notes 10 --out /tmp/long-note-ab.json
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import tempfile
import threading
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import memlane
from huge_note import numbered_note  # bench/ is on sys.path when run as a script
from memlane.bench.report import machine

MODES = ("background", "process")
TEAS = ("green", "oolong", "jasmine", "black", "mint", "chamomile")
SENTENCE = "the beekeeper moved the hives to the orchard behind the old mill. "


class Recaller(threading.Thread):
    """Recalls U-2 of the memory it is pointed at, each call timed, until stopped."""

    def __init__(self, pause: float) -> None:
        super().__init__(daemon=True)
        self.pause = pause
        self.memory: memlane.Memory | None = None
        self.spans: list[tuple[float, float]] = []
        self._halt = threading.Event()
        self._lock = threading.Lock()
        self._questions = itertools.count()

    def point(self, memory: memlane.Memory) -> None:
        with self._lock:
            self.memory, self.spans = memory, []

    def taken(self) -> list[tuple[float, float]]:
        with self._lock:
            return list(self.spans)

    def run(self) -> None:
        while not self._halt.is_set():
            with self._lock:
                memory = self.memory
            if memory is not None:
                question = f"what tea did the user try on day {next(self._questions)}?"
                started = time.perf_counter()
                with memory.index.indexer.request():
                    memory.recall("U-2", question)
                ended = time.perf_counter()
                with self._lock:
                    if self.memory is memory:
                        self.spans.append((started, ended))
            time.sleep(self.pause)

    def stop(self) -> None:
        self._halt.set()
        self.join(timeout=60)


def measure(notes: int, quiet_s: float, pause: float) -> dict[str, Any]:
    """``notes`` rounds of (quiet, write) per mode, alternating; per write, the recalls."""
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as folder, ExitStack() as stack:
        memories = {
            mode: stack.enter_context(
                memlane.Memory(Path(folder) / f"{mode}.db", embedder="hash", indexing=mode)  # type: ignore[arg-type]
            )
            for mode in MODES
        }
        for memory in memories.values():
            for day in range(100):
                memory.remember("U-2", f"On day {day} the user tried {TEAS[day % len(TEAS)]} tea")
            memory.remember("U-9", "warm up. " + numbered_note(-1, SENTENCE)[:10_000])
            memory.index.wait()
        recaller = Recaller(pause)
        recaller.start()
        serial = itertools.count()
        try:
            for round_ in range(notes):
                order = MODES if round_ % 2 == 0 else MODES[::-1]
                for mode in order:
                    memory = memories[mode]
                    recaller.point(memory)
                    time.sleep(quiet_s)
                    quiet = [(end - start) * 1000 for start, end in recaller.taken()]
                    load = os.getloadavg()[0]
                    started = time.perf_counter()
                    memory.remember(
                        f"U-{100 + next(serial)}", numbered_note(round_ * 10 + len(rows), SENTENCE)
                    )
                    ended = time.perf_counter()
                    time.sleep(3 * pause + 0.2)  # the recall in flight at the end finishes
                    overlapping = [
                        (end - start) * 1000
                        for start, end in recaller.taken()
                        if start < ended and end > started
                    ]
                    median = statistics.median(quiet)
                    rows.append(
                        {
                            "round": round_,
                            "mode": mode,
                            "load": round(load, 2),
                            "write_ms": round((ended - started) * 1000, 1),
                            "quiet_p50_ms": round(median, 1),
                            "overlapping_ms": [round(ms, 1) for ms in overlapping],
                            "max_over_quiet_p50_ms": round(
                                max(overlapping, default=median) - median, 1
                            ),
                        }
                    )
                    memory.index.wait()
        finally:
            recaller.stop()
    return {"rows": rows, "summary": {mode: _summary(rows, mode) for mode in MODES}}


def _summary(rows: list[dict[str, Any]], mode: str) -> dict[str, Any]:
    mine = [row for row in rows if row["mode"] == mode]
    ratios = sorted(ms / row["quiet_p50_ms"] for row in mine for ms in row["overlapping_ms"])
    over = sorted(row["max_over_quiet_p50_ms"] for row in mine)
    return {
        "writes": len(mine),
        "write_ms_p50": round(statistics.median(row["write_ms"] for row in mine), 1),
        "overlapping": len(ratios),
        "overlapping_ratio_p50": round(statistics.median(ratios), 2) if ratios else None,
        "overlapping_ratio_p90": round(ratios[int(0.9 * (len(ratios) - 1))], 2) if ratios else None,
        "max_over_quiet_p50_ms_p50": round(statistics.median(over), 1),
        "max_over_quiet_p50_ms_max": over[-1],
        "writes_over_100_ms": sum(value > 100 for value in over),
    }


def main() -> None:
    """Print the summary per mode and write the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=10, help="rounds (one write per mode each)")
    parser.add_argument("--quiet-seconds", type=float, default=1.5)
    parser.add_argument("--pause-ms", type=float, default=20.0)
    parser.add_argument("--out", type=Path, default=None)
    options = parser.parse_args()
    load = [round(value, 2) for value in os.getloadavg()]
    result = measure(options.notes, options.quiet_seconds, options.pause_ms / 1000)
    result["load_average_before"] = load
    result["load_average_after"] = [round(value, 2) for value in os.getloadavg()]
    result["machine"] = machine()
    print(f"load before {load}, after {result['load_average_after']}")
    for mode, summary in result["summary"].items():
        print(mode, json.dumps(summary))
    if options.out is not None:
        options.out.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
