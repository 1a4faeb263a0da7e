"""HTTP load on loopback against a real ``memlane serve``; same as ``memlane bench server``.

python bench/server.py --clients 1,16,64 --tenants 100 --seconds 15 --out bench-results/server.json
"""

from __future__ import annotations

import sys

from memlane.cli import cli

if __name__ == "__main__":
    cli(["bench", "server", *sys.argv[1:]], prog_name="bench/server.py")
