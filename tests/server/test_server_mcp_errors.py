"""MCP tool errors: bad input is a tool error naming the field, and no traceback is logged."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp")

from mcp import Client

import memlane
from memlane.server.mcp_server import build_server
from tests.conftest import FakeClock

BAD_CALLS = [
    ("get_fact", {"subject": "U-TRAIL ", "attribute": "location"}, "subject", "white space"),
    ("get_fact", {"subject": "U-1", "attribute": "loc\x00"}, "attribute", "control characters"),
    ("get_fact", {"subject": "U-1", "attribute": "location", "valid_at": "soon"}, "valid_at", ""),
    (
        "fact_history",
        {"subject": "U-1", "attribute": "city", "known_at": "0001-01-01T00:00:00+14:00"},
        "known_at",
        "out of range",
    ),
    ("remember", {"subject": "U-TRAIL ", "text": "I moved to Berlin"}, "subject", "white space"),
    ("remember", {"subject": "U-1", "text": "x\x00y"}, "text", "control characters"),
    ("remember", {"subject": "U-1", "text": "hi", "at": "0001-01-01"}, "at", "out of range"),
    ("forget", {"subject": "U" * 513}, "subject", "longer than 512"),
    ("recall", {"query": "where?", "subject": " U-1"}, "subject", ""),
    ("record_trajectory", {"task": " ", "steps": [], "success": True}, "task", "empty"),
]


def _call_all(memory: memlane.Memory) -> list[Any]:
    async def run() -> list[Any]:
        async with Client(build_server(memory)) as client:
            return [await client.call_tool(tool, arguments) for tool, arguments, *_ in BAD_CALLS]

    return anyio.run(run)


def test_invalid_input_is_a_tool_error_naming_the_field(caplog: pytest.LogCaptureFixture) -> None:
    clock = FakeClock(datetime(2026, 3, 2, tzinfo=UTC))
    with memlane.Memory(":memory:", clock=clock, embedder="hash") as memory:
        with caplog.at_level(logging.DEBUG):
            results = _call_all(memory)
        assert memory.summaries.notes("U-1") == []
    for result, (tool, _, field, says) in zip(results, BAD_CALLS, strict=True):
        assert result.is_error, tool
        text = result.content[0].text
        assert f"{field}: " in text, (tool, text)
        assert says in text, (tool, text)
        assert text != f"Error executing tool {tool}"
    # A client's mistake is no crash: nothing logged with a traceback, nothing at ERROR.
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]


def test_no_traceback_on_stderr_over_stdio(tmp_path: Path) -> None:
    from mcp.client.stdio import StdioServerParameters

    db = tmp_path / "mcp.db"
    params = StdioServerParameters(
        command=sys.executable,
        args=["-c", "from memlane.cli import main; main()", "--url", str(db), "mcp"],
        # The memlane under test, also when it is not the installed one.
        env={"PYTHONWARNINGS": "ignore", "PYTHONPATH": os.environ.get("PYTHONPATH", "")},
    )
    stderr = tmp_path / "stderr.txt"

    async def run() -> Any:
        from mcp.client.stdio import stdio_client

        with stderr.open("w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write):
                from mcp import ClientSession

                async with ClientSession(read, write) as session:
                    await session.initialize()
                    return await session.call_tool(
                        "get_fact", {"subject": "U-TRAIL ", "attribute": "location"}
                    )

    result = anyio.run(run)
    assert result.is_error
    assert "subject: must not start or end with white space" in result.content[0].text
    assert "Traceback" not in stderr.read_text()


def test_serve_refuses_an_unknown_time_zone_at_start(tmp_path: Path) -> None:
    pytest.importorskip("uvicorn")
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from memlane.cli import main; main()",
            "--url",
            str(tmp_path / "s.db"),
            "--timezone",
            "Mars/Olympus_Mons",
            "serve",
            "--port",
            "1",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    assert "timezone" in done.stderr and "Mars/Olympus_Mons" in done.stderr
    assert "Traceback" not in done.stderr
