"""What fitting recalled statements to a question reads of them: only what can change a score."""

from __future__ import annotations

import pytest

from memlane.lang.meanings import senses
from memlane.router import fit
from memlane.router.candidates import TIER_NOTE, Candidate
from memlane.router.model import RecallItem


def _note(text: str, score: float) -> Candidate:
    item = RecallItem(lane="summary", text=text, score=score, subject="kb", kind="note")
    return Candidate(item, TIER_NOTE)


def _asked_senses_of(monkeypatch: pytest.MonkeyPatch, question: str) -> list[str]:
    asked: list[str] = []

    def counted(text: str) -> frozenset[str]:
        asked.append(text)
        return senses(text)

    monkeypatch.setattr(fit, "senses", counted)
    said = [f"Ada took kazudi lessons in Marlow on day {n}, and liked it" for n in range(20)]
    scored = fit.fitted([_note(text, 0.5) for text in said], question)
    assert all(0 <= c.item.score <= 1 for c in scored)
    assert scored[0].item.score != 0.5  # fitted: the question names Marlow
    return asked


def test_a_question_asking_no_relation_reads_no_statement_s_senses(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Their senses only weigh a relation asked: every candidate's was found for nothing."""
    assert senses("What about kazudi in Marlow?") == frozenset()
    assert _asked_senses_of(monkeypatch, "What about kazudi in Marlow?") == [
        "What about kazudi in Marlow?"
    ]
