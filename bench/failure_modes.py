"""The three failures of vector-only memory at scale: memlane against flat cosine and BM25.

Same as ``memlane bench failure-modes``; for example:

    python bench/failure_modes.py --scale 2000 --embedder hash --out fm.json
    python bench/failure_modes.py --scale 300 --with-mem0 --plot bench-results/failure_modes.png
"""

from __future__ import annotations

import sys

from memlane.cli import cli

if __name__ == "__main__":
    cli(["bench", "failure-modes", *sys.argv[1:]], prog_name="bench/failure_modes.py")
