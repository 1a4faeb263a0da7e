"""``memlane bench server``: concurrent clients on loopback against a real ``memlane serve``.

A fresh database gets an ``agent`` key; ``memlane serve`` runs in its own process on a free
127.0.0.1 port; ``clients`` threads, each with its own HTTP connection, mix writes
(``POST /v1/facts/set``) and recalls (``POST /v1/recall``) for ``seconds``. Afterwards the
database is opened directly and every write the server acknowledged must be there.
Traffic never leaves this machine, and the loop stops by itself.
"""

from __future__ import annotations

import json
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

import httpx

from memlane.bench.report import Results, percentile
from memlane.errors import InvalidInput
from memlane.memory import Memory

TENANT = "bench"
WRITE_SHARE = 0.7
SUBJECTS = 200


@dataclass
class ClientLog:
    """What one client thread saw."""

    write_ms: list[float] = field(default_factory=list)
    recall_ms: list[float] = field(default_factory=list)
    errors: int = 0
    acknowledged: list[tuple[str, str]] = field(default_factory=list)  # (subject, value)


def run(
    *,
    clients: int = 4,
    seconds: float = 10.0,
    progress: Callable[[str], None] = print,
) -> Results:
    """Serve a fresh memory, load it from ``clients`` threads, then verify every write."""
    if not 1 <= clients <= 64:
        raise InvalidInput("clients", "must be from 1 to 64")
    if not 0 < seconds <= 600:
        raise InvalidInput("seconds", "must be more than 0 and at most 600")
    results = Results(
        "server",
        {"clients": clients, "seconds": seconds, "write_share": WRITE_SHARE, "subjects": SUBJECTS},
    )
    with tempfile.TemporaryDirectory(prefix="memlane-bench-server-") as folder:
        database = Path(folder) / "server.db"
        key = _create_key(database)
        with _serve(database) as base_url:
            progress(f"serving {base_url}; {clients} clients for {seconds:g}s ...")
            logs = _load(base_url, key, clients, seconds)
        missing = _missing(database, logs)
    group = f"{clients} clients"
    writes = [ms for log in logs for ms in log.write_ms]
    recalls = [ms for log in logs for ms in log.recall_ms]
    total = len(writes) + len(recalls)
    results.put("memlane", "requests_per_s", group, total / seconds)
    results.put("memlane", "writes_per_s", group, len(writes) / seconds)
    for name, series in (("write", writes), ("recall", recalls)):
        if series:
            results.put("memlane", f"{name}_p50_ms", group, percentile(series, 0.5))
            results.put("memlane", f"{name}_p99_ms", group, percentile(series, 0.99))
    results.put("memlane", "errors", group, sum(log.errors for log in logs))
    results.put("memlane", "acknowledged_writes", group, sum(len(log.acknowledged) for log in logs))
    results.put("memlane", "acknowledged_missing", group, missing)
    return results


def _create_key(database: Path) -> str:
    output = subprocess.run(
        [
            sys.executable,
            "-m",
            "memlane",
            "--url",
            str(database),
            "keys",
            "create",
            "--tenant",
            TENANT,
            "--role",
            "agent",
            "--json",
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    key: str = json.loads(output)["key"]
    return key


@contextmanager
def _serve(database: Path) -> Iterator[str]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "memlane",
            "--url",
            str(database),
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base_url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{base_url}/readyz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        else:
            raise RuntimeError("memlane serve did not become ready in 30 s")
        yield base_url
    finally:
        server.terminate()
        server.wait(timeout=30)


def _load(base_url: str, key: str, clients: int, seconds: float) -> list[ClientLog]:
    logs = [ClientLog() for _ in range(clients)]
    stop = time.monotonic() + seconds
    threads = [
        threading.Thread(target=_client, args=(base_url, key, index, stop, logs[index]))
        for index in range(clients)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return logs


def _client(base_url: str, key: str, index: int, stop: float, log: ClientLog) -> None:
    rng = random.Random(index)
    headers = {"Authorization": f"Bearer {key}"}
    with httpx.Client(base_url=base_url, headers=headers, timeout=30) as http:
        sequence = 0
        while time.monotonic() < stop:
            subject = f"U-{rng.randrange(SUBJECTS):04d}"
            started = time.perf_counter()
            try:
                if rng.random() < WRITE_SHARE:
                    sequence += 1
                    value = f"c{index}-w{sequence}"
                    reply = http.post(
                        "/v1/facts/set",
                        json={"subject": subject, "attribute": "status", "value": value},
                    )
                    if reply.status_code == 200:
                        log.acknowledged.append((subject, value))
                    series = log.write_ms
                else:
                    reply = http.post(
                        "/v1/recall", json={"subject": subject, "query": "what is the status?"}
                    )
                    series = log.recall_ms
            except httpx.HTTPError:
                log.errors += 1
                continue
            if reply.status_code != 200:
                log.errors += 1
            series.append((time.perf_counter() - started) * 1000)


def _missing(database: Path, logs: list[ClientLog]) -> int:
    """Acknowledged writes that are not in the audit view."""
    with Memory(database, tenant=TENANT) as mem:
        stored: dict[str, set[str]] = {}
        missing = 0
        for log in logs:
            for subject, value in log.acknowledged:
                if subject not in stored:
                    stored[subject] = {str(f.value) for f in mem.facts.audit(subject, "status")}
                missing += value not in stored[subject]
    return missing
