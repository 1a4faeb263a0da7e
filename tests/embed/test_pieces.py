"""Long texts cut into pieces for the model, and one vector made of the pieces' vectors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from memlane.embed.pieces import combined, pieces


@given(st.text(alphabet=st.sampled_from("ab 一二 \n"), max_size=300), st.integers(1, 40))
def test_pieces_are_short_and_keep_every_character_but_blanks(text: str, limit: int) -> None:
    found = pieces(text, limit)
    if not text.strip():
        assert found == [text]
        return
    assert all(0 < len(piece) <= limit for piece in found)
    assert "".join("".join(found).split()) == "".join(text.split())


def test_pieces_cut_at_a_space_when_there_is_one() -> None:
    assert pieces("alpha beta gamma", 11) == ["alpha beta", "gamma"]
    assert pieces("alphabetagamma", 5) == ["alpha", "betag", "amma"]
    assert pieces("short", 100) == ["short"]


def test_a_bad_limit_is_refused() -> None:
    with pytest.raises(ValueError):
        pieces("text", 0)


def test_combined_weights_each_piece_by_its_length() -> None:
    vectors = np.asarray([[1.0, 0.0], [0.0, 1.0]], dtype=np.float32)
    got = combined(vectors, [3, 1])
    assert got == pytest.approx(np.asarray([3.0, 1.0]) / np.sqrt(10.0))
    assert np.linalg.norm(got) == pytest.approx(1.0)
