"""A session on an OpenAI-compatible endpoint (the local stub), configured by environment."""

from __future__ import annotations

import json

from tests.support.openai_stub import OpenAIStub

import memlane
from memlane.extract.llm import LLMExtractor
from memlane.summaries.llm import LLMSummarizer


def configure(monkeypatch, stub: OpenAIStub) -> None:
    monkeypatch.setenv("MEMLANE_LLM_URL", stub.base_url)
    monkeypatch.setenv("MEMLANE_LLM_MODEL", stub.model)
    monkeypatch.setenv("MEMLANE_LLM_TIMEOUT", "5")


def test_llm_extraction_and_summaries_flow_into_the_lanes(monkeypatch, clock, scratch_url):
    summary = {
        "topic": ["moving to Berlin"],
        "facts": ["U-1 moved to Berlin; phone 138-0000-1234"],
        "open_items": [],
        "entities": ["Berlin", "138-0000-1234"],
        "mood": ["intent: sharing"],
    }
    facts = {
        "facts": [
            {
                "op": "set",
                "attribute": "location",
                "value": "Berlin",
                "valid_from": None,
                "evidence": "I moved to Berlin",
            }
        ],
        "notes": ["U-1 moved to Berlin"],
    }
    with OpenAIStub() as stub:
        configure(monkeypatch, stub)
        stub.reply(json.dumps(facts), json.dumps(summary))
        with memlane.Memory(scratch_url, clock=clock, embedder="hash") as mem:
            assert isinstance(mem.extractor, LLMExtractor)
            assert isinstance(mem.summarizer, LLMSummarizer)
            s = mem.session("U-1", session_id="s-1", window=3)
            turn = s.add("user", "I moved to Berlin, my phone is 138-0000-1234")
            located = mem.facts.get("U-1", "location")
            assert (located.value, located.provenance) == ("Berlin", (turn.id,))
            # The model missed the phone number; the rules' identifier is kept anyway.
            assert mem.facts.lookup("phone", "13800001234") == ["U-1"]
            closed = s.close()
            assert closed.content.topic == ("moving to Berlin",)
            assert closed.provenance == (turn.id,)
        assert len(stub.chat_requests) == 2


def test_garbage_timeouts_and_errors_fall_back_to_the_rules(monkeypatch, clock, scratch_url):
    monkeypatch.setenv("MEMLANE_LLM_MAX_RETRIES", "1")
    with OpenAIStub() as stub:
        configure(monkeypatch, stub)
        monkeypatch.setenv("MEMLANE_LLM_TIMEOUT", "0.5")
        stub.reply("Sure! Here are the facts: none, I think.", "{not json")  # extraction
        stub.fail(500, times=1).stall(2.0)  # the summary: a 500, then a timeout
        with memlane.Memory(scratch_url, clock=clock, embedder="hash") as mem:
            s = mem.session("U-2", session_id="s-2", window=3)
            s.add("user", "我上周搬到北京了，新手机号 139-1111-2222")
            assert mem.facts.get("U-2", "location").value == "北京"
            assert mem.facts.lookup("phone", "13911112222") == ["U-2"]
            summary = s.close()
            assert summary is not None and "139-1111-2222" in summary.content.as_text()
            assert mem.extractor.stats.fallbacks == 1
            assert mem.summarizer.stats.fallbacks == 1
