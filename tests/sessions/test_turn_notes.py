"""A turn of many sentences stores its notes several to a write, not one commit per note."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import FakeClock

import memlane
from memlane.storage.sql import SQLSummaryStore

SENTENCES = [f"On day {n} the beekeeper moved the hives to orchard number {n}." for n in range(40)]


def _store(mem: memlane.Memory) -> SQLSummaryStore:
    store = mem.summaries._store
    assert isinstance(store, SQLSummaryStore)
    return store


def test_a_long_turns_notes_take_few_writes_each_with_its_keys(
    tmp_path: Path, clock: FakeClock
) -> None:
    with memlane.Memory(tmp_path / "m.db", clock=clock, embedder="hash") as mem:
        store = _store(mem)
        chat = mem.session("U-1", "s-1")
        before = store.db.transactions
        turn = chat.add("user", " ".join(SENTENCES))
        writes = store.db.transactions - before
        notes = mem.summaries.notes("U-1")
        assert len(notes) >= len(SENTENCES)
        assert writes < len(notes) // 2  # several notes to a write (SQLite: <= 256 key rows)
        pending = store.db.fetchone("SELECT count(*) FROM note_keys_pending")[0]
        assert pending == 0  # each stored with its keys
        assert all(note.provenance == (turn.id,) for note in notes)
        found = mem.recall("U-1", "where did the beekeeper move the hives on day 17?")
        assert any("orchard number 17" in item.text for item in found.items)
