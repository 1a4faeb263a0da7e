"""A write held inside its transaction, so that a test can check what other threads do meanwhile.

``hold(monkeypatch, owner, "name", thread_name)`` wraps ``owner.name`` so that calls made by the
thread of that name stop inside it until released; ``in_progress(held, call)`` runs ``call`` on
such a thread for the length of a ``with`` block; ``finishes(call)`` tells whether another call
completes meanwhile.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

WAIT_S = 30.0


class Held:
    """Calls of the wrapped function by one named thread stop inside it until released."""

    def __init__(self, thread_name: str) -> None:
        self.thread_name = thread_name
        self.inside = threading.Event()
        self.release = threading.Event()

    def stopping(self, function: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(function)
        def stopped(*arguments: Any, **options: Any) -> Any:
            if threading.current_thread().name == self.thread_name:
                self.inside.set()
                self.release.wait(WAIT_S)
            return function(*arguments, **options)

        return stopped


def hold(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str, thread_name: str) -> Held:
    """Hold calls of ``owner.name`` made by the thread ``thread_name``."""
    held = Held(thread_name)
    monkeypatch.setattr(owner, name, held.stopping(getattr(owner, name)))
    return held


@contextmanager
def in_progress(held: Held, call: Callable[[], object]) -> Iterator[None]:
    """Run ``call`` on the held thread; inside the block it is stopped in the held function."""
    thread = threading.Thread(target=call, name=held.thread_name)
    thread.start()
    try:
        assert held.inside.wait(WAIT_S), f"{held.thread_name} never reached the held call"
        yield
    finally:
        held.release.set()
        thread.join(WAIT_S)


def finishes(call: Callable[[], object], seconds: float = WAIT_S / 3) -> bool:
    """Whether ``call``, run on a thread of its own, completes within ``seconds``."""
    thread = threading.Thread(target=call)
    thread.start()
    thread.join(seconds)
    return not thread.is_alive()
