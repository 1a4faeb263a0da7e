"""What a window lane implementation offers: the in-process buffer and the Redis window."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Protocol, runtime_checkable

from memlane.window.model import Turn


@runtime_checkable
class Window(Protocol):
    """The last N rounds of one session, FIFO; a round is a user turn and its replies."""

    rounds: int

    def append(self, turn: Turn) -> list[Turn]:
        """Add a turn; return the turns of the rounds it pushed out (oldest first)."""
        ...

    def turns(self) -> list[Turn]:
        """The turns in the window, oldest first."""
        ...

    def drain(self) -> list[Turn]:
        """Empty the window and return what it held, oldest first."""
        ...

    def remove(self, predicate: Callable[[Turn], bool]) -> int:
        """Drop the turns for which ``predicate`` is true; return how many."""
        ...

    def __len__(self) -> int: ...


@runtime_checkable
class SharedWindow(Window, Protocol):
    """A window several worker processes share, which also numbers turns and orders folds."""

    def next_turn_number(self, floor: int) -> int:
        """The next turn number of the session, above ``floor`` (numbers already folded)."""
        ...

    def fold_lock(self) -> AbstractContextManager[None]:
        """Held while one worker reads, extends and records the session summary."""
        ...

    def mark_active(self, at: datetime) -> None:
        """Record that a worker used the session at ``at`` (for idle detection)."""
        ...

    def last_active(self) -> datetime | None:
        """When any worker last used the session; ``None`` once the window expired."""
        ...

    def mark_closed(self) -> None:
        """Record that a worker closed the session, so every worker's handle on it closes."""
        ...

    def close_mark(self) -> str | None:
        """The mark of the session's latest close (``None``: never closed, or expired)."""
        ...
