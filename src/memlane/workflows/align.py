"""Alignment of action sequences: Needleman–Wunsch, pairwise and progressive.

Actions match when they do the same thing to the same kind of element; the exact label of
the element may differ (a date cell, a pop-up option), which is what becomes a parameter.
Different actions never align: the mismatch cost is above two gaps.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from memlane.workflows.model import Action, Step, slots_in

GAP = -1.0
MISMATCH = -3.0
SAME = 2.0
SAME_KIND = 1.0
_ELEMENT = re.compile(r"^\[(?P<role>[^\]]*)\]\s*(?P<label>.*)$")
PROFILE_SAMPLE = 6
MERGE_REACH = 3
_WORDS = re.compile(r"\w+")

Pair = tuple[int | None, int | None]


def element(args: object) -> tuple[str, str] | None:
    """``(role, label)`` of a web action's element, or ``None`` for non-web actions."""
    raw = getattr(args, "get", lambda _key: None)("element")
    if not isinstance(raw, str):
        return None
    found = _ELEMENT.match(raw)
    if found is None:
        return ("", raw.casefold().strip())
    return (found["role"].casefold(), found["label"].casefold().strip())


def similarity(a: Action, b: Action) -> float:
    """How well two concrete actions align (see the module docstring)."""
    if a.action.casefold() != b.action.casefold():
        return MISMATCH
    ea, eb = element(a.args), element(b.args)
    if ea is None or eb is None:
        return SAME if ea == eb and set(a.args) == set(b.args) else SAME_KIND + 0.5
    if ea == eb:
        return SAME
    return SAME_KIND + _label_likeness(ea[1], eb[1]) if ea[0] == eb[0] else MISMATCH


def _label_likeness(a: str, b: str) -> float:
    """Up to 0.9 for two labels alike in shape (both with digits) and words."""
    wa, wb = set(_WORDS.findall(a)), set(_WORDS.findall(b))
    words = len(wa & wb) / len(wa | wb) if wa | wb else 0.0
    digits = any(c.isdigit() for c in a) == any(c.isdigit() for c in b)
    return 0.4 * words + (0.5 if digits else 0.0)


def step_similarity(step: Step, action: Action) -> float:
    """How well a concrete action fits a workflow step (slots match anything of the kind)."""
    if step.action.casefold() != action.action.casefold():
        return MISMATCH
    es, ea = element(step.args), element(action.args)
    if es is None or ea is None:
        return SAME if es == ea else SAME_KIND
    if es == ea or (es[0] == ea[0] and slots_in(es[1])):
        return SAME
    return SAME_KIND if es[0] == ea[0] else MISMATCH


def pairwise(n: int, m: int, score: Callable[[int, int], float]) -> list[Pair]:
    """Global alignment of ``n`` against ``m`` items; pairs ``(i, j)``, ``None`` for a gap."""
    table = [[0.0] * (m + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
        table[i][0] = i * GAP
    for j in range(1, m + 1):
        table[0][j] = j * GAP
    for i in range(1, n + 1):
        row, above = table[i], table[i - 1]
        for j in range(1, m + 1):
            row[j] = max(above[j - 1] + score(i - 1, j - 1), above[j] + GAP, row[j - 1] + GAP)
    pairs: list[Pair] = []
    i, j = n, m
    while i > 0 or j > 0:
        if i > 0 and j > 0 and table[i][j] == table[i - 1][j - 1] + score(i - 1, j - 1):
            pairs.append((i - 1, j - 1))
            i, j = i - 1, j - 1
        elif i > 0 and table[i][j] == table[i - 1][j] + GAP:
            pairs.append((i - 1, None))
            i -= 1
        else:
            pairs.append((None, j - 1))
            j -= 1
    pairs.reverse()
    return pairs


@dataclass
class Alignment:
    """A multiple alignment: columns of ``(sequence index, action)``, in order."""

    size: int
    columns: list[list[tuple[int, Action]]]


def progressive(sequences: Sequence[Sequence[Action]]) -> Alignment:
    """Align every sequence into one profile, adding them one at a time."""
    columns: list[list[tuple[int, Action]]] = []
    for index, sequence in enumerate(sequences):
        if not columns:
            columns = [[(index, action)] for action in sequence]
            continue
        score = _profile_score(columns, sequence)
        merged: list[list[tuple[int, Action]]] = []
        for i, j in pairwise(len(columns), len(sequence), score):
            if i is None:
                assert j is not None
                merged.append([(index, sequence[j])])
            elif j is None:
                merged.append(columns[i])
            else:
                merged.append([*columns[i], (index, sequence[j])])
        columns = merged
    return Alignment(len(sequences), columns)


def refine(alignment: Alignment, rare: int = 0, reach: int = MERGE_REACH) -> Alignment:
    """Merge a column into a later one holding the same step from the other runs.

    Progressive alignment can split one step in two when a noise step sits before it in
    some runs; moving column ``i`` onto column ``j`` keeps every run's order as long as no
    run of ``i`` has an action in ``j`` or in the columns between them. Columns of fewer than
    ``rare`` runs (noise, dropped later) do not count as in between.
    """
    columns = [list(c) for c in alignment.columns]
    merged = True
    while merged:
        merged = False
        for i in range(len(columns)):
            runs = {r for r, _ in columns[i]}
            for j in range(i + 1, min(i + 1 + reach, len(columns))):
                if any(r in runs for r, _ in columns[j]):
                    if len(columns[j]) < rare:
                        continue
                    break
                if _column_score(columns[i], columns[j]) >= SAME_KIND:
                    columns[j] = sorted(columns[i] + columns[j], key=lambda pair: pair[0])
                    del columns[i]
                    merged = True
                    break
            if merged:
                break
    return Alignment(alignment.size, columns)


def _column_score(a: list[tuple[int, Action]], b: list[tuple[int, Action]]) -> float:
    pairs = [(x, y) for _, x in a[:PROFILE_SAMPLE] for _, y in b[:PROFILE_SAMPLE]]
    return sum(similarity(x, y) for x, y in pairs) / len(pairs)


def _profile_score(
    columns: list[list[tuple[int, Action]]], sequence: Sequence[Action]
) -> Callable[[int, int], float]:
    def score(i: int, j: int) -> float:
        members = columns[i][:PROFILE_SAMPLE]
        return sum(similarity(a, sequence[j]) for _, a in members) / len(members)

    return score


def align_to_steps(steps: Sequence[Step], actions: Sequence[Action]) -> list[Pair]:
    """Align a trajectory to a workflow's steps: pairs ``(step index, action index)``."""
    return pairwise(len(steps), len(actions), lambda i, j: step_similarity(steps[i], actions[j]))
