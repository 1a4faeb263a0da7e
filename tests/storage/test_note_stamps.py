"""A subject's note stamp: every write of its notes' keys moves it, once per transaction.

Line weighing keeps what it read of a subject's keys across recalls while the stamp stays
(memlane.summaries.sources_kept), so a write path that forgot to move it would leave recalls
weighing lines by notes no longer there, or missing new ones. Every test runs on SQLite and
PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

import memlane
from memlane.errors import StorageError
from memlane.router.evidence import note_keys
from memlane.storage.base import KeysMoved
from memlane.storage.sql import note_keys as sql_note_keys
from memlane.timeutil import to_micros
from tests.conftest import FakeClock
from tests.support import note_keys as keyed
from tests.support.note_keys import store_of

backend = keyed.backend  # both databases, for this module only
memory = keyed.memory


def stamp(mem: memlane.Memory, subject: str = "U-1") -> int:
    return store_of(mem).note_stamp(mem.tenant, subject)


def pending_note(mem: memlane.Memory, clock: FakeClock, text: str) -> memlane.Note:
    """A note stored waiting for its keys (as a long note is, or an old file's)."""
    store = store_of(mem)
    with store.transaction() as tx:
        now = to_micros(clock())
        return tx.put_note(
            mem.tenant,
            "U-1",
            text,
            said_at=now,
            session_id=None,
            source=None,
            provenance=(),
            tx=tx.next_tx(now),
            keys=None,
        )


def test_a_subject_without_writes_has_stamp_zero_and_a_note_moves_it(
    memory: memlane.Memory,
) -> None:
    assert stamp(memory) == 0
    memory.remember("U-1", "I adopted a cat named Luna")
    first = stamp(memory)
    memory.remember("U-1", "I started pottery classes")
    assert 0 < first < stamp(memory)
    assert stamp(memory, "U-2") == 0  # another subject's stays


def test_a_batch_of_notes_moves_the_stamp_once(memory: memlane.Memory) -> None:
    before = stamp(memory)
    now = memory.clock()
    memory.summaries.add_notes(
        [{"subject": "U-1", "text": f"I ran race number {n}", "at": now} for n in range(40)]
        + [{"subject": "U-2", "text": "I moved to Lyon", "at": now}]
    )
    assert stamp(memory) == before + 1  # one statement per transaction and subject
    assert stamp(memory, "U-2") == 1


def test_keys_written_after_their_note_move_the_stamp(
    memory: memlane.Memory, clock: FakeClock
) -> None:
    store = store_of(memory)
    note = pending_note(memory, clock, "I adopted a cat named Luna")
    keys = note_keys("U-1", note.text, ())
    before = stamp(memory)
    assert store.add_note_keys(memory.tenant, "U-1", note, keys[:3], last=False)
    in_parts = stamp(memory)
    assert store.add_note_keys(memory.tenant, "U-1", note, keys[3:], last=True)
    assert before < in_parts < stamp(memory)
    again = stamp(memory)
    store.put_note_keys(memory.tenant, "U-1", [(note, keys)])  # keyed again (a migration's)
    assert stamp(memory) > again


def test_forgetting_and_purging_move_the_stamp(memory: memlane.Memory) -> None:
    memory.remember("U-1", "My phone number is 415-555-0181")
    before = stamp(memory)
    memory.forget("U-1", reason="erasure")
    forgotten = stamp(memory)
    memory.purge("U-1", immediately=True)
    assert before < forgotten < stamp(memory)


def test_a_write_rolled_back_leaves_the_stamp(memory: memlane.Memory, clock: FakeClock) -> None:
    memory.remember("U-1", "I adopted a cat named Luna")
    before = stamp(memory)
    store = store_of(memory)
    with pytest.raises(StorageError, match="rolled back"), store.transaction():
        pending_note(memory, clock, "I started pottery classes")
        raise StorageError("rolled back")
    assert stamp(memory) == before


def test_another_memory_on_the_same_database_moves_the_stamp_read_here(
    clock: FakeClock, new_memory_url: Callable[[], str]
) -> None:
    url = new_memory_url()  # a file on SQLite: two memories, two connections
    with memlane.Memory(url, clock=clock, embedder="hash") as memory:
        memory.remember("U-1", "I adopted a cat named Luna")
        before = stamp(memory)
        with memlane.Memory(url, clock=clock, embedder="hash") as other:
            assert store_of(other) is not store_of(memory)
            other.remember("U-1", "I started pottery classes")
            assert stamp(memory) > before


def told(mem: memlane.Memory) -> list[KeysMoved]:
    """What the store tells a watcher from now on (as the memory's kept reads are told)."""
    changes: list[KeysMoved] = []
    store_of(mem).watch_keys(changes.append)
    return changes


def test_a_committed_write_tells_what_moved_the_stamp_and_what_it_added(
    memory: memlane.Memory, clock: FakeClock
) -> None:
    changes = told(memory)
    note = memory.summaries.add_note("U-1", "I adopted a cat named Luna", at=clock())
    (change,) = changes
    assert (change.tenant, change.subject, change.stamp) == (memory.tenant, "U-1", stamp(memory))
    assert change.only_added and change.notes == {note.id}
    assert ("w", "luna") in change.keys
    with pytest.raises(RuntimeError), store_of(memory).transaction():
        memory.summaries.add_note("U-1", "I started pottery classes", at=clock())
        raise RuntimeError("rolled back")
    assert len(changes) == 1  # nothing committed, nothing told


def test_a_note_keyed_later_is_an_addition_and_a_forget_is_not(
    memory: memlane.Memory, clock: FakeClock
) -> None:
    waiting = pending_note(memory, clock, "I adopted a cat named Luna")
    changes = told(memory)
    store_of(memory).put_note_keys(
        memory.tenant, "U-1", [(waiting, note_keys("U-1", waiting.text, ()))]
    )
    assert changes[-1].only_added and changes[-1].notes == {waiting.id}
    store_of(memory).put_note_keys(  # keyed again: its rows are replaced
        memory.tenant, "U-1", [(waiting, note_keys("U-1", waiting.text, ()))]
    )
    assert not changes[-1].only_added
    memory.forget("U-1", reason="erasure")
    assert not changes[-1].only_added and changes[-1].stamp == stamp(memory)


def test_a_write_adding_more_keys_than_are_told_is_told_as_not_only_added(
    memory: memlane.Memory, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sql_note_keys, "TOLD_KEYS_MOST", 5)  # a note holds more
    changes = told(memory)
    memory.summaries.add_notes(
        [{"subject": "U-1", "text": "I adopted a cat named Luna", "at": clock()}] * 2
    )
    (change,) = changes
    assert not change.only_added and not change.keys and not change.notes
