"""How PostgreSQL runs the note-key statements of a recall: their plans and their commit.

A recall of the backends suite's workload (ten short notes per subject, most imported without
keys) spent its time in three places on PostgreSQL: the final join of the latest holders of
each key was planned as a hash join over every note of the tenant, the prepared statement
finding a subject's unkeyed notes walked the whole pending table, and keying the notes waited
for the disk at commit. Each test here fails if its cause comes back.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

import memlane
from memlane.router.evidence import SLOT, note_keys
from memlane.router.slots import slot_probes
from memlane.storage.sql import SQLSummaryStore

OTHER_NOTES = 3_000


@pytest.fixture
def crowded(postgres_url: str) -> Iterator[memlane.Memory]:
    """A memory whose tenant has thousands of notes of other subjects, none keyed yet.

    Inline indexing: no background worker keys them before the test does.
    """
    with memlane.Memory(postgres_url, embedder="hash", indexing="inline") as mem:
        mem.remember("U-1", "My favourite team is Arsenal")
        mem.remember("U-1", "I moved to Lisbon in May")
        with psycopg.connect(postgres_url, autocommit=True) as connection:
            connection.execute(
                "INSERT INTO notes (tenant, subject, text, said_at, tx_from, provenance) "
                "SELECT 'default', 'U-' || (2 + g / 10), 'a note', g, g, '[]' "
                "FROM generate_series(1, %s) AS g",
                (OTHER_NOTES,),
            )
            connection.execute(
                "INSERT INTO note_keys_pending (note_id, tenant, subject) "
                "SELECT id, tenant, subject FROM notes WHERE subject <> 'U-1'"
            )
            connection.execute("ANALYZE")
        yield mem


def _store(mem: memlane.Memory) -> SQLSummaryStore:
    store = mem.summaries._store
    assert isinstance(store, SQLSummaryStore)
    return store


def _asked(
    store: SQLSummaryStore, monkeypatch: pytest.MonkeyPatch, start: str
) -> list[tuple[str, Any]]:
    """The statements starting with ``start`` the store runs from now on, with parameters."""
    asked: list[tuple[str, Any]] = []
    fetchall = store.db.fetchall

    def spy(sql: str, parameters: Any = ()) -> list[Any]:
        if sql.startswith(start):
            asked.append((sql, parameters))
        return fetchall(sql, parameters)

    monkeypatch.setattr(store.db, "fetchall", spy)
    return asked


def _generic_plan(url: str, sql: str, parameters: Any) -> str:
    """The plan a prepared statement runs after its first five executions."""
    numbered = sql.split("%s")
    sql = "".join(f"{part}${n}" for n, part in enumerate(numbered[:-1], 1)) + numbered[-1]
    sql = sql.replace("%%", "%")  # psycopg's escape of a literal %
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute("SET plan_cache_mode = force_generic_plan")
        connection.execute(f"PREPARE asked AS {sql}")
        values = ", ".join(f"'{value}'" for value in parameters)  # no quotes in them
        rows = connection.execute(f"EXPLAIN EXECUTE asked({values})").fetchall()
    return "\n".join(row[0] for row in rows)


def test_the_latest_filings_are_read_from_the_time_index_and_by_note_id(
    crowded: memlane.Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = _store(crowded)
    crowded.recall("U-1", "what is my favourite team?")  # keys the subject's notes
    kind = SLOT + slot_probes("my favourite team is arsenal")[0]
    with psycopg.connect(crowded.url, autocommit=True) as connection:
        connection.execute(  # the other subjects filed clauses under it too
            "INSERT INTO note_keys SELECT tenant, subject, %s, 'other', id, said_at, tx_from "
            "FROM notes WHERE subject <> 'U-1'",
            (kind,),
        )
        connection.execute("ANALYZE")
    asked = _asked(store, monkeypatch, "SELECT r.kind")
    recent = store.recent_keyed(crowded.tenant, "U-1", [kind, SLOT + "nobody"], (None, None), 4)
    assert len(recent[kind]) == 1 and recent[SLOT + "nobody"] == []
    assert len(asked) == 1
    plan = _generic_plan(crowded.url, *asked[0])
    assert "Seq Scan on notes" not in plan, plan
    assert "notes_pkey" in plan, plan
    assert "note_keys_recent" in plan, plan


def test_a_subjects_unkeyed_notes_are_found_by_its_index_in_a_generic_plan(
    crowded: memlane.Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = _store(crowded)
    asked = _asked(store, monkeypatch, "SELECT")
    assert store.unkeyed_notes(crowded.tenant, "U-1", 500) == []
    plan = _generic_plan(crowded.url, *asked[0])
    assert "note_keys_pending_by_subject" in plan, plan
    assert "note_keys_pending_pkey" not in plan, plan


def test_keying_notes_commits_without_waiting_for_the_disk_and_other_writes_wait(
    crowded: memlane.Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = _store(crowded)
    seen: list[str] = []
    insert = store.dialect.insert_note_keys

    def spy(rows: Any) -> None:
        seen.append(store.db.fetchone("SHOW synchronous_commit")[0])
        insert(rows)

    monkeypatch.setattr(store.dialect, "insert_note_keys", spy)
    crowded.summaries.line_data("U-2", note_keys)  # as a recall does: keys U-2's notes
    crowded.remember("U-2", "My favourite team is Chelsea")  # keyed as it is written
    assert seen == ["off", "on"]
    assert not store.unkeyed_notes(crowded.tenant, "U-2", 10)
