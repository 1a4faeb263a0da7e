"""Concurrent first turns of a new session, one of which fails (issue 16).

``Memory.add_turn`` opens the session on its first turn and drops it again when that turn
fails, so a failed turn leaves no empty session. The drop must not take a turn of another
request with it: every step here waits on an ``Event``, so the interleaving is exact.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from dataclasses import replace
from datetime import datetime, tzinfo
from functools import partial
from typing import Any, TypeVar

import pytest
from tests.conftest import FakeClock

import memlane
from memlane.errors import StorageError
from memlane.extract.model import Extraction
from memlane.extract.rules import RuleExtractor
from memlane.session import Session
from memlane.sessions import RunningSessions

WAIT_S = 30
T = TypeVar("T")


class GatedExtractor(RuleExtractor):
    """The rule extractor; a turn whose text starts with a gate's name waits for its release.

    Each turn's text is also returned as a note, so the summary lane stores it.
    """

    def __init__(self, *gates: str) -> None:
        super().__init__()
        self.entered = {gate: threading.Event() for gate in gates}
        self.release = {gate: threading.Event() for gate in gates}
        self.calls: Counter[str] = Counter()

    def extract(self, text: str, *, at: datetime, timezone: tzinfo) -> Extraction:
        for gate, entered in self.entered.items():
            if text.startswith(gate):
                self.calls[gate] += 1
                entered.set()
                assert self.release[gate].wait(WAIT_S)
        found = super().extract(text, at=at, timezone=timezone)
        return replace(found, notes=(text,))


def fail_storing(memory: memlane.Memory, prefix: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Storing a turn's notes, one of which starts with ``prefix``, raises a storage error."""
    store = memory.summaries.add_turn_notes

    def add_turn_notes(subject: str, notes: Any, **options: Any) -> Any:
        if any(text.startswith(prefix) for text, _ in notes):
            raise StorageError("disk I/O error")
        return store(subject, notes, **options)

    monkeypatch.setattr(memory.summaries, "add_turn_notes", add_turn_notes)


def in_thread(name: str, call: Callable[[], T]) -> Future[T]:
    """Run ``call`` in a thread named ``name``; its outcome is the future's."""
    outcome: Future[T] = Future()

    def run() -> None:
        try:
            outcome.set_result(call())
        except BaseException as error:
            outcome.set_exception(error)

    threading.Thread(target=run, name=name, daemon=True).start()
    return outcome


class Pause:
    """Holds the thread named ``thread`` where it is called, until :meth:`resume`."""

    def __init__(self, thread: str) -> None:
        self.thread = thread
        self.reached = threading.Event()
        self._go_on = threading.Event()

    def __call__(self) -> None:
        if threading.current_thread().name == self.thread:
            self.reached.set()
            assert self._go_on.wait(WAIT_S)

    def resume(self) -> None:
        self._go_on.set()


def pause_at(
    monkeypatch: pytest.MonkeyPatch, owner: type, method: str, thread: str, *, after: bool
) -> Pause:
    """Pause ``thread`` before (or ``after``) it calls ``owner.method``."""
    pause, call = Pause(thread), getattr(owner, method)

    def paused(self: object, *args: Any, **options: Any) -> Any:
        if not after:
            pause()
        result = call(self, *args, **options)
        if after:
            pause()
        return result

    monkeypatch.setattr(owner, method, paused)
    return pause


def fail_a_first_turn_beside(
    gated: tuple[memlane.Memory, GatedExtractor],
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    call: Callable[[], T],
    reached: threading.Event,
) -> Future[T]:
    """Fail a first turn ("alpha") of s-1 while ``call`` runs in thread ``name``.

    The first turn opens the session and fails once ``call`` is at ``reached``; returns
    ``call``'s outcome.
    """
    memory, extractor = gated
    fail_storing(memory, "alpha", monkeypatch)
    failing = in_thread("alpha", lambda: memory.add_turn("U-1", "s-1", "user", "alpha here"))
    assert extractor.entered["alpha"].wait(WAIT_S)  # it opened the session; its turn is out
    other = in_thread(name, call)
    assert reached.wait(WAIT_S)
    extractor.release["alpha"].set()
    with pytest.raises(StorageError):
        failing.result(WAIT_S)
    return other


@pytest.fixture
def gated(scratch_url: str, clock: FakeClock) -> Iterator[tuple[memlane.Memory, GatedExtractor]]:
    extractor = GatedExtractor("alpha", "beta")
    with memlane.Memory(scratch_url, clock=clock, embedder="hash", extractor=extractor) as memory:
        yield memory, extractor


def test_a_failed_first_turn_keeps_the_turn_in_flight_beside_it(
    gated: tuple[memlane.Memory, GatedExtractor], monkeypatch: pytest.MonkeyPatch
) -> None:
    memory, extractor = gated
    add = partial(memory.add_turn, "U-1", "s-1", "user", "beta: I live in Oslo")
    # its turn is out in the same session when the first one fails
    kept = fail_a_first_turn_beside(gated, monkeypatch, "beta", add, extractor.entered["beta"])
    extractor.release["beta"].set()
    turn = kept.result(WAIT_S)
    session = memory.running_session("U-1", "s-1")
    assert session is not None, "the session of an acknowledged turn was dropped"
    assert session.window() == [turn]
    summary = session.close()
    assert summary is not None and turn.id in summary.provenance


def test_a_failed_first_turn_does_not_close_the_session_under_another_turn(
    gated: tuple[memlane.Memory, GatedExtractor], monkeypatch: pytest.MonkeyPatch
) -> None:
    memory, _ = gated
    # "beta" holds the session and has not added its turn yet
    holding = pause_at(monkeypatch, Session, "add", "beta", after=False)
    add = partial(memory.add_turn, "U-1", "s-1", "user", "plain: hello")
    kept = fail_a_first_turn_beside(gated, monkeypatch, "beta", add, holding.reached)
    holding.resume()
    turn = kept.result(WAIT_S)  # not "session 's-1' is closed": the client did nothing wrong
    session = memory.running_session("U-1", "s-1")
    assert session is not None and session.window() == [turn]


def test_two_failed_first_turns_leave_no_session_and_are_not_retried(
    gated: tuple[memlane.Memory, GatedExtractor], monkeypatch: pytest.MonkeyPatch
) -> None:
    memory, extractor = gated
    fail_storing(memory, "beta", monkeypatch)
    add = partial(memory.add_turn, "U-1", "s-1", "user", "beta here")
    second = fail_a_first_turn_beside(gated, monkeypatch, "beta", add, extractor.entered["beta"])
    # the other turn is on its way: the session stays for it
    assert memory.running_session("U-1", "s-1") is not None
    extractor.release["beta"].set()
    with pytest.raises(StorageError):
        second.result(WAIT_S)  # the last one out drops the empty session
    assert memory.running_session("U-1", "s-1") is None
    assert extractor.calls == {"alpha": 1, "beta": 1}  # a failed turn is not tried again


def test_a_failed_first_turn_alone_still_leaves_no_session(
    gated: tuple[memlane.Memory, GatedExtractor], monkeypatch: pytest.MonkeyPatch
) -> None:
    memory, _ = gated
    fail_storing(memory, "plain", monkeypatch)
    with pytest.raises(StorageError):
        memory.add_turn("U-1", "s-1", "user", "plain: I live in Oslo")
    assert memory.running_session("U-1", "s-1") is None


def test_a_failed_turn_does_not_drop_a_session_opened_on_purpose(
    gated: tuple[memlane.Memory, GatedExtractor], monkeypatch: pytest.MonkeyPatch
) -> None:
    memory, _ = gated
    fail_storing(memory, "plain", monkeypatch)
    opened = memory.session("U-1", "s-1")
    with pytest.raises(StorageError):
        memory.add_turn("U-1", "s-1", "user", "plain: I live in Oslo")
    assert memory.running_session("U-1", "s-1") is opened
    assert opened.add("user", "still open").content == "still open"


def test_a_session_asked_for_while_its_first_turn_fails_is_open(
    gated: tuple[memlane.Memory, GatedExtractor], monkeypatch: pytest.MonkeyPatch
) -> None:
    memory, _ = gated
    # "asker" found the running session and has not kept it yet
    found = pause_at(monkeypatch, RunningSessions, "open", "asker", after=True)
    ask = partial(memory.session, "U-1", "s-1")
    asked = fail_a_first_turn_beside(gated, monkeypatch, "asker", ask, found.reached)
    found.resume()  # no turn got in: the failed first turn dropped the session meanwhile
    session = asked.result(WAIT_S)
    assert not session.closed and memory.running_session("U-1", "s-1") is session
    assert session.add("user", "plain: hello").content == "plain: hello"
