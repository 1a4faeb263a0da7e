"""Fixtures shared by every test: a controllable clock, and memories on it on a backend.

``backend`` is ``"sqlite"`` here; the contract suites (facts, sessions, router, privacy,
workflows) override it in their own conftest with every backend, so each of their tests runs
on SQLite and on PostgreSQL.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import settings

import memlane

pytest_plugins = ["tests.support.services"]

# No Hypothesis deadline: how long one example takes is a benchmark's question, and on a
# loaded machine the default 200 ms failed property tests whose logic held.
settings.register_profile("memlane", deadline=None)
settings.load_profile("memlane")


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
def backend() -> str:
    """The storage backend a test's memories use (see the module docstring)."""
    return "sqlite"


@pytest.fixture
def new_memory_url(backend: str, tmp_path, request: pytest.FixtureRequest) -> Callable[[], str]:
    """Make locations of new, empty memories on the test's backend."""
    if backend == "postgresql":
        factory: Callable[[], str] = request.getfixturevalue("new_postgres_url")
        return factory
    counter = itertools.count()
    return lambda: str(tmp_path / f"memlane-{next(counter)}.db")


@pytest.fixture
def memory_url(new_memory_url: Callable[[], str]) -> str:
    """The location of one new, empty memory that several handles can open."""
    return new_memory_url()


@pytest.fixture
def new_scratch_url(backend: str, new_memory_url: Callable[[], str]) -> Callable[[], str]:
    """Make places for memories only one handle opens: SQLite in memory, or new databases."""
    return (lambda: ":memory:") if backend == "sqlite" else new_memory_url


@pytest.fixture
def scratch_url(new_scratch_url: Callable[[], str]) -> str:
    """The place of one memory only one handle opens (see :func:`new_scratch_url`)."""
    return new_scratch_url()


@pytest.fixture
def mem(clock: FakeClock, scratch_url: str) -> Iterator[memlane.Memory]:
    with memlane.Memory(scratch_url, clock=clock) as memory:
        yield memory
