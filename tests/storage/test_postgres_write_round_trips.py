"""A single fact write on PostgreSQL makes two round trips, and commits only what it should.

``BEGIN``, the key's lock, the transaction time and what the write plans from go as one
simple query; the close-and-insert and its ``COMMIT`` as another (four round trips before).
The second one commits only an outermost transaction, and nothing of a write that fails.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

import memlane
from memlane.errors import StorageError
from memlane.facts import lane
from memlane.facts.temporal import WritePlan
from memlane.storage.postgres import wire


@pytest.fixture
def round_trips(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The statements (simple queries count once) this thread sends on any connection.

    Through a psycopg cursor or on libpq directly (``wire.simple_query``, which the single
    writes use); a simple query that ``wire`` hands to a cursor counts once.
    """
    sent: list[str] = []
    execute, simple_query = psycopg.Connection.execute, wire.simple_query
    me, inside = threading.get_ident(), threading.local()

    def counting(self: psycopg.Connection[Any], query: Any, *args: Any, **kwargs: Any) -> Any:
        if threading.get_ident() == me and not getattr(inside, "wire", False):
            sent.append(str(query))
        return execute(self, query, *args, **kwargs)

    def counting_wire(connection: Any, query: str) -> Any:
        if threading.get_ident() == me:
            sent.append(query)
        inside.wire = True
        try:
            return simple_query(connection, query)
        finally:
            inside.wire = False

    monkeypatch.setattr(psycopg.Connection, "execute", counting)
    monkeypatch.setattr(wire, "simple_query", counting_wire)
    yield sent


def test_a_set_and_a_retract_make_two_round_trips(
    postgres_url: str, round_trips: list[str]
) -> None:
    with memlane.Memory(postgres_url) as mem:
        mem.facts.set("U-1", "city", "Shanghai", valid_from="2026-01-01")  # warm
        round_trips.clear()
        mem.facts.set("U-1", "city", "Beijing", valid_from="2026-03-01")
        assert len(round_trips) == 2, round_trips  # four before
        assert round_trips[1].rstrip().endswith("COMMIT")
        round_trips.clear()
        assert [f.value for f in mem.facts.retract("U-1", "city", "2026-06-01")] == ["Beijing"]
        assert len(round_trips) == 2, round_trips
        kept = mem.facts.get("U-1", "city", valid_at="2026-04-01")
        assert kept is not None and kept.value == "Beijing"
        assert mem.facts.get("U-1", "city", valid_at="2026-07-01") is None


def test_a_set_inside_a_batch_leaves_the_commit_to_the_batch(postgres_url: str) -> None:
    with memlane.Memory(postgres_url) as mem:
        with pytest.raises(RuntimeError), mem.facts.batch():
            mem.facts.set("U-1", "city", "Shanghai")
            mem.facts.set("U-2", "city", "Beijing")
            raise RuntimeError("the batch fails after both sets")
        assert mem.facts.audit("U-1") == mem.facts.audit("U-2") == []
        with mem.facts.batch("U-3"):
            first = mem.facts.set("U-3", "city", "Oslo")
            second = mem.facts.set("U-3", "tier", "gold")
        assert [f.id for f in mem.facts.audit("U-3")] == [first.id, second.id]


def test_a_write_that_fails_with_its_commit_commits_nothing(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The ``COMMIT`` sent after the close-and-insert never runs when that fails."""
    with memlane.Memory(postgres_url) as mem:
        held = mem.facts.set("U-1", "city", "Shanghai", valid_from="2026-01-01")
        plan_assert = lane.plan_assert

        def overlapping(*args: Any) -> WritePlan:
            plan = plan_assert(*args)  # what it inserts, without closing what it overlaps
            return WritePlan((), plan.insert, plan.unchanged, plan.asserted)

        monkeypatch.setattr(lane, "plan_assert", overlapping)
        with pytest.raises(StorageError, match="overlap"):
            mem.facts.set("U-1", "city", "Beijing", valid_from="2026-02-01")
        monkeypatch.undo()
        assert mem.facts.audit("U-1") == [held]
        later = mem.facts.set("U-1", "city", "Beijing", valid_from="2026-02-01")
        assert later.tx_from > held.tx_from
        assert [f.value for f in mem.facts.history("U-1", "city")] == ["Shanghai", "Beijing"]


def test_names_and_values_bound_on_the_client_arrive_as_written(postgres_url: str) -> None:
    """The simple queries carry literals quoted by psycopg: quotes, ``%`` and ``\\`` intact."""
    awkward = 'O\'Brien; DROP TABLE facts; -- 100% \\x27 %s %(x)s $$ "q"'
    with memlane.Memory(postgres_url) as mem:
        fact = mem.facts.set(awkward, awkward, {"note": awkward}, valid_from="2026-01-01")
        assert (fact.subject, fact.attribute, fact.value) == (awkward, awkward, {"note": awkward})
        mem.facts.set(awkward, awkward, awkward, valid_from="2026-02-01")
        assert [f.value for f in mem.facts.history(awkward, awkward)] == [
            {"note": awkward},
            awkward,
        ]
        assert mem.facts.retract(awkward, awkward, "2026-03-01")[0].value == awkward
