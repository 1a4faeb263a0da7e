"""Ranking for the summary lane: reciprocal-rank fusion (the exact scan lives in storage)."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from memlane.storage.vectors import as_matrix, nearest

__all__ = ["RRF_K", "as_matrix", "fuse", "fuse_partial", "nearest"]

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


def fuse_partial(
    semantic: Sequence[int], lexical: Sequence[int], unembedded: Collection[int], k: int = RRF_K
) -> list[tuple[int, float]]:
    """:func:`fuse` of both rankings, where items without a vector yet stand in by their words.

    An item waiting to be embedded cannot be in the semantic ranking; rather than rank it
    below every item found both ways, its lexical rank counts for the semantic one too, so a
    statement just written (often the freshest word on its subject) is not buried.

    >>> fuse_partial([1], [2, 1], unembedded={2})[0][0]
    2
    """
    stand_ins = [item if item in unembedded else None for item in lexical]
    scores = dict(fuse([semantic, lexical], k))
    for rank, item in enumerate(stand_ins, start=1):
        if item is not None:
            scores[item] += 1.0 / (k + rank)
    return sorted(scores.items(), key=lambda pair: (-pair[1], pair[0]))
