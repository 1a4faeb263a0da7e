"""Through the HTTP API: a note being embedded holds no tenant lock, and the backlog shows."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

import memlane
from memlane.server.app import create_app
from tests.conftest import FakeClock
from tests.support.embedders import GatedEmbedder


def test_a_huge_note_being_embedded_delays_no_request_of_its_tenant(
    tmp_path: Path, clock: FakeClock
) -> None:
    url = str(tmp_path / "server.db")
    embedder = GatedEmbedder()
    app = create_app(memory=memlane.Memory(url, clock=clock, embedder=embedder))
    key = app.state.memlane.keys.create("acme", "agent")[1]
    headers = {"Authorization": f"Bearer {key}"}
    with TestClient(app) as client:
        huge = {"subject": "U-1", "text": "A long letter about the garden. " * 600}
        assert client.post("/v1/remember", json=huge, headers=headers).status_code == 200
        assert embedder.entered.wait(timeout=30)  # the model is busy with it (gate closed)
        fact = {"subject": "U-1", "attribute": "location", "value": "Lisbon"}
        assert client.post("/v1/facts/set", json=fact, headers=headers).status_code == 200
        where = {"subject": "U-1", "attribute": "location"}
        got = client.get("/v1/facts/get", params=where, headers=headers)
        assert got.status_code == 200 and "Lisbon" in got.text
        recall = {"subject": "U-1", "query": "what did the letter say about the garden"}
        found = client.post("/v1/recall", json=recall, headers=headers).json()
        assert any("garden" in item["text"] for item in found["items"])  # by its words
        assert client.get("/readyz").json() == {"status": "ready", "pending": 1}
        me = client.get("/v1/whoami", headers=headers).json()
        assert me["index"] == {"pending": 1}
        embedder.gate.set()
        assert app.state.memlane.handle("acme").index.wait(timeout=30)
        assert client.get("/readyz").json()["pending"] == 0
