"""``memlane bench workflows``: the workflow lane on WebArena task configs and a simulator.

Three parts, all seeded and offline:

* **task types**: every ``intent`` of the WebArena-format file is typed by the lane's
  inference (:mod:`memlane.workflows.tasktype`), in file order; scored against
  ``intent_template_id`` (tasks of one template are instances of one workflow) by purity,
  inverse purity and the adjusted Rand index. Baseline ``masked-exact``: tasks whose
  entity-masked text is identical share a type.
* **match**: for every template with two or more instances, the last instance is held out;
  the others are recorded (given types: ``tpl<id>``; inferred types: no type given), one
  workflow per type; accuracy@1 of ``match(held-out intent)``. Baseline ``lexical-only``:
  the word-overlap signal alone.
* **simulation**: a seeded environment with ground-truth workflows (required steps,
  optional steps, parameter slots, one redundant step), noise steps and failed runs.
  Induction from ``runs`` recorded runs per type is scored by step precision/recall and
  parameter-slot F1; evolution is fed runs that skip the redundant step and scored by the
  runs needed until the shorter version is adopted, false adoptions on full-path runs, and
  whether a failure's risk lands where it left the true workflow: the next required step
  after the last step the failed run took.
"""

from __future__ import annotations

import json
import math
import random
import string
from collections import Counter, defaultdict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from memlane.bench.report import Results
from memlane.errors import InvalidInput
from memlane.storage import open_backend
from memlane.workflows.align import MISMATCH, SAME, pairwise
from memlane.workflows.lane import WorkflowsLane, word_overlap
from memlane.workflows.model import Workflow
from memlane.workflows.tasktype import cluster, template

SYSTEM = "memlane"
Progress = Callable[[str], None]
NOISE_LEVELS = (0.0, 0.1, 0.2)
VERBS = ("open", "search", "filter", "select", "fill", "confirm", "review", "export", "sort")
OBJECTS = ("account", "orders", "product", "report", "address", "review", "page", "cart")
NOISE_ACTIONS = ("scroll", "hover", "go_back", "noop", "zoom")
MAX_EVOLVE_RUNS = 40
DEV_GROUP = "webarena_dev"


@dataclass(frozen=True)
class _GroundTruth:
    task_type: str
    steps: tuple[tuple[str, dict[str, str], bool], ...]  # action, args, optional
    redundant: int  # index of the required step a shorter path skips


class _Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now


def run(
    data: Path,
    *,
    seed: int = 7,
    types: int = 12,
    runs: int = 8,
    confirm: int = 3,
    progress: Progress = print,
) -> Results:
    """Run the suite on the WebArena-format task file ``data``.

    Raises:
        InvalidInput: ``data`` is missing or holds no task with an intent and template id.
    """
    for name, value in (("types", types), ("runs", runs), ("confirm", confirm)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise InvalidInput(name, f"must be a positive integer, got {value!r}")
    tasks = _load(data)
    results = Results(
        "workflows",
        {
            "data": str(data),
            "tasks": len(tasks),
            "templates": len({t for _, t in tasks}),
            "seed": seed,
            "sim_types": types,
            "sim_runs_per_type": runs,
            "confirm_runs": confirm,
            "noise_levels": list(NOISE_LEVELS),
        },
    )
    progress(f"task types: {len(tasks)} intents")
    _task_types(tasks, results)
    progress("match: held-out instance per template")
    _match(tasks, results)
    for noise in NOISE_LEVELS:
        progress(f"simulation: noise={noise}")
        _simulate(random.Random(seed), noise, types, runs, confirm, results)
    return results


def _load(data: Path) -> list[tuple[str, int]]:
    if not data.is_file():
        raise InvalidInput("data", f"no such file: {data}")
    try:
        raw = json.loads(data.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise InvalidInput("data", f"cannot read {data}: {error}") from error
    rows = raw if isinstance(raw, list) else []
    tasks = [
        (str(r["intent"]), int(r["intent_template_id"]))
        for r in rows
        if isinstance(r, dict) and r.get("intent") and "intent_template_id" in r
    ]
    if not tasks:
        raise InvalidInput("data", f"no task with intent and intent_template_id in {data}")
    return tasks


# -- clustering scores ----------------------------------------------------------------------


def purity(labels: Sequence[Hashable], gold: Sequence[Hashable]) -> float:
    """Share of items in the majority gold class of their predicted cluster."""
    groups: dict[Hashable, list[Hashable]] = defaultdict(list)
    for label, truth in zip(labels, gold, strict=True):
        groups[label].append(truth)
    return sum(Counter(g).most_common(1)[0][1] for g in groups.values()) / len(labels)


def adjusted_rand(labels: Sequence[Hashable], gold: Sequence[Hashable]) -> float:
    """The adjusted Rand index (Hubert and Arabie 1985) of two partitions."""
    pairs = Counter(zip(labels, gold, strict=True))
    rows = Counter(labels)
    cols = Counter(gold)
    index = sum(math.comb(n, 2) for n in pairs.values())
    a = sum(math.comb(n, 2) for n in rows.values())
    b = sum(math.comb(n, 2) for n in cols.values())
    expected = a * b / math.comb(len(labels), 2) if len(labels) > 1 else 0.0
    top = (a + b) / 2
    return 1.0 if top == expected else (index - expected) / (top - expected)


def _task_types(tasks: Sequence[tuple[str, int]], results: Results) -> None:
    gold = [t for _, t in tasks]
    intents = [i for i, _ in tasks]
    systems = {
        SYSTEM: cluster(intents),
        "masked-exact": [" ".join(template(i)) for i in intents],
    }
    for system, labels in systems.items():
        results.put(system, "type_purity", DEV_GROUP, purity(labels, gold))
        results.put(system, "type_inverse_purity", DEV_GROUP, purity(gold, labels))
        results.put(system, "type_ari", DEV_GROUP, adjusted_rand(labels, gold))
        results.put(system, "types_found", DEV_GROUP, len(set(labels)))
    results.put("gold", "types_found", DEV_GROUP, len(set(gold)))


# -- match ----------------------------------------------------------------------------------


def _match(tasks: Sequence[tuple[str, int]], results: Results) -> None:
    by_template: dict[int, list[str]] = defaultdict(list)
    for intent, template_id in tasks:
        by_template[template_id].append(intent)
    held = {t: v[-1] for t, v in by_template.items() if len(v) >= 2}
    for group, given in (("given_types", True), ("inferred_types", False)):
        backend = open_backend(":memory:")
        try:
            lane = WorkflowsLane(backend.workflows, tenant="bench", clock=_Clock(), min_support=1)
            owner: dict[str, Counter[int]] = defaultdict(Counter)
            for template_id in held:
                for intent in by_template[template_id][:-1]:
                    run = lane.record(
                        intent,
                        [{"action": "solve", "args": {"task": intent}}],
                        task_type=f"tpl{template_id}" if given else None,
                    )
                    owner[run.task_type][template_id] += 1
            right = lexical = 0
            workflows = lane.all()
            for template_id, intent in held.items():
                hits = lane.match(intent, k=1)
                right += bool(hits) and _owns(owner, hits[0].workflow, template_id)
                scores = word_overlap(intent, workflows)
                best = max(range(len(workflows)), key=lambda i: scores[i])
                lexical += _owns(owner, workflows[best], template_id)
        finally:
            backend.close()
        results.put(SYSTEM, "match_acc@1", group, right / len(held))
        if given:
            results.put("lexical-only", "match_acc@1", group, lexical / len(held))
    results.put("gold", "held_out", "given_types", len(held))


def _owns(owner: dict[str, Counter[int]], workflow: Workflow, template_id: int) -> bool:
    counts = owner.get(workflow.task_type)
    return counts is not None and counts.most_common(1)[0][0] == template_id


# -- simulation -----------------------------------------------------------------------------


def _ground_truth(rng: random.Random, index: int) -> _GroundTruth:
    length = rng.randint(5, 9)
    steps: list[tuple[str, dict[str, str], bool]] = []
    for position in range(length):
        action = f"{rng.choice(VERBS)}_{rng.choice(OBJECTS)}"
        args: dict[str, str] = {}
        if rng.random() < 0.5:
            args[f"p{position}"] = "{slot}"
        if rng.random() < 0.5:
            args["mode"] = rng.choice(("fast", "full", "strict"))
        optional = position not in (0, length - 1) and not args and rng.random() < 0.4
        steps.append((action, args, optional))
    redundant = rng.randint(1, length - 2)
    action, _, _ = steps[redundant]
    steps[redundant] = (action, {"mode": "check"}, False)
    return _GroundTruth(f"sim{index}", tuple(steps), redundant)


def _trajectory(
    rng: random.Random, truth: _GroundTruth, noise: float, *, shortcut: bool, fail: bool
) -> tuple[list[dict[str, Any]], bool, int | None]:
    """Steps of one run, whether it succeeded, and (failed runs) the last true step taken."""
    steps: list[dict[str, Any]] = []
    taken = [
        i
        for i, (_, _, optional) in enumerate(truth.steps)
        if not (optional and rng.random() < 0.5) and not (shortcut and i == truth.redundant)
    ]
    stop = rng.choice(taken[1:]) if fail and len(taken) > 1 else None
    last = -1
    for i in taken:
        if stop is not None and i == stop:
            steps.append({"action": "error_page", "args": {"code": "500"}})
            return steps, False, last
        if rng.random() < noise:
            steps.append({"action": rng.choice(NOISE_ACTIONS), "args": {"n": _word(rng)}})
        action, args, _ = truth.steps[i]
        last = i
        steps.append(
            {
                "action": action,
                "args": {k: _word(rng) if v == "{slot}" else v for k, v in args.items()},
            }
        )
    return steps, True, None


def _word(rng: random.Random) -> str:
    return "".join(rng.choices(string.ascii_lowercase, k=6))


@dataclass
class _Scores:
    tp: int = 0
    induced: int = 0
    truth: int = 0
    required_tp: int = 0
    required: int = 0
    slot_tp: int = 0
    slot_fp: int = 0
    slot_fn: int = 0

    def add(self, truth: _GroundTruth, workflow: Workflow | None) -> None:
        steps = workflow.steps if workflow else ()
        self.induced += len(steps)
        self.truth += len(truth.steps)
        self.required += sum(not o for _, _, o in truth.steps)
        pairs = pairwise(
            len(steps),
            len(truth.steps),
            lambda i, j: SAME if steps[i].action == truth.steps[j][0] else MISMATCH,
        )
        matched = {j: i for i, j in pairs if i is not None and j is not None}
        matched = {j: i for j, i in matched.items() if steps[i].action == truth.steps[j][0]}
        self.tp += len(matched)
        self.required_tp += sum(not truth.steps[j][2] for j in matched)
        gold = {
            (j, k)
            for j, (_, args, _) in enumerate(truth.steps)
            for k, v in args.items()
            if v == "{slot}"
        }
        back = {i: j for j, i in matched.items()}
        found = {
            (back.get(i, -1 - i), k)
            for i, s in enumerate(steps)
            for k, v in s.args.items()
            if "{" in v
        }
        self.slot_tp += len(gold & found)
        self.slot_fp += len(found - gold)
        self.slot_fn += len(gold - found)


def _simulate(
    rng: random.Random, noise: float, types: int, runs: int, confirm: int, results: Results
) -> None:
    group = f"noise={noise}"
    truths = [_ground_truth(rng, i) for i in range(types)]
    scores = _Scores()
    converge: list[int] = []
    false_adoptions = 0
    risk_hits = risk_total = 0
    backend = open_backend(":memory:")
    try:
        lane = WorkflowsLane(
            backend.workflows, tenant="bench", clock=_Clock(), confirm_runs=confirm
        )
        for truth in truths:
            for _ in range(runs):
                fail = rng.random() < 0.15
                steps, ok, _ = _trajectory(rng, truth, noise, shortcut=False, fail=fail)
                lane.record(f"do {truth.task_type}", steps, ok, truth.task_type)
            induced = lane.induce(truth.task_type)
            scores.add(truth, induced[0] if induced else None)
            before = lane.get(truth.task_type)
            for _ in range(runs):
                steps, ok, _ = _trajectory(rng, truth, noise, shortcut=False, fail=False)
                lane.record(f"do {truth.task_type}", steps, ok, truth.task_type)
            after = lane.get(truth.task_type)
            if before and after and after.version != before.version:
                false_adoptions += 1
            needed = 0
            while needed < MAX_EVOLVE_RUNS:
                fail = rng.random() < 0.15
                steps, ok, last = _trajectory(rng, truth, noise, shortcut=True, fail=fail)
                was = lane.get(truth.task_type)
                lane.record(f"do {truth.task_type}", steps, ok, truth.task_type)
                now = lane.get(truth.task_type)
                needed += 1
                if last is not None and was and now:
                    risk_total += 1
                    risky = [
                        a.action
                        for a, b in zip(was.steps, now.steps, strict=False)
                        if b.risk > a.risk
                    ]
                    expected = next(
                        (a for a, _, optional in truth.steps[last + 1 :] if not optional), None
                    )
                    risk_hits += bool(risky) and risky[0] == expected
                if now and all(s.args.get("mode") != "check" for s in now.steps):
                    converge.append(needed)
                    break
    finally:
        backend.close()
    results.put(SYSTEM, "step_precision", group, scores.tp / max(scores.induced, 1))
    results.put(SYSTEM, "step_recall", group, scores.tp / max(scores.truth, 1))
    results.put(SYSTEM, "required_step_recall", group, scores.required_tp / max(scores.required, 1))
    slots = 2 * scores.slot_tp + scores.slot_fp + scores.slot_fn
    results.put(SYSTEM, "param_f1", group, 2 * scores.slot_tp / slots if slots else 1.0)
    results.put(SYSTEM, "evolve_runs_to_adopt", group, sum(converge) / max(len(converge), 1))
    results.put(SYSTEM, "evolve_converged", group, len(converge) / types)
    results.put(SYSTEM, "false_adoptions", group, false_adoptions)
    results.put(SYSTEM, "risk_on_failed_step", group, risk_hits / max(risk_total, 1))
