"""A session's long turns and long folds run in the text child, not in the request's interpreter.

Behaviour only (never timing): with ``indexing="process"`` the request's interpreter does
none of a long turn's text work (patched to fail here, the child is unpatched), and what
``add`` and ``close`` leave stored is what the request's own reading leaves.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import memlane
from memlane import session as session_module
from memlane.errors import InvalidInput
from memlane.extract.rules import RuleExtractor
from memlane.summaries.offline import OfflineSummarizer
from memlane.textwork import LONG_NOTE_CHARS
from memlane.validation import MAX_TURN_CHARS
from tests.conftest import FakeClock
from tests.support.textwork import text_child

FILLER = " ".join(
    f"On day {n} the beekeeper moved the hives to the orchard by the river." for n in range(100)
)
LONG_TURN = "My email is ada@example.org and I live in Lyon. " + FILLER
"""A long user turn (some 7,000 characters; a session takes up to ``MAX_TURN_CHARS``)."""

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="POSIX pipes")


def _memory(path: Path, clock: FakeClock, indexing: str) -> memlane.Memory:
    return memlane.Memory(path, clock=clock, embedder="hash", indexing=indexing)  # type: ignore[arg-type]


@pytest.fixture
def mem(tmp_path: Path, clock: FakeClock) -> Iterator[memlane.Memory]:
    with _memory(tmp_path / "m.db", clock, "process") as memory:
        yield memory


def _refused_here(mem: memlane.Memory, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Make a turn's text work fail in this interpreter; the names of what was called here."""
    called: list[str] = []

    def refuse(name: str) -> Any:
        def refused(*_: Any, **__: Any) -> Any:
            called.append(name)
            raise AssertionError(f"{name} ran in the request's interpreter")

        return refused

    monkeypatch.setattr(RuleExtractor, "extract", refuse("extract"))
    monkeypatch.setattr(mem.summaries, "_keyer", refuse("note_keys"))
    monkeypatch.setattr(session_module, "extract_notes", refuse("extract_notes"))
    monkeypatch.setattr(OfflineSummarizer, "update", refuse("fold"))
    return called


def _pending_keys(mem: memlane.Memory) -> int:
    store = mem.summaries._store
    return int(store.db.fetchone("SELECT count(*) FROM note_keys_pending")[0])  # type: ignore[attr-defined]


def test_a_long_turn_is_read_in_the_child_and_recallable_when_add_returns(
    mem: memlane.Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    called = _refused_here(mem, monkeypatch)
    chat = mem.session("U-1", "s-1")
    turn = chat.add("user", LONG_TURN)
    assert called == [] and text_child(mem).turns == 1
    # Read your writes: its facts, its notes and their keys are stored when add returns.
    assert [fact.value for fact in mem.facts.get_all("U-1", "email")] == ["ada@example.org"]
    fact = mem.facts.get("U-1", "location")
    assert fact is not None and fact.value == "Lyon" and fact.provenance == (turn.id,)
    notes = mem.summaries.notes("U-1")
    assert notes and all(note.provenance == (turn.id,) for note in notes)
    assert _pending_keys(mem) == 0  # every note came with its keys
    found = mem.recall("U-1", "where did the beekeeper move the hives?")
    assert any("beekeeper" in item.text for item in found.items)


def test_a_long_sessions_close_folds_it_in_the_child(
    mem: memlane.Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    chat = mem.session("U-1", "s-1")
    chat.add("user", LONG_TURN)
    chat.add("assistant", "Noted.")
    called = _refused_here(mem, monkeypatch)
    summary = chat.close()
    assert called == [] and text_child(mem).folds == 1
    assert summary is not None and summary == mem.summaries.for_session("s-1", "U-1")
    assert mem.summaries.storyline("U-1") is not None


def test_the_child_leaves_what_the_request_would(tmp_path: Path, clock: FakeClock) -> None:
    stored = []
    for indexing in ("process", "inline"):
        with _memory(tmp_path / f"{indexing}.db", clock, indexing) as memory:
            chat = memory.session("U-1", "s-1")
            chat.add("user", LONG_TURN)
            chat.add("assistant", "Noted, thank you.")
            chat.add("user", "I also keep bees in Annecy. " + FILLER[:LONG_NOTE_CHARS])
            summary = chat.close()
            assert summary is not None
            child = memory._resources.text
            read = (0, 0) if child is None else (child.turns, child.folds)
            assert read == ((2, 1) if indexing == "process" else (0, 0))
            stored.append(
                (
                    sorted((f.attribute, str(f.value)) for f in memory.facts.audit("U-1")),
                    [(n.text, n.provenance) for n in memory.summaries.notes("U-1")],
                    summary.content,
                    _pending_keys(memory),
                )
            )
    assert stored[0] == stored[1]


def test_a_short_turn_is_read_in_the_request(mem: memlane.Memory) -> None:
    chat = mem.session("U-1", "s-1")
    chat.add("user", "My email is ada@example.org")
    chat.close()
    assert (text_child(mem).turns, text_child(mem).folds) == (0, 0)
    assert mem.facts.get_all("U-1", "email")


def test_a_turn_over_the_limit_is_refused_before_any_work(
    mem: memlane.Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    chat = mem.session("U-1", "s-1")
    chat.add("user", "I live in Lyon")
    called = _refused_here(mem, monkeypatch)
    with pytest.raises(InvalidInput, match="content"):
        chat.add("user", "I live in Annecy. " * (MAX_TURN_CHARS // 10))
    assert called == [] and text_child(mem).turns == 0
    assert [turn.content for turn in chat.window()] == ["I live in Lyon"]


def test_the_extractors_invalid_input_on_a_long_turn_leaves_the_conversation_going(
    mem: memlane.Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As in the request: an extractor's error is logged, the turn is kept, no facts."""
    child = text_child(mem)

    def refuse(*_: Any, **__: Any) -> Any:
        raise InvalidInput("text", "refused by the extractor")

    monkeypatch.setattr(child, "_ask", refuse)  # the child's answer: its InvalidInput
    chat = mem.session("U-1", "s-1")
    chat.add("user", LONG_TURN)
    assert [turn.content for turn in chat.window()] == [LONG_TURN]
    assert mem.facts.get_all("U-1", "email") == [] and mem.summaries.notes("U-1") == []
