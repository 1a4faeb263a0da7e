"""Offline induction on hand-written Delta-like runs; alignment; task types."""

from __future__ import annotations

from collections import Counter

from tests.workflows.conftest import DELTA_RUNS

import memlane
from memlane.workflows.align import Alignment, progressive, refine
from memlane.workflows.induce import induce
from memlane.workflows.model import Action, Trajectory
from memlane.workflows.parse import parse_mind2web
from memlane.workflows.tasktype import cluster, template


def _runs(indices: list[int]) -> list[Trajectory]:
    return [
        Trajectory(i, DELTA_RUNS[i][0], "t", tuple(parse_mind2web(DELTA_RUNS[i][1])), True)
        for i in indices
    ]


def test_flight_search_skeleton_with_origin_destination_and_date_as_parameters() -> None:
    workflow = induce("search_flights", _runs([0, 1]))
    assert workflow is not None
    params = workflow.params
    assert any("origin" in p for p in params)
    assert any("destination" in p for p in params)
    assert "date" in params
    lines = [(s.action, s.args.get("element"), s.args.get("value")) for s in workflow.steps]
    assert ("type", "[textbox] Origin City or Airport", "{origin_city}") in lines
    assert ("click", "[link] {date}", None) in lines
    # Steps only one run took (refundable fares, the calendar's "Next") are dropped.
    assert all("Refundable" not in str(e) and e != "[link] Next" for _, e, _ in lines)
    assert lines[-1] == ("click", "[button] SUBMIT", None)
    assert workflow.support == 2 and workflow.version == 1
    assert "Boston" not in str([s.args for s in workflow.steps])
    assert "search flights" in workflow.description and "date" in workflow.description


def test_unrelated_runs_share_only_what_they_share() -> None:
    workflow = induce("mixed", _runs([0, 2]))
    assert workflow is not None
    assert [s.args.get("element") for s in workflow.steps] == ["[button] SUBMIT"]


def test_rare_steps_become_optional_with_more_runs() -> None:
    runs = _runs([0, 1]) + [
        Trajectory(9, "Find flights from Austin to Reno on July 3", "t", r.steps, True)
        for r in _runs([1])
    ]
    workflow = induce("search_flights", runs)
    assert workflow is not None
    optional = [s for s in workflow.steps if s.optional]
    assert [s.args.get("element") for s in optional] == ["[link] Next"]
    assert optional[0].support == 2


def test_failed_runs_are_not_induced_from() -> None:
    failed = [Trajectory(1, "x", "t", _runs([0])[0].steps, False)]
    assert induce("t", failed) is None


def test_progressive_alignment_keeps_every_action_once() -> None:
    runs = _runs([0, 1, 3])
    alignment = progressive([r.steps for r in runs])
    placed = Counter(i for column in alignment.columns for i, _ in column)
    assert placed == {i: len(r.steps) for i, r in enumerate(runs)}
    assert all(len({i for i, _ in column}) == len(column) for column in alignment.columns)


def test_task_types_group_instances_of_one_intent() -> None:
    tasks = [
        'Tell me the number of reviews that mention term "disappointed"',
        'Tell me the number of reviews that mention term "satisfied"',
        "What is the top-1 best selling product in 2022",
        "What is the top-3 best selling product in 2023",
        "Show me the route from Pittsburgh to Boston",
    ]
    labels = cluster(tasks)
    assert labels[0] == labels[1] and labels[2] == labels[3]
    assert len({labels[0], labels[2], labels[4]}) == 3
    assert template(tasks[0])[-1] == "<e>"


def test_record_infers_the_type_of_a_new_instance(wmem: memlane.Memory) -> None:
    first = wmem.workflows.record(DELTA_RUNS[0][0], DELTA_RUNS[0][1])
    second = wmem.workflows.record(DELTA_RUNS[1][0], DELTA_RUNS[1][1])
    other = wmem.workflows.record(DELTA_RUNS[2][0], DELTA_RUNS[2][1])
    assert first.task_type == second.task_type
    assert first.task_type.startswith("find_flights")
    assert other.task_type != first.task_type
    workflow = wmem.workflows.get(first.task_type)
    assert workflow is not None and "date" in workflow.params


def test_refine_merges_a_step_split_around_a_noise_step() -> None:
    step, other = Action("confirm", {"mode": "check"}), Action("scroll", {"n": "3"})
    split = Alignment(3, [[(0, step)], [(1, other)], [(1, step), (2, step)]])
    merged = refine(split)
    assert [[i for i, _ in c] for c in merged.columns] == [[1], [0, 1, 2]]
    # A frequent column holding a run of the split step pins the order: no merge.
    pinned = Alignment(3, [[(0, step)], [(0, other), (1, other)], [(1, step), (2, step)]])
    assert len(refine(pinned).columns) == 3
    # ... unless it is rare enough to be dropped anyway.
    assert len(refine(pinned, rare=3).columns) == 2
