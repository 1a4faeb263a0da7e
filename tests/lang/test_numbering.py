"""Numbering in front of a statement is cut off; a date or a bracket after its words is not."""

from __future__ import annotations

import pytest

from memlane.lang.sentences import NUMBERING


@pytest.mark.parametrize(
    ("text", "left"),
    [
        ("22、珂洲市的市长是姜秋白", "珂洲市的市长是姜秋白"),
        ("（3）foo", "foo"),
        ("第33条：foo", "foo"),
        ("Fact 12: the mayor is Ada", "the mayor is Ada"),
        ("#4 foo", "foo"),
    ],
)
def test_numbering_is_cut_off(text, left):
    assert NUMBERING.sub("", text) == left


@pytest.mark.parametrize(
    "text",
    [
        "下周去东京出差（2025-12-29 那周），帮我看看天气",
        "2025-12-29 is the day",
        "Trip (2026-03-01) to Oslo",
    ],
)
def test_a_date_is_no_numbering(text):
    """A note's time annotation ("（2025-12-29 那周）") or a date it opens with is its words."""
    assert NUMBERING.sub("", text) == text
