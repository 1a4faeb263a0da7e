"""memlane index: embed the backlog now, with progress; again after a change of embedder."""

from __future__ import annotations

import json
import sqlite3

from click.testing import CliRunner

import memlane
from memlane.cli import cli
from memlane.storage.sql import schema


def test_index_embeds_the_backlog_and_again_for_a_new_embedder(tmp_path):
    url = str(tmp_path / "cli.db")
    with memlane.Memory(url, embedder="hash", indexing="inline") as mem:
        mem.remember("U-1", "The user likes green tea")
        mem.remember("U-2", "The user plays the cello", at="2026-01-01")
    runner = CliRunner()

    def index(*args: str) -> dict[str, object]:
        result = runner.invoke(cli, ["--url", url, "index", *args, "--json"])
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)

    nothing = {"keyed": 0, "embedded": 0, "pending": 0, "model": "hash-v1-256"}
    assert index("--embedder", "hash") == nothing
    changed = runner.invoke(
        cli, ["--url", url, "index", "--embedder", "hash:64", "--subject", "U-1", "--progress"]
    )
    assert changed.exit_code == 0, changed.output
    assert "embedded 1 items with hash-v1-64; 0 pending" in changed.stdout
    assert "embedding: 1/1" in changed.stderr  # progress on stderr (lines: not a terminal)
    again = {"keyed": 0, "embedded": 1, "pending": 0, "model": "hash-v1-64"}
    assert index("--embedder", "hash:64") == again
    with memlane.Memory(url, embedder="hash:64") as mem:
        assert mem.index.pending() == 0
        assert mem.summaries.search_notes("U-2", "cello", k=1)


def test_import_with_index_embeds_what_it_loaded(tmp_path):
    source, target = str(tmp_path / "a.db"), str(tmp_path / "b.db")
    with memlane.Memory(source, embedder="hash") as mem:
        mem.remember("U-1", "The user likes green tea")  # exported without a vector
    runner = CliRunner()
    exported = runner.invoke(cli, ["export", "--url", source, "--out", str(tmp_path / "m.jsonl")])
    assert exported.exit_code == 0, exported.output
    imported = runner.invoke(
        cli,
        ["import", str(tmp_path / "m.jsonl"), "--url", target, "--index", "--json"],
        env={"MEMLANE_EMBED_URL": "", "MEMLANE_URL": target},
    )
    assert imported.exit_code == 0, imported.output
    assert json.loads(imported.stdout)["embedded"] == 1
    with memlane.Memory(target) as mem:
        assert mem.index.pending() == 0


def test_index_keys_the_notes_an_upgrade_left_waiting_so_no_recall_has_to(tmp_path):
    url = str(tmp_path / "old.db")
    with memlane.Memory(url, embedder="hash", indexing="inline") as mem:
        mem.remember("U-1", "The chair of the Kalo Club is Ada Moss")
        mem.remember("U-2", "The user plays the cello")
    with sqlite3.connect(url) as connection:  # what a migration that re-keys notes does
        for statement in schema.REKEY_NOTES:
            connection.execute(statement)
    runner = CliRunner()
    result = runner.invoke(cli, ["--url", url, "index", "--embedder", "hash", "--progress"])
    assert result.exit_code == 0, result.output
    assert "keyed 2 notes" in result.stdout
    assert "keying: 2/2 subjects" in result.stderr
    with memlane.Memory(url, embedder="hash") as mem:
        assert mem._backend.summaries.unkeyed_subjects() == []
        assert mem.key_notes() == 0
