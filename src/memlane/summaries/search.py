"""Ranking for the summary lane: reciprocal-rank fusion (the exact scan lives in storage)."""

from __future__ import annotations

from collections.abc import Sequence

from memlane.storage.vectors import as_matrix, nearest

__all__ = ["RRF_K", "as_matrix", "fuse", "nearest"]

RRF_K = 60
"""The usual constant of reciprocal-rank fusion (Cormack et al. 2009): damps the top ranks."""


def fuse(rankings: Sequence[Sequence[int]], k: int = RRF_K) -> list[tuple[int, float]]:
    """Reciprocal-rank fusion: ``score(d) = Σ 1 / (k + rank)``; best first, ties by id.

    >>> fuse([[3, 1], [1, 2]])[0][0]
    1
    """
    scores: dict[int, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    return sorted(scores.items(), key=lambda pair: (-pair[1], pair[0]))
