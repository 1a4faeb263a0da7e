"""``memlane serve``: a real process answering HTTP, and a clear error without the extra."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from memlane.cli import cli

ENTRY = "from memlane.cli import main; main()"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def test_serve_answers_with_a_key_from_keys_create(tmp_path: Path) -> None:
    pytest.importorskip("uvicorn")
    db = str(tmp_path / "served.db")
    env = {**os.environ, "MEMLANE_URL": db}
    created = subprocess.run(
        [
            sys.executable,
            "-c",
            ENTRY,
            "keys",
            "create",
            "--tenant",
            "acme",
            "--role",
            "agent",
            "--json",
        ],
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
        deadline = time.monotonic() + 20
        while True:
            try:
                if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "server did not start"
            assert server.poll() is None, server.stderr.read() if server.stderr else ""
            time.sleep(0.1)
        headers = {"Authorization": f"Bearer {key}"}
        body = {"subject": "U-1", "attribute": "location", "value": "Oslo"}
        assert httpx.post(f"{base}/v1/facts/set", json=body, headers=headers).status_code == 200
        got = httpx.get(
            f"{base}/v1/facts/get",
            params={"subject": "U-1", "attribute": "location"},
            headers=headers,
        )
        assert got.json()["fact"]["value"] == "Oslo"
        assert httpx.get(f"{base}/v1/facts/get", params={"subject": "U-1"}).status_code == 401
    finally:
        server.terminate()
        server.wait(timeout=20)
        if server.stderr is not None:
            server.stderr.close()


def test_serve_names_the_extra_when_it_is_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "uvicorn", None)
    result = CliRunner().invoke(cli, ["--url", str(tmp_path / "x.db"), "serve"])
    assert result.exit_code == 1
    assert "memlane[server]" in result.output
