"""``/v1/forget``, ``/v1/purge`` and the audit and compliance views."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter

from memlane.operations.catalog import AUDIT_VIEW, COMPLIANCE_VIEW, FORGET, PURGE
from memlane.server.auth import Auditor, Compliance
from memlane.server.declared import Arguments, body, query
from memlane.server.errors import API_ERRORS
from memlane.server.routes.common import JsonRoute, Page, known_subject
from memlane.server.serialize import audit_dict, deletion_dict, purge_dict

router = APIRouter(prefix="/v1", tags=["privacy"], responses=API_ERRORS, route_class=JsonRoute)


@router.post("/forget")
def forget(
    caller: Compliance, given: Annotated[Arguments, body(FORGET, "ForgetRequest")]
) -> dict[str, Any]:
    """``mem.forget``: logically delete a subject (or attribute) in every lane at once."""
    with caller.memory() as memory:
        known_subject(memory, given["subject"])
        deletion = memory.forget(**given, requested_by=f"key:{caller.key.id}")
    return {"deletion": deletion_dict(deletion)}


@router.post("/purge")
def purge(
    caller: Compliance, given: Annotated[Arguments, body(PURGE, "PurgeRequest")]
) -> dict[str, Any]:
    """``mem.purge``: physically remove deleted data past retention (or now)."""
    with caller.memory() as memory:
        report = memory.purge(**given)
    return {"report": purge_dict(report)}


@router.get("/views/compliance")
def compliance(
    caller: Compliance, paging: Page, given: Annotated[Arguments, query(COMPLIANCE_VIEW)]
) -> dict[str, Any]:
    """``views.compliance``: the deletion log, oldest first."""
    with caller.memory() as memory:
        deletions = memory.views.compliance(**given)
    return paging.of([deletion_dict(d) for d in deletions])


@router.get("/views/audit")
def audit(caller: Auditor, given: Annotated[Arguments, query(AUDIT_VIEW)]) -> dict[str, Any]:
    """``views.audit``: every version in every lane, deleted ones flagged."""
    with caller.memory() as memory:
        known_subject(memory, given["subject"])
        view = memory.views.audit(**given)
    return audit_dict(view)
