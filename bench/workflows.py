"""Workflow lane: task typing and matching on WebArena task configs, induction and evolution.

Same as ``memlane bench workflows``; for example:

    python bench/workflows.py --data /work/shared/data/awm/webarena_tasks_dev.json \
        --out workflows.json
"""

from __future__ import annotations

import sys

from memlane.cli import cli

if __name__ == "__main__":
    cli(["bench", "workflows", *sys.argv[1:]], prog_name="bench/workflows.py")
