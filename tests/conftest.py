"""Fixtures shared by every test: a controllable clock and memories on it."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

import memlane


class FakeClock:
    """A clock that stands still until a test moves it."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def set(self, value: str | datetime) -> datetime:
        self.now = datetime.fromisoformat(value) if isinstance(value, str) else value
        if self.now.tzinfo is None:
            self.now = self.now.replace(tzinfo=UTC)
        return self.now

    def advance(self, **delta: float) -> datetime:
        self.now += timedelta(**delta)
        return self.now


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(datetime(2026, 3, 2, tzinfo=UTC))


@pytest.fixture
def mem(clock: FakeClock) -> Iterator[memlane.Memory]:
    with memlane.Memory(":memory:", clock=clock) as memory:
        yield memory


@pytest.fixture
def file_mem(tmp_path, clock: FakeClock) -> Iterator[memlane.Memory]:
    with memlane.Memory(tmp_path / "memlane.db", clock=clock) as memory:
        yield memory
