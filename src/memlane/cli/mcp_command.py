"""``memlane mcp``: the MCP server over stdio, or streamable HTTP (needs the ``mcp`` extra)."""

from __future__ import annotations

import dataclasses
import inspect

import click

from memlane.cli import Settings

SUMMARY = "Serve memlane's tools to an MCP client (stdio, or --http)."
USAGE = (
    "Serve memlane's tools to an MCP client (Claude Desktop, Cursor, any MCP host) over stdio, "
    "or streamable HTTP with --http. The memory comes from --url (or MEMLANE_URL); over stdio "
    "the tenant comes from --tenant (or MEMLANE_TENANT, or memlane's own --tenant), over HTTP "
    "from each request's API key (Authorization: Bearer <key>, as the HTTP API). "
    "See docs/mcp.md."
)


def tool_list() -> list[tuple[str, str]]:
    """Every tool the server registers, with the first line of its description.

    Raises:
        ImportError: the ``mcp`` extra (and the pydantic it brings) is not installed.
    """
    from memlane.server.mcp_server import TOOL_NAMES, MemoryTools

    return [
        (name, (inspect.getdoc(getattr(MemoryTools, name)) or "").splitlines()[0].replace("``", ""))
        for name in TOOL_NAMES
    ]


class ToolListCommand(click.Command):
    """A command whose help ends with the server's tools, read from the server itself."""

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """Write the tool list (or how to install the extra that provides it)."""
        try:
            tools = tool_list()
        except ImportError:
            formatter.write_paragraph()
            formatter.write_text(
                "Tools: install the extra to list them: pip install 'memlane[mcp]'"
            )
            return
        with formatter.section(f"Tools ({len(tools)})"):
            formatter.write_dl(tools)


@click.command("mcp", cls=ToolListCommand, help=USAGE, short_help=SUMMARY)
@click.option("--http", "over_http", is_flag=True, help="Streamable HTTP instead of stdio.")
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface (with --http).")
@click.option("--port", type=int, default=8766, show_default=True, help="Port (with --http).")
@click.option(
    "--tenant",
    default=None,
    help="The tenant whose memory is served over stdio (default: memlane's --tenant or "
    "MEMLANE_TENANT); over --http the key names it.",
)
@click.pass_obj
def mcp(settings: Settings, over_http: bool, host: str, port: int, tenant: str | None) -> None:
    """Serve memlane's tools to an MCP client."""
    try:
        from memlane.server.mcp_server import build_server
    except ImportError as missing:
        raise click.ClickException(
            f"{missing}; the MCP server needs: pip install 'memlane[mcp]'"
        ) from missing
    if over_http:
        if tenant is not None:
            raise click.UsageError("over --http the tenant comes from each request's API key")
        _serve_http(settings, host, port)
        return
    if tenant is not None:
        settings = dataclasses.replace(settings, tenant=tenant)
    with settings.open() as memory:
        try:
            server = build_server(memory)
        except ImportError as missing:
            raise click.ClickException(str(missing)) from missing
        server.run("stdio")


def _serve_http(settings: Settings, host: str, port: int) -> None:
    """Streamable HTTP at /mcp behind the API keys, every tenant over one memory."""
    try:
        import uvicorn

        from memlane.server.mcp_http import mcp_http_app
        from memlane.server.state import ServerState
    except ImportError as missing:
        raise click.ClickException(
            f"{missing}; MCP over HTTP needs: pip install 'memlane[mcp,server]'"
        ) from missing
    state = ServerState(memory=settings.open())
    try:
        app = mcp_http_app(state, host=host)
        uvicorn.run(app, host=host, port=port, access_log=False, log_level="warning")
    finally:
        state.close()
