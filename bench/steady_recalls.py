"""Steady recalls of one subject of a stored `bench scale` file: CPU per recall as they go on.

A long-lived memory keeps what its recalls read of a subject (per stamp, up to a bound:
:mod:`memlane.summaries.sources_kept`), so a recall's cost may depend on how many recalls
came before it. This asks ``RECALLS`` of bench scale's questions (``_note(j)``'s, ``j``
drawn with ``--seed``), after 5 not counted, of the subject ``S-1`` of a file written by
``memlane bench scale`` (tenant ``scale-N``), and prints the process CPU per recall (p50
and mean) of all of them and of those after the first ``--after``, the CPU the garbage
collector took per recall, and the ids kept. With ``--items FILE`` every item (ref, text,
status, provenance, score, lane) and the rendered text are written, one JSON line per
recall, to compare two trees' answers byte for byte. Run two trees alternately, each on its
own copy of the file (a newer tree migrates it, which an older one then refuses):

    cp scale.db /tmp/a.db && PYTHONPATH=/path/to/main/src python bench/steady_recalls.py \
        100000 /tmp/a.db 400
    cp scale.db /tmp/b.db && PYTHONPATH=src python bench/steady_recalls.py 100000 /tmp/b.db 400
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path
from statistics import mean, median
from typing import Any

from collector_time import CollectorTime
from memlane.bench.backends import _note
from memlane.bench.scale import SUBJECT
from memlane.memory import Memory


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("notes", type=int, help="the file's scale (its tenant is scale-N)")
    parser.add_argument("file", type=Path, help="a copy of the file bench scale wrote")
    parser.add_argument("recalls", type=int)
    parser.add_argument("--after", type=int, default=200, help="report those after these too")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--items", type=Path, default=None, help="write every answer here")
    args = parser.parse_args()
    collections, cpus, records = CollectorTime(time.process_time), [], []
    with Memory(str(args.file), tenant=f"scale-{args.notes}", embedder="hash") as mem:
        mem.index.wait()
        rng = random.Random(args.seed)
        for _ in range(5):
            mem.recall(SUBJECT, _note(rng.randrange(args.notes))[2])
        with collections:
            for _ in range(args.recalls):
                question = _note(rng.randrange(args.notes))[2]
                started = time.process_time()
                recall = mem.recall(SUBJECT, question)
                cpus.append(1000 * (time.process_time() - started))
                if args.items is not None:
                    records.append(
                        {
                            "q": question,
                            "text": recall.text,
                            "items": [_item(i) for i in recall.items],
                        }
                    )
        kept = mem._resources.lines._weight  # what the memory keeps (a private count)
    later = cpus[args.after :]
    print(f"{args.notes}: {len(cpus)} recalls, CPU p50 {median(cpus):.2f} mean {mean(cpus):.2f} ms")
    if later:
        print(f"  after {args.after}: p50 {median(later):.2f} mean {mean(later):.2f} ms")
    per_recall = 1000 * collections.seconds / max(len(cpus), 1)
    print(f"  garbage collector: {collections.count} collections, {per_recall:.2f} ms a recall")
    print(f"  ids kept: {kept}")
    if args.items is not None:
        args.items.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in records))


def _item(item: Any) -> dict[str, Any]:
    return {
        "ref": getattr(item, "ref", None),
        "text": item.text,
        "status": str(getattr(item, "status", None)),
        "provenance": repr(getattr(item, "provenance", None)),
        "score": getattr(item, "score", None),
        "lane": str(getattr(item, "lane", None)),
    }


if __name__ == "__main__":
    main()
