"""The collector held off for a bulk write, and given back as it was, by every thread."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

import memlane
from memlane import collector


@pytest.fixture(autouse=True)
def collector_on() -> Iterator[None]:
    """Each test starts with the collector on and leaves it as the process had it."""
    was = gc.isenabled()
    gc.enable()
    yield
    (gc.enable if was else gc.disable)()


def test_the_collector_is_off_in_the_block_and_on_again_after() -> None:
    with collector.paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_collector_the_caller_turned_off_stays_off() -> None:
    gc.disable()
    with collector.paused():
        pass
    assert not gc.isenabled()


def test_an_error_in_the_block_gives_the_collector_back() -> None:
    with pytest.raises(RuntimeError), collector.paused():
        raise RuntimeError("boom")
    assert gc.isenabled()


def test_overlapping_blocks_of_two_threads_keep_it_off_until_the_last_leaves() -> None:
    entered, leave = threading.Event(), threading.Event()

    def other() -> None:
        with collector.paused():
            entered.set()
            leave.wait(5)

    thread = threading.Thread(target=other)
    with collector.paused():
        thread.start()
        assert entered.wait(5)
    assert not gc.isenabled()  # the other thread's block is still open
    leave.set()
    thread.join(5)
    assert gc.isenabled()


def test_set_many_builds_its_versions_with_the_collector_off(mem: memlane.Memory) -> None:
    seen: list[bool] = []

    def writes() -> Iterator[dict[str, str]]:
        for number in range(3):
            seen.append(gc.isenabled())
            yield {"subject": f"U-{number}", "attribute": "tier", "value": "gold"}

    assert len(mem.facts.set_many(writes())) == 3
    assert seen == [False, False, False]
    assert gc.isenabled()


def test_add_notes_builds_its_notes_with_the_collector_off(mem: memlane.Memory) -> None:
    seen: list[bool] = []
    at = datetime(2026, 3, 1, tzinfo=UTC)

    def notes() -> Iterator[dict[str, object]]:
        for number in range(3):
            seen.append(gc.isenabled())
            yield {"subject": "U-1", "text": f"I moved to Lyon in year {number}", "at": at}

    assert len(mem.summaries.add_notes(notes())) == 3
    assert seen == [False, False, False]
    assert gc.isenabled()
