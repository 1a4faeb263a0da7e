"""A long note's keys written in parts: each part its own write, read-your-writes between them.

Split from test_note_keys.py; every test runs on SQLite and PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest

import memlane
from memlane.router.evidence import note_keys
from tests.conftest import FakeClock
from tests.support import note_keys as keyed
from tests.support.note_keys import key_rows, pending, rekeyed, store_of

backend = keyed.backend  # both databases, for this module only
memory = keyed.memory


LONG_NOTE = " ".join(
    f"In entry {n} the beekeeper moved the hives to the orchard." for n in range(300)
)
"""A note of some 18,000 characters: thousands of key rows."""


PART = 256
"""Key rows per write in these tests, on both databases (PostgreSQL's own limit is none)."""


def test_only_where_reads_wait_for_writes_are_a_long_notes_keys_written_in_parts(
    memory: memlane.Memory, backend: str
) -> None:
    limit = store_of(memory).key_rows_per_write
    assert limit == PART if backend == "sqlite" else limit is None


def written_parts(memory: memlane.Memory, monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    """``(rows, write transaction)`` of each insert of key rows, as the store makes them."""
    store = store_of(memory)
    monkeypatch.setattr(store.dialect, "key_rows_per_write", PART)
    parts: list[tuple[int, int]] = []
    original = store.dialect.insert_note_keys

    def counted(rows: Sequence[Sequence[Any]]) -> None:
        parts.append((len(rows), store.db.transactions))
        original(rows)

    monkeypatch.setattr(store.dialect, "insert_note_keys", counted)
    return parts


def test_a_long_note_writes_its_keys_a_part_per_write_then_waits_for_none(
    memory: memlane.Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    # On SQLite every request's reads wait while a write holds the one connection: no
    # write of a long note holds it for all of its 6,000 key rows.
    parts = written_parts(memory, monkeypatch)
    note = memory.remember("U-1", LONG_NOTE)
    expected = len(dict.fromkeys(note_keys("U-1", note.text, ("remember",))))
    assert expected > 4 * PART
    assert max(rows for rows, _ in parts) <= PART
    assert len({transaction for _, transaction in parts}) == len(parts)  # each its own write
    assert sum(rows for rows, _ in parts) == expected == key_rows(memory, "U-1")
    assert pending(memory) == 0
    # Read your writes: the next recall of the subject finds it by its keys.
    found = memory.recall("U-1", "where did the beekeeper move the hives?")
    assert any("beekeeper" in item.text for item in found.items)


def test_a_short_note_still_writes_its_keys_with_it_in_one_write(
    memory: memlane.Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    parts = written_parts(memory, monkeypatch)
    memory.remember("U-1", "My favourite team is Arsenal")
    assert len(parts) == 1 and pending(memory) == 0


def _between_parts(
    memory: memlane.Memory, monkeypatch: pytest.MonkeyPatch, meanwhile: Callable[[], object]
) -> list[bool]:
    """Key rows written :data:`PART` at a time, ``meanwhile`` run after the first part.

    Returns what each ``add_note_keys`` call answers, filled as the note is written.
    """
    store = store_of(memory)
    monkeypatch.setattr(store.dialect, "key_rows_per_write", PART)
    original = store.add_note_keys
    calls: list[bool] = []

    def watched(*args: Any, **options: Any) -> bool:
        written = original(*args, **options)
        calls.append(written)
        if len(calls) == 1:
            meanwhile()
        return written

    monkeypatch.setattr(store, "add_note_keys", watched)
    return calls


def test_a_recall_between_the_parts_keys_the_note_whole_and_no_part_follows(
    memory: memlane.Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    def recall() -> None:  # another request of the subject, between two parts
        assert pending(memory) == 1
        memory.recall("U-1", "where are the hives?")
        assert pending(memory) == 0

    calls = _between_parts(memory, monkeypatch, recall)
    note = memory.remember("U-1", LONG_NOTE)
    assert calls == [True, False]  # the recall keyed it: the writer stopped
    expected = len(dict.fromkeys(note_keys("U-1", note.text, ("remember",))))
    assert key_rows(memory, "U-1") == expected  # whole, each row once


def test_a_long_note_forgotten_between_its_parts_gets_no_more_keys(
    memory: memlane.Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _between_parts(memory, monkeypatch, lambda: memory.forget("U-1"))
    memory.remember("U-1", LONG_NOTE)
    assert calls == [True, False] and key_rows(memory, "U-1") == 0


def test_the_worker_leaves_a_note_its_writer_is_keying_in_parts(
    clock: FakeClock, memory_url: str
) -> None:
    with memlane.Memory(memory_url, clock=clock, embedder="hash", indexing="inline") as mem:
        note = mem.remember("U-1", "The chair of the Kalo Club is Ada Moss")
        rekeyed(mem)  # it waits for keys, as a long note does between its parts
        indexer = mem.summaries._indexer
        with indexer.keyed_by_writer(note.id):
            assert indexer._key_some(None, None, worker=False) == 0
            assert pending(mem) == 1
        assert indexer._key_some(None, None, worker=False) == 1 and pending(mem) == 0
