"""``Memory(..., llm=...)``: the chat model as a constructor argument, like ``embedder``."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

import pytest

import memlane
from memlane.extract.llm import LLMExtractor
from memlane.extract.rules import RuleExtractor
from memlane.llm import ChatClient, ChatMessage, LLMError
from memlane.models import chat_model
from memlane.summaries.llm import LLMSummarizer
from memlane.summaries.offline import OfflineSummarizer
from tests.support.openai_stub import OpenAIStub

MOVED = dict(op="set", attribute="location", value="Berlin", valid_from=None, evidence="moved")
FACTS = {"facts": [MOVED], "notes": ["U-1 moved to Berlin"]}


@pytest.fixture(autouse=True)
def no_llm_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in ("MEMLANE_LLM_URL", "MEMLANE_LLM_MODEL", "MEMLANE_LLM_API_KEY"):
        monkeypatch.delenv(variable, raising=False)


def test_a_client_object_is_used_and_left_open_for_its_caller() -> None:
    with OpenAIStub() as stub, ChatClient(stub.base_url, stub.model, max_retries=0) as client:
        stub.reply(json.dumps(FACTS))
        with memlane.Memory(":memory:", embedder="hash", llm=client) as mem:
            assert isinstance(mem.extractor, LLMExtractor)
            assert isinstance(mem.summarizer, LLMSummarizer)
            mem.remember("U-1", "I moved to Berlin")
            assert mem.facts.get("U-1", "location").value == "Berlin"
        assert len(stub.chat_requests) == 1
        stub.reply(json.dumps(FACTS))  # the memory did not close the caller's client
        client.complete_json([{"role": "user", "content": "again"}], dict, purpose="test")


def test_a_spec_names_an_endpoint_without_environment_variables() -> None:
    with OpenAIStub() as stub:
        stub.reply(json.dumps(FACTS))
        spec = f"openai:{stub.model}@{stub.base_url}"
        with memlane.Memory(":memory:", embedder="hash", llm=spec) as mem:
            mem.remember("U-1", "I moved to Berlin")
            assert mem.facts.get("U-1", "location").value == "Berlin"
        assert stub.chat_requests[0].json["model"] == stub.model


def test_any_object_with_complete_json_is_a_chat_model() -> None:
    class Broken:
        def __init__(self) -> None:
            self.purposes: list[str] = []

        def complete_json(
            self,
            messages: Sequence[ChatMessage],
            schema: type[Any] | Callable[[Any], Any],
            *,
            purpose: str,
        ) -> Any:
            self.purposes.append(purpose)
            raise LLMError("down", purpose=purpose)

    model = Broken()
    with memlane.Memory(":memory:", embedder="hash", llm=model) as mem:
        mem.remember("U-1", "I moved to Berlin")  # the model fails: the rules take over
        assert mem.facts.get("U-1", "location").value == "Berlin"
    assert model.purposes and model.purposes[0].startswith("fact_extraction")


def test_offline_wins_over_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMLANE_LLM_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("MEMLANE_LLM_MODEL", "m")
    with memlane.Memory(":memory:", llm="offline") as mem:
        assert isinstance(mem.extractor, RuleExtractor)
        assert isinstance(mem.summarizer, OfflineSummarizer)
    with memlane.Memory(":memory:") as mem:  # the default still reads the environment
        assert isinstance(mem.extractor, LLMExtractor)


def test_a_spec_takes_missing_parts_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMLANE_LLM_URL", "http://127.0.0.1:9/v1")
    client = chat_model("openai:qwen2.5:3b")
    assert isinstance(client, ChatClient) and client.model == "qwen2.5:3b"
    monkeypatch.setenv("MEMLANE_LLM_MODEL", "m")
    model = chat_model("openai")
    assert isinstance(model, ChatClient) and model.model == "m"


@pytest.mark.parametrize(
    "llm",
    ["gpt", "openai:m", "openai:@http://127.0.0.1:9/v1", "openai:m@ftp://host", "", 42, object()],
)
def test_bad_models_are_refused(llm: Any) -> None:
    with pytest.raises(memlane.InvalidInput):
        memlane.Memory(":memory:", llm=llm)
