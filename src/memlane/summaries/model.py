"""Structured session summaries: five sections, versioned, with provenance."""

from __future__ import annotations

from dataclasses import dataclass, field
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

    def sections(self) -> dict[str, tuple[str, ...]]:
        """The sections by name, in display order."""
        return {name: getattr(self, name) for name in SECTIONS}

    def as_text(self) -> str:
        """Every line of every section, one per line: what search indexes and embeds."""
        return "\n".join(line for lines in self.sections().values() for line in lines)


SECTIONS = ("topic", "facts", "open_items", "entities", "mood")


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
    deleted_at: datetime | None = None
    line_facts: str | None = field(default=None, compare=False)
    """What judging its lines asks of their text, derived when it was written (JSON, see
    :mod:`memlane.router.line_facts`); ``None`` when it was not (derived at recall). Derived
    from ``content``, it is no part of what the version is: an archive leaves it out."""

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


@dataclass(frozen=True, slots=True)
class Note:
    """An atomic statement worth remembering, tied to the turn or call it came from.

    ``at`` is when it was said (or the time given to ``remember``); ``tx_from`` is when
    memlane stored it.
    """

    id: int
    subject: str
    text: str
    at: datetime
    tx_from: datetime
    session_id: str | None = None
    source: str | None = None
    provenance: tuple[str, ...] = ()
    deleted_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class SummaryHit:
    """A summary found by search, with its fused score (higher is better)."""

    summary: Summary
    score: float


@dataclass(frozen=True, slots=True)
class NoteHit:
    """A note found by search, with its fused score (higher is better)."""

    note: Note
    score: float
