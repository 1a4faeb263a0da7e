"""An HTTP API over a temporary database, with a fixed clock and the hashing embedder."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient

import memlane
from memlane.server.app import create_app
from tests.conftest import FakeClock


@dataclass
class Api:
    """A test client plus a way to mint keys straight into the key store."""

    client: TestClient
    mint: Callable[[str, str], str]

    def headers(self, key: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {key}"}


@pytest.fixture
def api(tmp_path: Path, clock: FakeClock) -> Iterator[Api]:
    url = str(tmp_path / "server.db")
    memory = memlane.Memory(url, clock=clock, embedder="hash")
    app = create_app(memory=memory, max_body_bytes=64 * 1024)
    ring = app.state.memlane.keys

    def mint(tenant: str, role: str) -> str:
        return ring.create(tenant, role)[1]

    with TestClient(app, raise_server_exceptions=True) as client:
        yield Api(client=client, mint=mint)
