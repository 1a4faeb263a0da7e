from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from memlane.llm import ChatClient, SchemaViolation
from memlane.llm.replies import SECTION_MAX_ITEMS, STATEMENT_MAX_CHARS
from memlane.summaries.llm import LLMSummarizer, SummarizerStats, read_summary
from memlane.summaries.model import SummaryContent
from memlane.summaries.summarizer import Summarizer
from memlane.window.model import Turn
from tests.llm.conftest import FakeSummarizer
from tests.support.openai_stub import OpenAIStub

AT = datetime(2026, 3, 10, 1, 0, tzinfo=UTC)
PREVIOUS = SummaryContent(topic=("Moving house",), facts=("Alice lives in Shanghai",))
TURNS = (
    Turn("s-42#3", "s-42", "U-001", "user", "I moved to Berlin yesterday", AT),
    Turn("s-42#4", "s-42", "U-001", "assistant", "Noted, Berlin it is.", AT),
)
UPDATED = {
    "topic": ["Moving house"],
    "facts": ["Alice moved to Berlin on 2026-03-09"],
    "open_items": [],
    "entities": ["Alice", "Berlin"],
    "mood": ["relieved"],
}


@pytest.fixture
def summarizer(client: ChatClient, offline_summarizer: FakeSummarizer) -> LLMSummarizer:
    return LLMSummarizer(client, offline_summarizer, timezone=ZoneInfo("Europe/Berlin"))


def test_is_a_summarizer(summarizer: LLMSummarizer) -> None:
    as_protocol: Summarizer = summarizer
    assert callable(as_protocol.update)


def test_model_answer_becomes_the_new_summary(
    stub: OpenAIStub, summarizer: LLMSummarizer, offline_summarizer: FakeSummarizer
) -> None:
    stub.reply(json.dumps(UPDATED))

    content = summarizer.update(PREVIOUS, TURNS)

    assert content == SummaryContent(
        topic=("Moving house",),
        facts=("Alice moved to Berlin on 2026-03-09",),
        entities=("Alice", "Berlin"),
        mood=("relieved",),
    )
    assert offline_summarizer.calls == []
    assert summarizer.stats == SummarizerStats(calls=1, llm_answers=1)


def test_prompt_carries_previous_summary_and_turn_ids(
    stub: OpenAIStub, summarizer: LLMSummarizer
) -> None:
    stub.reply(json.dumps(UPDATED))

    summarizer.update(PREVIOUS, TURNS)

    user = stub.chat_requests[0].messages[1]["content"]
    assert '"facts": ["Alice lives in Shanghai"]' in user
    assert '"topic": ["Moving house"]' in user
    assert "[s-42#3] 2026-03-10 02:00 user: I moved to Berlin yesterday" in user
    assert "[s-42#4]" in user
    assert "Europe/Berlin" in user


def test_model_failure_uses_the_fallback(
    stub: OpenAIStub,
    summarizer: LLMSummarizer,
    offline_summarizer: FakeSummarizer,
    client: ChatClient,
) -> None:
    stub.reply("Summary: the user moved.", "{}", '{"topic": [1]}')

    content = summarizer.update(PREVIOUS, TURNS)

    assert offline_summarizer.calls == [(PREVIOUS, TURNS)]
    assert content.facts == ("Alice lives in Shanghai", "I moved to Berlin yesterday")
    assert summarizer.stats == SummarizerStats(calls=1, fallbacks=1)
    assert client.stats.failures == 1


def test_server_error_uses_the_fallback(
    stub: OpenAIStub, summarizer: LLMSummarizer, offline_summarizer: FakeSummarizer
) -> None:
    stub.fail(500, times=3)

    summarizer.update(None, TURNS)

    assert offline_summarizer.calls == [(None, TURNS)]


def test_invalid_section_is_sent_back(stub: OpenAIStub, summarizer: LLMSummarizer) -> None:
    bad = {**UPDATED, "entities": [{"name": "Alice"}]}
    stub.reply(json.dumps(bad), json.dumps(UPDATED))

    content = summarizer.update(PREVIOUS, TURNS)

    assert content.entities == ("Alice", "Berlin")
    assert "entities[0]: expected a string" in stub.chat_requests[1].messages[-1]["content"]


def test_no_turns_changes_nothing(stub: OpenAIStub, summarizer: LLMSummarizer) -> None:
    assert summarizer.update(PREVIOUS, []) == PREVIOUS
    assert summarizer.update(None, []) == SummaryContent()
    assert stub.chat_requests == []


def test_read_summary_tidies_cosmetic_slips() -> None:
    content = read_summary(
        {
            "topic": "  Moving house ",
            "facts": ["A", "", "  ", "A", "B ", "...", "-"],
            "mood": [],
            "comment": "ignored",
        }
    )
    assert content == SummaryContent(topic=("Moving house",), facts=("A", "B"))


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        ([], "expected an object"),
        ({"topic": [], "facts": []}, "every section is empty"),
        ({name: ["..."] for name in ("topic", "facts", "mood")}, "every section is empty"),
        ({"facts": [None]}, "facts[0]: expected a string"),
        ({"facts": {"a": 1}}, "facts: expected an array"),
        ({"facts": ["x" * (STATEMENT_MAX_CHARS + 1)]}, "facts[0]: at most"),
        ({"facts": [f"fact {n}" for n in range(SECTION_MAX_ITEMS + 1)]}, "facts: at most"),
    ],
)
def test_read_summary_rejects_the_rest(data: Any, fragment: str) -> None:
    with pytest.raises(SchemaViolation) as caught:
        read_summary(data)
    assert fragment in str(caught.value)
