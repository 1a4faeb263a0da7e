"""The MCP server, driven by the SDK's own client over stdio."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp")

from mcp import Client
from mcp.client.stdio import StdioServerParameters

import memlane
from memlane.server.mcp_server import TOOL_NAMES

# The server runs the memlane the tests import (a checkout's sources, when on PYTHONPATH).
_ENV = {"PYTHONWARNINGS": "ignore", "PYTHONPATH": os.environ.get("PYTHONPATH", "")}


_MAIN = ["-c", "from memlane.cli import main; main()"]


def _server(db: Path, tenant: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=[
            "-c",
            "from memlane.cli import main; main()",
            "--url",
            str(db),
            "--tenant",
            tenant,
            "mcp",
        ],
        env=_ENV,
    )


def _payload(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    if isinstance(result.structured_content, dict):
        data = result.structured_content
        return data.get("result", data) if set(data) == {"result"} else data
    return json.loads(result.content[0].text)


def test_remember_then_recall_over_stdio(tmp_path: Path) -> None:
    db = tmp_path / "mcp.db"

    async def session() -> dict[str, Any]:
        async with Client(_server(db, "acme"), read_timeout_seconds=60) as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            assert names == set(TOOL_NAMES)  # the names themselves: test_server_mcp_tools
            for order in ("ORD-1", "ORD-2"):
                steps = [
                    {"action": "validate_order", "args": {"order": order}},
                    {"action": "issue_refund", "args": {"order": order}},
                ]
                recorded = _payload(
                    await client.call_tool(
                        "record_trajectory",
                        {
                            "task": f"Refund order {order}",
                            "task_type": "order_refund",
                            "steps": steps,
                            "success": True,
                        },
                    )
                )
                assert recorded["trajectory"]["task_type"] == "order_refund"
            found = _payload(
                await client.call_tool("find_workflow", {"task": "please refund my order"})
            )
            assert found["workflows"][0]["workflow"]["task_type"] == "order_refund"
            assert "issue_refund" in found["workflows"][0]["instructions"]
            remember = await client.call_tool(
                "remember", {"subject": "U-7", "text": "I moved to Berlin last week"}
            )
            assert _payload(remember)["note"]["subject"] == "U-7"
            fact = _payload(
                await client.call_tool("get_fact", {"subject": "U-7", "attribute": "location"})
            )
            assert [f["value"] for f in fact["facts"]] == ["Berlin"]
            bad = await client.call_tool(
                "get_fact", {"subject": "U-7", "attribute": "location", "valid_at": "never"}
            )
            assert bad.is_error
            return _payload(
                await client.call_tool(
                    "recall", {"subject": "U-7", "query": "where does the user live?"}
                )
            )

    recalled = anyio.run(session)
    assert "Berlin" in recalled["text"]
    assert recalled["subjects"] == ["U-7"]
    # The tools wrote to the tenant named on the command line, and only to it.
    with memlane.Memory(db, tenant="acme") as mem:
        assert mem.facts.get("U-7", "location").value == "Berlin"
    with memlane.Memory(db, tenant="other") as mem:
        assert mem.facts.get("U-7", "location") is None


def test_tenant_option_of_the_mcp_command_as_the_readme_writes_it(tmp_path: Path) -> None:
    db = tmp_path / "mcp.db"
    server = StdioServerParameters(
        command=sys.executable,
        args=[*_MAIN, "--url", str(db), "mcp", "--tenant", "acme"],
        env=_ENV,
    )

    async def session() -> dict[str, Any]:
        async with Client(server, read_timeout_seconds=60) as client:
            return _payload(
                await client.call_tool(
                    "set_fact", {"subject": "U-8", "attribute": "location", "value": "Oslo"}
                )
            )

    assert anyio.run(session)["fact"]["value"] == "Oslo"
    with memlane.Memory(db, tenant="acme") as mem:
        assert mem.facts.get("U-8", "location").value == "Oslo"
    with memlane.Memory(db) as mem:
        assert mem.facts.get("U-8", "location") is None


def test_build_server_names_the_extra_when_the_sdk_is_missing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from memlane.server.mcp_server import build_server

    monkeypatch.setitem(sys.modules, "mcp.server.mcpserver", None)
    with memlane.Memory(":memory:") as mem, pytest.raises(ImportError, match=r"memlane\[mcp\]"):
        build_server(mem)
