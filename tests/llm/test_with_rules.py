"""The LLM extractor on top of the real rule-based extractor (skipped until it exists)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from memlane.extract.llm import LLMExtractor
from memlane.llm import ChatClient
from tests.support.openai_stub import OpenAIStub

rules_module = pytest.importorskip("memlane.extract.rules")

SHANGHAI = ZoneInfo("Asia/Shanghai")
AT = datetime(2026, 3, 10, 1, 0, tzinfo=UTC)
TEXT = "我上周搬到北京了，新手机号 139-1111-2222"


def phones(extractor: LLMExtractor) -> list[str]:
    ops = extractor.extract(TEXT, at=AT, timezone=SHANGHAI).ops
    return [op.value for op in ops if op.attribute == "phone"]


def test_model_garbage_falls_back_to_rules_keeping_the_phone(
    stub: OpenAIStub, client: ChatClient
) -> None:
    rules = rules_module.RuleExtractor()
    stub.reply("用户搬家了", "facts: none", "{'facts': []}")
    extractor = LLMExtractor(client, rules)

    assert extractor.extract(TEXT, at=AT, timezone=SHANGHAI) == rules.extract(
        TEXT, at=AT, timezone=SHANGHAI
    )
    assert extractor.stats.fallbacks == 1
    stub.reply("still garbage", "and again", "and again")
    assert phones(extractor) == ["139-1111-2222"]


def test_phone_the_model_missed_is_added_from_the_rules(
    stub: OpenAIStub, client: ChatClient
) -> None:
    location = {"op": "set", "attribute": "location", "value": "北京", "valid_from": "2026-03-02"}
    stub.reply(json.dumps({"facts": [location], "notes": ["用户搬到了北京。"]}))
    extractor = LLMExtractor(client, rules_module.RuleExtractor())

    result = extractor.extract(TEXT, at=AT, timezone=SHANGHAI)

    assert [(op.attribute, op.value) for op in result.ops] == [
        ("location", "北京"),
        ("phone", "139-1111-2222"),
    ]
    assert result.ops[0].valid_from == datetime(2026, 3, 1, 16, 0, tzinfo=UTC)
    assert result.notes == ("用户搬到了北京。",)
    assert any(mention.kind == "phone" for mention in result.mentions)
