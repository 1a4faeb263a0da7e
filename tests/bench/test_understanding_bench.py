"""The understanding bench scores a question the way the data set's README says."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest

from memlane.bench import understanding
from memlane.router import RecallItem


def _case(category: str) -> dict[str, Any]:
    return {"id": f"{category}-en-001", "category": category, "lang": "en"}


def _question(expect: str = "answer") -> dict[str, Any]:
    return {
        "text": "where does she live?",
        "gold": ["Lisbon"],
        "wrong": ["Porto"],
        "expect": expect,
    }


def _judge(category: str, *items: RecallItem, expect: str = "answer") -> understanding.Verdict:
    recall: Any = SimpleNamespace(items=list(items))
    return understanding.judge(_case(category), _question(expect), recall)


LISBON = RecallItem(lane="summary", text="she moved to Lisbon", score=0.9)
PORTO_NOW = RecallItem(lane="summary", text="she lives in Porto", score=0.5)
PORTO_STALE = RecallItem(lane="summary", text="she lives in Porto", score=0.5, status="stale")
PORTO_FACT = RecallItem(lane="exact", text="location: Porto", score=1.0)


def test_the_top_item_must_hold_the_gold_value():
    assert _judge("no_hijack", LISBON, PORTO_NOW).passed
    assert not _judge("no_hijack", PORTO_NOW, LISBON).passed
    assert not _judge("no_hijack").passed


def test_a_change_fails_while_the_old_value_is_still_served_as_current():
    assert not _judge("state_changes", LISBON, PORTO_NOW).passed
    assert _judge("state_changes", LISBON, PORTO_STALE).passed


def test_an_unknown_identifier_must_return_nothing_at_all():
    assert _judge("identifiers", expect="nothing").passed
    assert not _judge("identifiers", LISBON, expect="nothing").passed
    assert _judge("nothing_known", LISBON, expect="nothing").passed
    assert not _judge("nothing_known", PORTO_NOW, expect="nothing").passed


def test_wrong_exact_and_stale_at_1_count_what_the_top_item_serves():
    verdict = _judge("knowledge_updates", PORTO_FACT, LISBON)
    assert (verdict.wrong_exact, verdict.stale_at_1, verdict.passed) == (True, True, False)
    assert verdict.served[0] == "exact/current: location: Porto"
    assert not _judge("knowledge_updates", PORTO_NOW).wrong_exact


@pytest.mark.parametrize(
    ("needle", "text", "found"),
    [
        ("(415) 555-0140", "call +1 415 555 0140", True),
        ("ＡＢＣ", "order abc-1", True),
        ("555-0140", "555-0141", False),
    ],
)
def test_matching_folds_width_and_case_and_compares_phone_digits(needle, text, found):
    assert understanding.matches(needle, text) is found


def test_a_run_scores_a_small_data_set_end_to_end(tmp_path):
    case = {
        "id": "state_changes-en-001",
        "lang": "en",
        "category": "state_changes",
        "events": [
            {
                "at": "2026-01-01T10:00:00+00:00",
                "subject": "U-1",
                "via": "remember",
                "role": "user",
                "text": "I live in Porto.",
            },
            {
                "at": "2026-03-01T10:00:00+00:00",
                "subject": "U-1",
                "via": "remember",
                "role": "user",
                "text": "I moved from Porto to Lisbon last week.",
            },
        ],
        "questions": [
            {
                "at": "2026-03-02T10:00:00+00:00",
                "subject": "U-1",
                "text": "Where does the user live now?",
                "gold": ["Lisbon"],
                "wrong": ["Porto"],
                "expect": "answer",
            }
        ],
    }
    data = tmp_path / "set.json"
    data.write_text(json.dumps({"version": 1, "cases": [case]}), "utf-8")
    failures = tmp_path / "failures.json"
    results = understanding.run(data, embedder_spec="hash", failures_out=failures)
    assert results.systems["state_changes"]["questions"]["all"] == 1
    assert results.systems["state_changes"]["pass_rate"]["en"] == 1.0
    assert json.loads(failures.read_text("utf-8")) == []
