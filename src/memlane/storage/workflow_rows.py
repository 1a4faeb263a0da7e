"""How every backend stores the workflow lane's rows: steps and bodies as canonical JSON.

Pure functions, so SQLite and PostgreSQL write identical texts (``memlane export`` moves them
unchanged) and rewrite them identically when ``forget`` scrubs a value.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from memlane.facts.normalize import canonical_json
from memlane.timeutil import from_micros
from memlane.workflows.model import Action, Trajectory, Workflow

RUN_COLUMNS = "id, task, task_type, steps, success, reason, recorded_at"
"""The ``workflow_runs`` columns :func:`run` decodes, in order."""


def steps_json(steps: Sequence[Action]) -> str:
    """The ``steps`` column of a run."""
    return canonical_json([step.as_dict() for step in steps])


def body_json(workflow: Workflow) -> str:
    """The ``body`` column of a workflow revision."""
    return canonical_json(workflow.as_dict())


def workflow(body: str, tx_from: int) -> Workflow:
    """A workflow revision from its ``body`` and ``tx_from`` columns."""
    return Workflow.from_dict(json.loads(body), from_micros(tx_from))


def run(row: Sequence[Any]) -> Trajectory:
    """A recorded run from a row of :data:`RUN_COLUMNS`."""
    steps = tuple(
        Action(s["action"], s.get("args") or {}, s.get("note", "")) for s in json.loads(row[3])
    )
    return Trajectory(
        id=row[0],
        task=row[1],
        task_type=row[2],
        steps=steps,
        success=bool(row[4]),
        reason=row[5],
        recorded_at=from_micros(row[6]),
    )


def edit_json(text: str, edit: Callable[[str], str]) -> str:
    """Apply ``edit`` to every string inside a JSON text (keys stay); canonical JSON back."""
    return canonical_json(walk(json.loads(text), edit))


def walk(value: Any, edit: Callable[[str], str]) -> Any:
    """``value`` with ``edit`` applied to every string in it, however deeply nested."""
    if isinstance(value, str):
        return edit(value)
    if isinstance(value, list):
        return [walk(item, edit) for item in value]
    if isinstance(value, dict):
        return {key: walk(item, edit) for key, item in value.items()}
    return value
