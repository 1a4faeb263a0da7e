"""How many clauses judging one clause against later re-fills must read, against how many re-fill.

Adjudication asks of each recalled clause whether a later clause of the subject re-fills its
slot (:func:`memlane.router.slots.restates`: the same words but for one span, the two spans
sharing no word). This counts, over the notes of ``memlane bench scale`` (one template with
six varying spans) at each size, for random clauses:

* **probed**: distinct clauses filed under the clause's slot probes, what the refilling walk
  (``router/evidence.py``) reads today (latest first, the later ones);
* **one span**: clauses equal to it but for one span covering at most half of the longer,
  with at least two shared leading characters: what *any* exact lookup by stored keys must
  read (with every clause filed under its text with each such span masked, the best keys
  can do), since only the words inside the two spans tell them from a re-filler;
* **masked keys**: how many such keys a clause has (rows to store per clause);
* **re-fills**: clauses that do re-fill it.

    PYTHONPATH=src python bench/refill_candidates.py --sizes 1000,10000 --samples 30
"""

from __future__ import annotations

import argparse
import json
import random
import re
from collections import defaultdict

from embedders import machine  # the sibling script: bench/ is on the path when run
from memlane.bench.backends import _note
from memlane.router.slots import _common_prefix, clauses, restates, slot_keys, slot_probes

_TOKEN = re.compile(r"[a-z0-9]+|\S", re.IGNORECASE)


def one_span(old: str, new: str) -> bool:
    """``restates``' conditions on the shared head and tail alone (words not looked at)."""
    longest = max(len(old), len(new))
    if old == new or min(len(old), len(new)) < 0.5 * longest:
        return False
    prefix = _common_prefix(old, new)
    if prefix < 2:
        return False
    return prefix + _common_prefix(old[prefix:][::-1], new[prefix:][::-1]) >= 0.5 * longest


def masked_keys(clause: str) -> set[tuple[str, str]]:
    """The clause's text with one span between token edges masked (at most half, 60 chars)."""
    edges = sorted({0, len(clause)} | {e for m in _TOKEN.finditer(clause) for e in m.span()})
    keys = set()
    for start in edges:
        if len(clause[:start].strip()) < 2:
            continue
        for end in (e for e in edges if e > start):
            span = clause[start:end].strip(" ,")
            if span and len(span) <= 60 and start + len(clause) - end >= len(clause) / 2:
                keys.add((clause[:start].rstrip(), clause[end:].lstrip()))
    return keys


def measure(size: int, samples: int) -> dict[str, float]:
    """Averages over ``samples`` random clauses of a subject with ``size`` notes."""
    said = [clauses(_note(j)[1], "S-1")[0] for j in range(size)]
    filed: dict[str, set[str]] = defaultdict(set)
    for clause in said:
        for key in slot_keys(clause):
            filed[key].add(clause)
    rng = random.Random(size)
    totals = dict.fromkeys(("probed", "one span", "masked keys", "re-fills"), 0.0)
    for _ in range(samples):
        old = said[rng.randrange(size)]
        totals["probed"] += len(set().union(*(filed[p] for p in slot_probes(old))))
        totals["one span"] += sum(one_span(old, new) for new in said)
        totals["masked keys"] += len(masked_keys(old))
        totals["re-fills"] += sum(restates(old, new) is not None for new in said)
    return {name: total / samples for name, total in totals.items()}


def main() -> None:
    """Print a table (and JSON with ``--out``)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--samples", type=int, default=30)
    parser.add_argument("--out")
    arguments = parser.parse_args()
    rows = {}
    print(f"{'notes':>8} {'probed':>8} {'one span':>9} {'masked keys':>12} {'re-fills':>9}")
    for size in (int(part) for part in arguments.sizes.split(",")):
        rows[size] = found = measure(size, arguments.samples)
        print(f"{size:>8,} " + " ".join(f"{value:>8.2f}" for value in found.values()))
    if arguments.out:
        with open(arguments.out, "w", encoding="utf-8") as stream:
            params = {"samples": arguments.samples, "machine": machine()}
            document = {"suite": "refill_candidates", "params": params, "rows": rows}
            json.dump(document, stream, indent=1)


if __name__ == "__main__":
    main()
