"""Stacking stored vectors into a matrix (:mod:`memlane.storage.vectors`)."""

from __future__ import annotations

import numpy as np
import pytest

from memlane.storage import vectors
from memlane.storage.sqlite.graph_rows import as_rows

CPYTHON_RELEASES_AT = 1 << 20
"""Bytes from which CPython's ``bytes.join`` lets go of the interpreter (stringlib/join.h)."""


class _Slices(list[bytes]):
    """A list that remembers the slices taken of it (what is joined at once)."""

    def __init__(self, items: list[bytes]) -> None:
        super().__init__(items)
        self.taken: list[list[bytes]] = []

    def __getitem__(self, at):  # type: ignore[no-untyped-def]
        got = super().__getitem__(at)
        if isinstance(at, slice):
            self.taken.append(got)
        return got


def _blobs(count: int, dims: int) -> tuple[np.ndarray, list[bytes]]:
    matrix = np.random.default_rng(count).standard_normal((count, dims)).astype(np.float32)
    return matrix, [row.tobytes() for row in matrix]


def test_a_matrix_of_many_vectors_is_joined_in_pieces_the_interpreter_is_kept_for() -> None:
    expected, blobs = _blobs(2_000, 384)  # 3 MB: one join would let go of the interpreter
    watched = _Slices(blobs)
    matrix = vectors.as_matrix(watched)
    assert np.array_equal(matrix, expected)
    assert len(watched.taken) > 1
    assert max(sum(map(len, piece)) for piece in watched.taken) <= vectors.JOINED_BYTES
    assert vectors.JOINED_BYTES < CPYTHON_RELEASES_AT


@pytest.mark.parametrize("count", [1, 7, 1_365, 1_366, 1_367])
def test_pieces_end_where_they_should(count: int) -> None:
    expected, blobs = _blobs(count, 96)  # 384 bytes: 1,365.3 a piece
    assert np.array_equal(vectors.as_matrix(blobs), expected)


def test_vectors_of_different_widths_are_refused() -> None:
    with pytest.raises(ValueError, match="different widths"):
        vectors.as_matrix([np.ones(3, np.float32).tobytes(), np.ones(4, np.float32).tobytes()])
    assert vectors.as_matrix([]).shape == (0, 0)


def test_rows_of_another_width_are_none_and_no_rows_keep_the_width() -> None:
    _, blobs = _blobs(3, 8)
    assert as_rows([(1, blobs[0]), (2, np.ones(4, np.float32).tobytes())], 8) is None
    assert as_rows([], 8).shape == (0, 8)  # type: ignore[union-attr]
    assert as_rows([(i, blob) for i, blob in enumerate(blobs)], 8).shape == (3, 8)  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("values", "reason"),
    [
        ([0.6, 0.8], None),
        ([-65504.0, 0.0], None),
        ([65520.0, 0.0], "a value past ±65504"),
        ([0.1, float("nan")], "not finite"),
        ([float("-inf"), 0.0], "not finite"),
    ],
)
def test_what_no_half_float_index_keeps_is_named(values: list[float], reason: str | None) -> None:
    found = vectors.unstorable(np.asarray(values, dtype=np.float32))
    assert found is None if reason is None else reason in (found or "")
