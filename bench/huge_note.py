"""How long other requests wait while the largest note and turn are written and embedded.

Issue 16's target: "a 1 MiB note never delays another request by more than 100 ms". A request
body may be 1 MiB, but a note is at most ``MAX_NOTE_CHARS`` characters and a turn
``MAX_TURN_CHARS`` (larger ones are refused at once with a 4xx), so the largest writes that
can delay anything are measured: a note of ``MAX_NOTE_CHARS`` (``remember``) and a turn of
``MAX_TURN_CHARS`` folded into its session's summary (``add_turn`` + ``close``). A baseline
phase times a mix of requests (fact write, fact read, note write, recall of another subject)
on a quiet memory; then one thread makes the large write while this one keeps sending the
mix until the indexer has embedded what it stored. The delay of a request is its time minus
the baseline median of its kind; the table shows the p99 and the worst delay per kind, and
the ratios of the median and p99 during the write to the baseline's (same run).

Run from the repo root:

    PYTHONPATH=src python bench/huge_note.py --out /tmp/huge-note.json
    PYTHONPATH=src python bench/huge_note.py --embedder hash
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import memlane
from memlane.bench.report import machine
from memlane.validation import MAX_NOTE_CHARS, MAX_TURN_CHARS

TEAS = ("green", "oolong", "jasmine", "black", "mint", "chamomile")
PARAGRAPH = (
    "The user wrote at length about the garden: the roses by the fence, the tomatoes that "
    "never ripened, and the neighbour's cat that sleeps under the apple tree every afternoon. "
)


def requests(mem: memlane.Memory) -> dict[str, Callable[[int], object]]:
    """The mix of other requests, each given a counter so that writes differ.

    Notes go to a subject nobody recalls, so the recalled one keeps the notes
    :func:`measure` gave it; each recall asks a new question, so it needs the model for its
    query's vector as a user's next question would.
    """
    return {
        "facts.set": lambda i: mem.facts.set("U-2", "location", f"City {i % 7}"),
        "facts.get": lambda i: mem.facts.get("U-2", "location"),
        "remember": lambda i: mem.remember("U-3", f"note {i}: the user tried a new tea"),
        "recall": lambda i: mem.recall("U-2", f"what did the user say about tea on day {i}?"),
    }


def run_mix(
    mem: memlane.Memory,
    mix: dict[str, Callable[[int], object]],
    until: Callable[[], bool],
    pause: float = 0.0,
) -> dict[str, list[float]]:
    """Send the mix round-robin until ``until()``; times in ms per kind.

    Each call is marked as a request in progress, as the server marks each of its requests
    (``ServerState.memory``): long work of the large write lets it go first. ``pause``
    seconds pass between two requests (a client's think time; 0: they come back to back).
    """
    times: dict[str, list[float]] = {kind: [] for kind in mix}
    beside: dict[str, list[bool]] = {kind: [] for kind in mix}
    indexer = mem.index.indexer
    i = next(ROUNDS)  # numbered across calls: every recall asks a question not asked before
    while not until():
        for kind, call in mix.items():
            done = getattr(indexer, "calls_done", 0)
            started = time.perf_counter()
            with indexer.request():
                call(i)
            times[kind].append((time.perf_counter() - started) * 1000)
            # a model call of the worker was in flight at some moment of this request
            beside[kind].append(getattr(indexer, "calls_begun", -1) > done)
            time.sleep(pause)
        i = next(ROUNDS)
    BESIDE.clear()
    BESIDE.update(beside)
    return times


ROUNDS = itertools.count()
"""Rounds of the mix in this process (a recall's question names its round)."""
BESIDE: dict[str, list[bool]] = {}
"""Per kind, whether each request of the last :func:`run_mix` ran beside a model call of the
indexer (unknown, all False, on trees whose indexer does not count its calls)."""


def numbered_note(n: int, sentence: str) -> str:
    """At most ``MAX_NOTE_CHARS`` of numbered copies of ``sentence``, different for each ``n``.

    Every sentence numbered: no two pieces of any note alike, so each piece is a model call
    (repeated prose would be served by the embedder's cache after its first period).
    """
    found = ""
    for k in range(MAX_NOTE_CHARS):
        numbered = f"In entry {n}.{k} " + sentence
        if len(found) + len(numbered) > MAX_NOTE_CHARS:
            break
        found += numbered
    return found


def large_writes(mem: memlane.Memory, notes: int = 1) -> dict[str, Callable[[], object]]:
    """The largest writes memlane accepts: notes of numbered sentences, a turn of repeated prose.

    ``notes`` largest notes are written one after the other in the first phase (each starts
    differently, so none is a repeat of another): more of them make a longer phase, with more
    requests timed while pieces are embedded.
    """

    def text(chars: int) -> str:
        return (PARAGRAPH * (chars // len(PARAGRAPH) + 1))[:chars]

    def letters() -> None:
        for n in range(notes):
            mem.remember("U-1", numbered_note(n, PARAGRAPH))

    def turn() -> None:
        mem.add_turn("U-1", "s-large", "user", text(MAX_TURN_CHARS))
        mem.session("U-1", "s-large").close()

    times = "" if notes == 1 else f" x {notes}"
    return {
        f"remember {MAX_NOTE_CHARS:,} chars{times}": letters,
        f"turn {MAX_TURN_CHARS:,} chars + close": turn,
    }


def measure(
    embedder: str | None,
    baseline_s: float,
    notes: int = 1,
    turn: bool = True,
    pause: float = 0.0,
    indexing: str | None = None,
) -> dict[str, Any]:
    """Baseline, then the mix while each large write is made and embedded.

    ``indexing`` is the memory's (``None``: its default, so an older tree runs the same).
    """
    options: dict[str, Any] = {} if indexing is None else {"indexing": indexing}
    with (
        tempfile.TemporaryDirectory() as folder,
        memlane.Memory(Path(folder) / "memlane.db", embedder=embedder, **options) as mem,
    ):
        for day in range(100):
            mem.remember("U-2", f"On day {day} the user tried {TEAS[day % len(TEAS)]} tea")
        mix = requests(mem)
        run_mix(mem, mix, _after(1.0))  # warm the model and the caches
        mem.index.wait()
        base = run_mix(mem, mix, _after(baseline_s), pause)
        medians = {kind: statistics.median(times) for kind, times in base.items()}
        p99s = {kind: _p99(sorted(times)) for kind, times in base.items()}
        writes = list(large_writes(mem, notes).items())[: 2 if turn else 1]
        phases = [_phase(mem, mix, medians, p99s, name, write, pause) for name, write in writes]
        model = mem.embedder().name
    return {
        "model": model,
        "indexing": indexing or "default",
        "pause_ms": pause * 1000,
        "baseline_p50_ms": medians,
        "baseline_p99_ms": p99s,
        "phases": phases,
    }


def _phase(
    mem: memlane.Memory,
    mix: dict[str, Callable[[int], object]],
    medians: dict[str, float],
    p99s: dict[str, float],
    name: str,
    write: Callable[[], object],
    pause: float = 0.0,
) -> dict[str, Any]:
    """The mix's delays while ``write`` runs in another thread and its items are embedded.

    Besides each kind's delays (its time minus its quiet median), the ratios of its median
    and p99 with the write in flight to the quiet ones: on a machine whose load moves,
    a ratio taken in one run says more than a delay in ms.
    """
    mem.index.wait()
    indexer = mem.index.indexer
    before = [getattr(indexer, name, 0) for name in ("deferrals", "forced_calls")]
    done = threading.Event()
    timing: dict[str, float] = {}

    def make_it() -> None:
        started = time.perf_counter()
        write()
        timing["write_ms"] = (time.perf_counter() - started) * 1000
        # The large write's own items: the mix's notes keep coming, and under requests that
        # never pause the backlog of the whole tenant may never be empty.
        while mem.index.pending("U-1"):
            time.sleep(0.05)
        timing["embedded_after_s"] = time.perf_counter() - started
        done.set()

    writer = threading.Thread(target=make_it)
    writer.start()
    during = run_mix(mem, mix, done.is_set, pause)
    writer.join()
    rows = []
    for kind, times in during.items():
        delays = sorted(t - medians[kind] for t in times)
        beside = [t - medians[kind] for t, b in zip(times, BESIDE[kind], strict=True) if b]
        rows.append(
            {
                "request": kind,
                "count": len(delays),
                "beside_model_call": len(beside),
                "delay_max_beside_ms": round(max(beside), 1) if beside else None,
                "delay_max_alone_ms": round(
                    max(
                        (
                            t - medians[kind]
                            for t, b in zip(times, BESIDE[kind], strict=True)
                            if not b
                        ),
                        default=0.0,
                    ),
                    1,
                ),
                "delay_p99_ms": round(_p99(delays), 1),
                "delay_max_ms": round(delays[-1], 1),
                "p50_ratio": round(statistics.median(times) / medians[kind], 2),
                "p99_ratio": round(_p99(sorted(times)) / p99s[kind], 2),
            }
        )
    after = [getattr(indexer, name, None) for name in ("deferrals", "forced_calls")]
    return {
        "write": name,
        "write_ms": round(timing["write_ms"], 1),
        "embedded_after_s": round(timing["embedded_after_s"], 2),
        "rows": rows,
        # how often the worker put a model call off for requests, and made one anyway
        "deferrals": None if after[0] is None else after[0] - before[0],
        "forced_calls": None if after[1] is None else after[1] - before[1],
    }


def _p99(ordered: list[float]) -> float:
    return ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]


def _after(seconds: float) -> Callable[[], bool]:
    deadline = time.perf_counter() + seconds
    return lambda: time.perf_counter() >= deadline


def main() -> None:
    """Print the table and write the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embedder", default=None, help="spec; default: memlane's default")
    parser.add_argument("--baseline-seconds", type=float, default=5.0)
    parser.add_argument("--notes", type=int, default=1, help="largest notes in the first phase")
    parser.add_argument("--no-turn", action="store_true", help="skip the largest turn's phase")
    parser.add_argument(
        "--pause-ms", type=float, default=0.0, help="think time between two requests of the mix"
    )
    parser.add_argument(
        "--indexing",
        choices=("background", "process", "inline"),
        default=None,
        help="the memory's indexing (process: a long note is read by a child, memlane.textwork)",
    )
    parser.add_argument("--out", type=Path, default=None)
    options = parser.parse_args()
    result = measure(
        options.embedder,
        options.baseline_seconds,
        options.notes,
        turn=not options.no_turn,
        pause=options.pause_ms / 1000,
        indexing=options.indexing,
    )
    result["machine"] = machine()
    header = (
        "request",
        "count",
        "delay_p99_ms",
        "delay_max_ms",
        "p50_ratio",
        "p99_ratio",
        "beside_model_call",
        "delay_max_beside_ms",
        "delay_max_alone_ms",
    )
    for phase in result["phases"]:
        print(
            f"{result['model']}: {phase['write']} took {phase['write_ms']:.0f} ms, "
            f"embedded after {phase['embedded_after_s']} s "
            f"(calls put off {phase['deferrals']}, made anyway {phase['forced_calls']})"
        )
        print(" | ".join(header))
        for row in phase["rows"]:
            print(" | ".join(str(row[name]) for name in header))
    if options.out is not None:
        options.out.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
