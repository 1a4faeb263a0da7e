"""``memlane remember``, ``memlane session add|close`` and ``memlane chat``: text from the shell.

Each command is one process: when it ends, the memory closes and folds what the session's
window holds into the session summary (as ``Memory.close`` does), so turns added with
``session add`` are summarized when the command returns, and a later ``session add`` to the
same session continues it (turn numbers and summary). ``chat`` keeps one session open for as
long as you type.
"""

from __future__ import annotations

from typing import Any

import click

from memlane.cli import Settings, emit_json
from memlane.cli.declared import declared
from memlane.cli.recall import describe
from memlane.cli.render import value_text
from memlane.memory import Memory
from memlane.operations.catalog import ADD_TURN, CLOSE_SESSION, REMEMBER
from memlane.server.serialize import note_dict, summary_dict, turn_dict
from memlane.summaries.model import Summary

json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON.")
QUIT = frozenset({"", "/quit", "/exit"})


@click.command("remember")
@declared(REMEMBER, arguments=("subject", "text"))
@json_option
@click.pass_obj
def remember(settings: Settings, /, as_json: bool, **arguments: Any) -> None:
    """Keep TEXT, a free-text statement about SUBJECT: a note, plus the facts it states."""
    subject = arguments["subject"]
    with settings.open() as mem:
        note = mem.remember(**arguments)
        stated = [f for f in mem.facts.audit(subject) if f"note:{note.id}" in f.provenance]
    if as_json:
        emit_json({"note": note_dict(note), "facts": [f.to_dict() for f in stated]})
        return
    click.echo(f"remembered note {note.id} about {subject}")
    for fact in stated:
        click.echo(f"  fact: {fact.attribute} = {fact.value}")


@click.group("session")
def session() -> None:
    """Conversations: add turns to a session, close it (fold it into the storyline)."""


@session.command("add")
@declared(ADD_TURN, arguments=("subject", "session_id", "content"), defaults={"role": "user"})
@json_option
@click.pass_obj
def add_command(settings: Settings, /, as_json: bool, **arguments: Any) -> None:
    """Add CONTENT as a turn of SUBJECT's session SESSION_ID (user turns become facts).

    The session is opened on its first turn; the window is folded into the session summary
    when the command ends.
    """
    with settings.open() as mem:
        turn = mem.add_turn(**arguments)
    if as_json:
        emit_json({"turn": turn_dict(turn)})
    else:
        click.echo(f"added turn {turn.id} ({turn.role})")


@session.command("close")
@declared(CLOSE_SESSION, arguments=("subject", "session_id"))
@json_option
@click.pass_obj
def close_command(settings: Settings, /, subject: str, session_id: str, as_json: bool) -> None:
    """Close SUBJECT's session SESSION_ID and print its summary (exit 1: no such session)."""
    with settings.open() as mem:
        running = mem.running_session(subject, session_id)
        summary = running.close() if running else mem.summaries.for_session(session_id, subject)
    if summary is None:
        raise click.ClickException(f"session_id: no session {session_id!r} of {subject!r}")
    if as_json:
        emit_json({"summary": summary_dict(summary)})
    else:
        click.echo(_summary_text(summary))


@click.command("chat")
@click.argument("subject")
@click.option("--session", "session_id", default="chat", show_default=True, help="Session id.")
@click.option("--k", type=int, default=5, show_default=True, help="Items recalled per turn.")
@click.pass_obj
def chat(settings: Settings, subject: str, session_id: str, k: int) -> None:
    """Talk to SUBJECT's memory: each line you type is a user turn, then what recall returns.

    An empty line, /quit or end of input closes the session and prints its summary.
    """
    with settings.open() as mem:
        session = mem.session(subject, session_id)
        click.echo(f"memlane chat: {subject}, session {session_id}; empty line or /quit ends.")
        while (line := _read_line()) not in QUIT:
            turn = session.add("user", line)
            result = mem.recall(subject, line, session_id, k)
            click.echo(f"[{turn.id}] recalled:")
            click.echo(describe(result))
        summary = session.close()
        _chat_end(mem, subject, summary)


def _read_line() -> str:
    try:
        return str(click.prompt("you", default="", show_default=False, prompt_suffix="> ")).strip()
    except click.Abort:  # end of input (Ctrl-D) or Ctrl-C
        click.echo()
        return ""


def _chat_end(mem: Memory, subject: str, summary: Summary | None) -> None:
    if summary is None:
        click.echo("(nothing said: no summary)")
        return
    click.echo("session summary:")
    click.echo(_summary_text(summary))
    profile = mem.facts.profile(subject)
    held = [f for item in profile.values() for f in (item if isinstance(item, list) else [item])]
    if held:
        click.echo(
            "facts now: " + "; ".join(f"{f.attribute} = {value_text(f.value)}" for f in held)
        )


def _summary_text(summary: Summary) -> str:
    lines = [f"{summary.session_id} (version {summary.version}):"]
    for section, items in summary.content.sections().items():
        lines.extend(f"  {section}: {item}" for item in items)
    return "\n".join(lines)
