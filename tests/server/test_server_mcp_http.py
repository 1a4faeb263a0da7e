"""MCP over streamable HTTP behind the API keys, driven by the SDK's client over real HTTP."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

pytest.importorskip("mcp")
pytest.importorskip("uvicorn")

from mcp import Client
from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client

import memlane
from memlane.server.mcp_http import MCP_PATH, mcp_http_app
from memlane.server.state import ServerState
from tests.support.services import serving


@dataclass
class Served:
    url: str
    keys: dict[str, str]  # "tenant/role" -> key
    db: Path


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    db = tmp_path / "mcp-http.db"
    state = ServerState(memory=memlane.Memory(db, embedder="hash"))
    keys = {
        f"{tenant}/{role}": state.keys.create(tenant, role)[1]
        for tenant, role in [("acme", "agent"), ("acme", "compliance"), ("globex", "agent")]
    }
    try:
        with serving(mcp_http_app(state)) as base:
            yield Served(f"{base}{MCP_PATH}", keys, db)
    finally:
        state.close()


@asynccontextmanager
async def client(served: Served, who: str) -> AsyncIterator[Client]:
    headers = {"Authorization": f"Bearer {served.keys[who]}"}
    async with create_mcp_http_client(headers=headers) as http:
        transport = streamable_http_client(served.url, http_client=http)
        async with Client(transport, read_timeout_seconds=60) as connected:
            yield connected


def payload(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    if isinstance(result.structured_content, dict):
        data = result.structured_content
        return data.get("result", data) if set(data) == {"result"} else data
    loaded: dict[str, Any] = json.loads(result.content[0].text)
    return loaded


def error_text(result: Any) -> str:
    assert result.is_error
    return str(result.content[0].text)


@pytest.mark.parametrize(
    "authorization", [None, "Bearer nonsense", "Bearer ml_000000000000_" + "x" * 43, "Basic x"]
)
def test_no_valid_key_no_mcp(served: Served, authorization: str | None) -> None:
    headers = {"Accept": "application/json, text/event-stream"}
    if authorization is not None:
        headers["Authorization"] = authorization
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    answer = httpx.post(served.url, json=message, headers=headers, timeout=10)
    assert answer.status_code == 401
    assert answer.headers["www-authenticate"] == "Bearer"
    assert answer.json()["error"]["code"] == "unauthorized"


def test_the_key_names_the_tenant(served: Served) -> None:
    async def run() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
        fact = {"subject": "U-1", "attribute": "location", "value": "Oslo"}
        asked = {"subject": "U-1", "attribute": "location"}
        async with client(served, "acme/agent") as acme, client(served, "globex/agent") as globex:
            await acme.call_tool("set_fact", fact)
            await globex.call_tool("set_fact", {**fact, "value": "Lima"})
            mine = payload(await acme.call_tool("get_fact", asked))
            theirs = payload(await globex.call_tool("get_fact", asked))
            unknown = payload(await globex.call_tool("get_fact", {**asked, "subject": "U-2"}))
        return mine, theirs, unknown

    mine, theirs, unknown = anyio.run(run)
    assert [f["value"] for f in mine["facts"]] == ["Oslo"]
    assert [f["value"] for f in theirs["facts"]] == ["Lima"]
    assert unknown["facts"] == []
    with memlane.Memory(served.db, tenant="acme") as acme:
        assert acme.facts.get("U-1", "location").value == "Oslo"


def test_forget_needs_the_compliance_role_and_a_known_subject(served: Served) -> None:
    async def run() -> tuple[str, str, dict[str, Any]]:
        async with (
            client(served, "acme/agent") as agent,
            client(served, "acme/compliance") as officer,
        ):
            await agent.call_tool("remember", {"subject": "U-1", "text": "I live in Oslo"})
            refused = error_text(await agent.call_tool("forget", {"subject": "U-1"}))
            unknown = error_text(await officer.call_tool("forget", {"subject": "U-404"}))
            done = payload(await officer.call_tool("forget", {"subject": "U-1"}))
        return refused, unknown, done

    refused, unknown, done = anyio.run(run)
    assert refused.endswith(": the agent role may not do this")
    assert "subject:" in unknown
    officer_id = served.keys["acme/compliance"].split("_")[1]
    assert done["deletion"]["requested_by"] == f"key:{officer_id}"
    with memlane.Memory(served.db, tenant="acme") as acme:
        logged = acme.views.compliance()
    assert [d.subject for d in logged] == ["U-1"]  # nothing logged for U-404


def test_the_http_command_takes_the_tenant_from_keys_only(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from memlane.cli import cli

    db = str(tmp_path / "x.db")
    result = CliRunner().invoke(cli, ["--url", db, "mcp", "--http", "--tenant", "acme"])
    assert result.exit_code == 2
    assert "API key" in result.output
