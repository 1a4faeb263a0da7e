import threading
import time
from collections import Counter
from collections.abc import Sequence

import numpy as np
import pytest

from memlane.embed import CachedEmbedder, Embedder, EmbeddingError, HashEmbedder, Vectors
from memlane.errors import InvalidInput


class CountingEmbedder:
    """HashEmbedder that records every call and can be slowed down or made to fail."""

    def __init__(self, delay: float = 0.0) -> None:
        self.inner = HashEmbedder(dim=32)
        self.delay = delay
        self.document_calls: list[list[str]] = []
        self.query_calls: list[str] = []
        self.fail = False
        self.gate: threading.Event | None = None
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return "counting"

    @property
    def dim(self) -> int:
        return self.inner.dim

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        with self._lock:
            self.document_calls.append(list(texts))
        self._wait()
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> Vectors:
        with self._lock:
            self.query_calls.append(text)
        self._wait()
        # Like e5: a query is embedded differently from the same text as a document.
        return self.inner.embed_query("query " + text)

    def _wait(self) -> None:
        if self.gate is not None:
            assert self.gate.wait(5)
        if self.delay:
            time.sleep(self.delay)
        if self.fail:
            raise EmbeddingError("inner failed")

    def embedded_texts(self) -> Counter[str]:
        return Counter(text for call in self.document_calls for text in call)


def test_wraps_an_embedder_and_keeps_its_name_and_dim() -> None:
    cached: Embedder = CachedEmbedder(CountingEmbedder())
    assert cached.name == "counting"
    assert cached.dim == 32


def test_vectors_are_those_of_the_inner_embedder() -> None:
    inner = CountingEmbedder()
    cached = CachedEmbedder(inner)
    texts = ["alpha beta", "gamma", "delta epsilon"]
    np.testing.assert_array_equal(cached.embed_documents(texts), inner.inner.embed_documents(texts))
    np.testing.assert_array_equal(
        cached.embed_query("gamma"), inner.inner.embed_query("query gamma")
    )


def test_repeated_texts_are_embedded_once_and_counted_as_hits() -> None:
    inner = CountingEmbedder()
    cached = CachedEmbedder(inner)
    first = cached.embed_documents(["a cat", "a dog", "a cat"])
    assert inner.embedded_texts() == Counter({"a cat": 1, "a dog": 1})
    stats = cached.stats
    assert (stats.misses, stats.hits, stats.entries) == (2, 1, 2)
    np.testing.assert_array_equal(first[0], first[2])

    second = cached.embed_documents(["a dog", "a bird", "a cat"])
    assert inner.embedded_texts() == Counter({"a cat": 1, "a dog": 1, "a bird": 1})
    assert (cached.stats.misses, cached.stats.hits) == (3, 3)
    np.testing.assert_array_equal(second[0], first[1])
    np.testing.assert_array_equal(second[2], first[0])


def test_missing_texts_are_sent_in_batches() -> None:
    inner = CountingEmbedder()
    cached = CachedEmbedder(inner, batch_size=3)
    cached.embed_documents(["t0", "t1"])
    cached.embed_documents([f"t{i}" for i in range(9)])
    assert inner.document_calls == [["t0", "t1"], ["t2", "t3", "t4"], ["t5", "t6", "t7"], ["t8"]]
    assert cached.stats.inner_calls == 4


def test_queries_and_documents_are_cached_apart() -> None:
    inner = CountingEmbedder()
    cached = CachedEmbedder(inner)
    as_document = cached.embed_documents(["where is Ann"])[0]
    as_query = cached.embed_query("where is Ann")
    assert not np.array_equal(as_document, as_query)
    cached.embed_query("where is Ann")
    assert inner.query_calls == ["where is Ann"]
    assert cached.stats.hits == 1


def test_least_recently_used_entry_is_evicted() -> None:
    inner = CountingEmbedder()
    cached = CachedEmbedder(inner, max_entries=2)
    cached.embed_documents(["a"])
    cached.embed_documents(["b"])
    cached.embed_documents(["a"])  # touch a, so b is now the oldest
    cached.embed_documents(["c"])  # evicts b
    assert cached.stats.entries == 2
    cached.embed_documents(["a"])
    cached.embed_documents(["b"])
    assert inner.embedded_texts() == Counter({"a": 1, "b": 2, "c": 1})


def test_zero_entries_stores_nothing_but_still_dedups_within_a_call() -> None:
    inner = CountingEmbedder()
    cached = CachedEmbedder(inner, max_entries=0)
    cached.embed_documents(["x", "x", "y"])
    cached.embed_documents(["x"])
    assert inner.embedded_texts() == Counter({"x": 2, "y": 1})
    assert cached.stats.entries == 0


def test_returned_arrays_do_not_alias_the_cache() -> None:
    cached = CachedEmbedder(CountingEmbedder())
    first = cached.embed_documents(["text"])
    first[:] = 0.0
    query = cached.embed_query("text")
    query[:] = 0.0
    assert cached.embed_documents(["text"]).any()
    assert cached.embed_query("text").any()


def test_clear_forgets_vectors() -> None:
    inner = CountingEmbedder()
    cached = CachedEmbedder(inner)
    cached.embed_documents(["a"])
    cached.clear()
    cached.embed_documents(["a"])
    assert inner.embedded_texts()["a"] == 2


def test_empty_batch_embeds_nothing() -> None:
    inner = CountingEmbedder()
    cached = CachedEmbedder(inner)
    assert cached.embed_documents([]).shape == (0, 32)
    assert inner.embedded_texts() == Counter()
    assert (cached.stats.misses, cached.stats.hits, cached.stats.inner_calls) == (0, 0, 0)


def test_failure_propagates_and_caches_nothing() -> None:
    inner = CountingEmbedder()
    cached = CachedEmbedder(inner)
    inner.fail = True
    with pytest.raises(EmbeddingError):
        cached.embed_documents(["a", "b"])
    inner.fail = False
    cached.embed_documents(["a", "b"])
    assert inner.embedded_texts() == Counter({"a": 2, "b": 2})


@pytest.mark.parametrize(
    ("field", "kwargs"), [("max_entries", {"max_entries": -1}), ("batch_size", {"batch_size": 0})]
)
def test_bad_settings_are_invalid_input(field: str, kwargs: dict[str, int]) -> None:
    with pytest.raises(InvalidInput) as info:
        CachedEmbedder(HashEmbedder(), **kwargs)
    assert info.value.field == field


def test_threads_asking_for_the_same_texts_embed_each_once() -> None:
    inner = CountingEmbedder(delay=0.005)
    cached = CachedEmbedder(inner, batch_size=4)
    texts = [f"text {i}" for i in range(24)]
    expected = HashEmbedder(dim=32).embed_documents(texts)
    errors: list[BaseException] = []
    start = threading.Barrier(8)

    def work(offset: int) -> None:
        try:
            start.wait()
            order = texts[offset:] + texts[:offset]
            for _ in range(3):
                got = cached.embed_documents(order)
                np.testing.assert_array_equal(got, np.roll(expected, -offset, axis=0))
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=work, args=(3 * n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=20)
    assert errors == []
    assert inner.embedded_texts() == Counter(texts)
    stats = cached.stats
    assert stats.misses == 24
    assert stats.hits == 8 * 3 * 24 - 24


def test_a_thread_waiting_on_a_failed_embedding_gets_the_error() -> None:
    inner = CountingEmbedder()
    inner.gate = threading.Event()
    inner.fail = True
    cached = CachedEmbedder(inner)
    outcomes: list[str] = []

    def work() -> None:
        try:
            cached.embed_documents(["shared"])
            outcomes.append("ok")
        except EmbeddingError:
            outcomes.append("error")

    owner = threading.Thread(target=work)
    owner.start()
    deadline = time.monotonic() + 5
    while not inner.document_calls and time.monotonic() < deadline:
        time.sleep(0.001)
    waiter = threading.Thread(target=work)
    waiter.start()
    while cached.stats.hits == 0 and time.monotonic() < deadline:
        time.sleep(0.001)
    assert cached.stats.hits == 1  # the second caller is waiting on the first one's work
    inner.gate.set()
    owner.join(5)
    waiter.join(5)
    assert outcomes == ["error", "error"]
    assert len(inner.document_calls) == 1
