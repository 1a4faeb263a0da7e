"""Offline induction: a common skeleton from a task type's successful trajectories.

Trajectories are aligned progressively; a column most runs share is a required step, one a
fair share takes is optional, the rest is noise and dropped. Argument values that agree
stay literal; values that vary become ``{param}`` slots, named after the element's label,
the kind of value (dates, numbers), or the words before the value in the task text.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from memlane.lang.tasks import DATE as _DATE
from memlane.lang.tasks import NAME_STOP as _NAME_STOP
from memlane.lang.tasks import PREPOSITION_ROLES as _PREPOSITION
from memlane.workflows.align import element, progressive, refine
from memlane.workflows.model import Action, Step, Trajectory, Workflow, smoothed_rate

REQUIRED_SHARE = 0.8
KEEP_SHARE = 0.5
MAX_EXAMPLES = 5
_WORD = re.compile(r"[a-z0-9]+")
_NUMBER = re.compile(r"^\s*[-+]?\d[\d,.]*\s*$")


@dataclass
class _Namer:
    """Names the parameters of one workflow, reusing a name when the values coincide."""

    tasks: Sequence[str]
    used: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def name(self, base: str, values: tuple[str, ...]) -> str:
        for existing, seen in self.used.items():
            if seen == values:
                return existing
        name, suffix = base, 2
        while name in self.used:
            name, suffix = f"{base}_{suffix}", suffix + 1
        self.used[name] = values
        return name

    def after(self, values: tuple[str, ...]) -> str | None:
        """A name for values that contain an earlier parameter's values (a pop-up option)."""
        for existing, seen in self.used.items():
            if all(s and s.casefold() in v.casefold() for s, v in zip(seen, values, strict=True)):
                return f"{existing}_option"
        return None

    def from_task(self, values: tuple[str, ...]) -> str | None:
        """Name from the words before the value in its task, if the task mentions it."""
        for task, value in zip(self.tasks, values, strict=True):
            at = task.casefold().find(value.casefold().strip())
            if at <= 0 or not value.strip():
                continue
            before = _WORD.findall(task[:at].casefold())[-2:]
            if before and before[-1] in _PREPOSITION:
                return _PREPOSITION[before[-1]]
            words = [w for w in before if w not in _NAME_STOP and not w.isdigit()]
            if words:
                return "_".join(words)
        return None


def slug(text: str, limit: int = 2) -> str | None:
    """``"Origin City or Airport"`` → ``"origin_city"`` (``None`` if no word is left)."""
    words = [w for w in _WORD.findall(text.casefold()) if w not in _NAME_STOP]
    words = [w for w in words if not w.isdigit()]
    return "_".join(words[:limit]) or None


def kind_of(values: Sequence[str]) -> str | None:
    """``"date"`` or ``"number"`` when every value is one, else ``None``."""
    if all(_DATE.search(v) for v in values):
        return "date"
    if all(_NUMBER.match(v) for v in values):
        return "number"
    return None


def induce(task_type: str, trajectories: Sequence[Trajectory], version: int = 1) -> Workflow | None:
    """The workflow of ``task_type`` from its trajectories (``None`` without a success)."""
    wins = [t for t in trajectories if t.success]
    if not wins:
        return None
    total = len(wins)
    keep = max(min(2, total), math.ceil(total * KEEP_SHARE))
    alignment = refine(progressive([t.steps for t in wins]), rare=keep)
    namer = _Namer([t.task for t in wins])
    steps: list[Step] = []
    for column in alignment.columns:
        runs = {index for index, _ in column}
        if len(runs) < keep:
            continue
        steps.append(_step(column, total, namer))
    runs_total = len(trajectories)
    params = tuple(dict.fromkeys(p for s in steps if not s.optional for p in s.params()))
    workflow = Workflow(
        task_type=task_type,
        steps=tuple(steps),
        params=params,
        support=total,
        success_rate=smoothed_rate(total, runs_total),
        version=version,
        description="",
        runs=runs_total,
        successes=total,
        examples=tuple(dict.fromkeys(t.task for t in wins))[:MAX_EXAMPLES],
    )
    return describe(workflow)


def _step(column: list[tuple[int, Action]], total: int, namer: _Namer) -> Step:
    first: dict[int, Action] = {}
    for index, action in column:
        first.setdefault(index, action)
    actions = list(first.values())
    name = Counter(a.action for a in actions).most_common(1)[0][0]
    actions = [a for a in actions if a.action == name]
    keys = [k for k in actions[0].args if all(k in a.args for a in actions)]
    # Values are named per run; runs lacking this step get "" so names line up by run.
    by_run = {index: action for index, action in first.items() if action.action == name}
    args: dict[str, str] = {}
    for key in keys:
        values = tuple(by_run[i].args[key] if i in by_run else "" for i in sorted(first))
        present = tuple(v for v in values if v)
        if len({v.casefold().strip() for v in present}) <= 1:
            args[key] = present[0] if present else ""
        else:
            args[key] = _template(key, values, actions[0], namer)
    return Step(
        action=name,
        args=args,
        optional=len(first) < math.ceil(total * REQUIRED_SHARE),
        support=len(first),
    )


def _template(key: str, values: tuple[str, ...], sample: Action, namer: _Namer) -> str:
    present = [v for v in values if v]
    if key == "element":
        roles = {(element({"element": v}) or ("", ""))[0] for v in present}
        labels = tuple(v.split("]", 1)[1].strip() if "]" in v else v for v in values)
        base = (
            kind_of([v for v in labels if v])
            or namer.after(labels)
            or namer.from_task(labels)
            or f"{(element(sample.args) or ('item', ''))[0] or 'item'}_choice"
        )
        slot = "{" + namer.name(base, labels) + "}"
        role = (element(sample.args) or ("", ""))[0]
        return f"[{role}] {slot}" if len(roles) == 1 and role else slot
    label = element(sample.args)
    base = (
        (slug(label[1]) if label and label[1] else None)
        or (None if key.startswith("arg") or key in ("value", "raw") else slug(key, 3))
        or kind_of(present)
        or namer.from_task(values)
        or "value"
    )
    return "{" + namer.name(base, values) + "}"


def describe(workflow: Workflow) -> Workflow:
    """The workflow with its deterministic description (no language model involved)."""
    required = [s for s in workflow.steps if not s.optional]
    words = workflow.task_type.replace("_", " ").replace("-", " ").strip()
    parts = [f"How to {words}: {len(required)} steps"]
    if len(required) != len(workflow.steps):
        parts[0] += f" (+{len(workflow.steps) - len(required)} optional)"
    if workflow.params:
        parts.append("needs " + ", ".join(workflow.params))
    parts.append(f"learned from {workflow.support} successful runs")
    if workflow.examples:
        parts.append(f'e.g. "{workflow.examples[0]}"')
    description = "; ".join(parts) + "."
    return replace(workflow, description=description)
