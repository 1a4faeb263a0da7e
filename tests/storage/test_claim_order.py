"""The background indexer's claims find the unembedded items by index, not past the embedded.

A worker claims the oldest unembedded items of any tenant. With no tenant to lead the partial
index ``search_docs_unembedded (tenant, id)``, each claim read ``search_docs`` from its first
row, past every item embedded already: with 10^5 notes embedded a batch of 8 took 400 ms, and
a backlog of 65,000 drained at ~20 items/s. Migration 10 indexes the unembedded by id.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

import memlane
from memlane.storage.base import VectorClaim
from memlane.storage.sql import SQLSummaryStore

EMBEDDED = 2_000
START = datetime(2026, 1, 1, tzinfo=UTC)


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def test_a_claim_of_any_tenant_reads_the_unembedded_by_their_index(
    new_memory_url: Any, backend: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with memlane.Memory(new_memory_url(), embedder="hash", indexing="inline") as mem:
        mem.summaries.add_notes(
            {"subject": f"U-{n % 50}", "text": f"note {n}", "at": START + timedelta(seconds=n)}
            for n in range(EMBEDDED)
        )
        store = mem.summaries._store
        assert isinstance(store, SQLSummaryStore)
        store.db.execute("UPDATE search_docs SET model = NULL WHERE id > %s", (EMBEDDED - 5,))
        if backend == "postgresql":
            store.db.execute("ANALYZE search_docs")
        asked: list[tuple[str, Any]] = []
        fetchall = store.db.fetchall

        def spy(sql: str, parameters: Any = ()) -> list[Any]:
            asked.append((sql, parameters))
            return fetchall(sql, parameters)

        monkeypatch.setattr(store.db, "fetchall", spy)
        now = int(START.timestamp() * 1e6)
        claim = VectorClaim(model="hash", limit=8, chars=4_000, now=now, until=now + 1)
        assert len(store.claim_vectors(None, claim)) == 5
        monkeypatch.undo()
        sql, parameters = asked[0]
        explain = "EXPLAIN QUERY PLAN " if backend == "sqlite" else "EXPLAIN "
        plan = "\n".join(str(row) for row in store.db.fetchall(explain + sql, parameters))
    assert "search_docs_unembedded_by_id" in plan, plan
