"""The workflow lane on a SQL database: recorded runs and every revision of every workflow."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from memlane.storage.sql import rows
from memlane.storage.sql.dialect import SQLStore
from memlane.timeutil import from_micros
from memlane.workflows.model import Action, Trajectory, Workflow


class SQLWorkflowStore(SQLStore):
    """Trajectories and workflow revisions of every tenant in one SQL database."""

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
        row = self.db.fetchone(
            "INSERT INTO workflow_runs (tenant, task_type, task, steps, success, reason, "
            "recorded_at) VALUES (%s, %s, %s, %s, %s, %s, %s) RETURNING id",
            (tenant, task_type, task, rows.steps_json(steps), int(success), reason, tx),
        )
        return Trajectory(
            int(row[0]), task, task_type, tuple(steps), success, reason, from_micros(tx)
        )

    def runs(self, tenant: str, task_type: str | None) -> list[Trajectory]:
        """Recorded runs (of one type, or all), oldest first."""
        sql = (
            f"SELECT {rows.RUN_COLUMNS} FROM workflow_runs WHERE tenant = %s AND deleted_at IS NULL"
        )
        parameters: tuple[Any, ...] = (tenant,)
        if task_type is not None:
            sql += " AND task_type = %s"
            parameters += (task_type,)
        return [rows.run(row) for row in self.db.fetchall(sql + " ORDER BY id", parameters)]

    def put_workflow(self, tenant: str, workflow: Workflow, tx: int) -> Workflow:
        """Store a new revision of a workflow; the previous one stays, closed at ``tx``."""
        self.db.wrote()
        self.db.execute(
            "UPDATE workflows SET tx_to = %s WHERE tenant = %s AND task_type = %s "
            "AND tx_to IS NULL",
            (tx, tenant, workflow.task_type),
        )
        self.db.execute(
            "INSERT INTO workflows (tenant, task_type, version, body, tx_from) "
            "VALUES (%s, %s, %s, %s, %s)",
            (tenant, workflow.task_type, workflow.version, rows.body_json(workflow), tx),
        )
        return Workflow.from_dict(workflow.as_dict(), from_micros(tx))

    def current(self, tenant: str, task_type: str | None) -> list[Workflow]:
        """The current revision of one workflow (or of every workflow), by task type."""
        sql = (
            "SELECT body, tx_from FROM workflows WHERE tenant = %s AND tx_to IS NULL "
            "AND deleted_at IS NULL"
        )
        parameters: tuple[Any, ...] = (tenant,)
        if task_type is not None:
            sql += " AND task_type = %s"
            parameters += (task_type,)
        order = self.dialect.bytewise("task_type")
        found = self.db.fetchall(f"{sql} ORDER BY {order}", parameters)
        return [rows.workflow(body, tx_from) for body, tx_from in found]

    def revisions(self, tenant: str, task_type: str) -> list[Workflow]:
        """Every stored revision of one workflow, oldest first."""
        found = self.db.fetchall(
            "SELECT body, tx_from FROM workflows WHERE tenant = %s AND task_type = %s "
            "AND deleted_at IS NULL ORDER BY tx_from, id",
            (tenant, task_type),
        )
        return [rows.workflow(body, tx_from) for body, tx_from in found]

    def rewrite(self, tenant: str, edit: Callable[[str], str]) -> int:
        """Apply ``edit`` to every text of the tenant's runs and revisions; rows changed."""
        changed = 0
        with self.db.write():
            for row_id, task, steps, reason in self.db.fetchall(
                "SELECT id, task, steps, reason FROM workflow_runs WHERE tenant = %s ORDER BY id",
                (tenant,),
            ):
                new = (
                    edit(task),
                    rows.edit_json(steps, edit),
                    None if reason is None else edit(reason),
                )
                if new != (task, steps, reason):
                    self.db.wrote()
                    self.db.execute(
                        "UPDATE workflow_runs SET task = %s, steps = %s, reason = %s WHERE id = %s",
                        (*new, row_id),
                    )
                    changed += 1
            for row_id, body in self.db.fetchall(
                "SELECT id, body FROM workflows WHERE tenant = %s ORDER BY id", (tenant,)
            ):
                edited = rows.edit_json(body, edit)
                if edited != body:
                    self.db.wrote()
                    self.db.execute(
                        "UPDATE workflows SET body = %s WHERE id = %s", (edited, row_id)
                    )
                    changed += 1
        return changed
