"""memlane index: embed the backlog now, with progress; again after a change of embedder."""

from __future__ import annotations

import json

from click.testing import CliRunner

import memlane
from memlane.cli import cli


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

    assert index("--embedder", "hash") == {"embedded": 0, "pending": 0, "model": "hash-v1-256"}
    changed = runner.invoke(
        cli, ["--url", url, "index", "--embedder", "hash:64", "--subject", "U-1", "--progress"]
    )
    assert changed.exit_code == 0, changed.output
    assert "embedded 1 items with hash-v1-64; 0 pending" in changed.stdout
    assert "embedding: 1/1" in changed.stderr  # progress on stderr (lines: not a terminal)
    assert index("--embedder", "hash:64") == {"embedded": 1, "pending": 0, "model": "hash-v1-64"}
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
