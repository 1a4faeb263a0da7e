from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from memlane.errors import InvalidInput
from memlane.extract.llm import ExtractorStats, LLMExtractor, merge_ops
from memlane.extract.model import AttributeSpec, Extractor, FactOp
from memlane.llm import ChatClient
from tests.llm.conftest import FakeRules
from tests.support.openai_stub import OpenAIStub

SHANGHAI = ZoneInfo("Asia/Shanghai")
AT = datetime(2026, 3, 10, 1, 0, tzinfo=UTC)  # 09:00 in Shanghai
TEXT = "I moved to Berlin last week, call me on 139-1111-2222"


def answer(*facts: dict[str, Any], notes: list[str] | None = None) -> str:
    return json.dumps({"facts": list(facts), "notes": notes or []}, ensure_ascii=False)


def fact(op: str, attribute: str, value: Any, **extra: Any) -> dict[str, Any]:
    return {"op": op, "attribute": attribute, "value": value, **extra}


@pytest.fixture
def extractor(client: ChatClient, rules: FakeRules) -> LLMExtractor:
    return LLMExtractor(client, rules)


def test_is_an_extractor(extractor: LLMExtractor, rules: FakeRules) -> None:
    as_protocol: Extractor = extractor
    assert as_protocol.attributes() == rules.attributes()


def test_valid_answer_becomes_fact_ops(stub: OpenAIStub, extractor: LLMExtractor) -> None:
    stub.reply(
        answer(
            fact("set", "location", "Berlin", valid_from="2026-03-02", evidence="moved to Berlin"),
            fact("add", "phone", "139-1111-2222", valid_from=None, evidence=None),
            fact("set", "Favorite Team", "Chelsea", valid_from="2026-03-09T18:30"),
            notes=["The user moved to Berlin in the week of 2026-03-02.", "  ", "..."],
        )
    )

    result = extractor.extract(TEXT, at=AT, timezone=SHANGHAI)

    location, phone, team = result.ops
    assert location == FactOp(
        kind="set",
        attribute="location",
        value="Berlin",
        # A date is the start of that day in the statement's time zone.
        valid_from=datetime(2026, 3, 1, 16, 0, tzinfo=UTC),
        confidence=0.8,
        evidence="moved to Berlin",
        span=(2, 17),
    )
    assert TEXT[location.span[0] : location.span[1]] == "moved to Berlin"
    assert (phone.kind, phone.attribute, phone.value, phone.valid_from) == (
        "add",
        "phone",
        "139-1111-2222",
        None,
    )
    assert team.attribute == "favorite_team"
    assert team.valid_from == datetime(2026, 3, 9, 10, 30, tzinfo=UTC)
    assert result.notes == ("The user moved to Berlin in the week of 2026-03-02.",)
    # Mentions come from the rules; the model is not asked for them.
    assert [mention.value for mention in result.mentions] == ["13911112222"]
    assert extractor.stats == ExtractorStats(calls=1, llm_answers=1)


def test_prompt_offers_the_fallback_attributes(stub: OpenAIStub, extractor: LLMExtractor) -> None:
    stub.reply(answer())

    extractor.extract(TEXT, at=AT, timezone=SHANGHAI)

    user = stub.chat_requests[0].messages[1]["content"]
    assert "- phone: several values, identifier" in user
    assert "- location: one value at a time" in user
    assert TEXT in user
    assert "2026-03-10T09:00+08:00" in user


def test_rule_identifiers_the_model_missed_are_kept(
    stub: OpenAIStub, extractor: LLMExtractor
) -> None:
    stub.reply(answer(fact("set", "location", "Berlin")))

    result = extractor.extract(TEXT, at=AT, timezone=SHANGHAI)

    assert [(op.attribute, op.value) for op in result.ops] == [
        ("location", "Berlin"),
        ("phone", "139-1111-2222"),
    ]
    assert extractor.stats.rule_ops_added == 1


def test_identifier_found_by_both_is_not_doubled(stub: OpenAIStub, extractor: LLMExtractor) -> None:
    stub.reply(answer(fact("add", "phone", "13911112222"), fact("set", "location", "Berlin")))

    result = extractor.extract(TEXT, at=AT, timezone=SHANGHAI)

    assert [op.attribute for op in result.ops] == ["phone", "location"]
    assert extractor.stats.rule_ops_added == 0


def test_model_reading_wins_on_a_non_identifier_attribute(
    stub: OpenAIStub, extractor: LLMExtractor
) -> None:
    stub.reply(answer(fact("set", "location", "Berlin, Germany")))

    result = extractor.extract("I moved to Berlin", at=AT, timezone=SHANGHAI)

    assert [(op.attribute, op.value) for op in result.ops] == [("location", "Berlin, Germany")]


def test_rule_facts_on_attributes_the_model_ignored_are_kept(
    stub: OpenAIStub, extractor: LLMExtractor
) -> None:
    stub.reply(answer(fact("set", "favorite_team", "Chelsea")))

    result = extractor.extract("I moved to Berlin", at=AT, timezone=SHANGHAI)

    assert [(op.attribute, op.value) for op in result.ops] == [
        ("favorite_team", "Chelsea"),
        ("location", "Berlin"),
    ]


def test_cardinality_decides_between_set_and_add(stub: OpenAIStub, extractor: LLMExtractor) -> None:
    stub.reply(
        answer(
            fact("SET", "phone", "139-1111-2222"),
            fact("add", "location", "Berlin"),
            fact("retract", "phone", "138-0000-1234"),
            fact("add", "hobby", "chess"),
        )
    )

    ops = extractor.extract(TEXT, at=AT, timezone=SHANGHAI).ops

    assert [(op.kind, op.attribute) for op in ops] == [
        ("add", "phone"),
        ("set", "location"),
        ("retract", "phone"),
        ("add", "hobby"),
    ]


def test_invalid_fact_is_sent_back_and_corrected(
    stub: OpenAIStub, extractor: LLMExtractor, client: ChatClient
) -> None:
    stub.reply(
        answer(fact("set", "location", "Berlin", valid_from="last week")),
        answer(fact("set", "location", "Berlin", valid_from="2026-03-02")),
    )

    ops = extractor.extract(TEXT, at=AT, timezone=SHANGHAI).ops

    assert ops[0].valid_from == datetime(2026, 3, 1, 16, 0, tzinfo=UTC)
    problem = stub.chat_requests[1].messages[-1]["content"]
    assert "facts[0].valid_from" in problem
    assert "ISO-8601" in problem
    assert client.stats.invalid_outputs == 1


@pytest.mark.parametrize(
    ("bad_fact", "path"),
    [
        (fact("update", "location", "Berlin"), "facts[0].op"),
        (fact("set", "住在哪里", "Berlin"), "facts[0].attribute"),
        (fact("set", "location", None), "facts[0].value"),
        (fact("add", "phone", "  "), "facts[0].value"),
        ({"op": "set", "value": "Berlin"}, "facts[0]"),
        ("location=Berlin", "facts[0]"),
    ],
)
def test_malformed_facts_are_rejected_with_their_path(
    stub: OpenAIStub, extractor: LLMExtractor, bad_fact: Any, path: str
) -> None:
    stub.reply(answer(bad_fact), answer(fact("set", "location", "Berlin")))

    extractor.extract(TEXT, at=AT, timezone=SHANGHAI)

    assert f"{path}" in stub.chat_requests[1].messages[-1]["content"]
    assert extractor.stats.llm_answers == 1


@pytest.mark.parametrize("no_time", [None, "", "null", "unknown"])
def test_missing_valid_from_means_from_now(
    stub: OpenAIStub, extractor: LLMExtractor, no_time: str | None
) -> None:
    stub.reply(answer(fact("set", "location", "Berlin", valid_from=no_time)))

    [op, _] = extractor.extract(TEXT, at=AT, timezone=SHANGHAI).ops

    assert op.valid_from is None


def test_retract_may_omit_the_value(stub: OpenAIStub, extractor: LLMExtractor) -> None:
    stub.reply(answer({"op": "retract", "attribute": "location"}))

    ops = extractor.extract("I no longer live in Berlin", at=AT, timezone=SHANGHAI).ops

    assert [(op.kind, op.attribute, op.value) for op in ops] == [("retract", "location", None)]


def test_garbage_every_time_falls_back_to_rules_with_the_identifier(
    stub: OpenAIStub,
    extractor: LLMExtractor,
    rules: FakeRules,
    client: ChatClient,
    caplog: pytest.LogCaptureFixture,
) -> None:
    stub.reply("The user moved.", "{'facts': []}", '{"facts": "none"}')
    caplog.set_level(logging.WARNING, logger="memlane.llm")

    result = extractor.extract(TEXT, at=AT, timezone=SHANGHAI)

    assert result == rules.extract(TEXT, at=AT, timezone=SHANGHAI)
    assert ("phone", "139-1111-2222") in [(op.attribute, op.value) for op in result.ops]
    assert extractor.stats == ExtractorStats(calls=1, fallbacks=1)
    assert client.stats.invalid_outputs == 3
    assert any("rule-based result alone" in record.getMessage() for record in caplog.records)
    assert all(TEXT not in record.getMessage() for record in caplog.records)


def test_unreachable_or_refusing_server_falls_back(
    stub: OpenAIStub, extractor: LLMExtractor, rules: FakeRules
) -> None:
    stub.fail(401, "no key")

    result = extractor.extract(TEXT, at=AT, timezone=SHANGHAI)

    assert result == rules.extract(TEXT, at=AT, timezone=SHANGHAI)
    assert extractor.stats.fallbacks == 1


def test_notes_fall_back_to_the_rules_when_the_model_has_none(
    stub: OpenAIStub, extractor: LLMExtractor
) -> None:
    stub.reply(answer(fact("set", "location", "Berlin")))

    assert extractor.extract(TEXT, at=AT, timezone=SHANGHAI).notes == (TEXT,)


def test_blank_text_does_not_call_the_model(
    stub: OpenAIStub, extractor: LLMExtractor, rules: FakeRules
) -> None:
    assert extractor.extract("   ", at=AT, timezone=SHANGHAI) == rules.extract(
        "   ", at=AT, timezone=SHANGHAI
    )
    assert stub.chat_requests == []


def test_repeated_model_facts_are_deduplicated(stub: OpenAIStub, extractor: LLMExtractor) -> None:
    stub.reply(answer(fact("add", "phone", "139-1111-2222"), fact("add", "phone", "13911112222")))

    ops = extractor.extract("call me on 139-1111-2222", at=AT, timezone=SHANGHAI).ops

    assert [op.value for op in ops] == ["139-1111-2222"]


def test_confidence_is_checked(client: ChatClient, rules: FakeRules) -> None:
    with pytest.raises(InvalidInput):
        LLMExtractor(client, rules, confidence=1.5)


def test_merge_ops_unions_identifiers_by_normalized_value() -> None:
    specs = {
        "email": AttributeSpec("email", "many", identifier=True),
        "location": AttributeSpec("location", "one"),
    }
    llm = [FactOp("add", "email", "Bob@Example.com"), FactOp("set", "location", "Paris")]
    rules = [
        FactOp("add", "email", "bob@example.com"),
        FactOp("add", "email", "alice@example.com"),
        FactOp("set", "location", "paris"),
    ]

    merged, added = merge_ops(llm, rules, specs)

    assert [op.value for op in merged] == ["Bob@Example.com", "Paris", "alice@example.com"]
    assert added == 1
