"""Embeddings from any OpenAI-compatible ``/v1/embeddings`` endpoint (OpenAI, Ollama, vLLM, TEI)."""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Sequence
from typing import Any

import httpx
import numpy as np

from memlane.embed.base import (
    EmbeddingError,
    Vectors,
    check_query,
    check_texts,
    empty_vectors,
    l2_normalize,
    single_row,
)
from memlane.errors import InvalidInput

_BODY_EXCERPT = 300


def embeddings_url(base_url: str) -> str:
    """Return the embeddings URL for an API root, as OpenAI clients take it.

    ``http://host:11434/v1`` → ``http://host:11434/v1/embeddings``; a root without ``/v1``
    gets it added; a URL already ending in ``/embeddings`` is kept.

    Raises:
        InvalidInput: ``base_url`` is not an http(s) URL.
    """
    url = base_url.strip().rstrip("/")
    if not url.startswith(("http://", "https://")):
        raise InvalidInput("base_url", f"expected an http(s) URL, got {base_url!r}")
    if url.endswith("/embeddings"):
        return url
    if url.endswith("/v1"):
        return url + "/embeddings"
    return url + "/v1/embeddings"


class OpenAIEmbedder:
    """Client for an OpenAI-compatible embeddings endpoint, over httpx, with batching.

    Vectors are re-normalized on arrival because not every server returns unit vectors.
    Every failure — HTTP error status, timeout, connection error, a body that is not the
    expected JSON — raises :class:`~memlane.embed.EmbeddingError`.

    Args:
        base_url: the API root, e.g. ``"http://localhost:11434/v1"``.
        model: model name sent with each request, e.g. ``"bge-m3"``.
        api_key: sent as a bearer token when given.
        timeout: seconds allowed for each HTTP request.
        batch_size: most texts sent in one request.
        dim: vector length, if known; otherwise learned from the first answer (asking the
            endpoint once if ``dim`` is read before anything was embedded).
        query_prefix: prepended to queries, for models that want one (e5: ``"query: "``).
        document_prefix: prepended to documents (e5: ``"passage: "``).
        transport: an httpx transport to use instead of the network (tests, proxies).

    Example:
        >>> emb = OpenAIEmbedder("http://localhost:11434/v1", "nomic-embed-text")  # doctest: +SKIP
        >>> emb.embed_query("where does Ann live").shape  # doctest: +SKIP
        (768,)
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        timeout: float = 30.0,
        *,
        batch_size: int = 64,
        dim: int | None = None,
        query_prefix: str = "",
        document_prefix: str = "",
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        if not isinstance(model, str) or not model.strip():
            raise InvalidInput("model", "must be a non-empty string")
        if not timeout > 0:
            raise InvalidInput("timeout", f"must be > 0 seconds, got {timeout!r}")
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise InvalidInput("batch_size", f"must be an integer >= 1, got {batch_size!r}")
        if dim is not None and (isinstance(dim, bool) or not isinstance(dim, int) or dim < 1):
            raise InvalidInput("dim", f"must be a positive integer, got {dim!r}")
        self._url = embeddings_url(base_url)
        self._model = model.strip()
        self._batch_size = batch_size
        self._dim = dim
        self._query_prefix = query_prefix
        self._document_prefix = document_prefix
        self._dim_lock = threading.Lock()
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(headers=headers, timeout=timeout, transport=transport)

    @property
    def name(self) -> str:
        """``openai:<model>@<url>``, so vectors from two servers never share a cache key."""
        return f"openai:{self._model}@{self._url}"

    @property
    def model(self) -> str:
        """The model name sent to the endpoint."""
        return self._model

    @property
    def url(self) -> str:
        """The full embeddings URL requests go to."""
        return self._url

    @property
    def dim(self) -> int:
        """Vector length; asks the endpoint once when it was neither given nor seen yet."""
        if self._dim is None:
            self._post(["dimension probe"])
        if self._dim is None:  # pragma: no cover - _post either sets it or raises
            raise EmbeddingError(f"{self.name}: could not learn the vector length")
        return self._dim

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        """Embed texts in batches of ``batch_size``; returns ``(len(texts), dim)``."""
        items = check_texts(texts)
        if not items:
            return empty_vectors(self._dim or 0)
        prefixed = [self._document_prefix + text for text in items]
        batches = [
            self._post(prefixed[start : start + self._batch_size])
            for start in range(0, len(prefixed), self._batch_size)
        ]
        return np.concatenate(batches)

    def embed_query(self, text: str) -> Vectors:
        """Embed one query; returns ``(dim,)``."""
        return single_row(self._post([self._query_prefix + check_query(text)]))

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self._client.close()

    def __enter__(self) -> OpenAIEmbedder:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"OpenAIEmbedder(url={self._url!r}, model={self._model!r})"

    def _post(self, texts: list[str]) -> Vectors:
        """Send one batch and return its vectors, normalized, in input order."""
        payload = {"model": self._model, "input": texts, "encoding_format": "float"}
        try:
            response = self._client.post(self._url, json=payload)
        except httpx.TimeoutException as error:
            raise EmbeddingError(f"{self.name}: request timed out ({error})") from error
        except httpx.HTTPError as error:
            raise EmbeddingError(f"{self.name}: request failed ({error!r})") from error
        if response.status_code >= 400:
            excerpt = response.text[:_BODY_EXCERPT]
            raise EmbeddingError(
                f"{self.name}: HTTP {response.status_code}: {excerpt}",
                status_code=response.status_code,
            )
        try:
            body = response.json()
        except (json.JSONDecodeError, UnicodeDecodeError) as error:
            raise EmbeddingError(f"{self.name}: answer is not JSON ({error})") from error
        matrix = self._parse(body, len(texts))
        with self._dim_lock:
            if self._dim is None:
                self._dim = matrix.shape[1]
        if matrix.shape[1] != self._dim:
            raise EmbeddingError(
                f"{self.name}: got vectors of length {matrix.shape[1]}, expected {self._dim}"
            )
        return l2_normalize(matrix)

    def _parse(self, body: Any, expected: int) -> Vectors:
        """Check the answer's shape: ``{"data": [{"index": i, "embedding": [...]}, ...]}``."""
        data = body.get("data") if isinstance(body, dict) else None
        if not isinstance(data, list):
            raise EmbeddingError(f"{self.name}: answer has no 'data' list")
        if len(data) != expected:
            raise EmbeddingError(f"{self.name}: sent {expected} texts, got {len(data)} vectors")
        rows: list[list[float] | None] = [None] * expected
        for position, item in enumerate(data):
            if not isinstance(item, dict) or not isinstance(item.get("embedding"), list):
                raise EmbeddingError(f"{self.name}: data[{position}] has no 'embedding' list")
            # Servers may answer out of order; 'index' says which input a vector belongs to.
            index = item.get("index", position)
            if not isinstance(index, int) or not 0 <= index < expected or rows[index] is not None:
                raise EmbeddingError(f"{self.name}: data[{position}] has a bad index {index!r}")
            rows[index] = item["embedding"]
        lengths = {len(row) for row in rows if row is not None}
        if len(lengths) != 1 or 0 in lengths:
            raise EmbeddingError(f"{self.name}: vectors are empty or of different lengths")
        try:
            matrix = np.array(rows, dtype=np.float32)
        except (TypeError, ValueError) as error:
            raise EmbeddingError(f"{self.name}: vectors hold non-numbers") from error
        if not np.isfinite(matrix).all() or not all(_has_norm(row) for row in matrix):
            raise EmbeddingError(f"{self.name}: vectors hold NaN, infinity or all zeros")
        return matrix


def _has_norm(row: Vectors) -> bool:
    return math.isfinite(norm := float(np.linalg.norm(row))) and norm > 0
