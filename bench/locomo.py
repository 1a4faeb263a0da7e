"""Recall on LoCoMo: memlane against flat vector, BM25 and RRF retrieval over turns.

Same as ``memlane bench locomo``; for example:

    python bench/locomo.py --data /work/shared/data/locomo/locomo_dev.json --embedder hash \
        --out locomo-hash.json
"""

from __future__ import annotations

import sys

from memlane.cli import cli

if __name__ == "__main__":
    cli(["bench", "locomo", *sys.argv[1:]], prog_name="bench/locomo.py")
