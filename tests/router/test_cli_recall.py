"""``memlane recall``: the router from the shell, items and plan, JSON and plain."""

from __future__ import annotations

import itertools
import json
from datetime import UTC, datetime, timedelta

import pytest
from click.testing import CliRunner

import memlane
import memlane.embed
from memlane.cli import cli
from memlane.embed import HashEmbedder

NOW = datetime(2026, 7, 4, 2, tzinfo=UTC)


@pytest.fixture
def db(memory_url, monkeypatch):
    path = memory_url
    monkeypatch.setenv("MEMLANE_URL", str(path))
    # The CLI builds the default embedder; keep these tests on the lexical one.
    monkeypatch.setattr(memlane.embed, "make_embedder", lambda spec=None: HashEmbedder(dim=256))
    # The CLI reads the system clock; pin it to a clock that ticks a second per reading.
    ticks = itertools.count()
    monkeypatch.setattr(
        "memlane.memory._system_clock", lambda: NOW + timedelta(seconds=next(ticks))
    )
    with memlane.Memory(path) as mem:
        mem.facts.define("phone", cardinality="many", identifier=True)
        mem.facts.define("order", cardinality="many", identifier=True)
        mem.facts.add("U-001", "phone", "138-0000-1234")
        mem.facts.add("U-001", "order", "ORD-7001")
        mem.facts.set("U-001", "location", "上海", valid_from="2026-03-01")
        mem.remember("U-001", "I prefer to be contacted by e-mail in the evening")
    return path


def run(*args: str, ok: bool = True):
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert (result.exit_code == 0) is ok, result.output
    return result


def test_recall_prints_items_and_plan(db):
    output = run("recall", "-", "用户 138-0000-1234 的订单号是多少").output
    assert "ORD-7001" in output and "exact" in output and "current" in output
    assert "lane" in output and "asked" in output and "why" in output
    for lane in ("exact", "window", "summary", "workflow"):
        assert lane in output


def test_recall_json_has_items_plan_and_text(db):
    payload = json.loads(run("recall", "U-001", "where does the user live", "--json").output)
    assert payload["subjects"] == ["U-001"]
    assert payload["items"][0]["fact"]["value"] == "上海"
    assert payload["items"][0]["status"] == "current"
    assert [step["lane"] for step in payload["plan"]] == ["exact", "window", "summary", "workflow"]
    assert payload["text"].startswith("Memory of U-001:")
    assert payload["tokens"] <= payload["budget_tokens"] == 1500


def test_recall_text_only_and_options(db):
    text = run("recall", "U-001", "what does the user prefer?", "--text", "--k", "3").output
    assert "e-mail in the evening" in text and "Facts (current):" in text
    early = run(
        "recall", "U-001", "where does the user live", "--valid-at", "2026-02-01", "--json"
    ).output
    early_payload = json.loads(early)
    assert early_payload["items"] == [] and early_payload["plan"][2]["asked"]
    tiny = run("recall", "U-001", "where does the user live", "--budget", "3", "--text").output
    assert tiny.strip() == "(nothing recalled)"


def test_recall_refuses_bad_input_in_one_line(db):
    for args in (["U-001", ""], ["U-001", "where", "--k", "0"], ["U-001", "x" * 2001]):
        result = run("recall", *args, ok=False)
        assert result.exit_code == 1
        assert result.output.startswith("Error: ") and len(result.output.splitlines()) == 1
