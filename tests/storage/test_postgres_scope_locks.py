"""Notes, summaries, turns and stated facts lock their subject on PostgreSQL, not all writes.

A note of one subject (with the facts it states) commits while a note of another is in
progress, as fact writes of different keys do (tests/storage/test_postgres_threads.py); so do
a session's turns and summary, and the indexer's vectors. Notes of one subject still take
turns, and a write that names no key (``forget``) still waits for every one in flight.
"""

from __future__ import annotations

import threading
from contextlib import AbstractContextManager
from typing import Any

import pytest

import memlane
from memlane.storage.postgres.database import PostgresDatabase
from memlane.storage.sql.summaries import SQLSummaryStore
from tests.support.held import WAIT_S, Held, finishes, hold, in_progress


@pytest.fixture
def stopped_notes(monkeypatch: pytest.MonkeyPatch) -> Held:
    """Notes written by the thread "writer-U-A" stop inside their transaction until released."""
    return hold(monkeypatch, SQLSummaryStore, "write_keys", "writer-U-A")


def _note_of_u_a_in_progress(mem: memlane.Memory, held: Held) -> AbstractContextManager[None]:
    return in_progress(held, lambda: mem.remember("U-A", "The user grows roses"))


def test_a_note_of_another_subject_commits_while_one_is_in_progress(
    postgres_url: str, stopped_notes: Held
) -> None:
    with memlane.Memory(postgres_url, embedder="hash") as mem:
        with _note_of_u_a_in_progress(mem, stopped_notes):
            said = "I moved to Hangzhou last week"  # a note and the fact it states
            assert finishes(lambda: mem.remember("U-B", said)), (
                "the note of U-B waited for the one of U-A"
            )
            assert [n.text for n in mem.summaries.notes("U-B")] == [said]
            assert mem.facts.get("U-B", "location").value == "Hangzhou"
            assert mem.summaries.notes("U-A") == []  # still in progress
        assert [n.text for n in mem.summaries.notes("U-A")] == ["The user grows roses"]


def test_a_session_summary_and_vectors_are_stored_while_a_note_is_in_progress(
    postgres_url: str, stopped_notes: Held
) -> None:
    with memlane.Memory(postgres_url, embedder="hash") as mem:
        mem.remember("U-B", "The user keeps bees")
        assert mem.index.wait(timeout=WAIT_S)  # the first vectors create the vector index
        with _note_of_u_a_in_progress(mem, stopped_notes):
            assert finishes(lambda: mem.remember("U-D", "The user paints"))
            assert mem.index.wait(timeout=WAIT_S / 3), "the vectors waited for the note of U-A"

            def session() -> None:
                mem.add_turn("U-C", "s-1", "user", "I moved to Hangzhou last week")
                mem.session("U-C", "s-1").close()

            assert finishes(session), "the session of U-C waited for the note of U-A"
            assert mem.summaries.for_session("s-1", "U-C") is not None


def test_notes_of_one_subject_take_turns_and_forget_waits_for_them(
    postgres_url: str, stopped_notes: Held
) -> None:
    with memlane.Memory(postgres_url, embedder="hash") as mem:
        with _note_of_u_a_in_progress(mem, stopped_notes):
            second = threading.Thread(target=lambda: mem.remember("U-A", "The user keeps bees"))
            second.start()
            forgetting = threading.Thread(target=lambda: mem.forget("U-B"))
            forgetting.start()
            second.join(0.5)
            forgetting.join(0.5)
            assert second.is_alive()  # waits for the subject's lock
            assert forgetting.is_alive()  # waits for every write in flight
        second.join(WAIT_S)
        forgetting.join(WAIT_S)
        texts = [n.text for n in mem.summaries.notes("U-A")]
        assert texts == ["The user grows roses", "The user keeps bees"]


def test_the_first_vectors_of_a_width_lock_every_write_out_from_the_start(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Their index is made first; upgrading to the exclusive lock after the update has
    locked rows let two writers wait for each other (a deadlock, seen with two handles)."""
    begun: list[list[int] | None] = []
    begin = PostgresDatabase._begin

    def recording(self: PostgresDatabase, connection: Any, keys: Any, derived: bool) -> None:
        if threading.current_thread().name == "memlane-index":
            begun.append(None if keys is None else list(keys))
        begin(self, connection, keys, derived)

    monkeypatch.setattr(PostgresDatabase, "_begin", recording)
    with memlane.Memory(postgres_url, embedder="hash") as mem:
        mem.remember("U-A", "The user grows roses")
        assert mem.index.wait(timeout=WAIT_S)
        mem.remember("U-B", "The user keeps bees")
        assert mem.index.wait(timeout=WAIT_S)
    assert begun == [None, []]  # exclusive to make the index, then no key at all
