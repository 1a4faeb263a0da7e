"""Ranking for the summary lane: exact nearest neighbours and reciprocal-rank fusion."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

RRF_K = 60
"""The usual constant of reciprocal-rank fusion (Cormack et al. 2009): damps the top ranks."""


def as_matrix(vectors: Sequence[bytes]) -> npt.NDArray[np.float32]:
    """Stack float32 vector blobs into one ``(n, dim)`` matrix."""
    if not vectors:
        return np.zeros((0, 0), dtype=np.float32)
    return np.frombuffer(b"".join(vectors), dtype=np.float32).reshape(len(vectors), -1)


def nearest(
    query: npt.NDArray[np.float32],
    owners: Sequence[int],
    matrix: npt.NDArray[np.float32],
    limit: int,
) -> list[int]:
    """Owner ids of the ``limit`` rows of ``matrix`` most similar to ``query`` (exact)."""
    if not owners:
        return []
    scores = matrix @ query.reshape(-1)
    if limit < len(owners):
        top = np.argpartition(-scores, limit)[:limit]
        order = top[np.argsort(-scores[top], kind="stable")]
    else:
        order = np.argsort(-scores, kind="stable")
    return [owners[int(i)] for i in order]


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
