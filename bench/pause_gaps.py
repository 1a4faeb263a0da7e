"""The longest stretches of a long note's write between two of its pause points.

Issue 16: a recall beside the write of a ``MAX_NOTE_CHARS`` note was 50–100 ms slower. Work
of the write that runs in this interpreter steps aside for requests only at its pause points
(:mod:`memlane.pacing`); between two of them it holds the interpreter (or, in a transaction,
the database) for as long as the stretch lasts. This script writes ``--notes`` such notes
(each new text, so no cache serves it) and records, for every stretch, its length and the
two pause points that bound it (file:line), in the writing thread's CPU time and in wall
time; it prints the longest stretches and the write's time (wall, and this thread's CPU).
With ``--indexing process`` the notes' text work is done by a child (:mod:`memlane.textwork`)
and only the database writes are left here.

Run from the repo root:

    PYTHONPATH=src python bench/pause_gaps.py --indexing process --out /tmp/gaps.json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import memlane
from huge_note import numbered_note  # bench/ is on sys.path when run as a script
from memlane import pacing
from memlane.bench.report import machine

SENTENCE = "the beekeeper moved the hives to the orchard behind the old mill. "


class Stretches:
    """Every stretch between two pause points of paced work: (CPU s, wall s, from, to).

    The CPU time is the writing thread's own (``time.thread_time``): on a loaded machine the
    wall time of a stretch also counts the moments the thread waited for a core.
    """

    def __init__(self) -> None:
        self.found: list[tuple[float, float, str, str]] = []
        self.restart()

    def restart(self) -> None:
        self._last = (time.thread_time(), time.perf_counter(), "start")

    def end(self) -> None:
        """The stretch from the last pause point to the end of the write."""
        self._add("end")

    def pause(self) -> None:
        # _add's caller is this; then the patched _Pacer.pause, pause(), and the work itself
        frame = sys._getframe(3)
        self._add(f"{frame.f_code.co_filename.rsplit('memlane/', 1)[-1]}:{frame.f_lineno}")

    def _add(self, where: str) -> None:
        cpu, wall = time.thread_time(), time.perf_counter()
        self.found.append((cpu - self._last[0], wall - self._last[1], self._last[2], where))
        self._last = (cpu, wall, where)


def measure(indexing: str, notes: int) -> dict[str, Any]:
    """Write ``notes`` long notes, one subject each; the stretches and the writes' times."""
    stretches = Stretches()
    original = pacing._Pacer.pause

    def pause(self: pacing._Pacer) -> None:
        stretches.pause()
        original(self)

    pacing._Pacer.pause = pause  # type: ignore[method-assign]
    writes: list[float] = []
    cpu: list[float] = []
    try:
        with (
            tempfile.TemporaryDirectory() as folder,
            memlane.Memory(
                Path(folder) / "m.db",
                embedder="hash",
                indexing=indexing,  # type: ignore[arg-type]
            ) as mem,
        ):
            mem.remember("U-0", "warm up: I live in Paris. " + numbered_note(-1, SENTENCE)[:10_000])
            time.sleep(2.0)  # a child, if any, has started
            stretches.found.clear()
            for n in range(notes):
                stretches.restart()
                started, used = time.perf_counter(), time.thread_time()
                mem.remember(f"U-{n + 1}", numbered_note(n, SENTENCE))
                writes.append((time.perf_counter() - started) * 1000)
                cpu.append((time.thread_time() - used) * 1000)
                stretches.end()
    finally:
        pacing._Pacer.pause = original  # type: ignore[method-assign]
    ordered = sorted(stretches.found, reverse=True)
    return {
        "indexing": indexing,
        "notes": notes,
        "write_ms": [round(ms, 1) for ms in writes],
        "write_ms_median": round(statistics.median(writes), 1),
        "write_cpu_ms": [round(ms, 1) for ms in cpu],
        "write_cpu_ms_median": round(statistics.median(cpu), 1),
        "pauses_per_note": round(len(stretches.found) / notes, 1),
        "longest_stretches": [
            {"cpu_ms": round(1000 * used, 1), "wall_ms": round(1000 * wall, 1), "from": a, "to": b}
            for used, wall, a, b in ordered[:15]
        ],
    }


def main() -> None:
    """Print the longest stretches and write the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--indexing", choices=("background", "process"), default="background")
    parser.add_argument("--notes", type=int, default=5)
    parser.add_argument("--out", type=Path, default=None)
    options = parser.parse_args()
    load = [round(value, 2) for value in os.getloadavg()]
    result = measure(options.indexing, options.notes)
    result["load_average_before"] = load
    result["machine"] = machine()
    print(
        f"{options.indexing}: write median {result['write_ms_median']} ms, this thread's CPU "
        f"{result['write_cpu_ms_median']} ms, {result['pauses_per_note']} pauses per note "
        f"(load {load}); longest stretches, CPU / wall:"
    )
    for stretch in result["longest_stretches"]:
        print(
            f"{stretch['cpu_ms']:7.1f} {stretch['wall_ms']:7.1f} ms  "
            f"{stretch['from']} -> {stretch['to']}"
        )
    if options.out is not None:
        options.out.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
