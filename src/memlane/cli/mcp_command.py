"""``memlane mcp``: the MCP server over stdio, or streamable HTTP (needs the ``mcp`` extra)."""

from __future__ import annotations

import click

from memlane.cli import Settings


@click.command("mcp")
@click.option("--http", "over_http", is_flag=True, help="Streamable HTTP instead of stdio.")
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface (with --http).")
@click.option("--port", type=int, default=8766, show_default=True, help="Port (with --http).")
@click.pass_obj
def mcp(settings: Settings, over_http: bool, host: str, port: int) -> None:
    """Serve memlane's tools to an MCP client: remember, recall, get_fact, fact_history, forget.

    The tenant comes from --tenant (or MEMLANE_TENANT), the memory from --url (or MEMLANE_URL).
    """
    try:
        from memlane.server.mcp_server import build_server
    except ImportError as missing:  # pragma: no cover - the module itself imports lazily
        raise click.ClickException(str(missing)) from missing
    with settings.open() as memory:
        try:
            server = build_server(memory)
        except ImportError as missing:
            raise click.ClickException(str(missing)) from missing
        if over_http:
            server.run("streamable-http", host=host, port=port)
        else:
            server.run("stdio")
