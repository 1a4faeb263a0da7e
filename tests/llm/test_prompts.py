from __future__ import annotations

import json
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from memlane.extract.model import AttributeSpec
from memlane.llm import PROMPT_VERSION, extract_json, prompts, validate
from memlane.llm.replies import ExtractionReply, SummaryReply
from memlane.summaries.model import SummaryContent
from memlane.window.model import Turn

SHANGHAI = ZoneInfo("Asia/Shanghai")
AT = datetime(2026, 3, 10, 1, 0, tzinfo=UTC)  # 09:00 in Shanghai, a Tuesday


def turn(number: int, role: str, content: str) -> Turn:
    return Turn(f"s-42#{number}", "s-42", "U-001", role, content, AT)  # type: ignore[arg-type]


def extraction_prompt() -> prompts.Prompt:
    request = prompts.ExtractionInput(
        text="我上周搬到北京了，新手机号 139-1111-2222",
        at=AT,
        timezone=SHANGHAI,
        attributes=(AttributeSpec("location", "one"), AttributeSpec("phone", "many", True)),
    )
    return prompts.fact_extraction(request)


def all_prompts() -> list[prompts.Prompt]:
    return [
        extraction_prompt(),
        prompts.summary_update(prompts.SummaryInput(None, [turn(1, "user", "hi")])),
        prompts.workflow_description(
            prompts.WorkflowInput("order_refund", [{"action": "validate_order"}])
        ),
    ]


def test_every_prompt_is_versioned() -> None:
    built = all_prompts()
    assert {prompt.name for prompt in built} == set(PROMPT_VERSION)
    for prompt in built:
        assert prompt.version == PROMPT_VERSION[prompt.name] >= 1
        assert prompt.purpose == f"{prompt.name}/v{prompt.version}"
        assert [message["role"] for message in prompt.messages] == ["system", "user"]


def test_shared_rules_are_worded_once_and_used_everywhere() -> None:
    systems = [prompt.messages[0]["content"] for prompt in all_prompts()]
    for fragment in (prompts._JSON_ONLY, prompts._KEEP_LANGUAGE, prompts._GROUNDED):
        assert all(fragment in system for system in systems)


def test_extraction_prompt_carries_statement_time_zone_and_attributes() -> None:
    user = extraction_prompt().messages[1]["content"]
    assert "2026-03-10T09:00+08:00 (Tuesday)" in user
    assert "Asia/Shanghai" in user
    assert "- location: one value at a time" in user
    assert "- phone: several values, identifier" in user
    assert "我上周搬到北京了，新手机号 139-1111-2222" in user


def test_extraction_prompt_without_attributes_asks_for_snake_case() -> None:
    prompt = prompts.fact_extraction(prompts.ExtractionInput("hello", AT, UTC))
    assert "snake_case" in prompt.messages[1]["content"]
    assert "time zone UTC" in prompt.messages[1]["content"]


def test_extraction_example_is_a_valid_answer() -> None:
    system = extraction_prompt().messages[0]["content"]
    example = system.split("Answer: ", 1)[1]
    reply = validate(extract_json(example), ExtractionReply)
    assert [fact.attribute for fact in reply.facts] == ["location", "phone"]


def test_summary_prompt_includes_previous_sections_and_turn_ids() -> None:
    previous = SummaryContent(
        topic=("搬家",), facts=("用户住在上海",), open_items=("确认新地址",), mood=("平静",)
    )
    turns = [turn(3, "user", "我搬到北京了"), turn(4, "assistant", "好的，已记录")]
    prompt = prompts.summary_update(prompts.SummaryInput(previous, turns, SHANGHAI))
    user = prompt.messages[1]["content"]

    shown = json.loads(user.split("Previous summary:\n", 1)[1].split("\n\nNew turns", 1)[0])
    assert shown == {
        "topic": ["搬家"],
        "facts": ["用户住在上海"],
        "open_items": ["确认新地址"],
        "entities": [],
        "mood": ["平静"],
    }
    assert "[s-42#3] 2026-03-10 09:00 user: 我搬到北京了" in user
    assert "[s-42#4] 2026-03-10 09:00 assistant: 好的，已记录" in user
    assert user.index("s-42#3") < user.index("s-42#4")
    system = prompt.messages[0]["content"]
    assert "keep what still holds" in system
    for name in ("topic", "facts", "open_items", "entities", "mood"):
        assert f'"{name}"' in system


@pytest.mark.parametrize("previous", [None, SummaryContent()])
def test_summary_prompt_says_when_there_is_no_previous_summary(
    previous: SummaryContent | None,
) -> None:
    prompt = prompts.summary_update(prompts.SummaryInput(previous, [turn(1, "user", "hi")]))
    assert "(none yet" in prompt.messages[1]["content"]


def test_summary_answer_format_matches_the_schema() -> None:
    system = all_prompts()[1].messages[0]["content"]
    example = system.split("Answer format, each section a list of strings: ", 1)[1]
    assert validate(extract_json(example), SummaryReply) == SummaryReply()


def test_workflow_prompt_lists_steps_and_params() -> None:
    prompt = prompts.workflow_description(
        prompts.WorkflowInput(
            "order_refund",
            [
                {"action": "validate_order", "args": {"order": "{order_id}"}},
                {"action": "issue_refund", "args": {"amount": "{amount}"}},
            ],
            params=("order_id", "amount"),
        )
    )
    user = prompt.messages[1]["content"]
    assert "Task type: order_refund" in user
    assert "Parameters: order_id, amount" in user
    assert '1. {"action": "validate_order", "args": {"order": "{order_id}"}}' in user
    assert "2. " in user
    assert "one paragraph" in prompt.messages[0]["content"]


def test_correction_names_the_problem_and_stays_short() -> None:
    message = prompts.correction("facts[0].op: expected one of set, add")
    assert message["role"] == "user"
    assert "facts[0].op: expected one of set, add" in message["content"]
    assert len(prompts.correction("x" * 10_000)["content"]) < 1000
