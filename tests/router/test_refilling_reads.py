"""What the refilling walk reads of notes' texts: one statement per walk at most.

Judging a clause against later statements reads the latest filings of every slot key it
probes, then the texts of the notes that filed them, to know each filing's clause. Read a
key's page at a time, a walk over several filled keys sent a statement per key (18 per
recall at 10^5 notes of one shape); the texts of all it read come with the first it needs.
Each filing's clause is split out of its text once while the subject's notes stand: at
10^5 notes three in four filings a recall meets were met by an earlier recall.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta

import pytest

import memlane
from memlane.router import refilling
from memlane.storage.sql import SQLSummaryStore

PEOPLE = ("Ana", "Ben", "Chloe")
PLACES = ("Oslo", "Lima", "Pune", "Kyoto", "Quito", "Hanoi", "Accra", "Perth")
ACTIVITIES = ("tennis", "piano", "chess", "pottery", "swimming", "salsa")
START = datetime(2026, 1, 1, tzinfo=UTC)


def _note(rng: random.Random) -> str:
    return (
        f"{rng.choice(PEOPLE)} takes {rng.choice(ACTIVITIES)} lessons in {rng.choice(PLACES)} "
        f"on day {rng.randrange(30)}, and would like soup afterwards"
    )


@contextmanager
def _one_shape(rng: random.Random) -> Iterator[memlane.Memory]:
    """A memory whose subject said 1,500 notes of one shape: its slot keys filled."""
    with memlane.Memory(":memory:", embedder="hash") as mem:
        mem.summaries.add_notes(
            {"subject": "U-1", "text": _note(rng), "at": START + timedelta(minutes=i)}
            for i in range(1_500)
        )
        assert mem.index.wait(timeout=60)
        yield mem


def _ask_of_each_activity(mem: memlane.Memory) -> None:
    for activity in ACTIVITIES:
        mem.recall("U-1", f"where does Ana take {activity} lessons?")


def test_a_walk_reads_the_texts_of_what_it_meets_in_one_statement(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    reads, per_walk = [0], []
    note_texts, walk = SQLSummaryStore.note_texts, refilling.RefillWalk.refilling

    def counted_reads(self, *args):  # type: ignore[no-untyped-def]
        reads[0] += 1
        return note_texts(self, *args)

    def counted_walk(self, *args):  # type: ignore[no-untyped-def]
        before = reads[0]
        try:
            return walk(self, *args)
        finally:
            per_walk.append(reads[0] - before)

    monkeypatch.setattr(SQLSummaryStore, "note_texts", counted_reads)
    monkeypatch.setattr(refilling.RefillWalk, "refilling", counted_walk)
    with _one_shape(random.Random(11)) as mem:
        _ask_of_each_activity(mem)
    assert sum(per_walk) >= len(ACTIVITIES)  # walks read texts
    assert max(per_walk) <= 1, per_walk  # before: up to 4, a statement per key


def test_a_filings_clause_is_split_once_while_the_subject_stands(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    split, splits = refilling.clauses, []

    def counted_split(text: str, speaker: str = "") -> tuple[str, ...]:
        splits.append(text)
        return split(text, speaker)

    monkeypatch.setattr(refilling, "clauses", counted_split)
    rng = random.Random(5)
    with _one_shape(rng) as mem:

        def ask() -> int:
            splits.clear()
            _ask_of_each_activity(mem)
            return len(splits)

        first = ask()
        ask()  # proves what the first one read (see memlane.summaries.sources_kept)
        assert first > 0 and ask() == 0
        mem.remember("U-1", _note(rng))  # only adds: what the walks split stays
        assert ask() < first / 2, first
