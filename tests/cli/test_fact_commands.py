"""The CLI is a thin adapter: same semantics, JSON output, one-line errors, non-zero exits."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from memlane.cli import cli


@pytest.fixture
def run(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMLANE_URL", str(tmp_path / "cli.db"))
    runner = CliRunner()

    def invoke(*args: str, ok: bool = True):
        result = runner.invoke(cli, list(args), catch_exceptions=False)
        assert (result.exit_code == 0) is ok, result.output
        return result

    return invoke


def test_set_get_history_audit_round_trip(run):
    run("fact", "set", "U-001", "location", "上海", "--valid-from", "2026-03-01")
    run(
        "fact",
        "set",
        "U-001",
        "location",
        "北京",
        "--valid-from",
        "2026-07-01",
        "--reason",
        "moved",
    )
    got = json.loads(run("fact", "get", "U-001", "location", "--json").output)
    assert [f["value"] for f in got] == ["北京"]
    earlier = run("fact", "get", "U-001", "location", "--valid-at", "2026-05-01").output
    assert earlier.startswith("上海")
    history = json.loads(run("fact", "history", "U-001", "location", "--json").output)
    assert [(f["value"], f["valid_to"]) for f in history] == [
        ("上海", "2026-07-01T00:00:00+00:00"),
        ("北京", None),
    ]
    audit = json.loads(run("fact", "audit", "U-001", "--json").output)
    assert len(audit) == 3 and audit[0]["tx_to"] is not None
    table = run("fact", "audit", "U-001").output
    assert "moved" in table and "北京" in table


def test_identifiers_and_lookup(run):
    run("fact", "define", "phone", "--many", "--identifier")
    run("fact", "add", "U-7", "phone", "138-0000-1234")
    assert json.loads(run("fact", "lookup", "phone", "13800001234", "--json").output) == ["U-7"]
    missing = run("fact", "lookup", "phone", "13800001235", ok=False)
    assert missing.exit_code == 1 and "no subject" in missing.output
    assert json.loads(run("fact", "get", "U-7", "phone", "--json").output)[0]["value"] == (
        "138-0000-1234"  # as written; matched by its key
    )


def test_json_values_and_profile(run):
    run("fact", "set", "U-1", "prefs", '{"lang": "zh", "dark": true}', "--value-json")
    profile = json.loads(run("fact", "profile", "U-1", "--json").output)
    assert profile["prefs"][0]["value"] == {"dark": True, "lang": "zh"}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            (
                "fact",
                "set",
                "U-1",
                "x",
                "1",
                "--valid-from",
                "2026-05-02",
                "--valid-to",
                "2026-05-01",
            ),
            "valid_to",
        ),
        (("fact", "set", "U-1", "x", "{bad", "--value-json"), "value: not valid JSON"),
        (("fact", "set", "", "x", "1"), "subject"),
        (("fact", "get", "U-1", "x", "--valid-at", "whenever"), "valid_at"),
        (("--timezone", "Mars/Base", "fact", "get", "U-1", "x"), "timezone"),
        (("--url", "mysql://db", "fact", "get", "U-1", "x"), "url"),
    ],
)
def test_bad_input_is_one_line_and_non_zero(run, args, message):
    result = run(*args, ok=False)
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and message in lines[0]
    assert "Traceback" not in result.output


def test_bad_write_leaves_the_store_unchanged(run):
    run("fact", "set", "U-1", "x", "1", "--valid-from", "2026-01-01")
    before = run("fact", "audit", "U-1", "--json").output
    run("fact", "add", "U-1", "x", "2", ok=False)
    assert run("fact", "audit", "U-1", "--json").output == before


def test_demo_tells_the_story(run):
    output = run("demo").output
    assert "上海 Shanghai" in output and "北京 Beijing" in output and "杭州 Hangzhou" in output
    answers = [line for line in output.splitlines() if line.strip().startswith("?")]
    assert answers[0].endswith("北京 Beijing")
    assert answers[1].endswith("上海 Shanghai")
    assert answers[2].endswith("上海 Shanghai")
    assert answers[3].endswith("U-001") and answers[4].endswith("no match)")
    audit = json.loads(run("demo", "--json").output)
    believed = sorted(
        (f for f in audit if f["tx_to"] is None and f["attribute"] == "location"),
        key=lambda f: f["valid_from"],
    )
    assert [f["value"] for f in believed] == [
        "上海 Shanghai",
        "杭州 Hangzhou",
        "上海 Shanghai",
        "北京 Beijing",
    ]


def test_bench_facts_writes_comparable_json(run, tmp_path):
    out = tmp_path / "facts.json"
    run("bench", "facts", "--scale", "1000", "--samples", "50", "--out", str(out))
    result = json.loads(out.read_text())
    assert result["suite"] == "facts"
    assert set(result["systems"]) == {"memlane", "sqlite-raw"}
    assert result["systems"]["memlane"]["get_p50_us"]["1000"] > 0
    assert result["systems"]["sqlite-raw"]["get_p50_us"]["1000"] > 0
    assert run("bench", "facts", "--scale", "10", ok=False).exit_code == 1
