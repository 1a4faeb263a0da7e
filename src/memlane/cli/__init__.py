"""The ``memlane`` command: a thin adapter over :class:`memlane.Memory`.

Every command reads the memory location from ``--url`` or ``MEMLANE_URL``; ``--json`` gives
machine output; bad input prints a one-line error and exits non-zero.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import click

from memlane.errors import MemlaneError
from memlane.memory import Memory

__all__ = ["main"]


@dataclass(frozen=True, slots=True)
class Settings:
    """Where the memory lives and how to read it, from the group's options."""

    url: str | None
    tenant: str
    timezone: str

    def open(self) -> Memory:
        """Open the memory these settings name."""
        return Memory(self.url, tenant=self.tenant, timezone=self.timezone)


class MemlaneGroup(click.Group):
    """A group that turns memlane's errors into a one-line message and exit status 1."""

    def invoke(self, ctx: click.Context) -> Any:
        """Run the subcommand, reporting :class:`MemlaneError` without a traceback."""
        try:
            return super().invoke(ctx)
        except MemlaneError as error:
            raise click.ClickException(str(error)) from error


@click.group(cls=MemlaneGroup)
@click.option(
    "--url",
    envvar="MEMLANE_URL",
    default=None,
    help="SQLite file (default ./memlane.db) or sqlite:///path; env MEMLANE_URL.",
)
@click.option("--tenant", envvar="MEMLANE_TENANT", default="default", show_default=True)
@click.option(
    "--timezone",
    envvar="MEMLANE_TIMEZONE",
    default="UTC",
    show_default=True,
    help="How dates and naive times are read and shown.",
)
@click.version_option(package_name="memlane")
@click.pass_context
def cli(ctx: click.Context, url: str | None, tenant: str, timezone: str) -> None:
    """memlane: long-term memory for AI agents."""
    ctx.obj = Settings(url=url, tenant=tenant, timezone=timezone)


def emit_json(payload: Any) -> None:
    """Print ``payload`` as JSON (UTF-8 kept readable)."""
    click.echo(json.dumps(payload, ensure_ascii=False, indent=2))


def _register() -> None:
    from memlane.cli.archive import export_command, import_command
    from memlane.cli.bench import bench
    from memlane.cli.conversation import chat, remember, session
    from memlane.cli.demo import demo
    from memlane.cli.facts import fact
    from memlane.cli.index import index_command
    from memlane.cli.keys import keys
    from memlane.cli.mcp_command import mcp
    from memlane.cli.privacy import forget, purge
    from memlane.cli.recall import recall
    from memlane.cli.serve import serve

    cli.add_command(fact)
    cli.add_command(recall)
    cli.add_command(remember)
    cli.add_command(session)
    cli.add_command(chat)
    cli.add_command(demo)
    cli.add_command(bench)
    cli.add_command(keys)
    cli.add_command(serve)
    cli.add_command(mcp)
    cli.add_command(forget)
    cli.add_command(purge)
    cli.add_command(export_command)
    cli.add_command(import_command)
    cli.add_command(index_command)


_register()


def main() -> None:
    """Entry point of the ``memlane`` console script."""
    cli(prog_name="memlane")
