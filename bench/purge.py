"""Writer latency of another tenant while a purge runs and a reader holds an old snapshot.

Issue 16: the purge's WAL checkpoint waited for readers with the 30 s busy timeout while
holding off every writer of the file, so another tenant's writes stalled for as long as the
reader lasted. Here one SQLite file holds tenant ``a`` (``--notes`` notes on ``--subjects``
subjects, then one subject forgotten) and tenant ``b``; a thread writes facts of ``b`` in a
loop; another connection opens a read transaction held ``--hold`` seconds; ``a`` purges the
forgotten subject immediately. Reported: the purge's duration and what it claimed, and
``b``'s write latency (p50, p99, max) and count during the purge.

Run from the repo root, against this tree or another one (the numbers before a change):

    PYTHONPATH=src python bench/purge.py --out /tmp/purge.json
    PYTHONPATH=/path/to/old/src python bench/purge.py --hold 3
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sqlite3
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import memlane


def fill(path: Path, notes: int, subjects: int) -> None:
    """Tenant a's notes (subject S-0 holds the secret), and one fact of tenant b."""
    with memlane.Memory(path, tenant="a", embedder="hash") as mem:
        for i in range(notes):
            mem.remember(f"S-{i % subjects}", f"note {i}: S-{i % subjects} likes item-{i} a lot")
        mem.remember("S-0", "S-0's e-mail is secret.person@example.org")
        mem.summaries.index()
        mem.forget("S-0", reason="erasure")
    with memlane.Memory(path, tenant="b", embedder="hash") as mem:
        mem.facts.set("B-0", "city", "Lisbon")


def run(path: Path, hold: float) -> dict[str, Any]:
    """One purge under a held reader, with tenant b writing all along."""
    stop = threading.Event()
    latencies: list[tuple[float, float]] = []  # (start, seconds)

    def writer() -> None:
        with memlane.Memory(path, tenant="b", embedder="hash") as mem:
            i = 0
            while not stop.is_set():
                started = time.perf_counter()
                mem.facts.set(f"B-{i % 50}", "city", f"city-{i}")
                latencies.append((started, time.perf_counter() - started))
                i += 1
                time.sleep(0.005)

    thread = threading.Thread(target=writer)
    thread.start()
    time.sleep(0.5)  # the writer's steady state
    reader = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    reader.execute("BEGIN")
    reader.execute("SELECT count(*) FROM notes").fetchone()
    release = threading.Timer(hold, reader.rollback)
    release.start()
    with memlane.Memory(path, tenant="a", embedder="hash") as mem:
        began = time.perf_counter()
        report = mem.purge(subject="S-0", immediately=True)
        ended = time.perf_counter()
    release.join()
    reader.close()
    time.sleep(0.3)
    stop.set()
    thread.join()
    during = sorted(s for started, s in latencies if began <= started + s and started <= ended)
    secret = b"secret.person@example.org"
    left = any(
        secret in candidate.read_bytes()
        for suffix in ("", "-wal", "-shm")
        if (candidate := path.with_name(path.name + suffix)).exists()
    )
    return {
        "purge_s": round(ended - began, 3),
        "bytes_verified": getattr(report, "bytes_verified", "not reported"),
        "secret_left_in_files_after_purge": left,
        "b_writes_during_purge": len(during),
        "b_write_p50_ms": round(1000 * statistics.median(during), 1) if during else None,
        "b_write_p99_ms": round(1000 * during[int(0.99 * (len(during) - 1))], 1)
        if during
        else None,
        "b_write_max_ms": round(1000 * max(during), 1) if during else None,
    }


def main() -> None:
    """Parse arguments, run, print a table, write JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=2000)
    parser.add_argument("--subjects", type=int, default=20)
    parser.add_argument("--hold", type=float, default=3.0, help="seconds the reader holds on")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "purge.db"
        fill(path, args.notes, args.subjects)
        size = path.stat().st_size
        result = run(path, args.hold)
    params = {**vars(args), "out": None, "db_bytes": size, "memlane": memlane.__file__}
    machine = f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores"
    for name, value in result.items():
        print(f"{name:36} {value}")
    print(f"{'machine':36} {machine}")
    if args.out:
        systems = {"memlane": {metric: {"purge": value} for metric, value in result.items()}}
        document = {"suite": "purge", "params": {**params, "machine": machine}, "systems": systems}
        args.out.write_text(json.dumps(document, indent=2, default=str))


if __name__ == "__main__":
    main()
