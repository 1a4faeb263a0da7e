"""The workflow lane: trajectories in, parameterized and evolving workflows out."""

from memlane.workflows.model import Action, Step, Trajectory, Workflow, WorkflowHit

__all__ = ["Action", "Step", "Trajectory", "Workflow", "WorkflowHit"]
