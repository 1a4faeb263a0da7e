"""``mem.views``: the three views over the same data (active, audit, compliance)."""

from __future__ import annotations

from dataclasses import dataclass

from memlane.facts.lane import FactsLane
from memlane.facts.model import Fact
from memlane.privacy.model import AuditView, Deletion
from memlane.storage.base import PrivacyStore, SummaryStore
from memlane.summaries.model import Note, Summary
from memlane.timeutil import TimeInput
from memlane.validation import name


@dataclass(frozen=True, slots=True)
class ActiveView:
    """What an agent may see of a subject now: valid, believed, not deleted."""

    profile: dict[str, Fact | list[Fact]]
    storyline: Summary | None
    notes: list[Note]


class Views:
    """Reached as ``Memory.views``."""

    def __init__(
        self, *, tenant: str, facts: FactsLane, summaries: SummaryStore, privacy: PrivacyStore
    ) -> None:
        self._tenant = tenant
        self._facts = facts
        self._summaries = summaries
        self._privacy = privacy

    def active(self, subject: str, valid_at: TimeInput | None = None) -> ActiveView:
        """The subject as agents see it (every ordinary read is already this view)."""
        name("subject", subject)
        return ActiveView(
            profile=self._facts.profile(subject, valid_at),
            storyline=self._summaries.current_summary(self._tenant, None, subject),
            notes=self._summaries.notes(self._tenant, subject),
        )

    def audit(self, subject: str) -> AuditView:
        """Every version of every lane, superseded and deleted ones flagged."""
        name("subject", subject)
        summaries, notes = self._summaries.audit(self._tenant, subject)
        return AuditView(self._facts.audit(subject), summaries, notes)

    def compliance(self) -> list[Deletion]:
        """The deletion log: subject, scope, when, why, purge due date, purged when."""
        return self._privacy.deletions(self._tenant)
