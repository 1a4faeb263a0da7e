"""``memlane recall``: ask the router from the shell and see its plan."""

from __future__ import annotations

from typing import Any

import click

from memlane.cli import Settings, emit_json
from memlane.cli.declared import declared
from memlane.cli.render import table
from memlane.operations.catalog import RECALL
from memlane.router.model import Recall


@click.command("recall")
@declared(
    RECALL,
    arguments=("subject", "query"),
    spelt={"session_id": "--session", "budget_tokens": "--budget", "include_stale": "--no-stale"},
)
@click.option("--text", "show_text", is_flag=True, help="Print only the rendered block.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_obj
def recall(settings: Settings, /, show_text: bool, as_json: bool, **arguments: Any) -> None:
    """Recall what memory holds on QUERY about SUBJECT ("-": resolve it from the query).

    Prints the ranked items and the plan: which lanes were asked, why, and how long each
    took. Sessions live in the process that runs them, so --session only finds one when
    memlane is embedded in that process.
    """
    with settings.open() as mem:
        result = mem.recall(**arguments)
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
