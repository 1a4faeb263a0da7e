"""The lane through ``Memory``: evolution, risks, versions, match, render, scrub, router."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.conftest import FakeClock
from tests.workflows.conftest import DELTA_RUNS, refund

import memlane
from memlane.errors import InvalidInput


def _seed(mem: memlane.Memory, clock: FakeClock) -> None:
    for i in range(2):
        clock.advance(minutes=1)
        mem.workflows.record(
            f"Refund order ORD-{i} for U-00{i}",
            refund(f"ORD-{i}", f"U-00{i}"),
            True,
            "order_refund",
        )


def test_induced_online_after_two_successes(wmem: memlane.Memory, clock: FakeClock) -> None:
    wmem.workflows.record("Refund order ORD-0", refund("ORD-0", "U-000"), True, "order_refund")
    assert wmem.workflows.get("order_refund") is None
    clock.advance(minutes=1)
    wmem.workflows.record("Refund order ORD-1", refund("ORD-1", "U-001"), True, "order_refund")
    workflow = wmem.workflows.get("order_refund")
    assert workflow is not None
    assert [s.action for s in workflow.steps] == [
        "lookup_user",
        "validate_order",
        "manual_review",
        "issue_refund",
        "notify",
    ]
    assert workflow.params == ("user", "order")
    assert dict(workflow.steps[3].args) == {"order": "{order}", "method": "card"}
    assert workflow.tx_from == clock.now
    assert workflow.success_rate == pytest.approx(3 / 4)


def test_shorter_path_adopted_only_after_confirmation(
    wmem: memlane.Memory, clock: FakeClock
) -> None:
    _seed(wmem, clock)
    for i in range(2, 4):
        clock.advance(minutes=1)
        wmem.workflows.record(
            f"Refund ORD-{i}", refund(f"ORD-{i}", "U-9", extra=False), True, "order_refund"
        )
        current = wmem.workflows.get("order_refund")
        assert current is not None and current.version == 1
        assert "manual_review" in [s.action for s in current.steps]
    clock.advance(minutes=1)
    wmem.workflows.record("Refund ORD-4", refund("ORD-4", "U-9", extra=False), True, "order_refund")
    adopted = wmem.workflows.get("order_refund")
    assert adopted is not None and adopted.version == 2
    assert [s.action for s in adopted.steps] == [
        "lookup_user",
        "validate_order",
        "issue_refund",
        "notify",
    ]
    assert adopted.params == ("user", "order")


def test_skipping_a_parameter_step_is_never_a_shortcut(
    wmem: memlane.Memory, clock: FakeClock
) -> None:
    _seed(wmem, clock)
    no_lookup = refund("ORD-7", "U-7")[1:]
    for _ in range(4):
        clock.advance(minutes=1)
        wmem.workflows.record("Refund ORD-7", no_lookup, True, "order_refund")
    workflow = wmem.workflows.get("order_refund")
    assert workflow is not None and workflow.version == 1
    assert workflow.steps[0].action == "lookup_user"


def test_failures_mark_the_step_where_runs_diverged(wmem: memlane.Memory, clock: FakeClock) -> None:
    _seed(wmem, clock)
    broken = [*refund("ORD-5", "U-5")[:3], {"action": "escalate", "args": {}}]
    clock.advance(minutes=1)
    wmem.workflows.record("Refund ORD-5", broken, False, "order_refund", reason="card expired")
    workflow = wmem.workflows.get("order_refund")
    assert workflow is not None
    risky = {s.action: (s.risk, s.risk_reasons) for s in workflow.steps if s.risk}
    assert risky == {"issue_refund": (1, ("card expired",))}
    assert workflow.runs == 3 and workflow.successes == 2
    assert workflow.success_rate == pytest.approx(3 / 5)
    assert workflow.version == 1
    text = wmem.workflows.render(workflow)
    assert "risk" in text and "card expired" in text


def test_versions_are_kept_with_transaction_time(wmem: memlane.Memory, clock: FakeClock) -> None:
    _seed(wmem, clock)
    clock.advance(hours=1)
    wmem.workflows.record("Refund ORD-8", refund("ORD-8", "U-8"), False, "order_refund")
    clock.advance(hours=1)
    rebuilt = wmem.workflows.induce("order_refund")
    history = wmem.workflows.versions("order_refund")
    assert [w.version for w in history] == [1, 1, 2]
    assert [w.tx_from for w in history] == sorted(w.tx_from for w in history if w.tx_from)
    assert history[-1].tx_from == clock.now == rebuilt[0].tx_from
    assert history[0].runs == 2 and history[1].runs == 3
    assert wmem.workflows.get("order_refund") == history[-1]


def test_match_ranks_the_workflow_for_the_task(wmem: memlane.Memory, clock: FakeClock) -> None:
    _seed(wmem, clock)
    for task, text in DELTA_RUNS[:2]:
        clock.advance(minutes=1)
        wmem.workflows.record(task, text, True, "search_flights")
    hits = wmem.workflows.match("please refund my last order", k=3)
    assert next(h.workflow.task_type for h in hits) == "order_refund"
    assert 0 < hits[0].score <= 1
    flights = wmem.workflows.match("Find flights from Paris to Rome on May 1st", k=1)
    assert [h.workflow.task_type for h in flights] == ["search_flights"]
    assert flights[0].score > hits[-1].score or len(hits) == 1


def test_router_answers_how_to_questions_from_the_lane(
    wmem: memlane.Memory, clock: FakeClock
) -> None:
    _seed(wmem, clock)
    assert wmem.router.workflows is wmem.workflows
    result = wmem.recall(None, "how do I refund an order?")
    items = [i for i in result.items if i.lane == "workflow"]
    assert items and items[0].text.startswith("order_refund")


def test_scrub_removes_values_from_runs_and_every_version(
    wmem: memlane.Memory, clock: FakeClock
) -> None:
    _seed(wmem, clock)
    changed = wmem.workflows.scrub(["u-001", "ORD-1"])
    assert changed >= 2
    stored = " ".join(
        t.task + str([a.args for a in t.steps]) for t in wmem.workflows.trajectories()
    )
    stored += " ".join(str(w.as_dict()) for w in wmem.workflows.versions("order_refund"))
    assert "U-001" not in stored and "ORD-1" not in stored
    assert "[forgotten]" in stored and "U-000" in stored
    assert wmem.workflows.scrub(["U-001"]) == 0
    assert wmem.workflows.scrub([]) == 0


def test_match_with_nothing_learned_and_bad_input(wmem: memlane.Memory) -> None:
    assert wmem.workflows.match("how do I refund") == []
    with pytest.raises(InvalidInput):
        wmem.workflows.match("", k=3)
    with pytest.raises(InvalidInput):
        wmem.workflows.match("refund", k=0)
    with pytest.raises(InvalidInput):
        wmem.workflows.record("task", [{"action": "x"}], task_type="bad type!")
    with pytest.raises(InvalidInput):
        wmem.workflows.record("task", [{"action": "x"}], success="yes")  # type: ignore[arg-type]
    assert wmem.workflows.trajectories() == []


def test_persisted_across_handles(memory_url: Path, clock: FakeClock) -> None:
    path = memory_url
    with memlane.Memory(path, clock=clock, embedder="hash") as mem:
        _seed(mem, clock)
    with memlane.Memory(path, clock=clock, embedder="hash") as mem:
        workflow = mem.workflows.get("order_refund")
        assert workflow is not None and workflow.params == ("user", "order")
        assert mem.workflows.infer_type("Refund order ORD-9 for U-009") == "order_refund"
