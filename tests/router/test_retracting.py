"""What a later retraction takes back is read once per recall, whatever it is held against.

A recall holds each recalled text against the retractions said after it
(:class:`memlane.router.takeback.Retracting`): the retraction's own terms, values and the
statement it replaces are read when first asked for, and each text is then tied by its own
words. These tests hold the ties to what they say and count what is read.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

import memlane
from memlane.memo import recall_scope
from memlane.router import executor, takeback
from memlane.router.evidence import ListedEvidence, Statement, StoredEvidence, statement
from memlane.router.summary_lane import SummaryFilters, note_statements
from memlane.router.takeback import Retracting, values_by_kind
from memlane.summaries.model import Note
from tests.conftest import FakeClock

_START = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def _said(text: str, day: int) -> Statement:
    at = _START + timedelta(days=day)
    return statement("U-1", text, said=at, learned=at, turns=[f"s{day}#1"], ref=f"s{day}#1")


def _counted(monkeypatch: pytest.MonkeyPatch, name: str) -> Counter[str]:
    """Calls of ``takeback.<name>``, by their first argument."""
    calls: Counter[str] = Counter()
    function: Callable[..., Any] = getattr(takeback, name)

    def counting(text: str, *args: Any) -> Any:
        calls[text] += 1
        return function(text, *args)

    monkeypatch.setattr(takeback, name, counting)
    return calls


def test_a_retraction_ties_by_its_terms_read_once_for_every_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    earlier = [
        _said("I work at Novartis in Basel", 1),
        _said("My sister is a nurse", 2),
        _said("Always give me an aisle seat", 3),
        _said("I like long walks", 4),
    ]
    left = _said("I left Novartis last month", 10)
    switch = _said("Please book a window seat from now on", 11)
    evidence = ListedEvidence([*earlier, left, switch])
    retractions, switched = (
        _counted(monkeypatch, "retractions"),
        _counted(monkeypatch, "switched_parts"),
    )
    with recall_scope():
        leaving, switching = Retracting(evidence, left, "U-1"), Retracting(evidence, switch, "U-1")
        assert [leaving.names(s.text) for s in earlier] == [True, False, False, False]
        assert [switching.names(s.text) for s in earlier] == [False, False, True, False]
    assert retractions[left.text] == 1  # main read them again for each text held against it
    assert switched[left.text] <= 1 and switched[switch.text] == 1


def test_a_value_given_in_place_of_another_is_read_once_for_every_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    reach = _said("You can reach me at b@y.com", 1)
    office = _said("Deliver everything to my office: 12 Harbour Rd", 2)
    tea = _said("I like green tea", 3)
    new = _said("New email: a@x.org — the old one is closed", 10)
    evidence = ListedEvidence([reach, office, tea, new])
    in_kind = _counted(monkeypatch, "replaces_in_kind")
    with recall_scope():
        later = Retracting(evidence, new, "U-1")
        assert later.giver(reach.text) == new
        assert later.giver(office.text) is None  # an address: another kind than an e-mail
        assert later.giver(tea.text) is None  # gives no value of a kind
        assert later.giver(reach.text, {"email": frozenset({"a@x.org"})}) is None  # the same
    assert in_kind[new.text] == 1


def test_a_text_with_no_digit_and_no_at_gives_no_value_unscanned(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every value of a kind is written with a digit (a street number, a phone) or an "@"."""

    def scanned(text: str) -> list[object]:
        raise AssertionError(f"scanned for identifiers: {text!r}")

    monkeypatch.setattr(takeback, "find_identifiers", scanned)
    assert values_by_kind("Ich wohne jetzt in der Mühlengasse, nicht mehr am Hafen") == {}
    assert values_by_kind("我搬到学府路了") == {}
    monkeypatch.undo()
    assert dict(values_by_kind("reach me at ｂ＠ｙ.com")) == {"email": frozenset({"b@y.com"})}
    assert dict(values_by_kind("搬到学府路１３５号了")) == {"address": frozenset({"学府路135号"})}


def test_stored_evidence_builds_each_note_as_a_statement_once(clock: FakeClock) -> None:
    """Lines citing overlapping turns read the notes of the shared turns once per recall."""
    with memlane.Memory(":memory:", clock=clock, embedder="hash") as mem:
        for turn, text in enumerate(["I moved to Lyon", "I work at Acme", "I have a cat"]):
            mem.summaries.add_note(
                "U-1", text, at=clock.advance(minutes=1), provenance=(f"s1#{turn}",)
            )
        built: Counter[int] = Counter()

        everything = SummaryFilters(None, None, None, (), UTC)  # hides no note

        def as_statements(notes: Sequence[Note]) -> list[Statement]:
            built.update(note.id for note in notes)
            return note_statements(notes, everything)

        data = mem.summaries.line_data("U-1", executor.note_keys)
        evidence = StoredEvidence(data, as_statements, (None, None))
        first = evidence.citing(frozenset({"s1#0", "s1#1"}))
        second = evidence.citing(frozenset({"s1#1", "s1#2"}))
        assert [s.text for s in first] == ["I moved to Lyon", "I work at Acme"]
        assert [s.text for s in second] == ["I work at Acme", "I have a cat"]
        assert second[0] is first[1]
        assert set(built.values()) == {1}  # main built "I work at Acme" twice
