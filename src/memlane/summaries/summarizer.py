"""What every summarizer (the offline one, the LLM one) provides."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from memlane.summaries.model import SummaryContent
from memlane.window.model import Turn


class Summarizer(Protocol):
    """Folds turns into a session summary; never raises on odd text."""

    def update(self, previous: SummaryContent | None, turns: Sequence[Turn]) -> SummaryContent:
        """Return ``previous`` (``None`` for a new session) updated with ``turns``, oldest first.

        Keeps what still holds, revises what the turns change, adds what is new.
        """
        ...
