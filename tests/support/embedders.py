"""Test embedders over the hash embedder: a slow model behind a gate, one with topics."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

import numpy as np

from memlane.embed import HashEmbedder
from memlane.embed.base import Vectors


class HashBacked:
    """The name and width of the hash embedder it wraps (``inner``)."""

    def __init__(self, dim: int) -> None:
        self.inner = HashEmbedder(dim=dim)

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def dim(self) -> int:
        return self.inner.dim


class GatedEmbedder(HashBacked):
    """A hash embedder whose document calls wait for ``gate``; it records what it embedded."""

    def __init__(self, *, open_gate: bool = False, delay: float = 0.0) -> None:
        super().__init__(dim=64)
        self.gate = threading.Event()
        if open_gate:
            self.gate.set()
        self.entered = threading.Event()
        self.delay = delay
        self.embedded: list[str] = []
        self.threads: set[int] = set()
        self._lock = threading.Lock()

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        self.entered.set()
        assert self.gate.wait(timeout=60), "the test never opened the gate"
        time.sleep(self.delay * len(texts))
        with self._lock:
            self.embedded.extend(texts)
            self.threads.add(threading.get_ident())
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> Vectors:
        return self.inner.embed_query(text)


class TopicEmbedder(HashBacked):
    """A hash embedder with a sense of topic, standing in for a model that reads meaning.

    A text that says a word of one of ``topics`` points mostly along that topic's own axis,
    so "I drive to work" and "I take the train in" are near though they share no word (the
    topic of commuting), and far from "Send invoices to accounts" (another topic, or none).
    Its ``meaning_floor`` says its similarity can be trusted from there
    (:func:`memlane.embed.base.meaning_floor`).
    """

    meaning_floor = 0.8

    def __init__(self, topics: Sequence[Sequence[str]]) -> None:
        super().__init__(dim=64)
        self.topics = [tuple(word.casefold() for word in words) for words in topics]

    @property
    def name(self) -> str:
        return f"topics-{len(self.topics)}-{self.inner.name}"

    @property
    def dim(self) -> int:
        return self.inner.dim + len(self.topics)

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        return (
            np.stack([self._vector(text) for text in texts])
            if texts
            else np.zeros((0, self.dim), np.float32)
        )

    def embed_query(self, text: str) -> Vectors:
        return self._vector(text)

    def _vector(self, text: str) -> Vectors:
        folded = text.casefold()
        said = [float(any(word in folded for word in words)) for words in self.topics]
        vector = np.concatenate([0.3 * self.inner.embed_query(text), np.asarray(said)])
        return (vector / np.linalg.norm(vector)).astype(np.float32)


class SlowEmbedder(HashBacked):
    """A picklable hash embedder that takes ``delay`` seconds per document call.

    It says it runs one call at a time, as the local engines do, so the indexer gives it
    short calls (a long note in pieces). What it embedded is recorded in ``embedded`` of the
    copy that did it: a copy sent to a worker process leaves the test's own list empty.
    """

    one_call_at_a_time = True
    queries_beside_documents = True

    def __init__(self, delay: float = 0.0) -> None:
        super().__init__(dim=64)
        self.delay = delay
        self.embedded: list[str] = []
        self.loads = 0

    def load(self) -> None:
        self.loads += 1

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        time.sleep(self.delay)
        self.embedded.extend(texts)
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> Vectors:
        return self.inner.embed_query(text)
