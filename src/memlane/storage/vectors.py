"""Exact vector search: stacked float32 blobs times the query, as SQLite's backend runs it."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt


def as_matrix(vectors: Sequence[bytes]) -> npt.NDArray[np.float32]:
    """Stack float32 vector blobs into one ``(n, dim)`` matrix."""
    if not vectors:
        return np.zeros((0, 0), dtype=np.float32)
    return np.frombuffer(b"".join(vectors), dtype=np.float32).reshape(len(vectors), -1)


def as_vector(stored: bytes | Sequence[float]) -> npt.NDArray[np.float32]:
    """A stored vector as read (float32 bytes, or an array of reals) as a float32 vector.

    >>> as_vector(np.ones(2, dtype=np.float32).tobytes()).tolist(), as_vector([0.5]).tolist()
    ([1.0, 1.0], [0.5])
    """
    if isinstance(stored, bytes | bytearray | memoryview):
        return np.frombuffer(stored, dtype=np.float32)
    return np.asarray(stored, dtype=np.float32)


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
