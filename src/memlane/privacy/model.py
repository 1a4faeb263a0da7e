"""Plain data of deletions and purges."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from memlane.facts.model import Fact
from memlane.summaries.model import Note, Summary


@dataclass(frozen=True, slots=True)
class Deletion:
    """A request to forget: what (scope), when, why, and when the bytes go (purge)."""

    id: int
    subject: str
    scope: str  # "subject" or "attribute:<name>"
    requested_at: datetime
    reason: str | None
    purge_due: datetime
    purged_at: datetime | None = None
    requested_by: str | None = None
    counts: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class PurgeReport:
    """What a purge removed from the database files, and whether that was checked.

    ``bytes_verified`` is ``True`` only when every file of the database was scanned for the
    purged values (every form they were written in) and none was found; ``False`` when some
    are still there, ``held`` then saying where and what holds them (the deletions stay due,
    and the next purge retries); ``None`` when the backend's files cannot be scanned
    (PostgreSQL: the server's files are not the client's to read), ``held`` saying so.
    """

    deletions: tuple[int, ...]
    rows: dict[str, int]
    vacuumed: bool
    bytes_verified: bool | None = None
    held: tuple[str, ...] = ()

    @property
    def total_rows(self) -> int:
        """Rows removed across every table."""
        return sum(self.rows.values())


@dataclass(frozen=True, slots=True)
class AuditView:
    """Everything stored about a subject, superseded and deleted versions included."""

    facts: list[Fact]
    summaries: list[Summary]
    notes: list[Note]
