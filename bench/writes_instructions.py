"""``set_many`` of N new versions on SQLite, to count its instructions under callgrind.

Instruction counts do not change with what else the machine runs, so on a shared machine
they compare two trees where wall and CPU time cannot. Run it with N and with 0, and divide
the difference by N (the imports and the warm-up batch are the same in both):

    valgrind --tool=callgrind --callgrind-out-file=/dev/null \\
        python bench/writes_instructions.py 10000     # "Collected : ..." on stderr
    valgrind --tool=callgrind --callgrind-out-file=/dev/null \\
        python bench/writes_instructions.py 0

Each run takes a minute or two (callgrind is ~50× slower than the CPU).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import memlane

sys.path.insert(0, str(Path(__file__).parent))
from writes import BATCH, _writes  # the batches bench/writes.py writes


def main() -> None:
    """Write ``versions`` new versions in batches (``--batch``), after a warm-up batch."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("versions", type=int)
    parser.add_argument("--batch", type=int, default=BATCH)
    options = parser.parse_args()
    count, batch = options.versions, options.batch
    with (
        tempfile.TemporaryDirectory(prefix="memlane-bench-instructions-") as name,
        memlane.Memory(str(Path(name) / "bench.db")) as mem,
    ):
        mem.facts.set_many(_writes(10**6, 10**6 + 100))  # statements prepared, caches warm
        for offset in range(0, count, batch):
            mem.facts.set_many(_writes(offset, min(count, offset + batch)))


if __name__ == "__main__":
    main()
