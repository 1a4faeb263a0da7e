"""Task types for tasks recorded without one: instances of one intent share a type.

Two tasks are instances of one intent when they read the same once their entities are
masked: quoted strings, numbers and dates, capitalized names. Masked token sequences are
compared with a sequence-matching ratio; a task joins the most similar known type above
a threshold, or founds a new one named after its leading content words.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher

from memlane.lang.tasks import MONTH as _MONTH
from memlane.lang.tasks import ORDINAL_SUFFIXES
from memlane.lang.tasks import STOP as _STOP

THRESHOLD = 0.62
NAME_WORDS = 4
_QUOTED = re.compile(r"\"[^\"]*\"|“[^”]*”|(?<!\w)'[^']*'(?!\w)")
_TOKEN = re.compile(r"[A-Za-z][\w'-]*|\d[\d,.:/-]*|\S")
_SENTENCE_END = frozenset(".!?:;")
ENTITY = "<e>"
NUMBER = "<n>"


def template(task: str) -> list[str]:
    """The task as tokens with its entities masked.

    >>> template('Find flights from Seattle to New York on June 5th')
    ['find', 'flights', 'from', '<e>', 'to', '<e>', 'on', '<n>']
    """
    text = _QUOTED.sub(" QUOTEDENTITY ", task)
    out: list[str] = []
    previous = "."
    for token in _TOKEN.findall(text):
        starts = previous in _SENTENCE_END
        previous = token
        if token == "QUOTEDENTITY" or (not starts and token[:1].isupper() and token != "I"):
            masked = NUMBER if _MONTH.match(token) else ENTITY
        elif token[:1].isdigit() or (_MONTH.match(token) and token[:1].isupper()):
            masked = NUMBER
        elif not token[:1].isalnum():
            continue
        else:
            masked = token.casefold()
        if masked in (ENTITY, NUMBER) and out and out[-1] == masked:
            continue
        if out and out[-1] == NUMBER and masked in ORDINAL_SUFFIXES:
            continue
        out.append(masked)
    return out


def similarity(a: Sequence[str], b: Sequence[str]) -> float:
    """How alike two masked tasks are, in ``[0, 1]``."""
    if not a or not b:
        return 0.0
    return SequenceMatcher(None, a, b, autojunk=False).ratio()


def type_name(tokens: Sequence[str], taken: Iterable[str] = ()) -> str:
    """A readable name from the leading content words, unique among ``taken``."""
    words = [t for t in tokens if t not in _STOP and t not in (ENTITY, NUMBER) and t.isalnum()]
    base = "_".join(words[:NAME_WORDS]) or "task"
    used = set(taken)
    name, suffix = base, 2
    while name in used:
        name, suffix = f"{base}_{suffix}", suffix + 1
    return name


@dataclass
class TypeIndex:
    """Known task types and their instances' templates; assigns types to new tasks."""

    threshold: float = THRESHOLD
    members: dict[str, list[list[str]]] = field(default_factory=dict)

    def add(self, task: str, task_type: str | None = None) -> str:
        """Record ``task`` (under ``task_type``, or the inferred one) and return the type."""
        tokens = template(task)
        chosen = task_type or self.infer_tokens(tokens) or type_name(tokens, self.members)
        self.members.setdefault(chosen, []).append(tokens)
        return chosen

    def infer(self, task: str) -> str | None:
        """The known type ``task`` is an instance of, or ``None``."""
        return self.infer_tokens(template(task))

    def infer_tokens(self, tokens: Sequence[str]) -> str | None:
        """Like :meth:`infer`, for an already masked task."""
        best, best_score = None, self.threshold
        for name, instances in self.members.items():
            score = max(similarity(tokens, other) for other in instances[:8])
            if score >= best_score:
                best, best_score = name, score
        return best


def cluster(tasks: Sequence[str], threshold: float = THRESHOLD) -> list[str]:
    """A task type for every task (greedy, in order)."""
    index = TypeIndex(threshold)
    return [index.add(task) for task in tasks]
