"""What judging reads of stored notes, kept per subject stamp: walks that met no restating
clause (router/refilling), the notes as statements (router/evidence)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

import memlane
import memlane.router.adjudicate as adjudicate
from memlane.router.evidence import Statement, StoredEvidence, note_keys
from memlane.router.slots import Restatement
from memlane.router.summary_lane import SummaryFilters, note_statements
from memlane.summaries.model import Note
from tests.support.note_keys import store_of

START = datetime(2026, 1, 1, tzinfo=UTC)
KEEPER = "The lighthouse keeper of Skarn Point is {}."
ASKED = "Who keeps the lighthouse at Skarn Point?"


def open_memory(path: Path) -> memlane.Memory:
    return memlane.Memory(
        str(path / "walk.db"), embedder="hash", clock=lambda: START + timedelta(days=9)
    )


def counted(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """The clause pairs judging holds against each other (``restates`` as adjudication calls it)."""
    pairs: list[tuple[str, str]] = []
    real = adjudicate.restates

    def counting(old: str, new: str, *, asked: str = "") -> Restatement | None:
        pairs.append((old, new))
        return real(old, new, asked=asked)

    monkeypatch.setattr(adjudicate, "restates", counting)
    return pairs


def answer(mem: memlane.Memory, question: str) -> list[tuple[str, str]]:
    return [(item.text, item.status) for item in mem.recall("kb", question).items]


def test_a_walk_that_met_no_restating_clause_is_not_walked_again_until_a_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with open_memory(tmp_path) as mem:
        mem.remember("kb", KEEPER.format("Ivo Lund"), at=START)
        # shares the keys of Ivo Lund's statement, and re-fills none of its slots
        mem.remember(
            "kb", KEEPER.format("Ivo Lund again this winter"), at=START + timedelta(days=1)
        )
        assert mem.index.wait(timeout=30)
        pairs = counted(monkeypatch)
        first = answer(mem, ASKED)
        assert pairs and all(status == "current" for _, status in first)
        answer(mem, ASKED)  # proves the first recall's reads (sources_kept): kept from here
        pairs.clear()
        assert answer(mem, ASKED) == first and pairs == []
        # A re-fill written: the stamp moves, the walk reads again and finds it.
        mem.remember("kb", KEEPER.format("Mira Holt"), at=START + timedelta(days=2))
        assert mem.index.wait(timeout=30)
        after = answer(mem, ASKED)
        assert pairs
        assert any("Ivo Lund" in text and status == "stale" for text, status in after)
        mem.forget("kb", reason="erasure")
        assert answer(mem, ASKED) == []


def test_a_refill_the_question_names_is_not_kept_as_no_refill(tmp_path: Path) -> None:
    """Whether a clause restates another is the question's business only through its values.

    Asked "Is Ivo Lund or Mira Holt the keeper?", Mira Holt's statement does not re-fill Ivo
    Lund's slot (the question names both): that walk found nothing, but for this question
    only. The next question finds the re-fill as a memory that was never asked the first.
    """
    with open_memory(tmp_path) as mem:
        mem.remember("kb", KEEPER.format("Ivo Lund"), at=START)
        mem.remember("kb", KEEPER.format("Mira Holt"), at=START + timedelta(days=2))
        assert mem.index.wait(timeout=30)
        for _ in range(3):
            answer(mem, "Is Ivo Lund or Mira Holt the lighthouse keeper of Skarn Point?")
        kept = answer(mem, ASKED)
    (tmp_path / "fresh").mkdir()
    with open_memory(tmp_path / "fresh") as fresh:
        fresh.remember("kb", KEEPER.format("Ivo Lund"), at=START)
        fresh.remember("kb", KEEPER.format("Mira Holt"), at=START + timedelta(days=2))
        assert fresh.index.wait(timeout=30)
        assert answer(fresh, ASKED) == kept
    assert any("Ivo Lund" in text and status == "stale" for text, status in kept)


def test_the_notes_as_statements_are_kept_per_stamp_and_carried_over_an_addition(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """And which notes cite the turns asked (their holders), read once per stamp too."""
    with open_memory(tmp_path) as mem:
        for turn, text in enumerate(["I moved to Lyon", "I work at Acme", "I have a cat"]):
            mem.summaries.add_note(
                "U-1", text, at=START + timedelta(minutes=turn), provenance=(f"s1#{turn}",)
            )
        built: Counter[int] = Counter()
        store, holders = store_of(mem), []
        keyed_ids = store.keyed_ids

        def reading(*args, **kwargs):  # type: ignore[no-untyped-def]
            holders.append(args)
            return keyed_ids(*args, **kwargs)

        monkeypatch.setattr(store, "keyed_ids", reading)
        everything = SummaryFilters(None, None, None, (), UTC)  # hides no note

        def as_statements(notes: Sequence[Note]) -> list[Statement]:
            built.update(note.id for note in notes)
            return note_statements(notes, everything)

        def recall() -> list[str]:
            data = mem.summaries.line_data("U-1", note_keys)
            found = StoredEvidence(data, as_statements, (None, None)).citing(
                frozenset({"s1#0", "s1#2"})
            )
            data.offer()
            return [said.text for said in found]

        first = recall()
        assert first == ["I moved to Lyon", "I have a cat"] and sum(built.values()) == 2
        recall()  # proves the first one's reads
        built.clear()
        holders.clear()
        assert recall() == first and not built and not holders
        dog = mem.summaries.add_note("U-1", "I have a dog", at=START + timedelta(minutes=5),
                                     provenance=("s1#2",))  # fmt: skip
        # Only added: the turn's holders are read again, and only the new note is built.
        assert recall() == [*first, "I have a dog"] and built == {dog.id: 1} and holders
        mem.remember("U-2", "I have a bird")  # another subject's stamp: nothing read here
        built.clear()
        holders.clear()
        assert recall() == [*first, "I have a dog"] and not built and not holders
        mem.forget("U-1", reason="erasure")
        assert recall() == []
