"""The background indexer gives way to requests: no model call starts while one is in progress.

The worker waits for a quiet moment before each model call (and long work of a write between
its steps), as long as its share of the time allows; requests are played by held client
threads, so nothing here depends on timing. Every test runs on every backend.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence

import pytest
from tests.summaries.test_indexer import HUGE
from tests.summaries.test_indexer import backend as backend  # the fixture: every backend
from tests.support.embedders import GatedEmbedder

from memlane.embed.base import Vectors
from memlane.embed.pieces import pieces
from memlane.summaries import indexer, model_calls


class HeldRequest:
    """A request of another thread (a client of the server), in progress until ``end``."""

    in_progress = 0  # how many such requests are in progress now, in every test
    _lock = threading.Lock()

    def __init__(self, index: indexer.Indexer) -> None:
        self._started = threading.Event()
        self._end = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(index,), daemon=True)

    def start(self) -> HeldRequest:
        self._thread.start()
        assert self._started.wait(timeout=30)
        return self

    def end(self) -> None:
        self._end.set()
        if self._thread.is_alive():
            self._thread.join(timeout=30)

    def _run(self, index: indexer.Indexer) -> None:
        with index.request():
            with HeldRequest._lock:
                HeldRequest.in_progress += 1
            self._started.set()
            try:
                assert self._end.wait(timeout=60)
            finally:
                with HeldRequest._lock:
                    HeldRequest.in_progress -= 1


class RequestWatcher(GatedEmbedder):
    """Records, as each document call starts, how many client requests were in progress."""

    def __init__(self, serial: bool = False) -> None:
        super().__init__(open_gate=True)
        self.one_call_at_a_time = serial
        self.in_progress: list[int] = []
        self.on_call: list[Callable[[], object]] = []  # run at the start of the next calls

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        self.in_progress.append(HeldRequest.in_progress)
        if self.on_call:
            self.on_call.pop(0)()
        return super().embed_documents(texts)


@pytest.fixture
def clients() -> Iterator[Callable[[indexer.Indexer], HeldRequest]]:
    """Start held requests; whatever a test left in progress ends when it does."""
    started: list[HeldRequest] = []

    def start(index: indexer.Indexer) -> HeldRequest:
        started.append(HeldRequest(index).start())
        return started[-1]

    yield start
    for client in started:
        client.end()


def until(condition: Callable[[], object]) -> None:
    """Wait (at most 30 s) until ``condition()``: for the worker to reach a point."""
    deadline = time.monotonic() + 30
    while not condition():
        assert time.monotonic() < deadline, "the worker never got there"
        time.sleep(0.005)


def put_off(index: indexer.Indexer) -> int:
    """How often the worker put a model call off for requests (none on main: 0)."""
    return int(getattr(index, "deferrals", 0))


def test_no_model_call_starts_while_any_request_is_in_progress(open_memory, monkeypatch, clients):
    # On main only searches held the worker back: a fact read or a write of the server ran
    # beside a model call, and this test saw the call made during the request.
    monkeypatch.setattr(indexer, "YIELD_SECONDS", 60.0)
    monkeypatch.setattr(indexer, "BUSY_SHARE", 0.0)  # wait for quiet up to a minute
    embedder = RequestWatcher()
    mem = open_memory(embedder)
    client = clients(mem.index.indexer)
    mem.remember("U-1", "The user grows roses in the garden")
    until(lambda: embedder.in_progress or put_off(mem.index.indexer))
    assert embedder.in_progress == []  # the worker waits for the request to end
    client.end()
    assert mem.index.wait(timeout=30)
    assert embedder.in_progress == [0]


def test_the_worker_waits_for_a_quiet_moment_after_the_last_request(
    open_memory, monkeypatch, clients
):
    monkeypatch.setattr(indexer, "QUIET_SECONDS", 0.05)
    quiet: list[float] = []

    class QuietWatcher(RequestWatcher):
        def embed_documents(self, texts: Sequence[str]) -> Vectors:
            quiet.append(mem.index.indexer.quiet_for())
            return super().embed_documents(texts)

    mem = open_memory(QuietWatcher())
    clients(mem.index.indexer).end()
    mem.remember("U-1", "The user grows roses in the garden")
    with mem.index.indexer.request():
        assert mem.index.indexer.quiet_for() == 0.0
    assert mem.index.wait(timeout=30)
    assert quiet and min(quiet) >= 0.05


def test_a_long_note_waits_between_pieces_for_a_request_that_came_meanwhile(
    open_memory, monkeypatch, clients
):
    monkeypatch.setattr(indexer, "YIELD_SECONDS", 60.0)
    monkeypatch.setattr(indexer, "BUSY_SHARE", 0.0)  # wait for quiet up to a minute
    embedder = RequestWatcher(serial=True)  # calls of at most SERIAL_BATCH characters
    mem = open_memory(embedder)
    index = mem.index.indexer
    arrived: list[HeldRequest] = []
    # A client's request comes in while the model embeds the first piece.
    embedder.on_call.append(lambda: arrived.append(clients(index)))
    mem.remember("U-1", HUGE[:20_000])
    until(lambda: len(embedder.in_progress) > 1 or put_off(index))
    assert embedder.in_progress == [0]  # the second piece waits for that request
    arrived[0].end()
    assert mem.index.wait(timeout=60)
    assert len(embedder.in_progress) == len(pieces(HUGE[:20_000], model_calls.SERIAL_BATCH[1])) > 1
    assert set(embedder.in_progress) == {0}


def test_requests_that_never_pause_do_not_starve_the_backlog(open_memory, monkeypatch, clients):
    embedder = RequestWatcher(serial=True)
    mem = open_memory(embedder)
    clients(mem.index.indexer)
    mem.remember("U-1", HUGE[:20_000])
    mem.remember("U-1", "The user grows roses in the garden")
    assert mem.index.wait(timeout=60)  # embedded although the request never ended
    calls = len(pieces(HUGE[:20_000], model_calls.SERIAL_BATCH[1])) + 1
    assert embedder.in_progress == [1] * calls and mem.index.indexer.forced_calls == calls


class SlowCalls(RequestWatcher):
    """A one-call-at-a-time model whose document calls last at least ``seconds`` each."""

    def __init__(self, seconds: float) -> None:
        super().__init__(serial=True)
        self.seconds = seconds

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        time.sleep(self.seconds)
        return super().embed_documents(texts)


def test_a_worker_that_worked_waits_for_a_request_longer_than_its_last_call(open_memory, clients):
    # On main the worker waited for a request at most as long as its last call had lasted
    # (here 50 ms; with the hash embedder about 1 ms), then called beside it: a first recall
    # during an import shared the cores with nearly every batch. Now every step's work earns
    # it time to wait (BUSY_SHARE): after 0.6 s of calls it lets a request go first for that
    # long. (No time is asserted: the counts say whether a call was made during the request.)
    embedder = SlowCalls(0.05)
    mem = open_memory(embedder)
    for i in range(24):  # 12 calls of two notes
        mem.remember("U-1", f"The user grows rose number {i} in the garden")
    assert mem.index.wait(timeout=60)
    index = mem.index.indexer
    calls, forced, deferred = len(embedder.in_progress), index.forced_calls, put_off(index)
    client = clients(index)
    mem.remember("U-1", "The user also grows tulips")
    until(lambda: put_off(index) > deferred or len(embedder.in_progress) > calls)
    time.sleep(0.2)  # four times the last call
    assert len(embedder.in_progress) == calls and index.forced_calls == forced
    client.end()
    assert mem.index.wait(timeout=30)
    assert embedder.in_progress[calls:] == [0]


def test_a_request_that_waits_for_the_backlog_does_not_hold_it_back(open_memory, monkeypatch):
    # The worker (and the graphs' building thread) wait for the requests in progress; a
    # request waiting for the backlog would have them wait for it: for what it waits for.
    monkeypatch.setattr(indexer, "YIELD_SECONDS", 60.0)
    monkeypatch.setattr(indexer, "BUSY_SHARE", 0.0)  # the worker would wait up to a minute
    embedder = RequestWatcher()
    mem = open_memory(embedder)
    mem.remember("U-1", "The user grows roses in the garden")
    with mem.index.indexer.request():  # a server request, or a block its caller marked
        assert mem.index.wait(timeout=10)
        assert mem.index.indexer.quiet_for() == 0.0  # in progress again after the wait
    assert embedder.in_progress == [0] and mem.index.pending() == 0


def test_inline_indexing_embeds_in_the_writers_thread_without_waiting(
    open_memory, monkeypatch, clients
):
    monkeypatch.setattr(indexer, "YIELD_SECONDS", 60.0)
    monkeypatch.setattr(indexer, "BUSY_SHARE", 0.0)  # wait for quiet up to a minute
    embedder = RequestWatcher()
    mem = open_memory(embedder, indexing="inline")
    clients(mem.index.indexer)
    mem.remember("U-1", "The user grows roses in the garden")  # embeds before returning
    assert embedder.in_progress == [1] and mem.index.pending() == 0
