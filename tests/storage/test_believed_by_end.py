"""A key's long history is not read again by every write and every read of the present.

Each superseded value of a one-valued attribute leaves its truncated version believed, so a
key set a thousand times has a thousand believed versions, all ended. Led by ``valid_from``,
the believed-versions index gave a write (the versions touching ``[start, end)``) and a read
at an instant every version that began before it, and a ``set`` grew with the key's history
(SQLite: 0.25 ms at 10 versions, 1.5 ms at 5,000). Led by ``valid_to`` (migration 13 on
SQLite, 15 on PostgreSQL), both take the versions that end after the instant: the live ones.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

import memlane
from memlane.facts.temporal import FOREVER
from memlane.storage.sql import SQLFactStore, facts
from memlane.timeutil import to_micros

HISTORY = 300


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _statements(mem: memlane.Memory, monkeypatch: pytest.MonkeyPatch, act: Any) -> list[Any]:
    """The queries ``act`` sends to the fact store's database, with their parameters."""
    db = _store(mem).db
    asked: list[tuple[str, Any]] = []
    fetchall = db.fetchall

    def spy(sql: str, parameters: Any = ()) -> list[Any]:
        asked.append((sql, parameters))
        return fetchall(sql, parameters)

    with monkeypatch.context() as patch:
        patch.setattr(db, "fetchall", spy)
        act()
    return asked


def _store(mem: memlane.Memory) -> SQLFactStore:
    store = mem.facts._store
    assert isinstance(store, SQLFactStore)
    return store


def _rows_past_the_live(mem: memlane.Memory, backend: str, sql: str, parameters: Any) -> str:
    """The plan of one read: SQLite's chosen index, or PostgreSQL's rows read and dropped."""
    db = _store(mem).db
    if backend == "sqlite":
        return "\n".join(str(row) for row in db.fetchall("EXPLAIN QUERY PLAN " + sql, parameters))
    db.execute("ANALYZE facts")
    rows = db.fetchall("EXPLAIN (ANALYZE, COSTS OFF) " + sql, parameters)
    return "\n".join(str(row[0]) for row in rows)


def _long_history(mem: memlane.Memory) -> None:
    """One key set HISTORY times, among other subjects' keys (a table worth an index)."""
    mem.facts.set_many(
        {"subject": f"U-{number + 2}", "attribute": "city", "value": "Rome"}
        for number in range(5_000)
    )
    for number in range(HISTORY):
        mem.facts.set("U-1", "city", f"city {number}")


def test_a_set_reads_the_live_versions_of_a_key_not_its_history(
    new_memory_url: Any, backend: str
) -> None:
    with memlane.Memory(new_memory_url(), embedder="hash") as mem:
        _long_history(mem)
        latest = mem.facts.get("U-1", "city")
        assert latest is not None
        # What the next set asks (on PostgreSQL inside memlane_write_view: the same query).
        now = to_micros(latest.valid_from) + 1
        view = {"tenant": "default", "subject": "U-1", "attribute": "city"}
        plan = _rows_past_the_live(
            mem, backend, facts._WRITE_VIEW, view | {"high": FOREVER, "low": now}
        )
        mem.facts.set("U-1", "city", "Oslo")
        assert [fact.value for fact in mem.facts.get_all("U-1", "city")] == ["Oslo"]
        assert len(mem.facts.history("U-1", "city")) == HISTORY + 1
    _assert_live_only(backend, plan)


def test_the_value_now_is_one_seek_past_no_history(
    new_memory_url: Any, backend: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with memlane.Memory(new_memory_url(), embedder="hash") as mem:
        _long_history(mem)
        found: list[Any] = []
        asked = _statements(mem, monkeypatch, lambda: found.append(mem.facts.get("U-1", "city")))
        assert found[0].value == f"city {HISTORY - 1}"
        read = [(sql, arguments) for sql, arguments in asked if "LIMIT 1" in sql]
        assert read, asked
        plan = _rows_past_the_live(mem, backend, *read[0])
        # An instant inside the history still finds the version valid then.
        middle = mem.facts.history("U-1", "city")[HISTORY // 2]
        assert mem.facts.get("U-1", "city", valid_at=middle.valid_from).value == middle.value
    _assert_live_only(backend, plan)


def _assert_live_only(backend: str, plan: str) -> None:
    if backend == "sqlite":
        assert re.search(r"facts_believed \(.*valid_to[<>]", plan), plan
        return
    removed = [int(count) for count in re.findall(r"Rows Removed by Filter: (\d+)", plan)]
    assert "facts_believed" in plan, plan
    assert max(removed, default=0) < 10, plan  # not the key's HISTORY ended versions
