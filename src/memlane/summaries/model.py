"""Structured session summaries: five sections, versioned, with provenance."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True, slots=True)
class SummaryContent:
    """The five sections of a summary, each a tuple of short statements."""

    topic: tuple[str, ...] = ()
    facts: tuple[str, ...] = ()
    open_items: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()
    mood: tuple[str, ...] = ()

    def is_empty(self) -> bool:
        """True when every section is empty."""
        return not (self.topic or self.facts or self.open_items or self.entities or self.mood)


@dataclass(frozen=True, slots=True)
class Summary:
    """One stored version of a session summary (or of a subject's storyline)."""

    id: int
    subject: str
    session_id: str | None
    content: SummaryContent
    period_from: datetime
    period_to: datetime
    version: int
    tx_from: datetime
    provenance: tuple[str, ...]

    @property
    def topic(self) -> tuple[str, ...]:
        """Section: what the session was about."""
        return self.content.topic

    @property
    def facts(self) -> tuple[str, ...]:
        """Section: facts confirmed in the session."""
        return self.content.facts

    @property
    def open_items(self) -> tuple[str, ...]:
        """Section: what is still to be done or answered."""
        return self.content.open_items

    @property
    def entities(self) -> tuple[str, ...]:
        """Section: people, places, identifiers and things named."""
        return self.content.entities

    @property
    def mood(self) -> tuple[str, ...]:
        """Section: the user's mood and intent."""
        return self.content.mood
