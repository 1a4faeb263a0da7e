"""Fixtures for the LLM seam: the stub server, a fast client on it, and offline fakes."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from datetime import datetime, tzinfo

import pytest

from memlane.extract.model import AttributeSpec, Extraction, FactOp, Mention
from memlane.llm import ChatClient
from memlane.summaries.model import SummaryContent
from memlane.window.model import Turn
from tests.support.openai_stub import OpenAIStub

API_KEY = "sk-test-SECRET-0123456789"


@pytest.fixture
def stub() -> Iterator[OpenAIStub]:
    with OpenAIStub() as server:
        yield server


@pytest.fixture
def client(stub: OpenAIStub) -> Iterator[ChatClient]:
    with ChatClient(
        stub.base_url, stub.model, timeout=2.0, max_retries=2, backoff=0.01, max_backoff=0.05
    ) as chat:
        yield chat


class FakeRules:
    """A tiny rule-based extractor: phone numbers as identifiers, "moved to X" as location."""

    PHONE = re.compile(r"\d{3}-?\d{4}-?\d{4}")
    MOVED = re.compile(r"moved to (\w+)")

    def __init__(self) -> None:
        self.calls: list[str] = []

    def extract(self, text: str, *, at: datetime, timezone: tzinfo) -> Extraction:
        self.calls.append(text)
        ops: list[FactOp] = []
        mentions: list[Mention] = []
        for match in self.PHONE.finditer(text):
            ops.append(FactOp("add", "phone", match.group(), span=match.span()))
            mentions.append(
                Mention("phone", match.group(), re.sub(r"\D", "", match.group()), match.span())
            )
        for match in self.MOVED.finditer(text):
            ops.append(FactOp("set", "location", match.group(1), span=match.span()))
        return Extraction(ops=tuple(ops), mentions=tuple(mentions), notes=(text,))

    def attributes(self) -> Sequence[AttributeSpec]:
        return (
            AttributeSpec("phone", "many", identifier=True),
            AttributeSpec("location", "one"),
        )


class FakeSummarizer:
    """An offline summarizer that records its calls and lists user turns as facts."""

    def __init__(self) -> None:
        self.calls: list[tuple[SummaryContent | None, tuple[Turn, ...]]] = []

    def update(self, previous: SummaryContent | None, turns: Sequence[Turn]) -> SummaryContent:
        self.calls.append((previous, tuple(turns)))
        earlier = previous.facts if previous else ()
        return SummaryContent(facts=earlier + tuple(t.content for t in turns if t.role == "user"))


@pytest.fixture
def rules() -> FakeRules:
    return FakeRules()


@pytest.fixture
def offline_summarizer() -> FakeSummarizer:
    return FakeSummarizer()
