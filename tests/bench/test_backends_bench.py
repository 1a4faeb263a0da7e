"""memlane bench backends: both backends, the same workload, every number measured."""

from __future__ import annotations

import json

from click.testing import CliRunner

from memlane.cli import cli

FACT_OPS = ("get", "get_known_at", "lookup")
SEARCH_OPS = ("nearest", "nearest_tenant", "lexical_tenant", "search", "search_tenant", "recall")
CLIENT_OPS = ("get", "search", "search_tenant", "recall", "set")


def test_both_backends_side_by_side_at_tiny_scale(postgres_url, tmp_path):
    out = tmp_path / "backends.json"
    arguments = ["bench", "backends", "--facts", "4000", "--summaries", "200"]
    arguments += ["--clients", "2", "--seconds", "0.25", "--samples", "20"]
    # A zero budget sends PostgreSQL's load down the COPY path after its first chunk.
    arguments += ["--postgres-url", postgres_url, "--pg-load-budget", "0", "--out", str(out)]

    result = CliRunner().invoke(cli, arguments)

    assert result.exit_code == 0, result.output
    document = json.loads(out.read_text(encoding="utf-8"))
    assert document["suite"] == "backends"
    assert document["params"]["clients"] == [2]
    assert document["params"]["postgresql"]["bulk_copy"] is True
    systems = document["systems"]
    assert set(systems) == {"sqlite", "postgresql"}
    for metrics in systems.values():
        for op in FACT_OPS + SEARCH_OPS:
            unit = "us" if op in FACT_OPS else "ms"
            p50, p99 = metrics[f"{op}_p50_{unit}"]["serial"], metrics[f"{op}_p99_{unit}"]["serial"]
            assert 0 < p50 <= p99
        for op in CLIENT_OPS:
            assert metrics[f"{op}_ops_per_s"]["2 clients"] > 0
            unit = "us" if op in ("get", "set") else "ms"
            assert (
                0
                < metrics[f"{op}_p50_{unit}"]["2 clients"]
                <= metrics[f"{op}_p99_{unit}"]["2 clients"]
            )
        assert metrics["facts_api_writes_per_s"]["serial"] > 0
        assert metrics["notes"]["serial"] == 200
        assert metrics["disk_mb"]["serial"] > 0
    sqlite, postgres = systems["sqlite"], systems["postgresql"]
    # Every write went through the API on SQLite; PostgreSQL copied the rest, to the row.
    assert sqlite["facts_copied_rows"]["serial"] == 0
    assert postgres["facts_copied_rows"]["serial"] > 0
    assert postgres["facts_api_writes"]["serial"] < sqlite["facts_api_writes"]["serial"]
    assert postgres["fact_rows"]["serial"] == sqlite["fact_rows"]["serial"] > 4000
    assert "sqlite" in result.output and "postgresql" in result.output


def test_client_counts_are_checked_before_anything_runs():
    result = CliRunner().invoke(cli, ["bench", "backends", "--clients", "1,0"])

    assert result.exit_code != 0
    assert "clients" in result.output
