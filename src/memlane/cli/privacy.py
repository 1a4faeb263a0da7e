"""``memlane forget`` and ``memlane purge``: deletion from the shell."""

from __future__ import annotations

from typing import Any

import click

from memlane.cli import Settings, emit_json
from memlane.cli.declared import declared
from memlane.operations import require_subject
from memlane.operations.catalog import FORGET, PURGE
from memlane.privacy.model import Deletion

UNVERIFIED_EXIT = 3
"""``memlane purge``'s exit status when purged bytes are still found in the files."""


def _deletion(deletion: Deletion) -> dict[str, Any]:
    return {
        "id": deletion.id,
        "subject": deletion.subject,
        "scope": deletion.scope,
        "requested_at": deletion.requested_at.isoformat(),
        "reason": deletion.reason,
        "purge_due": deletion.purge_due.isoformat(),
        "purged_at": None if deletion.purged_at is None else deletion.purged_at.isoformat(),
        "counts": dict(deletion.counts),
    }


@click.command()
@declared(FORGET, arguments=("subject",))
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_obj
def forget(
    settings: Settings, /, subject: str, attribute: str | None, reason: str | None, as_json: bool
) -> None:
    """Logically delete SUBJECT (or one attribute) across every lane, at once.

    A subject nothing is known about is an error (exit 1), and no deletion is logged.
    """
    with settings.open() as mem:
        require_subject(mem, subject)  # as HTTP answers 404: no deletion logged for nobody
        deletion = mem.forget(subject, attribute, reason, requested_by="cli")
    if as_json:
        emit_json(_deletion(deletion))
    else:
        rows = sum(deletion.counts.values())
        click.echo(
            f"forgot {deletion.scope} of {subject}: {rows} rows hidden now; "
            f"bytes purged after {deletion.purge_due:%Y-%m-%d} (or: memlane purge --immediately)"
        )


@click.command()
@declared(PURGE)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_obj
def purge(settings: Settings, /, subject: str | None, immediately: bool, as_json: bool) -> None:
    """Physically remove deleted data past its retention (or all of it, --immediately).

    Then scans the database files for the purged values; exits with status 3 if some are
    still there (a reader holds an old snapshot), naming what holds them.
    """
    with settings.open() as mem:
        report = mem.purge(subject=subject, immediately=immediately)
    if as_json:
        emit_json(
            {
                "deletions": list(report.deletions),
                "rows": report.rows,
                "vacuumed": report.vacuumed,
                "bytes_verified": report.bytes_verified,
                "held": list(report.held),
            }
        )
    elif report.deletions:
        verdict = {True: "verified gone", False: "NOT verified gone", None: "not verifiable"}
        click.echo(
            f"purged {len(report.deletions)} deletion(s), {report.total_rows} rows; "
            f"bytes {verdict[report.bytes_verified]}"
        )
        for reason in report.held:
            click.echo(f"  {reason}")
    else:
        click.echo("nothing due for purge")
    if report.bytes_verified is False:
        # Scripts must notice: the deletions stay due, and a later purge retries them.
        raise SystemExit(UNVERIFIED_EXIT)
