"""JSON shapes of memlane's models for the HTTP API and the MCP server."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, TypeVar

from memlane.facts.model import Fact
from memlane.privacy.model import AuditView, Deletion, PurgeReport
from memlane.summaries.model import Note, NoteHit, Summary, SummaryHit
from memlane.window.model import Turn

T = TypeVar("T")


def iso(instant: datetime | None) -> str | None:
    """ISO-8601, or ``None`` for an open end."""
    return None if instant is None else instant.isoformat()


def note_dict(note: Note) -> dict[str, Any]:
    """A note as JSON."""
    return {
        "id": note.id,
        "subject": note.subject,
        "text": note.text,
        "at": iso(note.at),
        "tx_from": iso(note.tx_from),
        "session_id": note.session_id,
        "source": note.source,
        "provenance": list(note.provenance),
        "deleted_at": iso(note.deleted_at),
    }


def summary_dict(summary: Summary) -> dict[str, Any]:
    """A summary version as JSON, its five sections as lists of lines."""
    return {
        "id": summary.id,
        "subject": summary.subject,
        "session_id": summary.session_id,
        **{name: list(lines) for name, lines in summary.content.sections().items()},
        "period_from": iso(summary.period_from),
        "period_to": iso(summary.period_to),
        "version": summary.version,
        "tx_from": iso(summary.tx_from),
        "provenance": list(summary.provenance),
        "deleted_at": iso(summary.deleted_at),
    }


def turn_dict(turn: Turn) -> dict[str, Any]:
    """A turn as JSON."""
    return {
        "id": turn.id,
        "session_id": turn.session_id,
        "subject": turn.subject,
        "role": turn.role,
        "content": turn.content,
        "at": iso(turn.at),
        "speaker": turn.speaker,
    }


def deletion_dict(deletion: Deletion) -> dict[str, Any]:
    """A deletion (the compliance view's row) as JSON."""
    return {
        "id": deletion.id,
        "subject": deletion.subject,
        "scope": deletion.scope,
        "requested_at": iso(deletion.requested_at),
        "requested_by": deletion.requested_by,
        "reason": deletion.reason,
        "purge_due": iso(deletion.purge_due),
        "purged_at": iso(deletion.purged_at),
        "counts": dict(deletion.counts),
    }


def purge_dict(report: PurgeReport) -> dict[str, Any]:
    """What a purge removed, as JSON."""
    return {
        "deletions": list(report.deletions),
        "rows": dict(report.rows),
        "total_rows": report.total_rows,
        "vacuumed": report.vacuumed,
        "bytes_verified": report.bytes_verified,
        "held": list(report.held),
    }


def profile_dict(profile: dict[str, Fact | list[Fact]]) -> dict[str, Any]:
    """A profile: one fact, or a list for many-valued attributes."""
    return {
        name: [f.to_dict() for f in found] if isinstance(found, list) else found.to_dict()
        for name, found in sorted(profile.items())
    }


def audit_dict(view: AuditView) -> dict[str, Any]:
    """The audit view of a subject as JSON."""
    return {
        "facts": [f.to_dict() for f in view.facts],
        "summaries": [summary_dict(s) for s in view.summaries],
        "notes": [note_dict(n) for n in view.notes],
    }


def summary_hit_dict(hit: SummaryHit) -> dict[str, Any]:
    """A summary search hit as JSON."""
    return {"score": round(hit.score, 6), "summary": summary_dict(hit.summary)}


def note_hit_dict(hit: NoteHit) -> dict[str, Any]:
    """A note search hit as JSON."""
    return {"score": round(hit.score, 6), "note": note_dict(hit.note)}


def page(items: Sequence[T], limit: int, offset: int) -> tuple[list[T], dict[str, int]]:
    """One page of ``items`` and its position: ``{"total", "limit", "offset"}``."""
    return list(items[offset : offset + limit]), {
        "total": len(items),
        "limit": limit,
        "offset": offset,
    }


__all__ = [
    "audit_dict",
    "deletion_dict",
    "iso",
    "note_dict",
    "note_hit_dict",
    "page",
    "profile_dict",
    "purge_dict",
    "summary_dict",
    "summary_hit_dict",
    "turn_dict",
]
