"""``memlane bench scale``: what recall and writes cost as a memory grows, on both backends.

For each size N (notes in one subject; default 10^3 and 10^4, and 10^5 or more on request),
a fresh tenant of the memory gets N notes through ``mem.summaries.add_notes`` (an import,
:data:`BATCH` notes a transaction), then:

* **first recall**: the first ``mem.recall`` on the subject right after adding them, as a
  user would meet it (whatever embedding or indexing is still owed is paid here, or not),
  in a process that has recalled once before (on an empty tenant, timed apart as
  ``process_first_recall_ms``: what any process pays once, whatever its memory holds);
* the backlog: when the memory has a background indexer (``mem.index.wait``), the time to
  drain it (embeddings, note keys, and on SQLite the search graph of a subject past
  :data:`memlane.storage.sqlite.ann.THRESHOLD` vectors, built in a background thread: until it
  is ready every recall scans all the subject's vectors), then nothing;
* **steady recall** p50/p95 over ``samples`` questions about the subject's notes;
* **recall after a write**: p50 over ``samples`` rounds of one note added, then a recall at
  once, as an agent that writes and recalls at every turn meets it (what a recall keeps
  across recalls is read again after every write, and the note is still being indexed).

Optionally (``tenant_notes``) one tenant gets notes spread over many subjects (ten each) and
is recalled tenant-wide (``subject=None``). Writes: batched fact versions per second
(``set_many``), single ``set`` per second, and single ``set`` per second with 1 … n client
processes on different subjects; beside the single sets, the database's own committed
single-row inserts per second with as many clients (``floor_*``, :mod:`memlane.bench.floor`),
so what memlane costs over the database, and what the machine allows, are in every run.
Every results file names the machine it ran on.
"""

from __future__ import annotations

import random
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from memlane.bench import floor
from memlane.bench.backends import NOTES_PER_SUBJECT, _note, _postgres, _subject, parse_clients
from memlane.bench.clients import summed_rate, work
from memlane.bench.plots import pyplot
from memlane.bench.report import Results, percentile
from memlane.errors import InvalidInput
from memlane.memory import Memory

SIZES = (1_000, 10_000)
BACKENDS = ("sqlite", "postgresql")
SUBJECT = "S-1"
BATCH = 5_000
START = datetime(2026, 1, 1, tzinfo=UTC)


def parse_sizes(text: str) -> tuple[int, ...]:
    """``"1000,10000"`` as ``(1000, 10000)``; each size from 10 to 10^7."""
    try:
        sizes = tuple(sorted({int(part) for part in text.split(",") if part.strip()}))
    except ValueError as error:
        raise InvalidInput("sizes", f"expected comma-separated integers, got {text!r}") from error
    if not sizes or any(not 10 <= size <= 10_000_000 for size in sizes):
        raise InvalidInput("sizes", f"each size must be from 10 to 10,000,000, got {text!r}")
    return sizes


def sizes_up_to(scale: int) -> tuple[int, ...]:
    """10^3, 10^4, ... up to ``scale`` (and ``scale`` itself), as ``--scale N`` asks."""
    sizes, size = [], 1_000
    while size < scale:
        sizes.append(size)
        size *= 10
    return parse_sizes(",".join(str(s) for s in [*sizes, scale]))


def parse_backends(text: str) -> tuple[str, ...]:
    """``"sqlite,postgresql"`` as a tuple; each one of :data:`BACKENDS`."""
    names = tuple(dict.fromkeys(part.strip() for part in text.split(",") if part.strip()))
    if not names or any(name not in BACKENDS for name in names):
        raise InvalidInput("backends", f"choose from {', '.join(BACKENDS)}, got {text!r}")
    return names


def run(
    *,
    sizes: Sequence[int] = SIZES,
    backends: Sequence[str] = ("sqlite",),
    samples: int = 30,
    tenant_notes: int = 0,
    writes: int = 20_000,
    clients: tuple[int, ...] = (1, 16),
    seconds: float = 5.0,
    embedder: str | None = None,
    postgres_url: str | None = None,
    progress: Callable[[str], None] = print,
) -> Results:
    """Measure every size on every backend (see the module docstring)."""
    if samples < 1 or writes < 10 or tenant_notes < 0 or not 0 < seconds <= 600:
        raise InvalidInput("samples", "need samples >= 1, writes >= 10, 0 < seconds <= 600")
    params: dict[str, Any] = {"sizes": list(sizes), "backends": list(backends)}
    params |= {"samples": samples, "tenant_notes": tenant_notes, "writes": writes}
    params |= {"clients": list(clients), "seconds": seconds, "embedder": embedder or "default"}
    results = Results("scale", params)
    with tempfile.TemporaryDirectory(prefix="memlane-bench-scale-") as folder:
        for backend in backends:
            with _location(backend, Path(folder), postgres_url) as url:
                suite = _Suite(results, backend, url, embedder, samples, progress)
                suite.warm_up()
                for size in sizes:
                    suite.recall_cost(size, per_subject=True)
                if tenant_notes:
                    suite.recall_cost(tenant_notes, per_subject=False)
                suite.write_throughput(writes, clients, seconds)
    return results


@contextmanager
def _location(backend: str, folder: Path, postgres_url: str | None) -> Iterator[str]:
    if backend == "sqlite":
        yield str(folder / "scale.db")
        return
    with _postgres(postgres_url, folder) as (url, _server):
        yield url


class _Suite:
    """One backend's measurements, recorded under its name."""

    def __init__(
        self,
        results: Results,
        backend: str,
        url: str,
        embedder: str | None,
        samples: int,
        progress: Callable[[str], None],
    ) -> None:
        self.results, self.backend, self.url = results, backend, url
        self.embedder, self.samples, self.progress = embedder, samples, progress

    def put(self, metric: str, group: str, value: float) -> None:
        self.results.put(self.backend, metric, group, value)

    def warm_up(self) -> None:
        """One recall on an empty tenant, timed apart: what a process pays once, not a memory.

        The first recall of a process compiles the query analysis's patterns and opens the
        embedder; without this, the first size's "first recall" would count that too.
        """
        with Memory(self.url, tenant="scale-warm-up", embedder=self.embedder) as mem:
            started = time.perf_counter()
            mem.recall(SUBJECT, _note(0)[2])
            self.put("process_first_recall_ms", "warm-up", (time.perf_counter() - started) * 1000)

    def recall_cost(self, notes: int, *, per_subject: bool) -> None:
        """Add ``notes`` to a fresh tenant, then time the first and the steady recalls."""
        group = f"{notes:,}" if per_subject else f"{notes:,} tenant"
        tenant = f"scale-{notes}" + ("" if per_subject else "-tenant")
        with Memory(self.url, tenant=tenant, embedder=self.embedder) as mem:
            self.progress(f"{self.backend}: adding {notes:,} notes ({group}) ...")
            started = time.perf_counter()
            for offset in range(0, notes, BATCH):
                mem.summaries.add_notes(
                    _notes(range(offset, min(notes, offset + BATCH)), per_subject)
                )
            self.put("notes_added_per_s", group, notes / (time.perf_counter() - started))
            rng = random.Random(notes)
            subject = SUBJECT if per_subject else None
            started = time.perf_counter()
            mem.recall(subject, _note(rng.randrange(notes))[2])
            self.put("first_recall_ms", group, (time.perf_counter() - started) * 1000)
            self.put("backlog_wait_s", group, _drain(mem))
            series = []
            for _ in range(self.samples):
                question = _note(rng.randrange(notes))[2]
                started = time.perf_counter()
                mem.recall(subject, question)
                series.append((time.perf_counter() - started) * 1000)
            self.put("recall_p50_ms", group, percentile(series, 0.5))
            self.put("recall_p95_ms", group, percentile(series, 0.95))
            after = []
            for added in range(notes, notes + self.samples):
                mem.summaries.add_notes(_notes(range(added, added + 1), per_subject))
                question = _note(rng.randrange(notes))[2]
                started = time.perf_counter()
                mem.recall(subject, question)
                after.append((time.perf_counter() - started) * 1000)
            self.put("recall_after_write_p50_ms", group, percentile(after, 0.5))
            first = self.results.systems[self.backend]["first_recall_ms"][group]
            self.progress(
                f"{self.backend} {group}: first recall {first:,.0f} ms, "
                f"then p50 {percentile(series, 0.5):,.1f} ms, "
                f"after a write {percentile(after, 0.5):,.1f} ms"
            )

    def write_throughput(self, writes: int, clients: tuple[int, ...], seconds: float) -> None:
        """Batched versions per second, single sets per second, and with client processes.

        Beside each single-set rate, the database's own floor (:mod:`memlane.bench.floor`):
        plain committed single-row inserts, as many clients, on the same database.
        """
        with Memory(self.url, tenant="scale-writes", embedder="hash") as mem:
            batches = [
                _batch(offset, min(writes, offset + BATCH)) for offset in range(0, writes, BATCH)
            ]
            started = time.perf_counter()
            for batch in batches:
                mem.facts.set_many(batch)
            self.put("batched_versions_per_s", "writes", writes / (time.perf_counter() - started))
            singles = min(writes, 500)
            started = time.perf_counter()
            for k in range(singles):
                mem.facts.set(f"W-{k % 50}", "status", f"s{k}")
            sets = singles / (time.perf_counter() - started)
        inserts = floor.single_inserts(self.url, singles)
        self.put("single_sets_per_s", "writes", sets)
        self.put("floor_single_inserts_per_s", "writes", inserts)
        for count in clients:
            group = f"{count} client" + "s" * (count > 1)
            self.put("client_sets_per_s", group, summed_rate(writer, self.url, count, seconds))
            floor_rate = floor.client_inserts(self.url, count, seconds)
            self.put("floor_client_inserts_per_s", group, floor_rate)
        self.progress(
            f"{self.backend}: single sets {sets:,.0f}/s; "
            f"the database's own single-row inserts {inserts:,.0f}/s"
        )


def _notes(numbers: range, per_subject: bool) -> list[dict[str, Any]]:
    """Notes ``numbers`` as ``add_notes`` takes them: in one subject, or ten per subject."""
    return [
        {
            "subject": SUBJECT if per_subject else _subject(j // NOTES_PER_SUBJECT),
            "text": _note(j)[1],
            "at": START + timedelta(seconds=j),
        }
        for j in numbers
    ]


def _drain(mem: Memory) -> float:
    """Seconds spent waiting for a background indexer's backlog (0 if there is none)."""
    wait = getattr(getattr(mem, "index", None), "wait", None)
    if wait is None:
        return 0.0
    started = time.perf_counter()
    wait()
    return time.perf_counter() - started


def _batch(first: int, last: int) -> list[dict[str, Any]]:
    """Two versions per subject: a location and a tier."""
    writes: list[dict[str, Any]] = []
    for i in range(first, last, 2):
        subject = f"B-{i:08d}"
        writes.append({"subject": subject, "attribute": "location", "value": "Shanghai",
                       "valid_from": "2025-01-01"})  # fmt: skip
        writes.append({"subject": subject, "attribute": "tier", "value": "gold",
                       "valid_from": "2025-01-01"})  # fmt: skip
    return writes[: last - first]


def writer(url: str, index: int, seconds: float, barrier: Any, queue: Any) -> None:
    """One client process (a :data:`~memlane.bench.clients.Worker`): single sets, own subjects."""
    work(_setting(url, index), index, seconds, barrier, queue)


@contextmanager
def _setting(url: str, client: int) -> Iterator[Callable[[int], object]]:
    """``set(n)``: the client's ``n``-th single set, on a memory of its own, warmed by one."""
    with Memory(url, tenant="scale-clients", embedder="hash") as mem:
        mem.facts.set(f"C{client}-warm", "status", "ready")
        yield lambda number: mem.facts.set(f"C{client}-{number % 50}", "status", f"s{number}")


def plot(results: Results, path: str | Path) -> bool:
    """Recall cost against notes per subject (log-log), and write throughput.

    Returns ``False`` (and draws nothing) without matplotlib, the ``memlane[bench]`` extra.
    """
    plt = pyplot()
    if plt is None:
        return False
    figure, (left, right) = plt.subplots(1, 2, figsize=(13, 4.8))
    sizes = [int(size) for size in results.params["sizes"]]
    styles = {
        "recall_p50_ms": "-",
        "recall_p95_ms": "--",
        "first_recall_ms": ":",
        "recall_after_write_p50_ms": "-.",
    }
    for n, (system, metrics) in enumerate(results.systems.items()):
        for metric, style in styles.items():
            series = metrics.get(metric, {})
            values = [series.get(f"{size:,}") for size in sizes]
            points = [(s, v) for s, v in zip(sizes, values, strict=True) if v is not None]
            if points:
                left.plot(*zip(*points, strict=True), style, color=f"C{n}", marker="o",
                          label=f"{system} {metric}")  # fmt: skip
    left.set_xscale("log")
    left.set_yscale("log")
    left.set_xlabel("notes in the subject")
    left.set_ylabel("ms")
    left.legend(fontsize=7)
    labels: list[str] = []
    for system, metrics in results.systems.items():
        for metric in ("batched_versions_per_s", "single_sets_per_s", "floor_single_inserts_per_s"):
            labels.append(f"{system}\n{metric}")
            right.bar(len(labels) - 1, metrics.get(metric, {}).get("writes", 0.0))
        for group, value in metrics.get("client_sets_per_s", {}).items():
            labels.append(f"{system}\nsets, {group}")
            right.bar(len(labels) - 1, value)
            labels.append(f"{system}\ndatabase inserts, {group}")
            right.bar(
                len(labels) - 1, metrics.get("floor_client_inserts_per_s", {}).get(group, 0.0)
            )
    right.set_xticks(range(len(labels)), labels, rotation=45, ha="right", fontsize=7)
    right.set_yscale("log")
    right.set_ylabel("per second")
    figure.suptitle("memlane: cost against size")
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return True


__all__ = ["parse_backends", "parse_clients", "parse_sizes", "plot", "run", "sizes_up_to"]
