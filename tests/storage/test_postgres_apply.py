"""``memlane_apply`` on PostgreSQL: its array arguments and its closes (migration 14).

The dialect writes the arrays' literals itself (psycopg adapting lists cost a third of a
``set``'s client CPU), so any text must read back as it was given; and the function closes
each superseded id with its own ``UPDATE`` (a plan plpgsql keeps), all of them or none.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import memlane
from memlane.errors import StorageError
from memlane.facts import lane
from memlane.facts.temporal import WritePlan
from memlane.storage.postgres.dialect import PostgresDialect
from tests.support.services import PostgresServer

# Any character PostgreSQL stores in text: no NUL, no lone surrogate.
_TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"))
_TRICKY = ["", "NULL", "null", '"', "\\", '\\"', "{a,b}", " padded ", "'; DROP TABLE facts; --"]


@pytest.fixture(scope="module")
def connection(postgres_server: PostgresServer) -> Iterator[psycopg.Connection[Any]]:
    """A connection to the server's own database: array casts need no table."""
    with psycopg.connect(postgres_server.admin_url, autocommit=True) as connection:
        yield connection


def _array(values: list[Any]) -> Any:
    return PostgresDialect.array(object.__new__(PostgresDialect), values)


@settings(max_examples=200)
@given(st.lists(st.one_of(st.none(), _TEXT, st.sampled_from(_TRICKY)), max_size=6))
def test_text_arrays_read_back_as_given(connection: Any, values: list[str | None]) -> None:
    row = connection.execute("SELECT %s::text[]", (_array(values),)).fetchone()
    assert row[0] == values


@settings(max_examples=100)
@given(
    st.lists(st.integers(-(2**63), 2**63 - 1), max_size=4),
    st.lists(st.floats(0.0, 1.0), max_size=4),
)
def test_number_arrays_read_back_as_given(
    connection: Any, integers: list[int], floats: list[float]
) -> None:
    row = connection.execute(
        "SELECT %s::bigint[], %s::float8[]", (_array(integers), _array(floats))
    ).fetchone()
    assert row == (integers, floats)


def test_values_and_metadata_of_any_text_survive_a_set(postgres_url: str) -> None:
    with memlane.Memory(postgres_url) as mem:
        for text in _TRICKY:
            value = {"text": text, "list": [text, None, 1.5]}
            fact = mem.facts.set(
                "U-1", "note", value, source=text or None, reason=text or None,
                provenance=[text or "p", "q"],
            )  # fmt: skip
            stored = mem.facts.get("U-1", "note")
            assert stored is not None
            assert stored == fact
            assert (stored.value, stored.source, stored.reason) == (
                value,
                text or None,
                text or None,
            )
            assert stored.provenance == (text or "p", "q")


def test_a_close_of_a_version_no_longer_believed_fails_whole(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two ids to close, one already closed: nothing is closed, nothing inserted."""
    with memlane.Memory(postgres_url) as mem:
        old = mem.facts.set(
            "U-1", "city", "Shanghai", valid_from="2026-01-01", valid_to="2026-02-01"
        )
        held = mem.facts.set("U-1", "city", "Oslo", valid_from="2026-03-01")
        gone = mem.facts.set("U-1", "city", "Paris", valid_from="2026-01-01", valid_to="2026-02-01")
        assert gone.id != old.id  # ``old`` is superseded now
        plan_assert = lane.plan_assert

        def closing_a_stale_one_too(*args: Any) -> WritePlan:
            plan = plan_assert(*args)
            return WritePlan((*plan.supersede, old.id), plan.insert, plan.unchanged, plan.asserted)

        monkeypatch.setattr(lane, "plan_assert", closing_a_stale_one_too)
        before = mem.facts.audit("U-1")
        with pytest.raises(StorageError, match="no longer believed"):
            mem.facts.set("U-1", "city", "Rome", valid_from="2026-03-01")
        assert mem.facts.audit("U-1") == before
        monkeypatch.undo()
        kept = mem.facts.get("U-1", "city", valid_at="2026-04-01")
        assert kept is not None and kept.id == held.id


def test_the_close_is_one_update_per_id(postgres_url: str) -> None:
    """``WHERE id = ANY(closing)`` was planned anew at every call; one id per ``UPDATE`` is not."""
    memlane.Memory(postgres_url).close()
    with psycopg.connect(postgres_url, autocommit=True) as connection:
        row = connection.execute(
            "SELECT prosrc FROM pg_proc WHERE proname = 'memlane_apply'"
        ).fetchone()
    assert row is not None
    assert "id = ANY(closing)" not in row[0]
    assert "WHERE id = version AND num_nulls(tx_to) = 1" in row[0]


def test_a_close_reads_its_version_by_key_on_a_table_never_analyzed(postgres_url: str) -> None:
    """plpgsql keeps the plan of a connection's first call, made here on a handful of rows
    (a new database: no ANALYZE before autovacuum's first pass). Filtered ``tx_to IS NULL``,
    that plan read the whole of facts_believed for every close (migration 23)."""
    sets, keys = 400, 20
    with memlane.Memory(postgres_url) as mem:
        for number in range(sets):
            mem.facts.set(f"U-{number % keys}", "tier", f"t{number}")
    closes = sets - keys  # each key's first set closes nothing
    with psycopg.connect(postgres_url, autocommit=True) as connection:
        deadline = time.monotonic() + 10  # the pool's backends send their counts as they exit
        while True:
            connection.execute("SELECT pg_stat_clear_snapshot()")
            (updated,) = connection.execute(
                "SELECT n_tup_upd FROM pg_stat_user_tables WHERE relname = 'facts'"
            ).fetchone()
            if updated >= closes or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        (read,) = connection.execute(
            "SELECT idx_tup_read FROM pg_stat_user_indexes WHERE indexrelname = 'facts_believed'"
        ).fetchone()
    assert updated == closes
    assert read < 10 * sets  # a few entries a set (its key's believed versions), not the table
