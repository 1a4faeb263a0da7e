"""``forget``: one logical deletion across every lane, and what it must reach beyond storage.

Storage marks the rows (facts, summaries, notes, search entries, retained turns) in one
transaction, choosing texts by :data:`~memlane.privacy.matching.FORGET_RULE`; this flow also
scrubs workflow parameters, open windows of this process and, through ``forget_windows``,
windows other workers hold.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from memlane.facts.lane import FactsLane
from memlane.privacy.matching import FORGET_RULE, mentions, needles
from memlane.privacy.model import Deletion
from memlane.session import Session
from memlane.storage.base import PrivacyStore
from memlane.timeutil import to_micros
from memlane.workflows.lane import WorkflowsLane


@dataclass(frozen=True, slots=True)
class Forgetting:
    """The forget flow of one memory handle.

    Args:
        tenant: whose data it deletes.
        facts: the exact lane (its audit names the values a text may mention).
        store: marks rows deleted and logs the deletion.
        workflows: its task texts and parameters are scrubbed of the values.
        retention: how long deleted data stays before a purge removes it.
        forget_windows: drops a subject's windows held outside this process (Redis), if any.
    """

    tenant: str
    facts: FactsLane
    store: PrivacyStore
    workflows: WorkflowsLane
    retention: timedelta
    forget_windows: Callable[[str], None] | None = None

    def forget(
        self,
        subject: str,
        attribute: str | None,
        *,
        now: datetime,
        reason: str | None,
        requested_by: str | None,
        sessions: Sequence[Session],
    ) -> Deletion:
        """Delete ``subject`` (or its ``attribute``) everywhere; ``sessions`` are its open ones."""
        found = needles(fact.value for fact in self.facts.audit(subject, attribute))
        deletion = self.store.forget(
            self.tenant,
            subject,
            attribute,
            now=to_micros(now),
            purge_due=to_micros(now + self.retention),
            reason=reason,
            requested_by=requested_by,
            rule=FORGET_RULE,
        )
        # Workflows keep task texts and parameter values, not subjects: scrub the values.
        self.workflows.scrub([*found, subject] if attribute is None else found)
        for session in sessions:
            if attribute is None:
                session.discard()
            else:
                session.scrub(lambda text: mentions(text, found))
        if attribute is None and self.forget_windows is not None:
            self.forget_windows(subject)
        return deletion
