"""``memlane bench facts``: the exact lane at 10^4 … 10^6 facts, against raw sqlite3.

For each scale a fresh database file gets one current ``location`` per subject and one
identifier ``phone`` per subject (a tenth of the subjects also moved three times). Then:

* ``get``, ``lookup`` and ``history`` latency (p50/p99) on random subjects;
* batch-write and single-write throughput;
* bytes on disk per stored version;

and, in the same run on the same machine, the floor: a raw ``sqlite3`` table with the same
rows, an indexed point ``SELECT`` and an ``executemany`` bulk insert.
"""

from __future__ import annotations

import random
import sqlite3
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

from memlane.bench.report import Results, latencies_us, percentile
from memlane.errors import InvalidInput
from memlane.memory import Memory

BATCH = 5_000
MOVES = ("Beijing", "Hangzhou", "Shenzhen")


def scales_up_to(scale: int) -> list[int]:
    """10^4, 10^5, ... not above ``scale`` (or just ``scale`` when it is smaller)."""
    if scale < 1_000:
        raise InvalidInput("scale", "must be at least 1000")
    scales, step = [], 10_000
    while step <= scale:
        scales.append(step)
        step *= 10
    if not scales or scales[-1] != scale:
        scales.append(scale)
    return scales


def run(
    *,
    scale: int,
    samples: int = 2_000,
    workdir: str | Path | None = None,
    progress: Callable[[str], None] = print,
) -> Results:
    """Run the suite at every scale up to ``scale``."""
    scales = scales_up_to(scale)
    results = Results("facts", {"scales": scales, "samples": samples, "batch": BATCH})
    with _directory(workdir) as folder:
        for size in scales:
            progress(f"scale {size:,}: loading ...")
            _measure_memlane(results, folder / f"memlane-{size}.db", size, samples, progress)
            _measure_raw(results, folder / f"raw-{size}.db", size, samples)
    for size in scales:
        group = str(size)
        floor = results.systems["sqlite-raw"]["get_p50_us"][group]
        results.put(
            "memlane", "get_p50_vs_raw", group, _metric(results, "get_p50_us", group) / floor
        )
    return results


def _metric(results: Results, metric: str, group: str) -> float:
    return results.systems["memlane"][metric][group]


def _phone(i: int) -> str:
    return f"138-{i // 10_000:04d}-{i % 10_000:04d}"


def _measure_memlane(
    results: Results, path: Path, size: int, samples: int, progress: Callable[[str], None]
) -> None:
    group = str(size)
    now = [datetime(2026, 1, 1, tzinfo=UTC)]
    with Memory(path, clock=lambda: now[0]) as mem:
        facts = mem.facts
        facts.define("phone", cardinality="many", identifier=True)
        writes = 0
        started = time.perf_counter()
        for offset in range(0, size, BATCH):
            with facts.batch():
                for i in range(offset, min(size, offset + BATCH)):
                    subject = f"U-{i:07d}"
                    facts.set(subject, "location", "Shanghai", valid_from="2025-01-01")
                    facts.add(subject, "phone", _phone(i), valid_from="2025-01-01")
                    writes += 2
        load_seconds = time.perf_counter() - started
        results.put("memlane", "batch_writes_per_s", group, writes / load_seconds)

        now[0] += timedelta(days=30)
        movers = range(0, size, 10)
        with facts.batch():
            for i in movers:
                for month, city in enumerate(MOVES, start=3):
                    facts.set(f"U-{i:07d}", "location", city, valid_from=f"2025-{month:02d}-01")
        progress(f"scale {size:,}: loaded {writes:,} writes in {load_seconds:.1f}s; reading ...")

        rng = random.Random(size)
        subjects = [rng.randrange(size) for _ in range(samples)]
        get = latencies_us(lambda k: facts.get(f"U-{subjects[k]:07d}", "location"), samples)
        lookup = latencies_us(lambda k: facts.lookup("phone", _phone(subjects[k])), samples)
        history = latencies_us(
            lambda k: facts.history(f"U-{rng.choice(movers):07d}", "location"), samples
        )
        for name, series in (("get", get), ("lookup", lookup), ("history", history)):
            results.put("memlane", f"{name}_p50_us", group, percentile(series, 0.5))
            results.put("memlane", f"{name}_p99_us", group, percentile(series, 0.99))

        singles = min(1_000, size)
        started = time.perf_counter()
        for k in range(singles):
            now[0] += timedelta(seconds=1)
            facts.set(f"U-{subjects[k % samples]:07d}", "status", f"active-{k}")
        results.put(
            "memlane", "single_writes_per_s", group, singles / (time.perf_counter() - started)
        )
        versions = len(facts.audit("U-0000000")) and _count_versions(path)
    _checkpoint(path)
    results.put("memlane", "bytes_per_version", group, _file_bytes(path) / versions)


def _measure_raw(results: Results, path: Path, size: int, samples: int) -> None:
    """The floor: the same rows in a plain indexed table, no memlane in the way."""
    group = str(size)
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA journal_mode = WAL")
    connection.execute("PRAGMA synchronous = NORMAL")
    connection.execute(
        "CREATE TABLE facts (id INTEGER PRIMARY KEY, subject TEXT, attribute TEXT, value TEXT, "
        "valid_from INTEGER, valid_to INTEGER, tx_from INTEGER, tx_to INTEGER)"
    )
    connection.execute("CREATE INDEX facts_key ON facts (subject, attribute, valid_from)")
    rows = (
        (f"U-{i:07d}", attribute, value, 0, 2**63 - 1, 1, None)
        for i in range(size)
        for attribute, value in (("location", '"Shanghai"'), ("phone", f'"{_phone(i)}"'))
    )
    started = time.perf_counter()
    connection.execute("BEGIN")
    connection.executemany(
        "INSERT INTO facts (subject, attribute, value, valid_from, valid_to, tx_from, tx_to) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        rows,
    )
    connection.execute("COMMIT")
    results.put(
        "sqlite-raw", "batch_writes_per_s", group, 2 * size / (time.perf_counter() - started)
    )

    rng = random.Random(size)
    subjects = [rng.randrange(size) for _ in range(samples)]
    query = (
        "SELECT value, valid_from, valid_to FROM facts WHERE subject = ? AND attribute = ? "
        "AND valid_from <= ? ORDER BY valid_from DESC LIMIT 1"
    )
    get = latencies_us(
        lambda k: connection.execute(query, (f"U-{subjects[k]:07d}", "location", 10)).fetchall(),
        samples,
    )
    results.put("sqlite-raw", "get_p50_us", group, percentile(get, 0.5))
    results.put("sqlite-raw", "get_p99_us", group, percentile(get, 0.99))
    connection.close()
    results.put("sqlite-raw", "bytes_per_version", group, _file_bytes(path) / (2 * size))


def _count_versions(path: Path) -> int:
    with sqlite3.connect(path) as connection:
        count: int = connection.execute("SELECT count(*) FROM facts").fetchone()[0]
    return count


def _checkpoint(path: Path) -> None:
    with sqlite3.connect(path) as connection:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def _file_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.parent.glob(path.name + "*"))


@contextmanager
def _directory(workdir: str | Path | None) -> Iterator[Path]:
    if workdir is not None:
        folder = Path(workdir)
        folder.mkdir(parents=True, exist_ok=True)
        yield folder
        return
    with tempfile.TemporaryDirectory(prefix="memlane-bench-") as name:
        yield Path(name)
