"""``memlane recall``: ask the router from the shell and see its plan."""

from __future__ import annotations

import click

from memlane.cli import Settings, emit_json
from memlane.cli.render import table
from memlane.router.model import Recall

ANY_SUBJECT = "-"


@click.command("recall")
@click.argument("subject")
@click.argument("query")
@click.option("--session", "session_id", default=None, help="A running session's id.")
@click.option("--k", type=int, default=8, show_default=True, help="At most this many items.")
@click.option(
    "--budget", type=int, default=1500, show_default=True, help="Token budget of the text."
)
@click.option("--valid-at", default=None, help="Valid-time instant (default now).")
@click.option("--known-at", default=None, help="Recall what was believed at this instant.")
@click.option("--no-stale", is_flag=True, help="Leave outdated statements out.")
@click.option("--text", "show_text", is_flag=True, help="Print only the rendered block.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_obj
def recall(
    settings: Settings,
    subject: str,
    query: str,
    session_id: str | None,
    k: int,
    budget: int,
    valid_at: str | None,
    known_at: str | None,
    no_stale: bool,
    show_text: bool,
    as_json: bool,
) -> None:
    """Recall what memory holds on QUERY about SUBJECT ("-": resolve it from the query).

    Prints the ranked items and the plan: which lanes were asked, why, and how long each
    took. Sessions live in the process that runs them, so --session only finds one when
    memlane is embedded in that process.
    """
    with settings.open() as mem:
        result = mem.recall(
            None if subject == ANY_SUBJECT else subject,
            query,
            session_id,
            k,
            budget,
            valid_at,
            known_at,
            include_stale=not no_stale,
        )
    if as_json:
        emit_json(result.to_dict())
    elif show_text:
        click.echo(result.text or "(nothing recalled)")
    else:
        click.echo(describe(result))


def describe(result: Recall) -> str:
    """Items and plan as two tables."""
    rows = [
        [str(rank), item.lane, item.status, f"{item.score:.2f}", item.text]
        for rank, item in enumerate(result.items, 1)
    ]
    items = table(["#", "lane", "status", "score", "item"], rows) if rows else "(no items)"
    plan = table(
        ["lane", "asked", "ms", "why"],
        [
            [step.lane, "yes" if step.asked else "no", f"{step.ms:.1f}", step.reason]
            for step in result.plan
        ],
    )
    return f"{items}\n\n{plan}"
