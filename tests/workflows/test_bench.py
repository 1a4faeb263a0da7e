"""The workflows benchmark on a tiny hand-written WebArena-format file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from memlane.bench.workflows import adjusted_rand, purity, run
from memlane.cli import cli
from memlane.errors import InvalidInput

TASKS = [
    ('Tell me the number of reviews that mention term "{}"', 1, ["slow", "great", "broken"]),
    ("What is the top-{} best selling product in 2022", 2, ["1", "3", "5"]),
    ("Show me the way from {} to the nearest airport", 3, ["Pittsburgh", "Boston"]),
    ("Cancel my subscription to {} newsletter", 4, ["Acme"]),
]


def _write(tmp_path: Path) -> Path:
    rows = [
        {"intent": text.format(value), "intent_template_id": template_id}
        for text, template_id, values in TASKS
        for value in values
    ]
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    return path


def test_cluster_scores_on_known_partitions() -> None:
    gold = ["a", "a", "b", "b"]
    assert adjusted_rand(["x", "x", "y", "y"], gold) == pytest.approx(1.0)
    assert purity(["x", "x", "x", "x"], gold) == 0.5
    assert adjusted_rand(["x", "y", "x", "y"], gold) < 0
    assert purity(["1", "2", "3", "4"], gold) == 1.0


def test_suite_runs_and_scores_the_tiny_file(tmp_path: Path) -> None:
    results = run(_write(tmp_path), types=3, runs=6, progress=lambda _: None)
    memlane = results.systems["memlane"]
    assert memlane["type_ari"]["webarena_dev"] == pytest.approx(1.0)
    assert memlane["match_acc@1"]["given_types"] == pytest.approx(1.0)
    assert results.systems["gold"]["held_out"]["given_types"] == 3
    assert memlane["step_precision"]["noise=0.0"] > 0.8
    assert memlane["required_step_recall"]["noise=0.0"] > 0.8
    assert memlane["false_adoptions"]["noise=0.0"] == 0
    assert 3 <= memlane["evolve_runs_to_adopt"]["noise=0.0"] <= 10
    assert set(memlane["param_f1"]) == {"noise=0.0", "noise=0.1", "noise=0.2"}


def test_cli_writes_json(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    result = CliRunner().invoke(
        cli,
        [
            "bench",
            "workflows",
            "--data",
            str(_write(tmp_path)),
            "--types",
            "2",
            "--runs",
            "5",
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    document = json.loads(out.read_text(encoding="utf-8"))
    assert document["suite"] == "workflows" and "memlane" in document["systems"]
    assert "type_purity" in result.output


def test_missing_or_empty_data_is_rejected(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput):
        run(tmp_path / "nope.json", progress=lambda _: None)
    empty = tmp_path / "empty.json"
    empty.write_text("[]", encoding="utf-8")
    with pytest.raises(InvalidInput):
        run(empty, progress=lambda _: None)
