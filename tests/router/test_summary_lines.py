"""Summary items show the lines a query is about and cite only those lines' turns."""

from __future__ import annotations

from datetime import UTC, datetime

import memlane
from memlane.router.summary_lane import PERIOD_BONUS, SummaryFilters
from tests.conftest import FakeClock
from tests.support.conversations import told

CONVERSATION = [
    ("Caroline", "I went to a support group yesterday and it was so powerful."),
    ("Melanie", "I painted that lake sunrise last year, it was beautiful!"),
    ("Caroline", "I'm researching adoption agencies for my future family."),
    ("Melanie", "We went camping in the mountains with the kids."),
    ("Caroline", "The counseling workshop taught me a lot about trans youth."),
    ("Melanie", "My pottery class made a black and white bowl."),
]


def _replay(mem: memlane.Memory, clock: FakeClock) -> None:
    session = mem.session("chat", "chat-S1", window=1)
    for speaker, text in CONVERSATION:
        clock.advance(minutes=1)
        session.add("user", text, speaker=speaker)
    session.close()


def test_a_summary_item_cites_the_turns_of_the_lines_it_shows(mem, clock: FakeClock):
    _replay(mem, clock)
    r = mem.recall("chat", "Which adoption agencies is Caroline researching?", k=20)
    summaries = [item for item in r.items if item.kind == "summary"]
    assert summaries, [item.text for item in r.items]
    for item in summaries:
        assert "adoption" in item.text
        assert "pottery" not in item.text and "camping" not in item.text
        assert item.provenance == ["chat-S1#3"]


def test_a_speakers_name_does_not_pull_in_all_their_statements(mem, clock: FakeClock):
    _replay(mem, clock)
    r = mem.recall("chat", "What did Melanie make in her pottery class?", k=3)
    assert r.items[0].kind == "note"
    assert "pottery" in r.items[0].text
    assert r.items[0].provenance == ["chat-S1#6"]


def test_a_question_naming_a_person_ranks_their_statements_first(mem, clock: FakeClock):
    _replay(mem, clock)
    assert mem.index.wait(timeout=30)  # ranks by meaning as well as by words
    r = mem.recall("chat", "What did Caroline paint?", k=20)
    notes = [item for item in r.items if item.kind == "note"]
    first_other = next(i for i, item in enumerate(notes) if "Caroline" not in item.text)
    assert all("Caroline" not in item.text for item in notes[first_other:])


def test_a_relative_time_ranks_that_year_first_and_filters_nothing(mem, clock: FakeClock):
    clock.set("2026-03-02T02:00:00+00:00")
    mem.remember("U-1", "We visited Kyoto and loved the temples", at="2023-05-10")
    mem.remember("U-1", "We are planning another Kyoto trip", at="2026-02-01")
    r = mem.recall("U-1", "What did we do in Kyoto 3 years ago?", k=5)
    texts = [item.text for item in r.items]
    assert len(texts) == 2, texts
    assert "temples" in texts[0]
    assert r.analysis.times  # the time was read, and only reorders


def test_the_period_is_read_at_year_granularity():
    day = (datetime(2023, 3, 2, tzinfo=UTC), datetime(2023, 3, 3, tzinfo=UTC))
    filters = SummaryFilters(None, None, day, (), UTC)
    inside = datetime(2023, 11, 30, tzinfo=UTC)
    outside = datetime(2024, 1, 1, tzinfo=UTC)
    assert filters.in_period("", inside, inside)
    assert not filters.in_period("", outside, outside)
    assert filters.in_period("we married on 2023-07-01", outside, outside)
    assert not SummaryFilters(None, None, None, (), UTC).in_period("", inside, inside)


def test_the_named_period_itself_counts_twice_its_year():
    july = (datetime(2023, 7, 1, tzinfo=UTC), datetime(2023, 8, 1, tzinfo=UTC))
    filters = SummaryFilters(None, None, july, (), UTC)
    in_july = datetime(2023, 7, 20, tzinfo=UTC)
    a_week_after = datetime(2023, 8, 6, tzinfo=UTC)
    in_march = datetime(2023, 3, 1, tzinfo=UTC)
    other_year = datetime(2022, 7, 20, tzinfo=UTC)
    assert filters.period_bonus("", in_july, in_july) == 2 * PERIOD_BONUS
    assert filters.period_bonus("", a_week_after, a_week_after) == 2 * PERIOD_BONUS
    assert filters.period_bonus("", in_march, in_march) == PERIOD_BONUS
    assert filters.period_bonus("we met on 2023-07-14", in_march, in_march) == 2 * PERIOD_BONUS
    assert filters.period_bonus("", other_year, other_year) == 0.0
    day = (datetime(2023, 7, 3, tzinfo=UTC), datetime(2023, 7, 4, tzinfo=UTC))
    on_the_day = SummaryFilters(None, None, day, (), UTC)
    assert on_the_day.period_bonus("", in_july, in_july) == PERIOD_BONUS  # 17 days off
    assert SummaryFilters(None, None, None, (), UTC).period_bonus("", in_july, in_july) == 0.0


def test_a_question_naming_a_month_prefers_what_was_said_that_month(mem, clock: FakeClock):
    clock.set("2023-12-30T12:00:00+00:00")
    mem.remember("U-1", "Painted a sunset with the kids, a fun project", at="2023-07-12")
    for month in (2, 3, 4, 5, 9, 10, 11):
        mem.remember(
            "U-1",
            f"Painted another landscape with the kids, project {month}",
            at=f"2023-{month:02d}-12",
        )
    r = mem.recall("U-1", "What did she and her kids paint in July 2023?", k=3)
    assert "sunset" in r.items[0].text, [item.text for item in r.items]


def test_a_period_still_to_come_is_told_of_by_plans_only():
    now = datetime(2026, 3, 4, tzinfo=UTC)
    next_week = (datetime(2026, 3, 9, tzinfo=UTC), datetime(2026, 3, 16, tzinfo=UTC))
    filters = SummaryFilters(None, None, next_week, (), UTC, read_at=now)
    said = datetime(2026, 3, 2, tzinfo=UTC)
    assert not filters.in_period("I live in Lyon", said, said)  # said this year: not a plan
    assert not filters.in_period("the code from last week isn't working", said, said)
    assert not filters.in_period("shipping is slow this week", said, said)
    assert filters.in_period("Flying to Oslo next Wednesday", said, said)


def test_where_one_flies_next_week_is_not_where_one_lives():
    mem = told(
        "I live in Munich",
        "Flying to San Diego next Wednesday for work, what's the weather like?",
        "why is shipping so slow this week",
        subject="U-1",
    )
    with mem:
        r = mem.recall("U-1", "destination of next week's flight?")
        assert "San Diego" in r.items[0].text, [item.text for item in r.items]
