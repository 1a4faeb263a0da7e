"""Probe the offline summarizer and note extractor: compression, verbatim survival, speed.

For every LoCoMo session (each speaker is a "user" subject) and for a long synthetic
Chinese/English support conversation, the turns are folded into a summary through
``OfflineSummarizer.update`` in rounds of ``--round`` turns. Reported per corpus:

- compression: estimate_tokens of the turns / estimate_tokens of the final summary;
- survival: share of identifiers, dates, amounts/quantities and bare numbers found in the
  turns (``find_spans``) that appear verbatim in the final summary;
- speed: CPU microseconds (process time, so other load on the machine does not count) of
  the summarizer and of note extraction per turn.

Usage::

    python bench/offline_summary_probe.py [--data /work/shared/data/locomo/locomo_dev.json]
        [--round 5] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import cast

from memlane.summaries.model import SummaryContent
from memlane.summaries.notes import extract_notes, relations
from memlane.summaries.offline import OfflineSummarizer
from memlane.summaries.text import estimate_tokens, find_spans
from memlane.window.model import Role, Turn

DEFAULT_DATA = Path("/work/shared/data/locomo/locomo_dev.json")
KIND_GROUPS = {
    "identifier": "identifiers",
    "date": "dates",
    "amount": "amounts",
    "quantity": "quantities",
    "number": "numbers",
}


@dataclass
class Tally:
    sessions: int = 0
    turns: int = 0
    turn_tokens: int = 0
    summary_tokens: int = 0
    ratios: list[float] = field(default_factory=list)
    found: dict[str, int] = field(default_factory=dict)
    kept: dict[str, int] = field(default_factory=dict)
    superseded: dict[str, int] = field(default_factory=dict)
    summarize_s: float = 0.0
    notes_s: float = 0.0
    notes: int = 0
    missing: list[str] = field(default_factory=list)

    def survival(self, group: str, *, count_superseded: bool = False) -> float | None:
        total = self.found.get(group, 0)
        kept = self.kept.get(group, 0) + (self.superseded.get(group, 0) if count_superseded else 0)
        return None if total == 0 else kept / total


def summary_text(content: SummaryContent) -> str:
    return "\n".join(
        [*content.topic, *content.facts, *content.open_items, *content.entities, *content.mood]
    )


def run_session(
    tally: Tally, turns: Sequence[Turn], summarizer: OfflineSummarizer, rounds: int
) -> SummaryContent:
    content: SummaryContent | None = None
    start = time.process_time()
    for index in range(0, len(turns), rounds):
        content = summarizer.update(content, turns[index : index + rounds])
    tally.summarize_s += time.process_time() - start
    final = content or SummaryContent()
    start = time.process_time()
    for turn in turns:
        tally.notes += len(extract_notes(turn, timezone=UTC))
    tally.notes_s += time.process_time() - start
    text = summary_text(final)
    turn_tokens = sum(estimate_tokens(turn.content) for turn in turns)
    summary_tokens = estimate_tokens(text)
    tally.sessions += 1
    tally.turns += len(turns)
    tally.turn_tokens += turn_tokens
    tally.summary_tokens += summary_tokens
    tally.ratios.append(turn_tokens / max(1, summary_tokens))
    for index, turn in enumerate(turns):
        for span in find_spans(turn.content):
            group = KIND_GROUPS[span.kind]
            tally.found[group] = tally.found.get(group, 0) + 1
            if span.text in text:
                tally.kept[group] = tally.kept.get(group, 0) + 1
            elif superseded(turns, index):
                tally.superseded[group] = tally.superseded.get(group, 0) + 1
            elif group in ("identifiers", "dates") and len(tally.missing) < 10:
                tally.missing.append(f"{span.kind}: {span.text!r} in {turn.content[:80]!r}")
    return final


def superseded(turns: Sequence[Turn], index: int) -> bool:
    """The turn states a relation (phone, location...) that the same speaker restates later.

    The summary keeps only the newest value of such a relation; the older one is history,
    which the exact lane keeps (bi-temporal facts), not the summary.
    """
    said = set(relations(turns[index].content))
    return bool(said) and any(
        (later.subject, later.speaker, later.role)
        == (turns[index].subject, turns[index].speaker, turns[index].role)
        and said & set(relations(later.content))
        for later in turns[index + 1 :]
    )


def parse_locomo_time(text: str) -> datetime:
    """'1:56 pm on 8 May, 2023' -> aware UTC datetime."""
    return datetime.strptime(text, "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def locomo_sessions(path: Path) -> Iterator[list[Turn]]:
    for sample in json.loads(path.read_text(encoding="utf-8")):
        conversation = sample["conversation"]
        number = 1
        while f"session_{number}" in conversation:
            at = parse_locomo_time(conversation[f"session_{number}_date_time"])
            session_id = f"{sample['sample_id']}-s{number}"
            yield [
                Turn(
                    f"{session_id}#{index}",
                    session_id,
                    sample["sample_id"],
                    "user",
                    message["text"],
                    at + timedelta(seconds=30 * index),
                    speaker=message["speaker"],
                )
                for index, message in enumerate(conversation[f"session_{number}"])
            ]
            number += 1


ID_TEMPLATES_USER = [
    "我的订单 ORD-{n:06d} 还没到，能帮我查一下吗？",
    "我上周搬到{city}了，新手机号 139-{a:04d}-{b:04d}。",
    "My order ORD-{n:06d} arrived damaged, I need a refund of ${amount}.",
    "I moved to {city} on 2026-{month:02d}-{day:02d} and my email is user{n}@example.com.",
    "提醒我 {month}月{day}日 去取快递，单号 SF{n:010d}。",
    "I'm getting frustrated, this is the third time I ask about ticket #{n}.",
]
PLAIN_TEMPLATES_USER = [
    "谢谢，好的。",
    "Thanks, that helps a lot!",
    "今天天气不错，我心情很好，下午打算去{city}的公园散步。",
    "I have two kids and we live near the river, they love the park in {city}.",
    "最近工作压力有点大，晚上总是睡不好，想找点放松的办法。",
    "I started learning the guitar last month and practice every evening after dinner.",
    "我们公司下个月要搬到新的办公楼，通勤会方便很多。",
    "My sister is visiting from {city} next week, we want to try some new restaurants.",
]
ID_TEMPLATES_ASSISTANT = [
    "订单 ORD-{n:06d} 预计 2026年{month}月{day}日 送达。",
    "I have refunded ${amount} for order ORD-{n:06d}; it takes 3-5 days.",
]
PLAIN_TEMPLATES_ASSISTANT = [
    "好的，已为您记录。",
    "Sure, anything else I can help with?",
    "听起来不错，注意休息。",
    "That sounds lovely, enjoy your time together!",
]


def synthetic_session(turn_count: int, id_share: float, seed: int = 7) -> list[Turn]:
    """A long support conversation mixing Chinese and English.

    ``id_share`` of the turns come from templates with identifiers, dates and amounts.
    """
    rng = random.Random(seed)
    cities = ["北京", "上海", "杭州", "Berlin", "Paris", "Shenzhen"]
    at = datetime(2026, 7, 1, 9, tzinfo=UTC)
    turns: list[Turn] = []
    for index in range(turn_count):
        user = index % 2 == 0
        with_ids = rng.random() < id_share
        if user:
            templates = ID_TEMPLATES_USER if with_ids else PLAIN_TEMPLATES_USER
        else:
            templates = ID_TEMPLATES_ASSISTANT if with_ids else PLAIN_TEMPLATES_ASSISTANT
        text = rng.choice(templates).format(
            n=rng.randrange(10**6),
            a=rng.randrange(10**4),
            b=rng.randrange(10**4),
            city=rng.choice(cities),
            amount=f"{rng.randrange(5, 500)}.{rng.randrange(100):02d}",
            month=rng.randrange(1, 13),
            day=rng.randrange(1, 29),
        )
        role: Role = "user" if user else "assistant"
        turns.append(
            Turn(f"syn#{index}", "syn", "U-001", role, text, at + timedelta(minutes=index))
        )
    return turns


def report(name: str, tally: Tally) -> dict[str, object]:
    ratios = sorted(tally.ratios)
    row: dict[str, object] = {
        "corpus": name,
        "sessions": tally.sessions,
        "turns": tally.turns,
        "turn_tokens": tally.turn_tokens,
        "summary_tokens": tally.summary_tokens,
        "compression_total": round(tally.turn_tokens / max(1, tally.summary_tokens), 2),
        "compression_median_session": round(ratios[len(ratios) // 2], 2),
        "compression_min_session": round(ratios[0], 2),
        "summarize_cpu_us_per_turn": round(1e6 * tally.summarize_s / max(1, tally.turns), 1),
        "notes_cpu_us_per_turn": round(1e6 * tally.notes_s / max(1, tally.turns), 1),
        "notes_per_turn": round(tally.notes / max(1, tally.turns), 2),
    }
    for group in ("identifiers", "dates", "amounts", "quantities", "numbers"):
        share = tally.survival(group)
        row[f"survival_{group}"] = None if share is None else round(share, 4)
        share = tally.survival(group, count_superseded=True)
        row[f"survival+superseded_{group}"] = None if share is None else round(share, 4)
        row[f"count_{group}"] = tally.found.get(group, 0)
    row["missing_examples"] = tally.missing
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--round", type=int, default=5, help="turns per update()")
    parser.add_argument("--max-items", type=int, default=6)
    parser.add_argument("--synthetic-turns", type=int, default=400)
    parser.add_argument("--json", type=Path, default=None, help="write the results here")
    parser.add_argument("--show", type=int, default=1, help="print this many LoCoMo summaries")
    args = parser.parse_args()

    rows = []
    if args.data.exists():
        tally = Tally()
        summarizer = OfflineSummarizer(args.max_items)
        for number, turns in enumerate(locomo_sessions(args.data)):
            final = run_session(tally, turns, summarizer, args.round)
            if number < args.show:
                print(f"--- {turns[0].session_id}: {len(turns)} turns")
                for section in ("topic", "facts", "open_items", "entities", "mood"):
                    print(f"{section}: {list(getattr(final, section))}")
        rows.append(report("locomo_dev", tally))
    else:
        print(f"(no LoCoMo data at {args.data}; synthetic only)")
    for share in (0.2, 1.0):
        tally = Tally()
        turns = synthetic_session(args.synthetic_turns, share)
        run_session(tally, turns, OfflineSummarizer(args.max_items), args.round)
        rows.append(report(f"synthetic_{args.synthetic_turns}_ids{int(share * 100)}%", tally))

    keys = [key for key in rows[0] if key != "missing_examples"]
    print()
    print(f"{'metric':32}" + "".join(f"{row['corpus']!s:>26}" for row in rows))
    for key in keys[1:]:
        print(f"{key:32}" + "".join(f"{row[key]!s:>26}" for row in rows))
    for row in rows:
        for example in cast(list[str], row["missing_examples"]):
            print(f"missing ({row['corpus']}): {example}")
    if args.json is not None:
        document = {
            "suite": "offline_summary_probe",
            "params": {
                "round": args.round,
                "max_items": args.max_items,
                "machine": {"python": platform.python_version(), "platform": platform.platform()},
            },
            "results": rows,
        }
        args.json.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
