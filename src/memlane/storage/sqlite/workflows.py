"""The workflow lane on SQLite: recorded runs and every revision of every workflow."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from memlane.facts.normalize import canonical_json
from memlane.storage.sqlite.database import SQLiteDatabase
from memlane.timeutil import from_micros
from memlane.workflows.model import Action, Trajectory, Workflow

_RUN_COLUMNS = "id, task, task_type, steps, success, reason, recorded_at"


class SQLiteWorkflowStore:
    """Trajectories and workflow revisions of every tenant in one SQLite database."""

    def __init__(self, database: SQLiteDatabase) -> None:
        self.db = database

    @contextmanager
    def transaction(self) -> Iterator[SQLiteWorkflowStore]:
        """A write transaction; nested calls join the outer one."""
        with self.db.write():
            yield self

    def next_tx(self, now: int) -> int:
        """The next transaction time (shared with the other lanes)."""
        return self.db.next_tx(now)

    def put_run(
        self,
        tenant: str,
        task: str,
        task_type: str,
        steps: Sequence[Action],
        success: bool,
        reason: str | None,
        tx: int,
    ) -> Trajectory:
        """Store one recorded run."""
        self.db.wrote()
        cursor = self.db.execute(
            "INSERT INTO workflow_runs (tenant, task_type, task, steps, success, reason, "
            "recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (tenant, task_type, task, _steps_json(steps), int(success), reason, tx),
        )
        run_id = cursor.lastrowid
        assert run_id is not None
        return Trajectory(run_id, task, task_type, tuple(steps), success, reason, from_micros(tx))

    def runs(self, tenant: str, task_type: str | None) -> list[Trajectory]:
        """Recorded runs (of one type, or all), oldest first."""
        sql = f"SELECT {_RUN_COLUMNS} FROM workflow_runs WHERE tenant = ? AND deleted_at IS NULL"
        parameters: tuple[Any, ...] = (tenant,)
        if task_type is not None:
            sql += " AND task_type = ?"
            parameters += (task_type,)
        return [_run(row) for row in self.db.fetchall(sql + " ORDER BY id", parameters)]

    def put_workflow(self, tenant: str, workflow: Workflow, tx: int) -> Workflow:
        """Store a new revision of a workflow; the previous one stays, closed at ``tx``."""
        self.db.wrote()
        self.db.execute(
            "UPDATE workflows SET tx_to = ? WHERE tenant = ? AND task_type = ? AND tx_to IS NULL",
            (tx, tenant, workflow.task_type),
        )
        self.db.execute(
            "INSERT INTO workflows (tenant, task_type, version, body, tx_from) "
            "VALUES (?, ?, ?, ?, ?)",
            (tenant, workflow.task_type, workflow.version, _body(workflow), tx),
        )
        return Workflow.from_dict(workflow.as_dict(), from_micros(tx))

    def current(self, tenant: str, task_type: str | None) -> list[Workflow]:
        """The current revision of one workflow (or of every workflow), by task type."""
        sql = (
            "SELECT body, tx_from FROM workflows WHERE tenant = ? AND tx_to IS NULL "
            "AND deleted_at IS NULL"
        )
        parameters: tuple[Any, ...] = (tenant,)
        if task_type is not None:
            sql += " AND task_type = ?"
            parameters += (task_type,)
        rows = self.db.fetchall(sql + " ORDER BY task_type", parameters)
        return [Workflow.from_dict(json.loads(b), from_micros(t)) for b, t in rows]

    def revisions(self, tenant: str, task_type: str) -> list[Workflow]:
        """Every stored revision of one workflow, oldest first."""
        rows = self.db.fetchall(
            "SELECT body, tx_from FROM workflows WHERE tenant = ? AND task_type = ? "
            "AND deleted_at IS NULL ORDER BY tx_from, id",
            (tenant, task_type),
        )
        return [Workflow.from_dict(json.loads(b), from_micros(t)) for b, t in rows]

    def rewrite(self, tenant: str, edit: Callable[[str], str]) -> int:
        """Apply ``edit`` to every text of the tenant's runs and revisions; rows changed."""
        changed = 0
        with self.db.write():
            for row_id, task, steps, reason in self.db.fetchall(
                "SELECT id, task, steps, reason FROM workflow_runs WHERE tenant = ?", (tenant,)
            ):
                new = (
                    edit(task),
                    _edit_json(steps, edit),
                    None if reason is None else edit(reason),
                )
                if new != (task, steps, reason):
                    self.db.wrote()
                    self.db.execute(
                        "UPDATE workflow_runs SET task = ?, steps = ?, reason = ? WHERE id = ?",
                        (*new, row_id),
                    )
                    changed += 1
            for row_id, body in self.db.fetchall(
                "SELECT id, body FROM workflows WHERE tenant = ?", (tenant,)
            ):
                edited = _edit_json(body, edit)
                if edited != body:
                    self.db.wrote()
                    self.db.execute("UPDATE workflows SET body = ? WHERE id = ?", (edited, row_id))
                    changed += 1
        return changed


def _steps_json(steps: Sequence[Action]) -> str:
    return canonical_json([s.as_dict() for s in steps])


def _body(workflow: Workflow) -> str:
    return canonical_json(workflow.as_dict())


def _run(row: Sequence[Any]) -> Trajectory:
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


def _edit_json(text: str, edit: Callable[[str], str]) -> str:
    return canonical_json(_walk(json.loads(text), edit))


def _walk(value: Any, edit: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return edit(value)
    if isinstance(value, list):
        return [_walk(v, edit) for v in value]
    if isinstance(value, dict):
        return {k: _walk(v, edit) for k, v in value.items()}
    return value
