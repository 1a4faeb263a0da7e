"""A request hands work to a worker thread only where it waits for the database or a model.

FastAPI runs every plain-function dependency in a worker thread. Each hand-over costs the
request CPU and a wait for the event loop, and under load they were a quarter of the
server's Python time (docs/benchmarks.md, "HTTP API under load"); so the dependencies that
do no I/O (the key's role, the body, the query parameters) are coroutines.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio.to_thread
import pytest
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

import memlane
from memlane.server.app import create_app
from memlane.server.routes.common import OFF_LOOP_JSON_BYTES
from tests.conftest import FakeClock
from tests.server.conftest import Api

HANDOFFS = 3
"""The key's lookup (the gate), the route's library call, and FastAPI's check of what a
plain-function route returned."""


def _dependencies(dependant: Dependant) -> Iterator[Dependant]:
    for inner in dependant.dependencies:
        yield inner
        yield from _dependencies(inner)


def _is_coroutine(call: Callable[..., Any]) -> bool:
    return inspect.iscoroutinefunction(call) or inspect.iscoroutinefunction(
        getattr(call, "__call__", None)  # noqa: B004 - an instance with an async __call__
    )


def test_no_dependency_of_a_route_runs_in_a_thread(api: Api) -> None:
    routes = [route for route in api.client.app.routes if isinstance(route, APIRoute)]  # type: ignore[attr-defined]
    assert routes
    plain = {
        f"{route.path}: {getattr(inner.call, '__qualname__', inner.call)}"
        for route in routes
        for inner in _dependencies(route.dependant)
        if inner.call is not None and not _is_coroutine(inner.call)
    }
    assert not plain


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/v1/facts/set", {"subject": "U-1", "attribute": "location", "value": "Paris"}),
        ("/v1/remember", {"subject": "U-1", "text": "The user likes green tea"}),
        ("/v1/recall", {"subject": "U-1", "query": "what does the user drink?"}),
    ],
)
def test_a_request_hands_over_to_a_thread_three_times(
    api: Api, monkeypatch: pytest.MonkeyPatch, path: str, body: dict[str, Any]
) -> None:
    headers = api.headers(api.mint("acme", "agent"))
    assert api.client.post(path, json=body, headers=headers).status_code == 200  # warm
    run_sync = anyio.to_thread.run_sync
    handed: list[str] = []

    async def counted(function: Callable[..., Any], *arguments: Any, **options: Any) -> Any:
        handed.append(getattr(function, "__qualname__", repr(function)))
        return await run_sync(function, *arguments, **options)

    monkeypatch.setattr(anyio.to_thread, "run_sync", counted)
    assert api.client.post(path, json=body, headers=headers).status_code == 200
    assert len(handed) == HANDOFFS, handed


def test_a_long_json_body_is_parsed_in_a_thread_and_still_refused_by_its_field(
    tmp_path: Path, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 1 MiB body's JSON is parsed off the event loop; a short one's in place (above)."""
    memory = memlane.Memory(str(tmp_path / "server.db"), clock=clock, embedder="hash")
    app = create_app(memory=memory)  # the default body limit: 1 MiB
    key = app.state.memlane.keys.create("acme", "agent")[1]
    run_sync = anyio.to_thread.run_sync
    handed: list[str] = []

    async def counted(function: Callable[..., Any], *arguments: Any, **options: Any) -> Any:
        handed.append(getattr(function, "__qualname__", repr(function)))
        return await run_sync(function, *arguments, **options)

    text = "The beekeeper moved the hives. " * (OFF_LOOP_JSON_BYTES // 8)
    body = {"subject": "U-1", "text": text[:1_000_000]}
    with TestClient(app) as client:
        monkeypatch.setattr(anyio.to_thread, "run_sync", counted)
        reply = client.post("/v1/remember", json=body, headers={"Authorization": f"Bearer {key}"})
        assert reply.status_code == 422 and reply.json()["error"]["field"] == "text"
        assert handed == ["KeyRing.authenticate", "loads"]  # the gate, the parse; no call
        handed.clear()
        reply = client.post(
            "/v1/remember",
            content=b'{"subject": "U-1", "text": ' + b'"x' + b" " * OFF_LOOP_JSON_BYTES,
            headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
        )
        assert reply.status_code == 422  # bad JSON: FastAPI's 422
        assert handed == ["KeyRing.authenticate", "loads"]
        assert memory.summaries.notes("U-1") == []
