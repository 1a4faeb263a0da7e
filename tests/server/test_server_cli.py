"""``memlane serve``: a real process answering HTTP, and a clear error without the extra."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from memlane.cli import cli
from memlane.textwork import TEXT_NICE

ENTRY = "from memlane.cli import main; main()"
KEYS_CREATE = ["keys", "create", "--tenant", "acme", "--role", "agent", "--json"]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, dict[str, str], subprocess.Popen[bytes]]]:
    """A real ``memlane serve`` on a new SQLite file: its URL, an agent key's headers, it."""
    pytest.importorskip("uvicorn")
    env = {**os.environ, "MEMLANE_URL": str(tmp_path / "served.db")}
    env.pop("MEMLANE_INDEXING", None)
    created = subprocess.run(
        [sys.executable, "-c", ENTRY, *KEYS_CREATE],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    key = json.loads(created.stdout)["key"]
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-c", ENTRY, "serve", "--port", str(port), "--log-level", "warning"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60  # a busy CI machine imports slowly
        while True:
            try:
                if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "server did not start"
            assert server.poll() is None, server.stderr.read() if server.stderr else ""
            time.sleep(0.1)
        yield base, {"Authorization": f"Bearer {key}"}, server
    finally:
        server.terminate()
        server.wait(timeout=20)
        if server.stderr is not None:
            server.stderr.close()


def test_serve_answers_with_a_key_from_keys_create(served) -> None:
    base, headers, _ = served
    body = {"subject": "U-1", "attribute": "location", "value": "Oslo"}
    assert httpx.post(f"{base}/v1/facts/set", json=body, headers=headers).status_code == 200
    got = httpx.get(
        f"{base}/v1/facts/get",
        params={"subject": "U-1", "attribute": "location"},
        headers=headers,
    )
    assert got.json()["fact"]["value"] == "Oslo"
    assert httpx.get(f"{base}/v1/facts/get", params={"subject": "U-1"}).status_code == 401


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_serve_embeds_in_one_child_at_the_lowest_priority_reads_in_another_and_stops_them(
    served,
) -> None:
    base, headers, server = served
    note = {"subject": "U-1", "text": "the user keeps bees behind the old mill"}
    for tenant_note in range(3):
        body = {**note, "text": f"{note['text']} ({tenant_note})"}
        assert httpx.post(f"{base}/v1/remember", json=body, headers=headers).status_code == 200
    # Two children: the one that embeds (niceness 19) and the one that reads long notes
    # (memlane.textwork, niceness 10); each lowers its own priority first thing.
    deadline = time.monotonic() + 60
    while len(children := _children(server.pid)) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert len(children) == 2
    niceness = {TEXT_NICE, 19}
    while _niceness(children) != niceness and time.monotonic() < deadline:
        time.sleep(0.01)
    assert _niceness(children) == niceness
    server.terminate()
    server.wait(timeout=20)
    deadline = time.monotonic() + 20
    while any(map(_alive, children)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(map(_alive, children))  # stopped with the server, not left behind


def _niceness(children: list[int]) -> set[int]:
    return {os.getpriority(os.PRIO_PROCESS, child) for child in children}


def _children(pid: int) -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            found.append(int(stat.parent.name))
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_serve_names_the_extra_when_it_is_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "uvicorn", None)
    result = CliRunner().invoke(cli, ["--url", str(tmp_path / "x.db"), "serve"])
    assert result.exit_code == 1
    assert "memlane[server]" in result.output
