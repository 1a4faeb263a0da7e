"""Summary lane on LoCoMo: compression, retention of identifiers and dates, search latency.

Same as ``memlane bench summaries``; for example:

    python bench/summaries.py --data /work/shared/data/locomo/locomo_dev.json --out summaries.json
"""

from __future__ import annotations

import sys

from memlane.cli import cli

if __name__ == "__main__":
    cli(["bench", "summaries", *sys.argv[1:]], prog_name="bench/summaries.py")
