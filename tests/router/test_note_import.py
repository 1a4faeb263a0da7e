"""``mem.summaries.add_notes``: many notes in one transaction, the same as one at a time.

An import (history from another system, the scale benchmark's 10^5 notes) stores its notes
with one commit instead of one each; what is stored, and what recall answers from it, is
what ``add_note`` after ``add_note`` gives. A bad entry anywhere stores nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

import memlane
from memlane.errors import InvalidInput
from tests.conftest import FakeClock

START = datetime(2026, 1, 5, 9, tzinfo=UTC)
TEXTS = [
    "U-1 said: my team is Arsenal",
    "U-1 said: I live in Lyon",
    "U-1 said: my team is Chelsea",
    "U-2 said: I live in Porto",
    "U-1 said: I moved from Lyon to Oslo",
]
QUESTIONS = ["what is my team?", "where do I live now?", "tell me about Lyon"]


def _entries() -> list[dict[str, Any]]:
    return [
        {
            "subject": text[:3],
            "text": text,
            "at": START + timedelta(days=number),
            "provenance": [f"s-{number}#1"],
        }
        for number, text in enumerate(TEXTS)
    ]


def _stored(mem: memlane.Memory) -> list[tuple[Any, ...]]:
    return [
        (note.subject, note.text, note.at, note.provenance)
        for subject in ("U-1", "U-2")
        for note in mem.summaries.notes(subject)
    ]


def _answers(mem: memlane.Memory) -> list[list[tuple[str, str]]]:
    assert mem.index.wait(timeout=30)
    return [
        [(item.text, item.status) for item in mem.recall("U-1", question).items]
        for question in QUESTIONS
    ]


def test_an_import_stores_and_answers_as_notes_added_one_at_a_time(
    clock: FakeClock, new_scratch_url: Callable[[], str]
) -> None:
    with memlane.Memory(new_scratch_url(), clock=clock, embedder="hash") as one_by_one:
        for entry in _entries():
            one_by_one.summaries.add_note(**entry)
        expected = (_stored(one_by_one), _answers(one_by_one))
    with memlane.Memory(new_scratch_url(), clock=clock, embedder="hash") as imported:
        notes = imported.summaries.add_notes(_entries())
        assert [note.text for note in notes] == TEXTS
        assert len({note.tx_from for note in notes}) == len(TEXTS)  # each its own tx time
        assert (_stored(imported), _answers(imported)) == expected
        assert any("Chelsea" in text for text, _ in expected[1][0][:1])


@pytest.mark.parametrize(
    ("bad", "field"),
    [
        ({"text": "   "}, "text"),
        ({"subject": ""}, "subject"),
        ({"at": "2026-01-01"}, "at"),
        ({"when": START}, "notes[2]"),
        ({"at": None, "text": None}, "at"),
    ],
)
def test_a_bad_entry_stores_nothing(mem: memlane.Memory, bad: dict[str, Any], field: str) -> None:
    entries = _entries()
    entries[2] = {**entries[2], **bad}
    with pytest.raises(InvalidInput) as raised:
        mem.summaries.add_notes(entries)
    assert raised.value.field == field
    assert _stored(mem) == []


def test_entries_must_be_mappings_and_may_be_none_at_all(mem: memlane.Memory) -> None:
    with pytest.raises(InvalidInput, match=r"notes\[0\]"):
        mem.summaries.add_notes([("U-1", "I live in Lyon", START)])  # type: ignore[list-item]
    missing = {"subject": "U-1", "text": "I live in Lyon"}
    with pytest.raises(InvalidInput, match="missing"):
        mem.summaries.add_notes([missing])
    assert mem.summaries.add_notes([]) == []
    assert _stored(mem) == []
