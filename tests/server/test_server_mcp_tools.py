"""The MCP tools for every agent-level operation, in process, and ``memlane mcp --help``."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp")

from click.testing import CliRunner
from mcp import Client

import memlane
from memlane.cli import cli
from memlane.server.mcp_server import TOOL_NAMES, build_server
from tests.conftest import FakeClock


def _payload(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    data = result.structured_content
    if isinstance(data, dict):
        return data.get("result", data) if set(data) == {"result"} else data
    return json.loads(result.content[0].text)


def _calls(memory: memlane.Memory, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    async def run() -> list[Any]:
        async with Client(build_server(memory)) as client:
            return [await client.call_tool(tool, arguments) for tool, arguments in calls]

    return anyio.run(run)


@pytest.fixture
def memory() -> Any:
    clock = FakeClock(datetime(2026, 3, 2, tzinfo=UTC))
    with memlane.Memory(":memory:", clock=clock, embedder="hash") as mem:
        mem.facts.define("phone", cardinality="many", identifier=True)
        yield mem


def test_the_server_offers_every_tool_it_names(memory: memlane.Memory) -> None:
    async def names() -> list[str]:
        async with Client(build_server(memory)) as client:
            return [tool.name for tool in (await client.list_tools()).tools]

    offered = anyio.run(names)
    assert sorted(offered) == sorted(TOOL_NAMES)
    assert {"set_fact", "add_fact", "lookup", "add_turn", "close_session"} <= set(offered)


def test_help_lists_every_tool_of_the_server() -> None:
    result = CliRunner().invoke(cli, ["mcp", "--help"])
    assert result.exit_code == 0, result.output
    listed = result.output.split(f"Tools ({len(TOOL_NAMES)}):")[1]
    for name in TOOL_NAMES:
        assert f"\n  {name} " in listed, name
    assert "--tenant" in result.output


def test_set_add_get_lookup(memory: memlane.Memory) -> None:
    results = _calls(
        memory,
        [
            ("set_fact", {"subject": "U-1", "attribute": "location", "value": "Oslo"}),
            (
                "set_fact",
                {
                    "subject": "U-1",
                    "attribute": "location",
                    "value": "Bergen",
                    "valid_from": "2026-02-01",
                    "reason": "moved",
                },
            ),
            ("add_fact", {"subject": "U-1", "attribute": "phone", "value": "138-0000-1234"}),
            ("add_fact", {"subject": "U-1", "attribute": "phone", "value": "139-0000-1234"}),
            ("set_fact", {"subject": "U-1", "attribute": "prefs", "value": {"seat": "aisle"}}),
            ("get_fact", {"subject": "U-1", "attribute": "phone"}),
            ("lookup", {"attribute": "phone", "value": "13800001234"}),
            ("lookup", {"attribute": "phone", "value": "13800001235"}),
        ],
    )
    first, moved, *_, prefs, phones, found, missed = [_payload(r) for r in results]
    assert first["fact"]["value"] == "Oslo" and "warning" not in first
    assert moved["fact"]["reason"] == "moved"
    assert prefs["fact"]["value"] == {"seat": "aisle"}
    assert sorted(f["value"] for f in phones["facts"]) == ["138-0000-1234", "139-0000-1234"]
    assert found == {"subjects": ["U-1"]} and missed == {"subjects": []}
    # The later write covers now too; the earlier one is kept as a version, not overwritten.
    assert memory.facts.get("U-1", "location").value == "Bergen"
    assert "Oslo" in [f.value for f in memory.facts.audit("U-1", "location")]


def test_a_likely_typo_is_named_in_a_warning(memory: memlane.Memory) -> None:
    memory.facts.set("U-1", "location", "Oslo")
    typo, again, read = [
        _payload(r)
        for r in _calls(
            memory,
            [
                ("set_fact", {"subject": "U-2", "attribute": "locaton", "value": "Rome"}),
                ("set_fact", {"subject": "U-3", "attribute": "locaton", "value": "Rome"}),
                ("get_fact", {"subject": "U-1", "attribute": "locatoin"}),
            ],
        )
    ]
    assert "'location'" in typo["warning"] and "'locaton'" in typo["warning"]
    assert "warning" not in again  # used once, it is an attribute of the tenant now
    assert read["facts"] == [] and "'location'" in read["warning"]


def test_add_turn_then_close_session(memory: memlane.Memory) -> None:
    turn, _, closed, again = _calls(
        memory,
        [
            (
                "add_turn",
                {
                    "subject": "U-5",
                    "session_id": "s-1",
                    "role": "user",
                    "content": "I moved to Lisbon",
                },
            ),
            (
                "add_turn",
                {"subject": "U-5", "session_id": "s-1", "role": "assistant", "content": "Noted."},
            ),
            ("close_session", {"subject": "U-5", "session_id": "s-1"}),
            ("close_session", {"subject": "U-5", "session_id": "s-1"}),
        ],
    )
    assert _payload(turn)["turn"]["id"] == "s-1#1"
    assert memory.facts.get("U-5", "location").value == "Lisbon"
    summary = _payload(closed)["summary"]
    assert summary["session_id"] == "s-1" and set(summary["provenance"]) == {"s-1#1", "s-1#2"}
    assert memory.summaries.storyline("U-5") is not None
    assert again.is_error and "session_id: no running session" in again.content[0].text


BAD_CALLS = [
    ("set_fact", {"subject": "U-1 ", "attribute": "city", "value": "x"}, "subject", "white space"),
    (
        "set_fact",
        {"subject": "U-1", "attribute": "city", "value": "x", "valid_from": "soon"},
        "valid_from",
        "",
    ),
    ("add_fact", {"subject": "U-1", "attribute": "city", "value": "x"}, "attribute", "one-valued"),
    ("lookup", {"attribute": "", "value": "1"}, "attribute", "empty"),
    (
        "add_turn",
        {"subject": "U-1", "session_id": "s 1 ", "role": "user", "content": "hi"},
        "session_id",
        "white space",
    ),
    (
        "add_turn",
        {"subject": "U-1", "session_id": "s-1", "role": "user", "content": " "},
        "content",
        "empty",
    ),
    ("close_session", {"subject": "U-1", "session_id": "s-9"}, "session_id", "no running session"),
    ("forget", {"subject": "NOBODY"}, "subject", "nothing is known"),
]


def test_bad_arguments_name_the_field(memory: memlane.Memory) -> None:
    results = _calls(memory, [(tool, arguments) for tool, arguments, *_ in BAD_CALLS])
    for result, (tool, _, field, says) in zip(results, BAD_CALLS, strict=True):
        assert result.is_error, tool
        text = result.content[0].text
        assert f"{field}: " in text and says in text, (tool, text)
    assert memory.views.compliance() == []  # forget of an unknown subject logged nothing
    assert memory.running_session("U-1", "s-1") is None  # a failed first turn opened nothing


def test_docs_list_every_tool() -> None:
    from pathlib import Path

    doc = (Path(__file__).parents[2] / "docs" / "mcp.md").read_text(encoding="utf-8")
    table = [line.split("|")[1].strip(" `") for line in doc.splitlines() if line.startswith("| `")]
    assert table == list(TOOL_NAMES)


def test_help_without_the_extra_says_how_to_get_the_tools(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "memlane.server.mcp_server", None)
    result = CliRunner().invoke(cli, ["mcp", "--help"])
    assert result.exit_code == 0, result.output
    assert "pip install 'memlane[mcp]'" in result.output and "--tenant" in result.output


def test_schema_errors_name_the_field_and_what_is_expected(memory: memlane.Memory) -> None:
    role, confidence = _calls(
        memory,
        [
            ("add_turn", {"subject": "U-1", "session_id": "s-1", "role": "robot", "content": "hi"}),
            ("set_fact", {"subject": "U-1", "attribute": "a", "value": 1, "confidence": 2}),
        ],
    )
    assert role.is_error and confidence.is_error
    assert "role" in role.content[0].text and "'user', 'assistant'" in role.content[0].text
    assert "confidence" in confidence.content[0].text
    assert "less than or equal to 1" in confidence.content[0].text
    assert memory.running_session("U-1", "s-1") is None and memory.facts.audit("U-1") == []
