"""The offline summarizer: sections, merging, bounds, verbatim identifiers, determinism."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memlane.errors import InvalidInput
from memlane.summaries.lines import relation_keys, split_label
from memlane.summaries.model import SummaryContent
from memlane.summaries.offline import OfflineSummarizer
from memlane.summaries.text import clip_line, estimate_tokens, find_spans
from memlane.window.model import Role, Turn

START = datetime(2026, 7, 4, 2, 0, tzinfo=UTC)


def make_turns(*messages: tuple[Role, str], subject: str = "U-001", first: int = 0) -> list[Turn]:
    return [
        Turn(f"s-1#{first + i}", "s-1", subject, role, text, START + timedelta(minutes=first + i))
        for i, (role, text) in enumerate(messages)
    ]


def summarize(rounds: Sequence[Sequence[Turn]], **options: int | bool) -> SummaryContent:
    summarizer = OfflineSummarizer(**options)  # type: ignore[arg-type]
    content: SummaryContent | None = None
    for turns in rounds:
        content = summarizer.update(content, turns)
    assert content is not None
    return content


def text_of(content: SummaryContent) -> str:
    return "\n".join(
        [*content.topic, *content.facts, *content.open_items, *content.entities, *content.mood]
    )


ENGLISH = make_turns(
    ("user", "Hi! I moved to Berlin last month and my new phone number is +49 151 2345 6789."),
    ("assistant", "Got it. Anything else?"),
    ("user", "My order ORD-77812 still hasn't arrived and I'm really frustrated."),
    ("assistant", "Order ORD-77812 ships on July 8, 2026; you paid $129.99."),
    ("user", "I need to cancel my gym membership at FitLife before August 1."),
    ("user", "Can you also find out whether the FitLife gym membership fee is refundable?"),
)
CHINESE = make_turns(
    ("user", "你好！我上周搬到北京了，新手机号 139-1111-2222。"),
    ("assistant", "好的，已为您记录新手机号。"),
    ("user", "我的订单 ORD-20260701-001 还没到，我很着急！"),
    ("assistant", "订单 ORD-20260701-001 预计 2026年7月6日 送达，金额 299元。"),
    ("user", "提醒我下周二去医院复查。"),
)


# --- determinism -------------------------------------------------------------------------


def test_same_input_gives_same_output():
    rounds = [ENGLISH[:3], ENGLISH[3:], CHINESE[:2], CHINESE[2:]]
    assert summarize(rounds) == summarize(rounds)


_HASH_SEED_SCRIPT = """
import json, sys
from datetime import datetime, timedelta, UTC
from memlane.summaries.offline import OfflineSummarizer
from memlane.window.model import Turn
messages = json.loads(sys.argv[1])
start = datetime(2026, 7, 4, tzinfo=UTC)
turns = [Turn(f"s#{i}", "s", subject, role, text, start + timedelta(minutes=i))
         for i, (subject, role, text) in enumerate(messages)]
summarizer, content = OfflineSummarizer(label_speakers=True), None
for index in range(0, len(turns), 3):
    content = summarizer.update(content, turns[index : index + 3])
print(json.dumps([list(content.topic), list(content.facts), list(content.open_items),
                  list(content.entities), list(content.mood)]))
"""


def test_output_does_not_depend_on_the_hash_seed():
    messages = [
        ("Caroline", "user", "I went to a LGBTQ support group and it was so powerful."),
        ("Melanie", "user", "Wow, Caroline! I painted a lake sunrise with my kids in Paris."),
        ("Caroline", "user", "I'm keen on counseling or working in mental health."),
        ("Melanie", "user", "My kids love the museum in Paris and the Louvre gardens."),
        ("Caroline", "user", "I need to research counseling programs before May 8, 2026."),
        ("Melanie", "user", "我上周搬到北京了，我们住在朝阳区，新手机号 139-1111-2222。"),
    ]
    outputs = set()
    for seed in ("1", "2", "3"):
        result = subprocess.run(
            [sys.executable, "-c", _HASH_SEED_SCRIPT, json.dumps(messages)],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
            cwd=Path(__file__).parent,
        )
        outputs.add(result.stdout)
    assert len(outputs) == 1


# --- sections ------------------------------------------------------------------------------


def test_english_sections():
    content = summarize([ENGLISH[:3], ENGLISH[3:]])
    assert any("+49 151 2345 6789" in line and "Berlin" in line for line in content.facts)
    assert "assistant: Order ORD-77812 ships on July 8, 2026; you paid $129.99." in content.facts
    assert any(line.startswith("I need to cancel my gym membership") for line in content.open_items)
    assert any("refundable" in line for line in content.open_items)  # nobody answered it
    assert {"ORD-77812", "Berlin", "FitLife"} <= set(content.entities)
    assert "mood: frustrated" in content.mood
    assert "intent: asking" in content.mood
    assert any("gym membership" in item for item in content.topic)
    assert "Got it. Anything else?" not in text_of(content)


def test_chinese_sections():
    content = summarize([CHINESE[:2], CHINESE[2:]])
    assert "我上周搬到北京了，新手机号 139-1111-2222。" in content.facts
    assert any("ORD-20260701-001" in line and "2026年7月6日" in line for line in content.facts)
    assert "提醒我下周二去医院复查。" in content.open_items
    assert {"ORD-20260701-001", "139-1111-2222", "北京"} <= set(content.entities)
    assert "情绪：着急" in content.mood
    assert any("北京" in item for item in content.topic)
    assert all(not item.startswith("mood:") for item in content.mood)  # labels follow the language


@pytest.mark.parametrize("by", ["speaker", "subject"])
def test_several_speakers_are_labelled_and_are_not_topics(by):
    said = [
        ("Caroline", "Hey Mel! I went to a LGBTQ support group."),
        ("Melanie", "Caroline, I painted a lake sunrise in Paris!"),
        ("Caroline", "Mel, the support group gave me courage."),
    ]
    turns = [
        Turn(f"c#{i}", "c", "conv-26", "user", text, START, speaker=name)
        if by == "speaker"
        else Turn(f"c#{i}", "c", name, "user", text, START)
        for i, (name, text) in enumerate(said)
    ]
    content = summarize([turns[:2], turns[2:]], label_speakers=by == "subject")
    assert "Caroline: I went to a LGBTQ support group." in content.facts
    assert "Melanie: Caroline, I painted a lake sunrise in Paris!" in content.facts
    named = " ".join([*content.topic, *content.entities])
    assert "Caroline" not in named and "Melanie" not in named and "Mel" not in named
    assert "Paris" in content.entities


def test_system_turns_and_empty_rounds_change_nothing():
    previous = summarize([ENGLISH[:2]])
    summarizer = OfflineSummarizer()
    assert summarizer.update(previous, []) == previous
    system = make_turns(("system", "You are a helpful assistant; never reveal ORD-1."))
    assert summarizer.update(previous, system) == previous
    assert summarizer.update(None, []) == SummaryContent()


# --- merging and conflicts -----------------------------------------------------------------


def test_a_later_statement_of_the_same_relation_replaces_the_earlier():
    content = summarize(
        [
            make_turns(("user", "我住在上海。"), ("assistant", "好的。")),
            make_turns(("user", "我搬到北京了。"), ("assistant", "好的，已记录。"), first=2),
        ]
    )
    assert "我搬到北京了。" in content.facts
    assert not any("上海" in line for line in content.facts)


def test_a_new_phone_number_replaces_the_old_one_and_other_facts_stay():
    content = summarize(
        [
            make_turns(("user", "I live in Paris. My favorite color is blue.")),
            make_turns(("user", "My phone number is 138-0000-1234."), first=2),
            make_turns(
                ("user", "I moved to Berlin. My new phone number is 139-1111-2222."), first=3
            ),
        ]
    )
    assert content.facts == (
        "My favorite color is blue.",
        "I moved to Berlin.",
        "My new phone number is 139-1111-2222.",
    )


def test_a_line_carrying_another_identifier_is_not_replaced():
    content = summarize(
        [
            make_turns(("user", "我上周搬到北京了，新手机号 139-1111-2222。")),
            make_turns(("user", "我住在朝阳区。"), first=1),
        ]
    )
    assert "我上周搬到北京了，新手机号 139-1111-2222。" in content.facts
    assert "我住在朝阳区。" in content.facts


def test_relation_keys_are_per_speaker():
    assert relation_keys("Caroline: I moved to Berlin.") == {"Caroline|location"}
    assert relation_keys("我住在上海") == {"|location"}
    assert relation_keys("assistant: I live in the cloud.") == frozenset()
    assert split_label("Note, this: is not a label") == ("", "Note, this: is not a label")


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("Dentist at 2:45 on Friday", ("", "Dentist at 2:45 on Friday")),
        ("Lena: the bus leaves at 7:05", ("Lena", "the bus leaves at 7:05")),
        ("Train 10:30 to Leeds", ("", "Train 10:30 to Leeds")),
        ("会议改到下午3：30", ("", "会议改到下午3：30")),
    ],
)
def test_a_clock_time_is_not_a_label(line: str, expected: tuple[str, str]) -> None:
    assert split_label(line) == expected


def test_repeated_statements_are_deduplicated():
    content = summarize(
        [
            make_turns(("user", "I moved to Berlin!")),
            make_turns(("user", "i moved to berlin"), first=1),
            make_turns(("user", "I moved to Berlin and I love it here."), first=2),
        ]
    )
    assert content.facts == ("I moved to Berlin and I love it here.",)


def test_previous_content_from_another_summarizer_is_kept_and_bounded():
    previous = SummaryContent(
        topic=("relocation",),
        facts=("The user relocated to Hangzhou in 2025.",),
        mood=("calm", "mood: happy"),
    )
    content = OfflineSummarizer(max_mood_items=2).update(
        previous, make_turns(("user", "I'm so frustrated, the movers broke my desk."))
    )
    assert "The user relocated to Hangzhou in 2025." in content.facts
    assert "relocation" in content.topic
    assert content.mood[0] == "mood: frustrated"
    assert "mood: happy" not in content.mood  # the newer, opposite mood wins
    assert len(content.mood) <= 2


# --- bounds, verbatim identifiers and compression -------------------------------------------


def long_conversation(rounds: int, identifier_every: int = 1) -> list[list[Turn]]:
    chatter = [
        "I really enjoy hiking in the mountains with my friends on weekends.",
        "My sister just started learning the violin and practices every evening.",
        "We had a lovely dinner with grilled fish and lemon cake yesterday.",
        "The new coffee place near the station has amazing pastries.",
        "我最近在学做川菜，麻婆豆腐已经做得不错了。",
        "我们家的猫特别喜欢在窗台上晒太阳。",
    ]
    result = []
    for number in range(rounds):
        identifier = f"ORD-{number:05d}"
        day = f"2026-{number % 12 + 1:02d}-{number % 27 + 1:02d}"
        order = f"My order {identifier} was delivered on {day}, it cost ${number}.50."
        if number % identifier_every:
            order = chatter[(number + 1) % len(chatter)]
        result.append(
            make_turns(
                ("user", chatter[number % len(chatter)]),
                ("assistant", "That sounds nice, tell me more."),
                ("user", order),
                ("assistant", "Thanks, noted."),
                ("user", chatter[(number + 3) % len(chatter)]),
                first=number * 5,
            )
        )
    return result


def test_identifiers_and_dates_survive_updates_that_overflow_the_bounds():
    rounds = long_conversation(30)
    content = summarize(rounds, max_items_per_section=3)
    summary = text_of(content)
    spans = [
        span.text
        for turns in rounds
        for turn in turns
        for span in find_spans(turn.content, frozenset({"identifier", "date"}))
    ]
    assert len(spans) == 60
    assert [span for span in spans if span not in summary] == []
    assert all(f"${number}.50" in summary for number in range(30))  # amounts too
    unprotected = [line for line in content.facts if not find_spans(line, frozenset({"date"}))]
    assert len(unprotected) <= 3
    assert len(content.topic) <= 3 and len(content.entities) <= 3
    assert any(line.startswith("earlier: ") for line in content.facts)


_TEMPLATES = (
    "Please check order {id} for me.",
    "My parcel {id} arrived on {day}, finally!",
    "订单 {id} 预计 {day} 送达。",
    "我还没收到 {id} 的退款，能帮我看看吗？",
    "Ticket {id} was opened on {day} and nobody answered.",
    "The weather was lovely and we walked along the river for hours.",
    "我们周末去公园散步了，天气很好。",
)


@settings(max_examples=25, deadline=None)
@given(
    picks=st.lists(
        st.tuples(
            st.sampled_from(_TEMPLATES),
            st.sampled_from(["user", "assistant"]),
            st.integers(0, 99_999),
            st.dates(),
        ),
        min_size=1,
        max_size=40,
    ),
    limit=st.integers(1, 4),
    round_size=st.integers(1, 6),
)
def test_no_identifier_or_date_is_ever_lost(picks, limit, round_size):
    turns = make_turns(
        *[
            (role, template.format(id=f"T-{number:05d}", day=day.isoformat()))
            for template, role, number, day in picks
        ]
    )
    rounds = [turns[i : i + round_size] for i in range(0, len(turns), round_size)]
    summary = text_of(summarize(rounds, max_items_per_section=limit))
    for turn in turns:
        for span in find_spans(turn.content, frozenset({"identifier", "date"})):
            assert span.text in summary


@pytest.mark.parametrize(("identifier_every", "ratio"), [(1, 2.5), (5, 8)])
def test_the_summary_is_much_shorter_than_the_turns(identifier_every, ratio):
    rounds = long_conversation(60, identifier_every)
    content = summarize(rounds)
    turn_tokens = sum(estimate_tokens(turn.content) for turns in rounds for turn in turns)
    assert turn_tokens > 3500
    # Identifiers, dates and amounts are kept verbatim, so the denser they are, the less
    # the turns can shrink.
    assert estimate_tokens(text_of(content)) * ratio < turn_tokens


def test_long_lines_are_clipped_to_their_key_clauses():
    sentence = (
        "I finally moved to Berlin after a long search, and honestly the apartment is lovely, "
        "with a balcony, a tiny garden and a view over the river, and the order ORD-4411 with "
        "my furniture arrives on 2026-08-01."
    )
    content = summarize([make_turns(("user", sentence))], max_line_tokens=24)
    (line,) = content.facts
    assert line.startswith("I finally moved to Berlin")
    assert "ORD-4411" in line and "2026-08-01" in line
    assert estimate_tokens(line) < estimate_tokens(sentence)


def test_clip_line_never_cuts_inside_a_date():
    clipped = clip_line("Order ORD-1 ships on May 8, 2023, and it will cost $12, but whatever.", 8)
    assert "May 8, 2023" in clipped and "ORD-1" in clipped and "$12" in clipped


# --- open items ----------------------------------------------------------------------------


def test_unanswered_questions_and_requests_are_open_items():
    content = summarize(
        [
            make_turns(
                ("user", "How are you?"),
                ("assistant", "Fine, thanks. What can I do for you?"),
                ("user", "What is the baggage allowance for flight CA1234?"),
                ("assistant", "Checked bags up to 23 kg are free on that flight."),
                ("user", "Remind me to print the boarding pass."),
                ("user", "我还没收到退款，帮我催一下。"),
                ("user", "Which terminal does the flight leave from?"),
            )
        ]
    )
    assert "Remind me to print the boarding pass." in content.open_items
    assert "我还没收到退款，帮我催一下。" in content.open_items
    assert "Which terminal does the flight leave from?" in content.open_items
    assert not any("baggage" in line for line in content.open_items)  # answered
    assert not any("How are you" in line for line in content.open_items)  # no content
    # the answered question carries an identifier, so it stays as a fact
    assert "What is the baggage allowance for flight CA1234?" in content.facts


def test_open_items_close_when_answered_or_done_in_a_later_round():
    content = summarize(
        [
            make_turns(
                ("user", "Please send the invoice for order ORD-5 to my email."),
                ("assistant", "Sure."),
                ("user", "Can you tell me when the Berlin office opens?"),
            ),
            make_turns(
                ("assistant", "The Berlin office opens at 9:00 every weekday."),
                ("assistant", "I have already sent the invoice for ORD-5."),
                first=3,
            ),
        ]
    )
    assert content.open_items == ()
    assert "Please send the invoice for order ORD-5 to my email." in content.facts


def test_an_evasive_reply_leaves_the_question_open():
    content = summarize(
        [
            make_turns(
                ("user", "When will the refund for ORD-77 reach my card?"),
                ("assistant", "I don't know yet, let me check."),
            )
        ]
    )
    assert content.open_items == ("When will the refund for ORD-77 reach my card?",)


# --- bad input -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [{"max_items_per_section": 0}, {"max_mood_items": -1}, {"max_line_tokens": True}],
)
def test_bad_bounds_are_refused(options):
    with pytest.raises(InvalidInput):
        OfflineSummarizer(**options)


def test_bad_arguments_to_update_are_refused():
    summarizer = OfflineSummarizer()
    with pytest.raises(InvalidInput, match="turns"):
        summarizer.update(None, ["not a turn"])  # type: ignore[list-item]
    with pytest.raises(InvalidInput, match="previous"):
        summarizer.update({"facts": []}, [])  # type: ignore[arg-type]


def test_an_open_request_its_asker_withdraws_later_in_the_session_closes():
    first = make_turns(("user", "Can every invoice be printed in French?"))
    later = make_turns(
        ("user", "No need for French anymore, my English got better."),
        ("assistant", "Noted."),
        first=1,
    )
    content = summarize([first, later])
    assert not any("French?" in line for line in content.open_items)
