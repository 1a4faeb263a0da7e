"""An in-process LRU cache in front of any embedder, so a repeated text is embedded once."""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Literal

import numpy as np

from memlane.embed import base
from memlane.embed.base import (
    Embedder,
    EmbeddingError,
    Vectors,
    check_query,
    check_texts,
    runs_one_call_at_a_time,
    serves_queries_beside_documents,
)
from memlane.errors import InvalidInput

Role = Literal["document", "query"]
_CacheKey = tuple[str, Role, bytes]


@dataclass(frozen=True)
class CacheStats:
    """Counters of a :class:`CachedEmbedder`.

    Attributes:
        hits: texts answered without calling the inner embedder (from the cache, from an
            identical text earlier in the same call, or from another thread's pending call).
        misses: texts sent to the inner embedder.
        entries: vectors held now.
        inner_calls: calls made to the inner embedder (each carries up to ``batch_size`` texts).
    """

    hits: int
    misses: int
    entries: int
    inner_calls: int


class CachedEmbedder:
    """Wraps an embedder with a thread-safe LRU keyed by (model name, role, text hash).

    Queries and documents are cached apart because models such as e5 embed them differently.
    Missing texts are sent to the inner embedder in batches of ``batch_size``. When two threads
    ask for the same missing text at once, only one embeds it and the other waits for it.

    Args:
        inner: the embedder doing the work.
        max_entries: vectors kept; the least recently used go first. ``0`` caches nothing
            but still batches and removes duplicates within a call.
        batch_size: most texts passed to ``inner.embed_documents`` in one call.

    Example:
        >>> from memlane.embed import HashEmbedder
        >>> cached = CachedEmbedder(HashEmbedder(), max_entries=100)
        >>> _ = cached.embed_documents(["a cat", "a cat", "a dog"])
        >>> cached.stats.misses, cached.stats.hits
        (2, 1)
    """

    def __init__(self, inner: Embedder, max_entries: int = 10_000, batch_size: int = 32) -> None:
        if isinstance(max_entries, bool) or not isinstance(max_entries, int) or max_entries < 0:
            raise InvalidInput("max_entries", f"must be an integer >= 0, got {max_entries!r}")
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise InvalidInput("batch_size", f"must be an integer >= 1, got {batch_size!r}")
        self._inner = inner
        self._max_entries = max_entries
        self._batch_size = batch_size
        self._lock = threading.Lock()
        self._entries: OrderedDict[_CacheKey, Vectors] = OrderedDict()
        self._pending: dict[_CacheKey, Future[Vectors]] = {}
        self._hits = 0
        self._misses = 0
        self._inner_calls = 0

    @property
    def inner(self) -> Embedder:
        """The wrapped embedder."""
        return self._inner

    @property
    def name(self) -> str:
        """The inner embedder's name: caching does not change the vectors."""
        return self._inner.name

    @property
    def dim(self) -> int:
        """The inner embedder's vector length."""
        return self._inner.dim

    @property
    def one_call_at_a_time(self) -> bool:
        """Whether the inner embedder serves one call at a time."""
        return runs_one_call_at_a_time(self._inner)

    @property
    def queries_beside_documents(self) -> bool:
        """Whether the inner embedder runs a query beside a document call in flight."""
        return serves_queries_beside_documents(self._inner)

    @property
    def meaning_floor(self) -> float | None:
        """The inner embedder's (see :func:`~memlane.embed.base.meaning_floor`)."""
        return base.meaning_floor(self._inner)

    @property
    def stats(self) -> CacheStats:
        """A snapshot of the counters."""
        with self._lock:
            return CacheStats(self._hits, self._misses, len(self._entries), self._inner_calls)

    def clear(self) -> None:
        """Drop every cached vector (the counters are kept)."""
        with self._lock:
            self._entries.clear()

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        """Embed texts, calling the inner embedder only for texts not seen before."""
        items = check_texts(texts)
        if not items:
            # Asked of the inner embedder, because reading its ``dim`` may cost a request.
            return self._inner.embed_documents([])
        return np.stack(self._lookup(items, "document"))

    def embed_query(self, text: str) -> Vectors:
        """Embed one query, served from the cache when it was asked before."""
        return self._lookup([check_query(text)], "query")[0].copy()

    def __repr__(self) -> str:
        return f"CachedEmbedder({self._inner!r}, max_entries={self._max_entries})"

    def _key(self, role: Role, text: str) -> _CacheKey:
        # A digest, not the text, so a cache of long passages stays small.
        return (self._inner.name, role, hashlib.blake2b(text.encode("utf-8")).digest())

    def _lookup(self, items: list[str], role: Role) -> list[Vectors]:
        keys = [self._key(role, text) for text in items]
        found: dict[_CacheKey, Vectors] = {}
        waiting: dict[_CacheKey, Future[Vectors]] = {}
        mine: dict[_CacheKey, Future[Vectors]] = {}
        to_embed: list[tuple[_CacheKey, str]] = []
        with self._lock:
            for key, text in zip(keys, items, strict=True):
                if key in found or key in waiting or key in mine:
                    self._hits += 1
                elif (vector := self._entries.get(key)) is not None:
                    self._entries.move_to_end(key)
                    found[key] = vector
                    self._hits += 1
                elif (future := self._pending.get(key)) is not None:
                    waiting[key] = future
                    self._hits += 1
                else:
                    mine[key] = self._pending[key] = Future()
                    to_embed.append((key, text))
                    self._misses += 1
        if to_embed:
            found.update(self._embed_missing(to_embed, role, mine))
        for key, future in waiting.items():
            # The owner thread sets a result or an exception; either way this returns or raises.
            found[key] = future.result()
        return [found[key] for key in keys]

    def _embed_missing(
        self,
        to_embed: list[tuple[_CacheKey, str]],
        role: Role,
        mine: dict[_CacheKey, Future[Vectors]],
    ) -> dict[_CacheKey, Vectors]:
        """Embed the texts this call owns, publish them, and wake threads waiting on them."""
        results: dict[_CacheKey, Vectors] = {}
        try:
            for start in range(0, len(to_embed), self._batch_size):
                batch = to_embed[start : start + self._batch_size]
                vectors = self._call_inner([text for _, text in batch], role)
                for (key, _), vector in zip(batch, vectors, strict=True):
                    # Read-only, because the same array is handed to every later caller.
                    stored = np.array(vector, dtype=np.float32)
                    stored.setflags(write=False)
                    results[key] = stored
        except BaseException as error:
            # Batches that did succeed are kept; threads waiting on the rest get the error.
            self._publish(results, mine, error)
            raise
        self._publish(results, mine, None)
        return results

    def _publish(
        self,
        results: dict[_CacheKey, Vectors],
        mine: dict[_CacheKey, Future[Vectors]],
        error: BaseException | None,
    ) -> None:
        with self._lock:
            for key in mine:
                self._pending.pop(key, None)
                if key in results:
                    self._store(key, results[key])
        for key, future in mine.items():
            if key in results:
                future.set_result(results[key])
            else:
                future.set_exception(error or EmbeddingError("embedding was not produced"))

    def _call_inner(self, texts: list[str], role: Role) -> Vectors:
        with self._lock:
            self._inner_calls += 1
        if role == "query":
            # Queries come one at a time; the inner query path adds the right prefix.
            return np.stack([self._inner.embed_query(text) for text in texts])
        return self._inner.embed_documents(texts)

    def _store(self, key: _CacheKey, vector: Vectors) -> None:
        """Insert under the lock, evicting the least recently used beyond ``max_entries``."""
        if self._max_entries == 0:
            return
        self._entries[key] = vector
        self._entries.move_to_end(key)
        while len(self._entries) > self._max_entries:
            self._entries.popitem(last=False)
