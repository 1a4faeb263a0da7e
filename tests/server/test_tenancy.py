"""Tenants are scopes of one memory: one pool, one embedder, no lock per tenant."""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime, tzinfo
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient

import memlane
from memlane.bench.processes import open_files
from memlane.embed import HashEmbedder
from memlane.extract.model import AttributeSpec, Extraction
from memlane.extract.rules import RuleExtractor
from memlane.server.app import create_app
from memlane.summaries.model import SummaryContent
from memlane.summaries.offline import OfflineSummarizer
from memlane.window.model import Turn
from tests.conftest import FakeClock

TENANTS = 100
POOL_SIZE = 3


@pytest.fixture
def backend(every_backend: str) -> str:
    return every_backend


class CountingFactory:
    """Stands in for ``make_embedder``: counts the embedders made (all hashing ones)."""

    def __init__(self) -> None:
        self.made = 0

    def __call__(self, spec: str | None = None, **_: Any) -> HashEmbedder:
        self.made += 1
        return HashEmbedder()


def open_connections(url: str) -> int:
    """Connections to ``url``'s database other than the one asking (PostgreSQL)."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as probe:
        row = probe.execute(
            "SELECT count(*) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        ).fetchone()
    assert row is not None
    return int(row[0])


def test_a_hundred_tenants_share_one_pool_and_one_embedder(
    backend: str,
    memory_url: str,
    clock: FakeClock,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    factory = CountingFactory()
    monkeypatch.setattr("memlane.embed.make_embedder", factory)
    monkeypatch.setenv("MEMLANE_PG_POOL_SIZE", str(POOL_SIZE))
    app = create_app(memory=memlane.Memory(memory_url, clock=clock), tenant_handles=16)
    ring = app.state.memlane.keys
    keys = [ring.create(f"tenant-{n:03d}", "agent")[1] for n in range(TENANTS)]
    with TestClient(app, raise_server_exceptions=True) as client:
        for number, key in enumerate(keys):
            headers = {"Authorization": f"Bearer {key}"}
            text = f"Customer {number} prefers green tea in the mornings"
            wrote = client.post(
                "/v1/remember", json={"subject": "U-1", "text": text}, headers=headers
            )
            assert wrote.status_code == 200, wrote.text
            found = client.post(
                "/v1/recall",
                json={"subject": "U-1", "query": "what does the customer drink?"},
                headers=headers,
            )
            assert found.status_code == 200, found.text
            assert f"Customer {number} " in found.json()["text"]  # its own note, no other
        if backend == "postgresql":
            assert open_connections(memory_url) <= POOL_SIZE
        else:
            written, read = open_files("self", memory_url)
            # One connection writes for every tenant; beside it read-only ones: the stamps',
            # one per statement read at once (requests, the indexer), a graph's building
            # thread's; none per tenant.
            assert written == 1 and 1 <= read <= 5, (written, read)
        assert factory.made == 1
        assert len(app.state.memlane.cached_tenants()) == 16


def test_sixteen_threads_over_a_hundred_tenants_stay_within_the_pool(
    new_postgres_url: Callable[[], str], clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At once, not one after the other: the pool grows to its size and no further.

    Counted as ``bench/server`` counts them: the client backends named after this process,
    as the pool names its connections (the probe's own has another name).
    """
    import psycopg

    url = new_postgres_url()
    monkeypatch.setenv("MEMLANE_PG_POOL_SIZE", str(POOL_SIZE))
    app = create_app(memory=memlane.Memory(url, clock=clock, embedder="hash"))
    ring = app.state.memlane.keys
    keys = [ring.create(f"tenant-{n:03d}", "agent")[1] for n in range(TENANTS)]
    counts: list[int] = []
    done = threading.Event()

    def sample() -> None:
        with psycopg.connect(url, autocommit=True, application_name="probe") as probe:
            while not done.wait(0.005):
                row = probe.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                    "AND backend_type = 'client backend' AND application_name = %s",
                    (f"memlane-{os.getpid()}",),
                ).fetchone()
                counts.append(int(row[0]) if row else 0)

    def client_thread(number: int, client: TestClient, answers: list[int]) -> None:
        for round_ in range(6):
            headers = {"Authorization": f"Bearer {keys[(number * 7 + round_) % TENANTS]}"}
            text = f"Customer {number}-{round_} prefers green tea"
            for path, body in (
                ("/v1/remember", {"subject": "U-1", "text": text}),
                ("/v1/recall", {"subject": "U-1", "query": "what does the customer drink?"}),
                ("/v1/facts/set", {"subject": "U-1", "attribute": "city", "value": f"C{round_}"}),
            ):
                answers.append(client.post(path, json=body, headers=headers).status_code)

    sampler = threading.Thread(target=sample)
    sampler.start()
    answers: list[int] = []
    try:
        with TestClient(app, raise_server_exceptions=True) as client:
            threads = [
                threading.Thread(target=client_thread, args=(number, client, answers))
                for number in range(16)
            ]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(120)
    finally:
        done.set()
        sampler.join(30)
    assert answers.count(200) == 16 * 6 * 3, sorted(set(answers))
    assert max(counts) <= POOL_SIZE
    assert max(counts) > 1  # the threads did hold several connections at once


class GatedExtractor:
    """The rules, but texts containing "slow" wait for a gate (a model taking its time)."""

    def __init__(self) -> None:
        self.rules = RuleExtractor()
        self.entered = threading.Event()
        self.release = threading.Event()

    def attributes(self) -> Sequence[AttributeSpec]:
        return self.rules.attributes()

    def extract(self, text: str, *, at: datetime, timezone: tzinfo) -> Extraction:
        if "slow" in text:
            self.entered.set()
            assert self.release.wait(30)
        return self.rules.extract(text, at=at, timezone=timezone)


@pytest.fixture
def gated(tmp_path: Path, clock: FakeClock) -> Iterator[tuple[TestClient, GatedExtractor, str]]:
    extractor = GatedExtractor()
    memory = memlane.Memory(
        str(tmp_path / "gated.db"), clock=clock, embedder="hash", extractor=extractor
    )
    app = create_app(memory=memory)
    key = app.state.memlane.keys.create("acme", "agent")[1]
    with TestClient(app, raise_server_exceptions=True) as client:
        yield client, extractor, key
    extractor.release.set()


def test_a_slow_model_call_delays_no_other_request_of_its_tenant(
    gated: tuple[TestClient, GatedExtractor, str],
) -> None:
    client, extractor, key = gated
    headers = {"Authorization": f"Bearer {key}"}
    body = {"subject": "U-1", "session_id": "s-1", "role": "user", "content": "a slow one"}
    slow = threading.Thread(
        target=client.post,
        args=("/v1/sessions/turn",),
        kwargs={
            "json": body,
            "headers": headers,
        },
    )
    slow.start()
    try:
        assert extractor.entered.wait(10)
        fact = {"subject": "U-2", "attribute": "city", "value": "Oslo"}
        assert client.post("/v1/facts/set", json=fact, headers=headers).status_code == 200
        other = {**body, "subject": "U-2", "content": "I moved to Bergen"}
        assert client.post("/v1/sessions/turn", json=other, headers=headers).status_code == 200
        asked = {"subject": "U-2", "attribute": "city"}
        got = client.get("/v1/facts/get", params=asked, headers=headers)
        assert got.status_code == 200 and got.json()["fact"]["value"] == "Oslo"
        assert slow.is_alive()  # all of that while the model call was still running
    finally:
        extractor.release.set()
        slow.join(30)


class LoopWatchingSummarizer(OfflineSummarizer):
    """The offline summarizer, noting whether a fold ran on an event loop's thread."""

    def __init__(self) -> None:
        super().__init__()
        self.on_loop: list[bool] = []

    def update(self, previous: SummaryContent | None, turns: Sequence[Turn]) -> SummaryContent:
        try:
            asyncio.get_running_loop()
            self.on_loop.append(True)
        except RuntimeError:
            self.on_loop.append(False)
        return super().update(previous, turns)


def test_shutdown_folds_open_sessions_off_the_event_loop(tmp_path: Path, clock: FakeClock) -> None:
    summarizer = LoopWatchingSummarizer()
    url = str(tmp_path / "fold.db")
    app = create_app(
        memory=memlane.Memory(url, clock=clock, embedder="hash", summarizer=summarizer)
    )
    key = app.state.memlane.keys.create("acme", "agent")[1]
    with TestClient(app) as client:
        turn = {"subject": "U-1", "session_id": "s-1", "role": "user", "content": "I like tea"}
        answer = client.post(
            "/v1/sessions/turn", json=turn, headers={"Authorization": f"Bearer {key}"}
        )
        assert answer.status_code == 200
        assert summarizer.on_loop == []
    assert summarizer.on_loop == [False]  # folded at shutdown, in a worker thread
    with memlane.Memory(url, tenant="acme", embedder="hash") as mem:
        assert mem.summaries.for_session("s-1") is not None


def test_sessions_outlive_the_eviction_of_their_tenant_handle(
    api_small: tuple[TestClient, list[str]],
) -> None:
    client, keys = api_small
    first = {"Authorization": f"Bearer {keys[0]}"}
    turn = {"subject": "U-1", "session_id": "s-1", "role": "user", "content": "I like tea"}
    assert client.post("/v1/sessions/turn", json=turn, headers=first).status_code == 200
    for key in keys[1:]:  # every other tenant pushes the first one's handle out of the LRU
        fact = {"subject": "U-1", "attribute": "city", "value": "Oslo"}
        headers = {"Authorization": f"Bearer {key}"}
        assert client.post("/v1/facts/set", json=fact, headers=headers).status_code == 200
    state = client.app.state.memlane  # type: ignore[attr-defined]
    assert "tenant-0" not in state.cached_tenants()
    window = client.get(
        "/v1/sessions/window", params={"subject": "U-1", "session_id": "s-1"}, headers=first
    )
    assert window.status_code == 200
    assert [t["content"] for t in window.json()["items"]] == ["I like tea"]


@pytest.fixture
def api_small(tmp_path: Path, clock: FakeClock) -> Iterator[tuple[TestClient, list[str]]]:
    memory = memlane.Memory(str(tmp_path / "lru.db"), clock=clock, embedder="hash")
    app = create_app(memory=memory, tenant_handles=3)
    keys = [app.state.memlane.keys.create(f"tenant-{n}", "agent")[1] for n in range(6)]
    with TestClient(app, raise_server_exceptions=True) as client:
        yield client, keys


def test_tenant_handles_must_be_positive(tmp_path: Path) -> None:
    with pytest.raises(memlane.InvalidInput):
        create_app(str(tmp_path / "x.db"), tenant_handles=0)


def test_the_server_folds_idle_sessions_of_quiet_tenants(
    api_small: tuple[TestClient, list[str]], clock: FakeClock
) -> None:
    client, keys = api_small
    headers = {"Authorization": f"Bearer {keys[0]}"}
    turn = {"subject": "U-1", "session_id": "s-1", "role": "user", "content": "I like tea"}
    assert client.post("/v1/sessions/turn", json=turn, headers=headers).status_code == 200
    state = client.app.state.memlane  # type: ignore[attr-defined]
    assert state.sweep() == 0
    clock.advance(minutes=31)
    assert state.sweep() == 1  # no request of that tenant needed
    ref = {"subject": "U-1", "session_id": "s-1"}
    assert client.get("/v1/sessions/window", params=ref, headers=headers).status_code == 404
