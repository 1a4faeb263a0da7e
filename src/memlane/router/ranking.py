"""Ranking: the order in which judged candidates are returned (after adjudication).

Every non-stale item before any stale one; then lane tier; then status (current before
historical); then score; then recency.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from memlane.router.model import RecallItem

if TYPE_CHECKING:
    from memlane.router.candidates import Candidate

_STATUS_ORDER = {"current": 0, "historical": 1, "stale": 2}


def rank(candidates: Sequence[Candidate], k: int, include_stale: bool) -> list[RecallItem]:
    """The best ``k`` items: non-stale first, then lane tier, status, score, recency."""
    kept = [c for c in candidates if include_stale or c.item.status != "stale"]
    kept.sort(
        key=lambda c: (
            c.item.status == "stale",
            c.tier,
            _STATUS_ORDER[c.item.status],
            -c.item.score,
            -_timestamp(c.item.at or c.item.valid_from),
        )
    )
    seen: set[str] = set()
    ranked: list[RecallItem] = []
    for candidate in kept:
        if candidate.item.ref in seen:
            continue
        seen.add(candidate.item.ref)
        ranked.append(candidate.item)
    return ranked[:k]


def _timestamp(instant: datetime | None) -> float:
    return 0.0 if instant is None else instant.timestamp()
