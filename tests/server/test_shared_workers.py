"""Two ``memlane serve`` processes sharing PostgreSQL and Redis serve one session consistently.

This is the deployment of docs/deployment.md in miniature: a load balancer may send each
request of a session to either worker, and every request must see what the other did.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator

import httpx
import pytest

from tests.support.services import free_port

ENTRY = "from memlane.cli import main; main()"


def _wait_until_healthy(base: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 30
    while True:
        try:
            if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            error = process.stderr.read().decode(errors="replace") if process.stderr else ""
            pytest.fail(f"memlane serve did not start: {error[-800:]}")
        time.sleep(0.1)


@pytest.fixture
def workers(postgres_url: str, redis_url: str) -> Iterator[tuple[list[str], dict[str, str]]]:
    """Two workers on one database and one Redis, and an admin key of tenant acme."""
    pytest.importorskip("uvicorn")
    env = {
        **os.environ,
        "MEMLANE_URL": postgres_url,
        "MEMLANE_REDIS_URL": redis_url,
    }
    created = subprocess.run(
        [
            sys.executable,
            "-c",
            ENTRY,
            *("keys", "create", "--tenant", "acme"),
            "--json",
            "--role",
            "admin",
        ],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    headers = {"Authorization": f"Bearer {json.loads(created.stdout)['key']}"}
    processes, bases = [], []
    try:
        for _ in range(2):
            port = free_port()
            processes.append(
                subprocess.Popen(
                    [
                        sys.executable,
                        "-c",
                        ENTRY,
                        "serve",
                        "--port",
                        str(port),
                        "--log-level",
                        "warning",
                    ],
                    env=env,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.PIPE,
                )
            )
            bases.append(f"http://127.0.0.1:{port}")
        for base, process in zip(bases, processes, strict=True):
            _wait_until_healthy(base, process)
        yield bases, headers
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            process.wait(timeout=30)
            if process.stderr is not None:
                process.stderr.close()


def test_one_session_alternating_between_two_workers(
    workers: tuple[list[str], dict[str, str]],
) -> None:
    bases, headers = workers
    with httpx.Client(headers=headers, timeout=30) as http:

        def call(worker: int, method: str, path: str, **kwargs: object) -> dict[str, object]:
            response = http.request(method, f"{bases[worker]}{path}", **kwargs)  # type: ignore[arg-type]
            assert response.status_code == 200, response.text
            body: dict[str, object] = response.json()
            return body

        said = [
            "I moved to Lisbon last month",
            "Noted, Lisbon it is.",
            "my phone is 138-0000-1234",
            "Saved your phone.",
            "I like green tea",
            "Green tea, noted.",
        ]
        turn_ids = []
        for i, content in enumerate(said):
            turn = call(
                i % 2,
                "POST",
                "/v1/sessions/turn",
                json={
                    "subject": "U-1",
                    "session_id": "s-1",
                    "role": "user" if i % 2 == 0 else "assistant",
                    "content": content,
                    "window": 2,
                },
            )["turn"]
            turn_ids.append(turn["id"])  # type: ignore[index]
        # Turn numbers come from Redis: one sequence, whichever worker took the turn.
        assert turn_ids == [f"s-1#{n}" for n in range(1, 7)]
        for worker in (0, 1):
            window = call(
                worker, "GET", "/v1/sessions/window", params={"subject": "U-1", "session_id": "s-1"}
            )["items"]
            assert [t["content"] for t in window] == said[2:]  # type: ignore[index,union-attr]
        # Facts extracted on either worker are in PostgreSQL for both.
        for worker in (0, 1):
            fact = call(
                worker,
                "GET",
                "/v1/facts/get",
                params={"subject": "U-1", "attribute": "location"},
            )["fact"]
            assert fact["value"] == "Lisbon"  # type: ignore[index]
        # Closed on one worker, summarized for both, and gone from the shared window.
        summary = call(
            1, "POST", "/v1/sessions/close", json={"subject": "U-1", "session_id": "s-1"}
        )
        assert summary["summary"] is not None
        assert set(summary["summary"]["provenance"]) == set(turn_ids)  # type: ignore[index]
        recalled = call(0, "POST", "/v1/recall", json={"subject": "U-1", "query": "what tea"})
        assert "green tea" in str(recalled["text"]).lower()
        gone = http.get(
            f"{bases[0]}/v1/sessions/window", params={"subject": "U-1", "session_id": "s-1"}
        )
        assert gone.status_code == 404
