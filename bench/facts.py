"""Exact-lane latency and throughput against raw sqlite3, in one run.

Same as ``memlane bench facts``; for example:

    python bench/facts.py --scale 1000000 --out bench-results/facts.json
"""

from __future__ import annotations

import sys

from memlane.cli import cli

if __name__ == "__main__":
    cli(["bench", "facts", *sys.argv[1:]], prog_name="bench/facts.py")
