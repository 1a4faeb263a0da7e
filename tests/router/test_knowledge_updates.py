"""Knowledge updates: the later statement on a slot wins, and only on that slot."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

import memlane
from memlane.router.claims import claims
from memlane.router.slots import clauses, restates

START = datetime(2026, 3, 1, tzinfo=UTC)


def test_a_speaker_telling_of_something_else_is_not_its_holder() -> None:
    said = claims("U-7说：（5）松林茶馆的店长是方小禾。", "U-7")
    assert [(c.holder, c.relation) for c in said] == [("松林茶馆", "my:店长")]
    assert [c.holder for c in claims("U-7的名字是方小禾", "U-7")] == [""]


def test_a_relayed_fact_about_one_place_leaves_another_places_fact_current() -> None:
    with memlane.Memory(
        ":memory:", embedder="hash", clock=lambda: START + timedelta(days=9)
    ) as mem:
        session = mem.session("u-7", "s-1")
        session.add("user", "松林茶馆的店长是方小禾。", at=START)
        session.add("user", "石桥书店的店长是邓一鸣。", at=START + timedelta(hours=1))
        session.close()
        assert mem.index.wait(timeout=30)
        recall = mem.recall("u-7", "松林茶馆的店长是谁？")
    tea = next(item for item in recall.items if item.kind == "note" and "方小禾" in item.text)
    assert tea.status == "current", tea.superseded_by


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (
            "The fare on the Kelby Tram is 2.40 pounds.",
            "The fare on the Mossdale Tram is 3.40 pounds.",
        ),
        (
            "The patron of the Glass Gazette is Ida Crane.",
            "The patron of the Glass Herald is Tom Pike.",
        ),
        ("去梅石村的头班公交早上6点出发。", "去竹溪村的头班公交早上7点出发。"),
    ],
)
def test_statements_differing_in_two_places_are_not_one_slot(old: str, new: str) -> None:
    (first,), (second,) = clauses(old), clauses(new)
    assert restates(first, second) is None


def test_a_value_that_only_changes_its_leading_digit_still_restates() -> None:
    (first,), (second,) = (
        clauses("Kelby Mills employs 3,000 people."),
        clauses("Kelby Mills employs 4,000 people."),
    )
    assert restates(first, second) is not None
