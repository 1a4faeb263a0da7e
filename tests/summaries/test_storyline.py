"""The rolling storyline: an open item its asker withdrew later is open no more."""

from __future__ import annotations

from memlane.summaries.model import SummaryContent
from memlane.summaries.storyline import merge_storyline


def test_an_open_item_withdrawn_in_a_later_session_is_closed():
    earlier = SummaryContent(
        facts=("I live in Leeds",),
        open_items=("Could every invoice be printed in French?", "Is the shop open on Sunday?"),
    )
    later = SummaryContent(facts=("No need for French anymore, my English is fine",))
    merged = merge_storyline(earlier, later)
    assert merged.open_items == ("Is the shop open on Sunday?",)
    assert "I live in Leeds" in merged.facts


def test_a_withdrawn_item_with_a_date_moves_to_the_facts():
    earlier = SummaryContent(open_items=("Can the movers come on 2026-05-02 with the big van?",))
    later = SummaryContent(facts=("We don't need the big van anymore",))
    merged = merge_storyline(earlier, later)
    assert merged.open_items == ()
    assert "Can the movers come on 2026-05-02 with the big van?" in merged.facts


def test_someone_elses_withdrawal_closes_nothing():
    earlier = SummaryContent(open_items=("Could every invoice be printed in French?",))
    later = SummaryContent(facts=("assistant: no more French printing on Sundays",))
    assert merge_storyline(earlier, later).open_items == earlier.open_items
