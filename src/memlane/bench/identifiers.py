"""Identifiers of the understanding data set: stored as written, resolved to the right subject.

Replays the ``identifiers`` cases of a ``../shared/data/understanding``-format file the way
its README suggests (:func:`memlane.bench.understanding.feed`, a fresh
:class:`~memlane.Memory` per case) and measures, per language, beside the pass rate that
``memlane bench understanding`` reports:

* ``stored``: identifier facts written (every attribute defined as an identifier);
  ``verbatim``: those whose value occurs in a text the subject said, neither cut short nor
  run on (no letter or digit continues it, directly or after a separator);
* ``resolved``: questions naming an identifier with no subject whose identifiers, looked up
  with ``mem.facts.lookup`` in every identifier attribute, give exactly the subject that
  said the gold answer (or, for ``expect: nothing``, nobody); ``wrong_subject`` counts
  questions that resolved to someone else;
* ``id_answers``: questions with a subject whose gold answer is itself an identifier, and
  ``id_kept`` those where that subject holds it verbatim as an identifier fact;
* ``recall_top1``: the README's ``answer`` rule on ``mem.recall`` (the top item matches a
  gold string; for ``nothing``, the top item matches no wrong string and an unknown id
  returns no item).

``python -m memlane.bench.identifiers --data dev.json`` prints the table and, with
``--out``, writes the JSON. It is meant to be wired into ``memlane bench understanding``.
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import memlane
from memlane.bench.understanding import feed, matches
from memlane.extract import find_identifiers

__all__ = ["score_case", "score_identifiers"]

# A gold answer that is itself an identifier (an order or tracking number, an e-mail).
_ID_LIKE = re.compile(r"(?=.*\d)[A-Za-z0-9@._+\-]{6,}")
# What continues an id: a letter or digit, directly or after a separator; a digit after a space.
_RUNS_ON = re.compile(r"[A-Za-z0-9]|[-./_][A-Za-z0-9]| \d")
_RUNS_BEFORE = re.compile(r"(?:[A-Za-z0-9]|[A-Za-z0-9][-./_]|\d )$")
METRICS = (
    "stored",
    "verbatim",
    "questions",
    "resolved",
    "wrong_subject",
    "id_answers",
    "id_kept",
    "recall_top1",
)


def score_case(case: dict[str, Any], *, region: str | None, embedder: str) -> Counter[str]:
    """The counters of :data:`METRICS` for one case, on a fresh in-memory ``Memory``."""
    counts: Counter[str] = Counter()
    said: dict[str, list[str]] = {}
    for event in case["events"]:
        if event["role"] == "user":
            said.setdefault(event["subject"], []).append(event["text"])
    with _memory(region, embedder) as mem:
        feed(mem, case["events"])
        mem.index.wait()  # retrieval quality is measured with everything embedded
        attributes = _identifier_attributes(mem)
        for subject, texts in said.items():
            for fact in _identifier_facts(mem, subject, attributes):
                counts["stored"] += 1
                counts["verbatim"] += _verbatim(str(fact.value), texts)
        for question in case["questions"]:
            counts += _score_question(mem, question, said, attributes)
    return counts


def score_identifiers(
    cases: Iterable[dict[str, Any]], *, region: str | None = None, embedder: str = "hash"
) -> dict[str, dict[str, int]]:
    """Score every ``identifiers`` case; returns ``{language: {metric: count}}`` and ``all``."""
    totals: dict[str, Counter[str]] = {}
    for case in cases:
        if case["category"] != "identifiers":
            continue
        counts = score_case(case, region=region, embedder=embedder)
        for group in (case["lang"], "all"):
            totals.setdefault(group, Counter()).update(counts)
    return {group: {m: counts[m] for m in METRICS} for group, counts in totals.items()}


def _memory(region: str | None, embedder: str) -> memlane.Memory:
    if region is None:  # also runs on versions of memlane without ``region``
        return memlane.Memory(":memory:", embedder=embedder)
    return memlane.Memory(":memory:", region=region, embedder=embedder)


def _identifier_attributes(mem: memlane.Memory) -> list[str]:
    names = [spec.name for spec in mem.extractor.attributes() if spec.identifier]
    return [name for name in names if mem.facts.definition(name, fresh=True).identifier]


def _identifier_facts(mem: memlane.Memory, subject: str, attributes: list[str]) -> list[Any]:
    return [fact for name in attributes for fact in mem.facts.get_all(subject, name)]


def _verbatim(value: str, texts: list[str]) -> bool:
    """``value`` occurs in a text, and nothing that belongs to the same id surrounds it."""
    for text in texts:
        start = text.find(value)
        while start >= 0:
            end = start + len(value)
            if not _RUNS_ON.match(text, end) and not _RUNS_BEFORE.search(text[:start]):
                return True
            start = text.find(value, start + 1)
    return False


def _score_question(
    mem: memlane.Memory,
    question: dict[str, Any],
    said: dict[str, list[str]],
    attributes: list[str],
) -> Counter[str]:
    counts: Counter[str] = Counter()
    gold, wrong = question["gold"], question["wrong"]
    if question["subject"] is None:
        expected = {s for s, texts in said.items() if _says_any(gold, texts)}
        owners = _owners(mem, question["text"], attributes)
        counts["questions"] += 1
        counts["resolved"] += owners == expected
        counts["wrong_subject"] += bool(owners - expected)
    elif gold and all(_ID_LIKE.fullmatch(g) for g in gold):
        held = [str(f.value) for f in _identifier_facts(mem, question["subject"], attributes)]
        counts["id_answers"] += 1
        counts["id_kept"] += all(g in held for g in gold)
    counts["recall_top1"] += _recall_passes(mem, question, gold, wrong)
    return counts


def _says_any(needles: list[str], texts: list[str]) -> bool:
    return any(matches(needle, text) for needle in needles for text in texts)


def _owners(mem: memlane.Memory, text: str, attributes: list[str]) -> set[str]:
    owners: set[str] = set()
    for mention in find_identifiers(text):
        for name in attributes:
            try:
                owners.update(mem.facts.lookup(name, mention.text))
            except memlane.InvalidInput:
                continue
    return owners


def _recall_passes(
    mem: memlane.Memory, question: dict[str, Any], gold: list[str], wrong: list[str]
) -> bool:
    valid_at = question.get("valid_at")
    result = mem.recall(question["subject"], question["text"], valid_at=valid_at)
    top = result.items[0].text if result.items else None
    if question["expect"] == "nothing":
        return top is None or not any(matches(w, top) for w in wrong)
    return top is not None and any(matches(g, top) for g in gold)


def _table(results: dict[str, dict[str, int]]) -> str:
    groups = sorted(results)
    lines = ["metric".ljust(14) + "".join(group.rjust(8) for group in groups)]
    for metric in METRICS:
        lines.append(metric.ljust(14) + "".join(str(results[g][metric]).rjust(8) for g in groups))
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    """Command line: ``python -m memlane.bench.identifiers --data dev.json``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--data", required=True, type=Path)
    parser.add_argument("--region", default=None)
    parser.add_argument("--embedder", default="hash")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    cases = json.loads(args.data.read_text(encoding="utf-8"))["cases"]
    results = score_identifiers(cases, region=args.region, embedder=args.embedder)
    print(_table(results))
    if args.out:
        payload = {"suite": "identifiers", "params": {"data": str(args.data)}, "results": results}
        args.out.write_text(json.dumps(payload, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
