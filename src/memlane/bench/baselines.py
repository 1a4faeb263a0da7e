"""Baseline retrievers the benchmarks compare memlane against: flat cosine and BM25.

Both take documents as ``add(doc_id, text)`` and answer ``search(query, k)`` with
``[(doc_id, score), ...]`` best first. ``among`` restricts a search to some documents, the
way a vector store's metadata filter (``user_id = ...``) would.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Iterable

import numpy as np

from memlane.embed import Embedder, Vectors
from memlane.errors import InvalidInput
from memlane.storage.lexical import tokens

Hits = list[tuple[str, float]]


def _checked_k(k: int) -> int:
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise InvalidInput("k", f"must be a positive integer, got {k!r}")
    return k


class FlatVectorIndex:
    """A vector-only memory: every text embedded once, exact top-k cosine with numpy."""

    def __init__(self, embedder: Embedder, batch: int = 256) -> None:
        """Index with ``embedder``; documents are embedded ``batch`` at a time."""
        self.embedder = embedder
        self.batch = batch
        self._ids: list[str] = []
        self._position: dict[str, int] = {}
        self._pending: list[str] = []
        self._blocks: list[Vectors] = []
        self._matrix: Vectors | None = None

    def __len__(self) -> int:
        return len(self._ids)

    def add(self, doc_id: str, text: str) -> None:
        """Add one document (ids must be unique)."""
        if doc_id in self._position:
            raise InvalidInput("doc_id", f"already indexed: {doc_id!r}")
        self._position[doc_id] = len(self._ids)
        self._ids.append(doc_id)
        self._pending.append(text)
        if len(self._pending) >= self.batch:
            self._flush()

    def _flush(self) -> None:
        if self._pending:
            self._blocks.append(self.embedder.embed_documents(self._pending))
            self._pending = []
            self._matrix = None

    def _vectors(self) -> Vectors:
        self._flush()
        if self._matrix is None:
            dim = self.embedder.dim
            blocks = self._blocks or [np.zeros((0, dim), dtype=np.float32)]
            self._matrix = np.ascontiguousarray(np.vstack(blocks), dtype=np.float32)
            self._blocks = [self._matrix]
        return self._matrix

    def search(self, query: str, k: int, among: Collection[str] | None = None) -> Hits:
        """The ``k`` documents nearest ``query`` by cosine (embeddings are unit length)."""
        k = _checked_k(k)
        matrix = self._vectors()
        vector = self.embedder.embed_query(query).reshape(-1)
        if among is None:
            rows = np.arange(len(self._ids))
        else:
            rows = np.fromiter(
                (self._position[d] for d in among if d in self._position), dtype=np.int64
            )
        if rows.size == 0:
            return []
        scores = matrix[rows] @ vector
        top = min(k, rows.size)
        best = np.argpartition(-scores, top - 1)[:top]
        best = best[np.lexsort((rows[best], -scores[best]))]  # ties: the earlier document
        return [(self._ids[int(rows[i])], float(scores[i])) for i in best]


class BM25Index:
    """Okapi BM25, by default over memlane's lexical tokens (CJK bigrams, words, digit runs)."""

    def __init__(
        self,
        k1: float = 1.2,
        b: float = 0.75,
        *,
        tokenize: Callable[[str], Iterable[str]] = tokens,
    ) -> None:
        """BM25 with the usual ``k1`` and ``b``; ``tokenize`` splits documents and queries."""
        self.k1 = k1
        self.b = b
        self._tokenize = tokenize
        self._ids: list[str] = []
        self._position: dict[str, int] = {}
        self._lengths: list[int] = []
        self._postings: dict[str, list[tuple[int, int]]] = defaultdict(list)
        self._total_length = 0

    def __len__(self) -> int:
        return len(self._ids)

    def add(self, doc_id: str, text: str) -> None:
        """Add one document (ids must be unique)."""
        if doc_id in self._position:
            raise InvalidInput("doc_id", f"already indexed: {doc_id!r}")
        row = len(self._ids)
        self._position[doc_id] = row
        self._ids.append(doc_id)
        counts = Counter(self._tokenize(text))
        length = sum(counts.values())
        self._lengths.append(length)
        self._total_length += length
        for token, count in counts.items():
            self._postings[token].append((row, count))

    def search(self, query: str, k: int, among: Collection[str] | None = None) -> Hits:
        """The ``k`` best documents for ``query`` (ties: the earlier document first)."""
        k = _checked_k(k)
        if not self._ids:
            return []
        allowed = (
            None if among is None else {self._position[d] for d in among if d in self._position}
        )
        size = len(self._ids)
        average = self._total_length / size or 1.0
        scores: dict[int, float] = defaultdict(float)
        for token in dict.fromkeys(self._tokenize(query)):
            postings = self._postings.get(token)
            if not postings:
                continue
            idf = math.log(1 + (size - len(postings) + 0.5) / (len(postings) + 0.5))
            for row, count in postings:
                if allowed is not None and row not in allowed:
                    continue
                norm = self.k1 * (1 - self.b + self.b * self._lengths[row] / average)
                scores[row] += idf * count * (self.k1 + 1) / (count + norm)
        ranked = sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:k]
        return [(self._ids[row], score) for row, score in ranked]
