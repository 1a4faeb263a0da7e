"""Read-only JSON routes the memory inspector needs: who am I, versions, sessions, workflows.

All of them are open to the ``agent`` role and never show deleted data: what they return
an agent could already reach through time-travel reads (``known_at``), only in one call.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter

from memlane.access import ROLE_PERMISSIONS
from memlane.facts.model import Fact
from memlane.operations import catalog
from memlane.server.auth import Reader
from memlane.server.declared import Arguments, query
from memlane.server.errors import API_ERRORS
from memlane.server.routes.common import JsonRoute, Name, Page, known_subject
from memlane.server.serialize import iso, summary_dict
from memlane.summaries.model import Summary
from memlane.timeutil import checked_now

router = APIRouter(prefix="/v1", tags=["inspector"], responses=API_ERRORS, route_class=JsonRoute)


@router.get("/whoami")
def whoami(caller: Reader) -> dict[str, Any]:
    """The calling key: its public id, tenant, role and what the role may do; the server's now.

    ``now`` is the instant the server reads "now" at, so the page marks and starts from the
    same "now" as every read that gives no time; ``index.pending`` counts the tenant's items
    that wait for the background indexer (found by their words meanwhile).
    """
    key = caller.key
    with caller.memory() as memory:
        now = checked_now(memory.clock)
        pending = memory.index.pending()
    return {
        "key_id": key.id,
        "tenant": key.tenant,
        "role": key.role,
        "permissions": sorted(ROLE_PERMISSIONS[key.role]),
        "now": iso(now),
        "index": {"pending": pending},
    }


@router.get("/subjects")
def subjects(
    caller: Reader, given: Annotated[Arguments, query(catalog.SUBJECTS)]
) -> dict[str, Any]:
    """The subjects the tenant holds live data about, in byte order; deleted ones not listed."""
    with caller.memory() as memory:
        found = memory.subjects(**given)
    return {
        "items": found.subjects,
        "total": found.total,
        "limit": given["limit"],
        "offset": given["offset"],
    }


@router.get("/facts/versions", tags=["facts"])
def versions(
    caller: Reader, paging: Page, subject: Name, attribute: Name | None = None
) -> dict[str, Any]:
    """Every stored version of a subject's facts, superseded ones included, deleted ones not.

    Ordered by transaction time, as ``facts/audit``; this is the bi-temporal picture an
    agent may see (the audit route adds the deleted versions and needs the auditor role).
    """
    with caller.memory() as memory:
        known_subject(memory, subject)
        found = memory.facts.audit(subject, attribute)
    return paging.of([f.to_dict() for f in live_versions(found)])


def live_versions(facts: list[Fact]) -> list[Fact]:
    """The versions that are not deleted, in the order given."""
    return [f for f in facts if f.deleted_at is None]


@router.get("/summaries/sessions", tags=["summaries"])
def sessions(caller: Reader, paging: Page, subject: Name) -> dict[str, Any]:
    """The latest summary of each of a subject's sessions, oldest session first."""
    with caller.memory() as memory:
        known_subject(memory, subject)
        stored = memory.views.audit(subject).summaries
    return paging.of([summary_dict(s) for s in latest_per_session(stored)])


def latest_per_session(summaries: list[Summary]) -> list[Summary]:
    """The highest live version of each session summary (storylines left out)."""
    latest: dict[str, Summary] = {}
    for summary in summaries:
        if summary.session_id is None or summary.deleted_at is not None:
            continue
        held = latest.get(summary.session_id)
        if held is None or summary.version > held.version:
            latest[summary.session_id] = summary
    return sorted(latest.values(), key=lambda s: (s.period_from, s.session_id or ""))


@router.get("/workflows", tags=["workflows"])
def workflows(caller: Reader, paging: Page) -> dict[str, Any]:
    """The tenant's current workflows, by task type."""
    with caller.memory() as memory:
        found = memory.workflows.all()
    rows = [{**w.as_dict(), "tx_from": iso(w.tx_from)} for w in found]
    rows.sort(key=lambda row: str(row["task_type"]))
    return paging.of(rows)
