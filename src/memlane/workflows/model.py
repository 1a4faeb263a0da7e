"""Models of the workflow lane: recorded actions and trajectories, induced workflows."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from types import MappingProxyType
from typing import Any

SLOT_OPEN = "{"
SLOT_CLOSE = "}"


def _frozen(args: Mapping[str, str]) -> Mapping[str, str]:
    return MappingProxyType(dict(args))


@dataclass(frozen=True, slots=True)
class Action:
    """One concrete step an agent took: an action name and its argument values.

    Web actions keep the element they acted on in ``args["element"]`` (``"[role] label"``)
    and a typed or selected value in ``args["value"]``.
    """

    action: str
    args: Mapping[str, str] = field(default_factory=dict)
    note: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "args", _frozen(self.args))

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        out: dict[str, Any] = {"action": self.action, "args": dict(self.args)}
        if self.note:
            out["note"] = self.note
        return out


@dataclass(frozen=True, slots=True)
class Trajectory:
    """One recorded run of a task: what was asked, the actions taken, and the outcome."""

    id: int
    task: str
    task_type: str
    steps: tuple[Action, ...]
    success: bool
    reason: str | None = None
    recorded_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class Step:
    """One step of a workflow: an action and an argument template with ``{param}`` slots.

    ``support`` counts the trajectories that took the step, ``risk`` the failed runs that
    diverged here (``risk_reasons`` says why, most recent last).
    """

    action: str
    args: Mapping[str, str] = field(default_factory=dict)
    optional: bool = False
    support: int = 0
    risk: int = 0
    risk_reasons: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "args", _frozen(self.args))

    def params(self) -> list[str]:
        """The parameter names this step's arguments mention, in order."""
        return slots_in(" ".join(self.args.values()))

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return {
            "action": self.action,
            "args": dict(self.args),
            "optional": self.optional,
            "support": self.support,
            "risk": self.risk,
            "risk_reasons": list(self.risk_reasons),
        }

    @staticmethod
    def from_dict(data: Mapping[str, Any]) -> Step:
        """Inverse of :meth:`as_dict`."""
        return Step(
            action=str(data["action"]),
            args={str(k): str(v) for k, v in dict(data.get("args") or {}).items()},
            optional=bool(data.get("optional", False)),
            support=int(data.get("support", 0)),
            risk=int(data.get("risk", 0)),
            risk_reasons=tuple(str(r) for r in data.get("risk_reasons", ())),
        )


@dataclass(frozen=True, slots=True)
class Workflow:
    """A reusable procedure for one task type, induced from trajectories and evolved.

    ``version`` counts changes of the steps; ``runs``/``successes`` feed the smoothed
    ``success_rate`` (Laplace: (successes + 1) / (runs + 2)); ``tx_from`` is when this
    stored revision was written. ``examples`` are tasks it was induced from.
    """

    task_type: str
    steps: tuple[Step, ...]
    params: tuple[str, ...]
    support: int
    success_rate: float
    version: int
    description: str
    tx_from: datetime | None = None
    runs: int = 0
    successes: int = 0
    examples: tuple[str, ...] = ()
    pending: Mapping[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "pending", MappingProxyType(dict(self.pending)))

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready form (what the store keeps)."""
        return {
            "task_type": self.task_type,
            "steps": [s.as_dict() for s in self.steps],
            "params": list(self.params),
            "support": self.support,
            "success_rate": self.success_rate,
            "version": self.version,
            "description": self.description,
            "runs": self.runs,
            "successes": self.successes,
            "examples": list(self.examples),
            "pending": dict(self.pending),
        }

    @staticmethod
    def from_dict(data: Mapping[str, Any], tx_from: datetime | None = None) -> Workflow:
        """Inverse of :meth:`as_dict`."""
        return Workflow(
            task_type=str(data["task_type"]),
            steps=tuple(Step.from_dict(s) for s in data["steps"]),
            params=tuple(str(p) for p in data["params"]),
            support=int(data["support"]),
            success_rate=float(data["success_rate"]),
            version=int(data["version"]),
            description=str(data["description"]),
            tx_from=tx_from,
            runs=int(data.get("runs", 0)),
            successes=int(data.get("successes", 0)),
            examples=tuple(str(e) for e in data.get("examples", ())),
            pending={str(k): int(v) for k, v in dict(data.get("pending") or {}).items()},
        )


@dataclass(frozen=True, slots=True)
class WorkflowHit:
    """A workflow matching a task description, with a score in ``[0, 1]``."""

    workflow: Workflow
    score: float


def smoothed_rate(successes: int, runs: int) -> float:
    """Laplace-smoothed success rate: a workflow with no runs sits at 0.5."""
    return (successes + 1) / (runs + 2)


def slots_in(text: str) -> list[str]:
    """The ``{param}`` names in ``text``, in order of first appearance."""
    names: list[str] = []
    start = text.find(SLOT_OPEN)
    while start != -1:
        end = text.find(SLOT_CLOSE, start + 1)
        if end == -1:
            break
        name = text[start + 1 : end]
        if name and name.replace("_", "").isalnum() and name not in names:
            names.append(name)
        start = text.find(SLOT_OPEN, end + 1)
    return names
