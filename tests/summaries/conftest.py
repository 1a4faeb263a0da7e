"""Fixtures of the summary-lane tests: memories opened by a test and closed after it."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from tests.conftest import FakeClock

import memlane


@pytest.fixture
def open_memory(memory_url: str, clock: FakeClock) -> Iterator[Callable[..., memlane.Memory]]:
    """``open_memory(embedder, **options)``: a memory on the test's backend, closed after it."""
    opened: list[memlane.Memory] = []

    def open_one(embedder, **options) -> memlane.Memory:
        memory = memlane.Memory(memory_url, clock=clock, embedder=embedder, **options)
        opened.append(memory)
        return memory

    yield open_one
    for memory in opened:
        memory.close()
