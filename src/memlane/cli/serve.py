"""``memlane serve``: the HTTP API (needs the ``server`` extra)."""

from __future__ import annotations

import logging

import click

from memlane.cli import Settings
from memlane.memory import Memory
from memlane.summaries.indexer import indexing_mode
from memlane.timeutil import resolve_timezone


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to bind.")
@click.option("--port", type=int, default=8765, show_default=True, help="Port to listen on.")
@click.option(
    "--max-body",
    type=int,
    default=1024 * 1024,
    show_default=True,
    help="Largest request body in bytes (larger: 413).",
)
@click.option("--log-level", default="info", show_default=True, help="Python log level.")
@click.option(
    "--indexing",
    type=click.Choice(["process", "background"]),
    default="process",
    show_default=True,
    envvar="MEMLANE_INDEXING",
    help="Embed notes in a child process at the lowest CPU priority, or in a thread of the "
    "server; env MEMLANE_INDEXING.",
)
@click.pass_obj
def serve(
    settings: Settings, host: str, port: int, max_body: int, log_level: str, indexing: str
) -> None:
    """Serve the HTTP API at /v1 (OpenAPI at /openapi.json) over the memory at --url.

    Every request needs `Authorization: Bearer <key>`; make keys with `memlane keys create`.
    """
    # Checked now: a bad zone would otherwise make every request a 422 blaming the client.
    timezone = resolve_timezone(settings.timezone)
    try:
        import uvicorn

        from memlane.server.app import create_app
    except ImportError as missing:
        raise click.ClickException(
            f"memlane serve needs the server extra: pip install 'memlane[server]' ({missing})"
        ) from missing
    logging.basicConfig(level=log_level.upper(), format="%(asctime)s %(name)s %(message)s")
    mode = indexing_mode(indexing)
    memory = Memory(settings.url, timezone=timezone, indexing=mode)  # every tenant's scope
    app = create_app(memory=memory, max_body_bytes=max_body)
    # uvicorn's own access log prints paths with query strings (subjects); ours does not.
    uvicorn.run(app, host=host, port=port, access_log=False, log_level=log_level.lower())
