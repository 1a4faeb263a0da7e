"""Exact vector search: stacked float32 blobs times the query, as SQLite's backend runs it.

And what a stored vector may hold on either backend (:func:`unstorable`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

HALF_MAX = 65504.0
"""The largest magnitude a half float holds. Both backends' vector indexes keep half floats
(SQLite's graphs, PostgreSQL's HNSW on ``halfvec``) and rank what they propose by the stored
float32 vectors; the unit-length vectors embedders return (:class:`memlane.embed.Embedder`)
are far inside it."""

JOINED_BYTES = 1 << 19
"""Most bytes of blobs joined at once (:func:`as_matrix`). CPython lets go of the interpreter
while it joins a megabyte or more; getting it back waits for any thread running Python
meanwhile (up to its 5 ms switch interval): 2,000 vectors joined in one piece cost a recall
5.5-8.6 ms while a graph was built beside it, 0.2-0.3 ms in pieces (docs/benchmarks.md)."""


def as_matrix(vectors: Sequence[bytes]) -> npt.NDArray[np.float32]:
    """Stack float32 vector blobs (all of one width) into one ``(n, dim)`` matrix.

    Joined :data:`JOINED_BYTES` at a time into the matrix, holding the interpreter throughout.
    ``ValueError`` if their widths differ.
    """
    if not vectors:
        return np.zeros((0, 0), dtype=np.float32)
    width = len(vectors[0])
    if width % 4 or any(len(vector) != width for vector in vectors):
        raise ValueError("vectors of different widths (or not float32) cannot be stacked")
    matrix = np.empty((len(vectors), width // 4), dtype=np.float32)
    flat = matrix.reshape(-1).view(np.uint8)
    step = max(1, JOINED_BYTES // max(width, 1))
    for start in range(0, len(vectors), step):
        piece = b"".join(vectors[start : start + step])
        flat[start * width : start * width + len(piece)] = np.frombuffer(piece, dtype=np.uint8)
    return matrix


def unstorable(vector: npt.NDArray[np.float32]) -> str | None:
    """Why ``vector`` cannot be stored (a value not finite, or past :data:`HALF_MAX`), or ``None``.

    >>> unstorable(np.array([0.6, 0.8], dtype=np.float32)) is None
    True
    >>> unstorable(np.array([1e5, 0.0], dtype=np.float32))
    'a value past ±65504 (an embedder returns unit-length vectors): 100000.0'
    """
    if not np.isfinite(vector).all():
        return "a value that is not finite (NaN or infinity)"
    largest = float(np.abs(vector).max(initial=0.0))
    if largest > HALF_MAX:
        return f"a value past ±{HALF_MAX:.0f} (an embedder returns unit-length vectors): {largest}"
    return None


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
