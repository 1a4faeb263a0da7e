"""Threads of one process write to PostgreSQL at once, each in its own transaction.

Fact writes of different keys are ordered by PostgreSQL's key locks, as between processes
(tests/facts/test_key_locks.py); one lock for the whole process would make every request of
a server wait for the write in progress, whatever its key.
"""

from __future__ import annotations

import threading
import time
from contextlib import AbstractContextManager
from typing import Any

import pytest

import memlane
import memlane.facts.lane as lane_module
from tests.support.held import WAIT_S, Held, hold, in_progress


@pytest.fixture
def stopped_writes(monkeypatch: pytest.MonkeyPatch) -> Held:
    """Writes of U-A stop inside their transaction (key locked, time issued) until released."""
    return hold(monkeypatch, lane_module, "plan_assert", "writer-U-A")


def _u_a_in_progress(mem: memlane.Memory, held: Held) -> AbstractContextManager[None]:
    """U-A's location set from 2026-01-01, stopped inside its transaction for the block."""
    return in_progress(
        held, lambda: mem.facts.set("U-A", "location", "Shanghai", valid_from="2026-01-01")
    )


def test_a_write_of_another_key_commits_while_one_is_in_progress(
    postgres_url: str, stopped_writes: Held
) -> None:
    with memlane.Memory(postgres_url, embedder="hash") as mem:
        with _u_a_in_progress(mem, stopped_writes):
            started = time.monotonic()
            other = threading.Thread(target=lambda: mem.facts.set("U-B", "location", "Beijing"))
            other.start()
            other.join(WAIT_S / 3)
            assert not other.is_alive(), "the write of U-B waited for the one of U-A"
            assert time.monotonic() - started < WAIT_S / 3
            assert mem.facts.get("U-B", "location") is not None
            assert mem.facts.get("U-A", "location") is None  # still in progress
        assert mem.facts.get("U-A", "location") is not None


def test_writes_of_one_key_still_take_turns(postgres_url: str, stopped_writes: Held) -> None:
    with memlane.Memory(postgres_url, embedder="hash") as mem:
        with _u_a_in_progress(mem, stopped_writes):
            second = threading.Thread(
                target=lambda: mem.facts.set("U-A", "location", "Beijing", valid_from="2026-02-01")
            )
            second.start()
            second.join(0.5)
            assert second.is_alive()  # waits for the key's lock
        second.join(WAIT_S)
        values = [f.value for f in mem.facts.history("U-A", "location")]
        assert values == ["Shanghai", "Beijing"]


def test_a_read_as_of_a_later_write_waits_for_the_write_in_progress_of_another_thread(
    postgres_url: str, stopped_writes: Held
) -> None:
    """Invariant 3 within one process: the read must not answer "nothing" and change later."""
    with memlane.Memory(postgres_url, embedder="hash") as mem:
        answers: list[Any] = []
        with _u_a_in_progress(mem, stopped_writes):
            other = mem.facts.set("U-B", "location", "Beijing", valid_from="2026-01-01")
            reader = threading.Thread(
                target=lambda: answers.append(
                    mem.facts.get("U-A", "location", valid_at="2026-02-01", known_at=other.tx_from)
                )
            )
            reader.start()
            reader.join(0.5)
            assert reader.is_alive() and not answers  # it waits for the write of U-A
        reader.join(WAIT_S)
        assert answers and answers[0] is not None and answers[0].value == "Shanghai"
