"""memlane bench scale: recall and write cost against size, on both backends, machine named."""

from __future__ import annotations

import json

from click.testing import CliRunner

from memlane.cli import cli

RECALL_METRICS = (
    "first_recall_ms",
    "recall_p50_ms",
    "recall_p95_ms",
    "recall_after_write_p50_ms",
    "notes_added_per_s",
)


def test_scale_on_both_backends_at_tiny_sizes(postgres_url, tmp_path):
    out = tmp_path / "scale.json"
    arguments = ["bench", "scale", "--sizes", "20,10", "--backends", "sqlite,postgresql"]
    arguments += ["--samples", "3", "--tenant-notes", "30", "--writes", "40", "--clients", "1,2"]
    arguments += ["--seconds", "0.3", "--embedder", "hash", "--postgres-url", postgres_url]
    arguments += ["--out", str(out)]

    result = CliRunner().invoke(cli, arguments)

    assert result.exit_code == 0, result.output
    document = json.loads(out.read_text(encoding="utf-8"))
    assert document["suite"] == "scale"
    assert document["params"]["sizes"] == [10, 20]
    machine = document["params"]["machine"]
    assert machine["cpu"] and machine["cores"] >= 1
    assert set(document["systems"]) == {"sqlite", "postgresql"}
    for metrics in document["systems"].values():
        for metric in RECALL_METRICS:
            assert set(metrics[metric]) == {"10", "20", "30 tenant"}
            assert all(value > 0 for value in metrics[metric].values())
        assert metrics["recall_p50_ms"]["20"] <= metrics["recall_p95_ms"]["20"]
        assert metrics["process_first_recall_ms"]["warm-up"] > 0  # not in the first size's
        assert metrics["batched_versions_per_s"]["writes"] > 0
        assert metrics["single_sets_per_s"]["writes"] > 0
        assert metrics["floor_single_inserts_per_s"]["writes"] > 0
        for metric in ("client_sets_per_s", "floor_client_inserts_per_s"):
            assert set(metrics[metric]) == {"1 client", "2 clients"}
            assert all(value > 0 for value in metrics[metric].values())


def test_scale_sizes_up_to_a_scale():
    from memlane.bench.scale import sizes_up_to

    assert sizes_up_to(100_000) == (1_000, 10_000, 100_000)
    assert sizes_up_to(30_000) == (1_000, 10_000, 30_000)
    assert sizes_up_to(500) == (500,)


def test_scale_refuses_bad_arguments():
    for arguments in (["--sizes", "1000,x"], ["--sizes", "5"], ["--backends", "mysql"]):
        result = CliRunner().invoke(cli, ["bench", "scale", *arguments])
        assert result.exit_code != 0
        assert "sizes" in result.output or "backends" in result.output
