"""Long pure-Python work of a write lets the requests in progress go first (memlane.pacing)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import memlane
from memlane import pacing
from memlane.pacing import pause
from memlane.summaries.indexer import Indexer

PROSE = "The user wrote about the garden, the roses by the fence and the tomatoes. " * 400
"""A user turn of 30,000 characters: far more than one step of work."""


@pytest.fixture
def waits(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The names of the functions from which paced work asked requests to go first.

    Every pause point counts (a step of no time): what is tested is where the work steps
    aside, not how fast this machine reaches the next step.
    """
    monkeypatch.setattr(pacing, "STEP_SECONDS", 0.0)
    seen: list[str] = []
    original = Indexer.requests_first

    def spy(self: Indexer, timeout: float = 0.5) -> None:
        import sys

        frame = sys._getframe(2)  # requests_first <- _Pacer.pause <- pause <- the caller
        seen.append(frame.f_back.f_code.co_name if frame.f_back else "?")
        original(self, timeout)

    monkeypatch.setattr(Indexer, "requests_first", spy)
    yield seen


def test_reading_and_folding_a_long_turn_steps_aside_between_sentences(
    mem: memlane.Memory, waits: list[str]
) -> None:
    mem.add_turn("U-1", "s-1", "user", PROSE)
    read = len(waits)
    mem.session("U-1", "s-1").close()
    folded = len(waits) - read
    assert read >= 3 and folded >= 3, waits
    # Between sentences of the facts extraction and of the notes; of the summary's passes.
    assert {"extract_notes", "find_statements"} <= set(waits[:read]), waits[:read]
    assert {"_classify", "_content_runs"} <= set(waits[read:]), waits[read:]


def test_a_long_note_steps_aside_too(mem: memlane.Memory, waits: list[str]) -> None:
    mem.remember("U-1", PROSE[:20_000])
    assert len(waits) >= 2


def test_a_long_notes_keys_are_made_clause_by_clause_stepping_aside(
    mem: memlane.Memory, waits: list[str]
) -> None:
    # What recall needs of a note (its words, claims, slots, terms) is read in the request
    # too, after the facts: each clause and each step is a point where requests go first.
    mem.remember("U-1", PROSE.replace("garden", "orchard")[:20_000])  # read nowhere before
    assert {"note_keys", "claims", "keywords", "_key_in_parts"} <= set(waits), set(waits)


def test_outside_paced_work_pause_does_nothing(waits: list[str]) -> None:
    for _ in range(1000):
        pause()
    assert waits == []


class _Requests:
    """Requests held open by their own threads, ended on demand."""

    def __init__(self, indexer: Indexer) -> None:
        self.indexer = indexer
        self.threads: list[tuple[threading.Thread, threading.Event]] = []

    def start(self) -> threading.Event:
        started, end = threading.Event(), threading.Event()

        def run() -> None:
            with self.indexer.foreground():
                started.set()
                end.wait(10)

        thread = threading.Thread(target=run)
        thread.start()
        started.wait(10)
        self.threads.append((thread, end))
        return end

    def end_all(self) -> None:
        for thread, end in self.threads:
            end.set()
            thread.join()


def _waiter(indexer: Indexer, timeout: float) -> tuple[threading.Thread, threading.Event]:
    done = threading.Event()

    def run() -> None:
        indexer.requests_first(timeout)
        done.set()

    thread = threading.Thread(target=run)
    thread.start()
    return thread, done


def test_paced_work_waits_for_the_requests_in_progress_only(mem: memlane.Memory) -> None:
    indexer = mem._resources.indexer
    requests = _Requests(indexer)
    try:
        first = requests.start()
        thread, done = _waiter(indexer, timeout=10)
        assert not done.wait(0.2)  # a request is in progress: the work waits
        requests.start()  # a request that starts meanwhile is not waited for
        first.set()
        assert done.wait(5)
        thread.join()
    finally:
        requests.end_all()


def test_a_request_of_the_working_thread_and_the_bound_do_not_block_it(
    mem: memlane.Memory,
) -> None:
    indexer = mem._resources.indexer
    with indexer.foreground():
        started = time.monotonic()
        indexer.requests_first(timeout=10)  # only this thread's own request is in progress
        assert time.monotonic() - started < 1
    requests = _Requests(indexer)
    try:
        requests.start()
        started = time.monotonic()
        indexer.requests_first(timeout=0.1)  # a request that never ends: waited for 0.1 s
        assert 0.05 < time.monotonic() - started < 5
    finally:
        requests.end_all()


def test_every_server_request_is_one_that_long_work_lets_go_first(tmp_path: Path) -> None:
    from memlane.server.state import ServerState

    state = ServerState(str(tmp_path / "m.db"))
    indexer = state.root.index.indexer
    inside, leave = threading.Event(), threading.Event()

    def request() -> None:
        with state.memory("acme") as memory:
            memory.facts.set("U-1", "city", "Paris")
            inside.set()
            leave.wait(10)

    thread = threading.Thread(target=request)
    thread.start()
    try:
        assert inside.wait(10)
        waiter, done = _waiter(indexer, timeout=10)
        assert not done.wait(0.2)
        leave.set()
        assert done.wait(5)
        waiter.join()
    finally:
        leave.set()
        thread.join()
        state.close()
