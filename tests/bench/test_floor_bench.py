"""The database's own single-row inserts, measured beside memlane's sets on both backends."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import psycopg
import pytest

from memlane.bench import floor
from memlane.bench.clients import summed_rate
from memlane.memory import Memory


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "floor.db")
    found: str = request.getfixturevalue("postgres_url")
    return found


def _tables(url: str) -> set[str]:
    if url.startswith("postgresql"):
        with psycopg.connect(url) as connection:
            rows = connection.execute("SELECT tablename FROM pg_tables").fetchall()
    else:
        with sqlite3.connect(url) as connection:
            rows = connection.execute("SELECT name FROM sqlite_schema").fetchall()
    return {row[0] for row in rows}


def test_the_floor_inserts_committed_rows_and_leaves_no_table(url: str) -> None:
    with Memory(url, embedder="hash") as mem:  # a memory's database, as bench scale's
        mem.facts.set("U-1", "status", "kept")
    before = _tables(url)

    assert floor.single_inserts(url, 20) > 0
    assert floor.client_inserts(url, 2, 0.2) > 0

    assert floor.TABLE not in _tables(url) and _tables(url) == before
    with Memory(url, embedder="hash") as mem:
        assert mem.facts.get("U-1", "status").value == "kept"


def failing(url: str, index: int, seconds: float, barrier: Any, queue: Any) -> None:
    """A worker that fails at once, as a client that cannot reach its database."""
    barrier.abort()
    queue.put(f"client {index}: cannot write to {url}")


def test_a_failed_client_is_reported_not_counted(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match="client 0: cannot write"):
        summed_rate(failing, str(tmp_path / "none.db"), 2, 0.1)
