"""remember, session add|close and chat from the shell."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

import memlane
from memlane.cli import cli


@pytest.fixture
def db(tmp_path, monkeypatch):
    path = tmp_path / "cli.db"
    monkeypatch.setenv("MEMLANE_URL", str(path))
    return path


def _run(*args: str, code: int = 0, stdin: str | None = None):
    result = CliRunner().invoke(cli, list(args), input=stdin, catch_exceptions=False)
    assert result.exit_code == code, result.output
    return result


def test_remember_keeps_a_note_and_the_facts_it_states(db):
    out = json.loads(_run("remember", "U-1", "My new phone is 139-1111-2222", "--json").stdout)
    assert out["note"]["subject"] == "U-1"
    assert [f["value"] for f in out["facts"]] == ["139-1111-2222"]
    assert "fact: location = Oslo" in _run("remember", "U-1", "I moved to Oslo").stdout
    with memlane.Memory(db, embedder="hash") as mem:
        assert len(mem.summaries.notes("U-1")) == 2
        assert mem.facts.lookup("phone", "13911112222") == ["U-1"]


def test_remember_refuses_a_blank_text(db):
    assert "text: must not be empty" in _run("remember", "U-1", "  ", code=1).output


def test_session_add_then_close(db):
    first = json.loads(_run("session", "add", "U-1", "s-1", "I moved to Lisbon", "--json").stdout)
    assert first["turn"]["id"] == "s-1#1" and first["turn"]["role"] == "user"
    # A later command continues the session: its turn numbers go on.
    assert "s-1#2" in _run("session", "add", "U-1", "s-1", "Noted.", "--role", "assistant").stdout
    closed = json.loads(_run("session", "close", "U-1", "s-1", "--json").stdout)["summary"]
    assert set(closed["provenance"]) == {"s-1#1", "s-1#2"}
    with memlane.Memory(db, embedder="hash") as mem:
        assert mem.facts.get("U-1", "location").value == "Lisbon"
        assert mem.summaries.storyline("U-1") is not None


def test_session_errors_exit_1(db):
    assert "no session 's-9'" in _run("session", "close", "U-1", "s-9", code=1).output
    assert (
        "Invalid value for '--role'"
        in _run("session", "add", "U-1", "s-1", "hi", "--role", "robot", code=2).output
    )
    assert (
        "session_id: must not start" in _run("session", "add", "U-1", "s-1 ", "hi", code=1).output
    )


def test_chat_records_turns_and_shows_recall(db):
    typed = "I moved to Lisbon last week\nwhere do I live?\n/quit\n"
    out = _run("chat", "U-1", "--session", "c-1", stdin=typed).stdout
    assert "[c-1#1] recalled:" in out and "[c-1#2] recalled:" in out
    answer = out.split("[c-1#2] recalled:")[1]
    assert "location: Lisbon" in answer and "exact" in answer
    assert "session summary:" in out and "location = Lisbon" in out
    with memlane.Memory(db, embedder="hash") as mem:
        summary = mem.summaries.for_session("c-1", "U-1")
        assert summary is not None and set(summary.provenance) == {"c-1#1", "c-1#2"}


def test_chat_ends_at_end_of_input(db):
    out = _run("chat", "U-1", stdin="").stdout
    assert "(nothing said: no summary)" in out
