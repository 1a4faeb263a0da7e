"""What every backend's forget and purge share: the tables of free text, the deletion log.

Which texts mention a forgotten value is the privacy package's rule
(:mod:`memlane.privacy.matching`); the store receives it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from memlane.privacy.model import Deletion
from memlane.timeutil import from_micros

TEXT_TABLES = (
    ("summaries", "content"),
    ("notes", "text"),
    ("search_docs", "text"),
    ("turns", "content"),
)
"""Tables holding a subject's free text, with the column the text is in."""

DELETION_COLUMNS = (
    "id, subject, scope, requested_at, reason, purge_due, purged_at, requested_by, counts"
)
"""The ``deletions`` columns :func:`deletion` decodes, in order."""


def scope_name(attribute: str | None) -> str:
    """How the deletion log names what was forgotten."""
    return "subject" if attribute is None else f"attribute:{attribute}"


def counts_json(counts: Mapping[str, int]) -> str:
    """The per-table counts of a deletion as stored in the log."""
    return json.dumps(dict(counts), sort_keys=True)


def deletion(row: Sequence[Any]) -> Deletion:
    """A deletion log entry from a row of :data:`DELETION_COLUMNS`."""
    return Deletion(
        id=row[0],
        subject=row[1],
        scope=row[2],
        requested_at=from_micros(row[3]),
        reason=row[4],
        purge_due=from_micros(row[5]),
        purged_at=None if row[6] is None else from_micros(row[6]),
        requested_by=row[7],
        counts=json.loads(row[8]),
    )
