"""Online evolution: each recorded run is aligned to the current workflow and updates it.

- A success raises the support of the steps it took and the success rate.
- A success that skips steps of the workflow yet still takes every step that binds a
  parameter is a candidate shorter path; once ``confirm`` runs took the same shortcut, the
  skipped steps are dropped in a new version.
- A failure marks the step where the run diverged (the next required step after the last one
  it took, else the step it stopped at) with one more risk and the reason.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from memlane.workflows.align import SAME_KIND, align_to_steps, step_similarity
from memlane.workflows.induce import describe
from memlane.workflows.model import Step, Trajectory, Workflow, smoothed_rate

CONFIRM_RUNS = 3
MAX_REASONS = 5
FAILED_HERE = "run failed at this step"


@dataclass(frozen=True, slots=True)
class Evolution:
    """The workflow after one run, and whether its steps changed (a new version)."""

    workflow: Workflow
    new_version: bool
    risk_step: int | None = None


def matched_steps(workflow: Workflow, trajectory: Trajectory) -> dict[int, int]:
    """``step index → action index`` for the steps the run took."""
    found: dict[int, int] = {}
    for i, j in align_to_steps(workflow.steps, trajectory.steps):
        if i is None or j is None:
            continue
        if step_similarity(workflow.steps[i], trajectory.steps[j]) >= SAME_KIND:
            found[i] = j
    return found


def evolve(workflow: Workflow, trajectory: Trajectory, confirm: int = CONFIRM_RUNS) -> Evolution:
    """Fold one run into ``workflow`` (see the module docstring)."""
    matched = matched_steps(workflow, trajectory)
    runs = workflow.runs + 1
    if not trajectory.success:
        return _failure(workflow, trajectory, matched, runs)
    successes = workflow.successes + 1
    steps = tuple(
        replace(s, support=s.support + 1) if i in matched else s
        for i, s in enumerate(workflow.steps)
    )
    updated = replace(
        workflow,
        steps=steps,
        runs=runs,
        successes=successes,
        support=workflow.support + 1,
        success_rate=smoothed_rate(successes, runs),
        examples=tuple(dict.fromkeys((*workflow.examples, trajectory.task)))[-5:],
    )
    skipped = shortcut(workflow, matched)
    if not skipped:
        return Evolution(describe(updated), False)
    key = ",".join(str(i) for i in skipped)
    pending = dict(workflow.pending)
    pending[key] = pending.get(key, 0) + 1
    if pending[key] < confirm:
        return Evolution(describe(replace(updated, pending=pending)), False)
    kept = tuple(s for i, s in enumerate(steps) if i not in skipped)
    params = tuple(dict.fromkeys(p for s in kept if not s.optional for p in s.params()))
    adopted = replace(updated, steps=kept, params=params, version=workflow.version + 1, pending={})
    return Evolution(describe(adopted), True)


def shortcut(workflow: Workflow, matched: dict[int, int]) -> tuple[int, ...]:
    """Required steps a successful run skipped, if it still took every parameter step."""
    skipped = tuple(i for i, s in enumerate(workflow.steps) if i not in matched and not s.optional)
    if not skipped or len(skipped) == sum(not s.optional for s in workflow.steps):
        return ()
    if any(workflow.steps[i].params() for i in skipped):
        return ()
    return skipped


def _failure(
    workflow: Workflow, trajectory: Trajectory, matched: dict[int, int], runs: int
) -> Evolution:
    at = divergence(workflow.steps, matched)
    reason = (trajectory.reason or FAILED_HERE).strip()[:200]
    steps = list(workflow.steps)
    if at is not None:
        step = steps[at]
        steps[at] = replace(
            step, risk=step.risk + 1, risk_reasons=(*step.risk_reasons, reason)[-MAX_REASONS:]
        )
    updated = replace(
        workflow,
        steps=tuple(steps),
        runs=runs,
        success_rate=smoothed_rate(workflow.successes, runs),
    )
    return Evolution(describe(updated), False, at)


def divergence(steps: tuple[Step, ...], matched: dict[int, int]) -> int | None:
    """Where a failed run left the workflow.

    The next required step after the last one it took (steps it skipped and then carried on
    past are not where it went wrong); if it took them all, the step it stopped at.
    """
    if not steps:
        return None
    last = max(matched, default=-1)
    for i in range(last + 1, len(steps)):
        if not steps[i].optional:
            return i
    return last if last >= 0 else 0
