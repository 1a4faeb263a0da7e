"""The workflow lane (``mem.workflows``): experience memory after Agent Workflow Memory.

Runs are recorded with their task; task types are inferred when not given; a type with
enough successful runs gets a workflow induced from them, and every later run evolves it
(:mod:`memlane.workflows.evolve`). Every revision is kept with its transaction time.
``match`` ranks workflows for a task description by fusing three rankings: masked-intent
similarity to the tasks a workflow was learned from, word overlap, and (when an embedder
is attached and loads) embedding cosine.
"""

from __future__ import annotations

import math
import re
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from memlane import validation
from memlane.errors import InvalidInput
from memlane.summaries.search import fuse
from memlane.timeutil import Clock, checked_now, to_micros
from memlane.workflows.evolve import CONFIRM_RUNS, evolve
from memlane.workflows.induce import induce
from memlane.workflows.model import Action, Step, Trajectory, Workflow, WorkflowHit
from memlane.workflows.parse import parse_steps
from memlane.workflows.tasktype import TypeIndex, similarity, template

if TYPE_CHECKING:
    from memlane.embed.base import Embedder
    from memlane.storage.base import WorkflowStore

MIN_SUPPORT = 2
MAX_K = 50
MAX_TASK_CHARS = 2_000
MAX_CACHED_VECTORS = 4_096
"""Workflow vectors kept per lane (every evolved version has its own)."""
REDACTED = "[forgotten]"
_WORD = re.compile(r"\w+")


class WorkflowsLane:
    """Workflows of one tenant. Reached as ``Memory.workflows``.

    Args:
        store: the backend's workflow store.
        tenant: scopes every read and write.
        clock: the current instant, for transaction times.
        embedder: returns the embedder for ``match`` (optional; matching works without).
        confirm_runs: successful runs of one shortcut needed before it is adopted.
        min_support: successful runs of a type before a workflow is induced online.
    """

    def __init__(
        self,
        store: WorkflowStore,
        *,
        tenant: str,
        clock: Clock,
        embedder: Callable[[], Embedder] | None = None,
        confirm_runs: int = CONFIRM_RUNS,
        min_support: int = MIN_SUPPORT,
    ) -> None:
        for field, value in (("confirm_runs", confirm_runs), ("min_support", min_support)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InvalidInput(field, "must be a positive integer")
        self._store = store
        self._tenant = tenant
        self._clock = clock
        self._embedder = embedder
        self.confirm_runs = confirm_runs
        self.min_support = min_support
        self._types: TypeIndex | None = None
        # The index is read and extended by concurrent calls (a Memory is shared by threads).
        self._types_lock = threading.RLock()
        self._vectors: dict[tuple[str, int, str], Any] = {}

    # -- writes -------------------------------------------------------------------------

    def record(
        self,
        task: str,
        steps: str | Iterable[Any],
        success: bool = True,
        task_type: str | None = None,
        reason: str | None = None,
    ) -> Trajectory:
        """Keep one run of a task and evolve (or first induce) its type's workflow.

        ``steps``: dicts ``{"action", "args"}``, :class:`Action` objects, Mind2Web lines or a
        WebArena ``<think>/<action>`` text. Without ``task_type`` the type is inferred.

        >>> mem.workflows.record("Refund order ORD-1", [{"action": "refund"}])  # doctest: +SKIP
        """
        task = _text("task", task, MAX_TASK_CHARS)
        if task_type is not None:
            task_type = _type_name(task_type)
        validation.flag("success", success)
        if reason is not None:
            reason = _text("reason", reason, MAX_TASK_CHARS)
        actions = parse_steps(steps)
        validation.fact_value("steps", [[a.action, a.args] for a in actions])
        with self._types_lock:
            chosen = self._type_index().add(task, task_type)
        try:
            return self._store_run(task, chosen, actions, success, reason)
        except BaseException:
            self._types = None  # the index learned a run that was not stored
            raise

    def _store_run(
        self, task: str, chosen: str, actions: list[Action], success: bool, reason: str | None
    ) -> Trajectory:
        with self._store.transaction() as store:
            tx = store.next_tx(to_micros(checked_now(self._clock)))
            run = store.put_run(self._tenant, task, chosen, actions, success, reason, tx)
            current = store.current(self._tenant, chosen)
            if current:
                step = evolve(current[0], run, self.confirm_runs)
                store.put_workflow(self._tenant, step.workflow, tx)
            elif success:
                runs = store.runs(self._tenant, chosen)
                if sum(r.success for r in runs) >= self.min_support:
                    induced = induce(chosen, runs)
                    if induced is not None:
                        store.put_workflow(self._tenant, induced, tx)
        return run

    def induce(self, task_type: str | None = None) -> list[Workflow]:
        """Re-induce workflows from every recorded run (of one type, or all): a new version.

        Types without a successful run are skipped.
        """
        if task_type is not None:
            task_type = _type_name(task_type)
        runs = self._store.runs(self._tenant, task_type)
        by_type: dict[str, list[Trajectory]] = {}
        for run in runs:
            by_type.setdefault(run.task_type, []).append(run)
        made: list[Workflow] = []
        with self._store.transaction() as store:
            tx = store.next_tx(to_micros(checked_now(self._clock)))
            for name, group in sorted(by_type.items()):
                current = store.current(self._tenant, name)
                version = current[0].version + 1 if current else 1
                workflow = induce(name, group, version)
                if workflow is not None:
                    made.append(store.put_workflow(self._tenant, workflow, tx))
        return made

    def scrub(self, needles: Iterable[str]) -> int:
        """Replace every occurrence of ``needles`` in runs and workflows (``forget``).

        Matching ignores case; every stored revision is rewritten. Returns rows changed.
        """
        words = sorted({n.strip() for n in needles if isinstance(n, str) and n.strip()}, key=len)
        if not words:
            return 0
        pattern = re.compile("|".join(_needle_pattern(w) for w in reversed(words)), re.IGNORECASE)
        changed = self._store.rewrite(self._tenant, lambda text: pattern.sub(REDACTED, text))
        self._types = None
        self._vectors.clear()
        return changed

    # -- reads --------------------------------------------------------------------------

    def get(self, task_type: str) -> Workflow | None:
        """The current workflow of a task type, or ``None``."""
        found = self._store.current(self._tenant, _type_name(task_type))
        return found[0] if found else None

    def all(self) -> list[Workflow]:
        """Every current workflow, by task type."""
        return self._store.current(self._tenant, None)

    def versions(self, task_type: str) -> list[Workflow]:
        """Every stored revision of a workflow, oldest first (``version`` counts step changes)."""
        return self._store.revisions(self._tenant, _type_name(task_type))

    def trajectories(self, task_type: str | None = None) -> list[Trajectory]:
        """Recorded runs (of one type, or all), oldest first."""
        return self._store.runs(self._tenant, None if task_type is None else _type_name(task_type))

    def infer_type(self, task: str) -> str | None:
        """The recorded task type ``task`` is an instance of, if any."""
        task = _text("task", task, MAX_TASK_CHARS)
        with self._types_lock:
            return self._type_index().infer(task)

    def match(self, task: str, k: int = 3) -> list[WorkflowHit]:
        """Workflows for a task description, best first, with a score in ``[0, 1]``."""
        query = _text("task", task, MAX_TASK_CHARS)
        validation.integer("k", k, 1, MAX_K)
        workflows = self.all()
        if not workflows:
            return []
        signals = [self._intent(query, workflows), word_overlap(query, workflows)]
        cosine = self._cosine(query, workflows)
        if cosine is not None:
            signals.append(cosine)
        rankings = [
            [i for i in sorted(range(len(workflows)), key=lambda i: -s[i]) if s[i] > 0]
            for s in signals
        ]
        # Rank by the mean signal (the score callers see); fused ranks break ties.
        fused = dict(fuse(rankings))
        mean = [sum(s[i] for s in signals) / len(signals) for i in range(len(workflows))]
        ranked = sorted(fused, key=lambda i: (-mean[i], -fused[i], i))
        return [
            WorkflowHit(workflows[i], round(min(max(mean[i], 0.0), 1.0), 4)) for i in ranked[:k]
        ]

    def render(self, workflow: Workflow) -> str:
        """The workflow as prompt text an agent can follow (AWM's format, plus risks)."""
        head = f"## {workflow.task_type} (v{workflow.version}"
        head += f", success rate {workflow.success_rate:.2f} over {workflow.runs} runs)"
        lines = [head, workflow.description]
        if workflow.params:
            lines.append("Parameters: " + ", ".join("{" + p + "}" for p in workflow.params))
        lines.append("Steps:")
        for number, step in enumerate(workflow.steps, start=1):
            line = f"{number}. {'(optional) ' if step.optional else ''}{render_step(step)}"
            lines.append(line)
            if step.risk:
                last = step.risk_reasons[-1] if step.risk_reasons else ""
                lines.append(f"   ! risk: runs failed here {step.risk} times; last: {last}")
        return "\n".join(lines)

    # -- internals ----------------------------------------------------------------------

    def _type_index(self) -> TypeIndex:
        """The task-type index, built from the stored runs on first use (lock held)."""
        if self._types is None:
            index = TypeIndex()
            for run in self._store.runs(self._tenant, None):
                index.add(run.task, run.task_type)
            self._types = index
        return self._types

    def _intent(self, query: str, workflows: Sequence[Workflow]) -> list[float]:
        masked = template(query)
        return [
            max((similarity(masked, template(e)) for e in w.examples), default=0.0)
            for w in workflows
        ]

    def _cosine(self, query: str, workflows: Sequence[Workflow]) -> list[float] | None:
        if self._embedder is None:
            return None
        from memlane.embed.base import EmbeddingError

        try:
            embedder = self._embedder()
            keys = [_vector_key(w, embedder.name) for w in workflows]
            found: dict[tuple[str, int, str], Any] = {key: self._vectors.get(key) for key in keys}
            missing = [w for w, key in zip(workflows, keys, strict=True) if found[key] is None]
            if missing:
                vectors = embedder.embed_documents([_document(w) for w in missing])
                if len(self._vectors) + len(missing) > MAX_CACHED_VECTORS:
                    self._vectors.clear()  # old versions' vectors: made again when asked
                for w, vector in zip(missing, vectors, strict=True):
                    key = _vector_key(w, embedder.name)
                    found[key] = self._vectors[key] = vector
            q = embedder.embed_query(query).reshape(-1)
        except (EmbeddingError, ImportError, OSError):
            return None
        return [max(0.0, float(found[key] @ q)) for key in keys]


def render_step(step: Step) -> str:
    """One step as a line: Mind2Web style for web actions, a call otherwise."""
    element = step.args.get("element")
    if element is not None:
        value = step.args.get("value")
        return f"{element} -> {step.action.upper()}" + (f": {value}" if value is not None else "")
    args = ", ".join(f"{k}={v}" for k, v in step.args.items())
    return f"{step.action}({args})"


def _document(workflow: Workflow) -> str:
    return " ".join(
        [workflow.task_type.replace("_", " "), workflow.description, *workflow.examples]
    )


def _vector_key(workflow: Workflow, model: str) -> tuple[str, int, str]:
    return (workflow.task_type, hash(_document(workflow)), model)


def word_overlap(query: str, workflows: Sequence[Workflow]) -> list[float]:
    """Cosine of word sets, words weighted by rarity across the workflows (idf)."""
    docs = [set(_words(_document(w))) for w in workflows]
    words = set(_words(query))
    if not words:
        return [0.0] * len(workflows)
    idf = {w: math.log(1 + len(docs) / (1 + sum(w in d for d in docs))) for w in words}
    norm = math.sqrt(sum(v * v for v in idf.values())) or 1.0
    scores = []
    for doc in docs:
        shared = sum(idf[w] ** 2 for w in words & doc)
        scores.append(shared / (norm * norm))
    return scores


def _words(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.casefold()) if len(w) > 1]


def _text(field: str, value: object, limit: int) -> str:
    return validation.text(field, value, limit).strip()


def _type_name(value: object) -> str:
    return validation.token("task_type", value)


__all__ = ["Action", "WorkflowsLane", "render_step", "word_overlap"]


def _needle_pattern(needle: str) -> str:
    """A regex for a forgotten value; a phone-like digit run matches with any separators."""
    if needle.isdigit() and len(needle) >= 6:
        return r"[\s().-]*".join(needle)
    return re.escape(needle)
