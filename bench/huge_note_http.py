"""The largest note through HTTP, end to end, while another client keeps recalling.

Issue 16: "a 1 MiB note never delays another request by more than 100 ms". A real
``memlane serve`` (its own process, a new SQLite database, the default embedder) is sent,
by one client:

1. a body of 1 MiB + 1 byte (refused: 413, nothing stored),
2. a note of 1 MiB of JSON whose text is over ``MAX_NOTE_CHARS`` (refused: 422),
3. a note of ``MAX_NOTE_CHARS`` characters (accepted), then ``/readyz`` is polled until
   nothing is pending (embedded),

while a second client recalls another subject with ``--pause-ms`` between its requests.
Its recall times are compared before (quiet) and while the note is written and embedded,
and phase by phase: each of the three requests above, then the embedding, has its own
window (the request, then ``--settle-seconds`` of the other client's recalls), so a slow
recall is told to the phase that delayed it; the server's own time of each request is read
from its access log; ``--notes N`` writes N long notes (other subjects), each in its own window,
and sums up the other client's recalls that overlapped a write. At the end the note is
recalled by its own words and meaning.
``--indexing`` picks where the server embeds (``process``: a child at the lowest CPU
priority, ``background``: a thread of the server; unset: the server's default, so an older
tree can be run by the same script); the resident memory of the server and of its children
is read from ``/proc`` at the end.

Run from the repo root:

    PYTHONPATH=src python bench/huge_note_http.py --out /tmp/huge-note-http.json
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import httpx

from memlane.bench.report import machine
from memlane.validation import MAX_NOTE_CHARS

ENTRY = "from memlane.cli import main; main()"
MIB = 1024 * 1024
T = TypeVar("T")
SENTENCE = "Dear diary, the beekeeper moved the hives to the orchard behind the old mill. "


def main() -> None:
    """Print what happened and write the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quiet-seconds", type=float, default=10.0)
    parser.add_argument("--pause-ms", type=float, default=20.0)
    parser.add_argument(
        "--settle-seconds",
        type=float,
        default=1.0,
        help="the other client's recalls after each phase's request that still count for it",
    )
    parser.add_argument(
        "--notes",
        type=int,
        default=1,
        help="long notes written one after another (other subjects), each a phase of its own",
    )
    parser.add_argument("--indexing", choices=("process", "background"), default=None)
    parser.add_argument(
        "--embed-deadline",
        type=float,
        default=1800.0,
        help="stop waiting for the note's embedding after this many seconds",
    )
    parser.add_argument("--out", type=Path, default=None)
    options = parser.parse_args()
    load_before = [round(load, 2) for load in os.getloadavg()]
    with tempfile.TemporaryDirectory() as folder:
        result = measure(
            Path(folder),
            options.quiet_seconds,
            options.pause_ms,
            settle=options.settle_seconds,
            notes=options.notes,
            indexing=options.indexing,
            deadline=options.embed_deadline,
        )
    result["indexing"] = options.indexing or "server default"
    result["load_average_before"] = load_before
    result["machine"] = machine()
    print(json.dumps({k: v for k, v in result.items() if k != "machine"}, indent=2))
    if options.out is not None:
        options.out.write_text(json.dumps(result, indent=2) + "\n")


def measure(
    folder: Path,
    quiet_seconds: float,
    pause_ms: float,
    *,
    settle: float = 1.0,
    notes: int = 1,
    indexing: str | None = None,
    deadline: float = 1800.0,
) -> dict[str, Any]:
    """Start a server on a new database, send the writes, time the other client's recalls."""
    env = {**os.environ, "MEMLANE_URL": str(folder / "served.db")}
    if indexing is not None:
        env["MEMLANE_INDEXING"] = indexing
    key = _key(env)
    port = _free_port()
    log = folder / "server.log"
    with log.open("wb") as sink:
        server = subprocess.Popen(
            [sys.executable, "-c", ENTRY, "serve", "--port", str(port), "--log-level", "info"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=sink,
        )
    try:
        with httpx.Client(
            base_url=f"http://127.0.0.1:{port}",
            headers={"Authorization": f"Bearer {key}"},
            timeout=600,
        ) as client:
            _started(client, server)
            phases = Phases(log)
            result = _run(
                client, port, key, quiet_seconds, pause_ms / 1000, settle, deadline, phases, notes
            )
            result["rss_mib"] = _resident(server.pid)
            result["phases"] = phases.summary(result["other_recall_quiet"].get("p50_ms", 0.0))
            return result
    finally:
        server.terminate()
        server.wait(timeout=30)


def _run(
    client: httpx.Client,
    port: int,
    key: str,
    quiet_seconds: float,
    pause: float,
    settle: float,
    deadline: float,
    phases: Phases,
    notes: int = 1,
) -> dict[str, Any]:
    for day in range(50):
        note = {"subject": "U-2", "text": f"On day {day} the user tried a new green tea"}
        client.post("/v1/remember", json=note).raise_for_status()
    _embedded(client, deadline)
    # One recall first: the quiet times are of a warm server, whichever thread loaded the model.
    client.post("/v1/recall", json={"subject": "U-2", "query": "which tea?"}).raise_for_status()
    other = Recaller(port, key, pause)
    other.start()
    time.sleep(quiet_seconds)
    quiet = other.mark()
    refused = {
        "body_over_1_MiB": phases.run(
            "body_over_1_MiB",
            other,
            settle,
            lambda: _post_raw(client, b'{"subject": "U-1", "text": "' + b"x" * MIB + b'"}'),
        ),
        "text_over_limit_1_MiB_body": phases.run(
            "text_over_limit_1_MiB_body",
            other,
            settle,
            lambda: _post_raw(client, b'{"subject": "U-1", "text": "' + b"y" * (MIB - 64) + b'"}'),
        ),
    }
    text = _letter()
    started = time.perf_counter()
    accepted = phases.run(
        "note_write",
        other,
        settle,
        lambda: client.post("/v1/remember", json={"subject": "U-1", "text": text}),
    )
    write_ms = phases.client_ms["note_write"]
    for n in range(2, notes + 1):  # more of them: more of the recalls a write overlaps
        more = (f"Volume {n}. " + _letter())[:MAX_NOTE_CHARS]
        body = {"subject": f"U-{100 + n}", "text": more}
        phases.run(
            f"note_write_{n}", other, settle, partial(client.post, "/v1/remember", json=body)
        )
    left = phases.run("embedding", other, 0.0, lambda: _embedded(client, deadline))
    embedded_s = time.perf_counter() - started
    other.stop()
    during = [ms for name in phases.names for ms in phases.recalls[name]]
    found = client.post(
        "/v1/recall", json={"subject": "U-1", "query": "where are the beehives now?"}
    )
    items = found.json().get("items", []) if found.status_code == 200 else []
    return {
        "refused_status": refused,
        "note_chars": len(text),
        "note_status": accepted.status_code,
        "note_write_ms": round(write_ms, 1),
        "embedded_after_s": round(embedded_s, 2),
        "pending_at_deadline": left,
        "note_recalled": any("beekeeper" in json.dumps(item) for item in items),
        "pause_ms": pause * 1000,
        "other_recall_quiet": _summary(quiet),
        "other_recall_during": _summary(during),
        "other_recall_during_ms": [round(ms, 1) for ms in during],
        "other_recall_errors": other.errors,
        "other_recall_overlapping_writes": _summary(
            [
                ms
                for name in phases.names
                if name.startswith("note_write")
                for ms in phases.overlapping[name]
            ]
        ),
    }


class Phases:
    """The phases of the run, each with the other client's recalls and the server's time."""

    def __init__(self, log: Path) -> None:
        self._log = log
        self._read = 0
        self.names: list[str] = []
        self.recalls: dict[str, list[float]] = {}
        self.client_ms: dict[str, float] = {}
        self.overlapping: dict[str, list[float]] = {}
        self.server_ms: dict[str, list[str]] = {}

    def run(self, name: str, other: Recaller, settle: float, step: Callable[[], T]) -> T:
        """Do ``step`` in a window of its own; the other client's recalls until ``settle`` after."""
        other.mark()
        self._logged()  # the lines so far belong to earlier phases
        started = time.perf_counter()
        answer = step()
        ended = time.perf_counter()
        self.client_ms[name] = round((ended - started) * 1000, 1)
        time.sleep(settle)
        self.overlapping[name] = [
            (end - start) * 1000 for start, end in other.spans if start < ended and end > started
        ]
        self.names.append(name)
        self.recalls[name] = other.mark()
        self.server_ms[name] = [
            line for line in self._logged() if " /v1/recall " not in line and "/readyz" not in line
        ]
        return answer

    def summary(self, quiet_median: float) -> dict[str, Any]:
        """Per phase: the request's time, the server's log of it, the other client's recalls."""
        found: dict[str, Any] = {}
        for name in self.names:
            times = self.recalls[name]
            found[name] = {
                "client_ms": self.client_ms[name],
                "server_log": self.server_ms[name],
                "other_recall": _summary(times),
                "other_max_over_quiet_median_ms": round(max(times, default=0.0) - quiet_median, 1),
                "other_overlapping_ms": [round(ms, 1) for ms in self.overlapping[name]],
                "other_recall_ms": [round(ms, 1) for ms in times],
            }
        return found

    def _logged(self) -> list[str]:
        """The access-log lines the server wrote since the last call (method, route, status, ms)."""
        with self._log.open("rb") as log:
            log.seek(self._read)
            chunk = log.read()
        complete = chunk[: chunk.rfind(b"\n") + 1]
        self._read += len(complete)
        lines = complete.decode("utf-8", "replace").splitlines()
        return [
            line.split(" memlane.server ", 1)[1] for line in lines if " memlane.server " in line
        ]


class Recaller(threading.Thread):
    """The other client: recalls subject U-2 with a new question each time until stopped."""

    def __init__(self, port: int, key: str, pause: float) -> None:
        super().__init__(daemon=True)
        self._client = httpx.Client(
            base_url=f"http://127.0.0.1:{port}",
            headers={"Authorization": f"Bearer {key}"},
            timeout=600,
        )
        self._pause = pause
        self._times: list[float] = []
        self.spans: list[tuple[float, float]] = []  # (start, end) of every recall, perf_counter
        self._halt = threading.Event()
        self._lock = threading.Lock()
        self.errors = 0

    def run(self) -> None:
        i = 0
        while not self._halt.is_set():
            question = {"subject": "U-2", "query": f"what tea did the user try on day {i}?"}
            started = time.perf_counter()
            answer = self._client.post("/v1/recall", json=question)
            elapsed = (time.perf_counter() - started) * 1000
            with self._lock:
                self._times.append(elapsed)
                self.spans.append((started, started + elapsed / 1000))
                self.errors += answer.status_code != 200
            i += 1
            time.sleep(self._pause)
        self._client.close()

    def mark(self) -> list[float]:
        """The times so far; the next ones start afresh."""
        with self._lock:
            times, self._times = self._times, []
        return times

    def stop(self) -> list[float]:
        """Stop after the request in flight; the times since :meth:`mark`."""
        self._halt.set()
        self.join(timeout=600)
        return self.mark()


def _letter() -> str:
    """A note of at most ``MAX_NOTE_CHARS`` numbered sentences: every piece is a model call."""
    found = ""
    for n in range(MAX_NOTE_CHARS):
        sentence = f"In entry {n} " + SENTENCE
        if len(found) + len(sentence) > MAX_NOTE_CHARS:
            break
        found += sentence
    return found


def _summary(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)
    if not ordered:
        return {"count": 0}
    return {
        "count": len(ordered),
        "p50_ms": round(statistics.median(ordered), 1),
        "p99_ms": round(ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))], 1),
        "max_ms": round(ordered[-1], 1),
    }


def _post_raw(client: httpx.Client, body: bytes) -> int:
    headers = {"Content-Type": "application/json"}
    return client.post("/v1/remember", content=body, headers=headers).status_code


def _embedded(client: httpx.Client, deadline: float) -> int:
    """Wait until nothing is pending, at most ``deadline`` s; how many items are left."""
    until = time.monotonic() + deadline
    while pending := client.get("/readyz").json()["pending"]:
        if time.monotonic() > until:
            return int(pending)
        time.sleep(0.1)
    return 0


def _resident(pid: int) -> dict[str, float]:
    """Resident memory (MiB) of the process ``pid`` and of each of its children (Linux)."""
    found = {"server": _rss(pid)}
    for status in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = status.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found[f"child {status.parent.name}"] = _rss(int(status.parent.name))
    return found


def _rss(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return 0.0


def _key(env: dict[str, str]) -> str:
    command = ["keys", "create", "--tenant", "acme", "--role", "agent", "--json"]
    created = subprocess.run(
        [sys.executable, "-c", ENTRY, *command],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    key: str = json.loads(created.stdout)["key"]
    return key


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _started(client: httpx.Client, server: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while True:
        try:
            if client.get("/healthz", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            pass
        if server.poll() is not None or time.monotonic() > deadline:
            raise SystemExit("the server did not start")
        time.sleep(0.1)


if __name__ == "__main__":
    main()
