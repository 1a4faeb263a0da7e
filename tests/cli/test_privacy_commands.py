"""memlane forget / purge from the shell."""

from __future__ import annotations

import json

from click.testing import CliRunner

from memlane.cli import cli


def test_forget_then_purge(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMLANE_URL", str(tmp_path / "cli.db"))
    runner = CliRunner()

    def run(*args: str) -> str:
        result = runner.invoke(cli, list(args), catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return result.output

    run("fact", "set", "U-1", "city", "Reykjavik")
    deletion = json.loads(run("forget", "U-1", "--reason", "asked", "--json"))
    assert (deletion["scope"], deletion["reason"], deletion["counts"]["facts"]) == (
        "subject",
        "asked",
        1,
    )
    gone = runner.invoke(cli, ["fact", "get", "U-1", "city", "--json"])
    assert (gone.exit_code, json.loads(gone.stdout)) == (1, [])  # nothing found: exit 1
    assert "nothing due" in run("purge")
    report = json.loads(run("purge", "--subject", "U-1", "--immediately", "--json"))
    assert report["deletions"] == [deletion["id"]] and report["rows"]["facts"] == 1
    assert b"Reykjavik" not in (tmp_path / "cli.db").read_bytes()
    bad = runner.invoke(cli, ["forget", " "])
    assert bad.exit_code == 1 and bad.output.startswith("Error: subject")
