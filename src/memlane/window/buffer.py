"""The window lane: the last N rounds of a session, verbatim, in process memory only."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from memlane.errors import InvalidInput
from memlane.window.model import Turn


class WindowBuffer:
    """A FIFO of rounds; a round is one user turn and the replies to it.

    >>> from datetime import UTC, datetime
    >>> buffer = WindowBuffer(rounds=1)
    >>> t = lambda i, role: Turn(f"s#{i}", "s", "U", role, "hi", datetime(2026, 1, 1, tzinfo=UTC))
    >>> buffer.append(t(1, "user")), buffer.append(t(2, "assistant"))
    ([], [])
    >>> [turn.id for turn in buffer.append(t(3, "user"))]  # the first round is evicted
    ['s#1', 's#2']
    """

    def __init__(self, rounds: int) -> None:
        if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
            raise InvalidInput("window", f"must be a positive number of rounds, got {rounds!r}")
        self.rounds = rounds
        self._rounds: deque[list[Turn]] = deque()

    def append(self, turn: Turn) -> list[Turn]:
        """Add a turn; return the turns of the rounds it pushed out (oldest first)."""
        if turn.role == "user" or not self._rounds:
            self._rounds.append([turn])
        else:
            self._rounds[-1].append(turn)
        evicted: list[Turn] = []
        while len(self._rounds) > self.rounds:
            evicted.extend(self._rounds.popleft())
        return evicted

    def turns(self) -> list[Turn]:
        """The turns in the window, oldest first."""
        return [turn for round_ in self._rounds for turn in round_]

    def drain(self) -> list[Turn]:
        """Empty the window and return what it held, oldest first."""
        turns = self.turns()
        self._rounds.clear()
        return turns

    def remove(self, predicate: Callable[[Turn], bool]) -> int:
        """Drop the turns for which ``predicate`` is true (for ``forget``); return how many."""
        before = len(self)
        kept = ([turn for turn in round_ if not predicate(turn)] for round_ in self._rounds)
        self._rounds = deque(round_ for round_ in kept if round_)
        return before - len(self)

    def __len__(self) -> int:
        return sum(len(round_) for round_ in self._rounds)
