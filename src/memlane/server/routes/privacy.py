"""``/v1/forget``, ``/v1/purge`` and the audit and compliance views."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fastapi import APIRouter

from memlane.operations.catalog import FORGET, PURGE
from memlane.server.auth import Auditor, Compliance
from memlane.server.declared import request_model
from memlane.server.errors import API_ERRORS
from memlane.server.routes.common import Body, Name, Page, known_subject
from memlane.server.serialize import audit_dict, deletion_dict, purge_dict

router = APIRouter(prefix="/v1", tags=["privacy"], responses=API_ERRORS)


if TYPE_CHECKING:
    ForgetRequest = Body
    PurgeRequest = Body
else:  # built from the declarations of ``forget`` and ``purge``
    ForgetRequest = request_model(FORGET, "ForgetRequest")
    PurgeRequest = request_model(PURGE, "PurgeRequest")


@router.post("/forget")
def forget(caller: Compliance, body: ForgetRequest) -> dict[str, Any]:
    """``mem.forget``: logically delete a subject (or attribute) in every lane at once."""
    with caller.memory() as memory:
        arguments = dict(body)
        known_subject(memory, arguments["subject"])
        deletion = memory.forget(**arguments, requested_by=f"key:{caller.key.id}")
    return {"deletion": deletion_dict(deletion)}


@router.post("/purge")
def purge(caller: Compliance, body: PurgeRequest) -> dict[str, Any]:
    """``mem.purge``: physically remove deleted data past retention (or now)."""
    with caller.memory() as memory:
        report = memory.purge(**dict(body))
    return {"report": purge_dict(report)}


@router.get("/views/compliance")
def compliance(caller: Compliance, paging: Page) -> dict[str, Any]:
    """``views.compliance``: the deletion log, oldest first."""
    with caller.memory() as memory:
        deletions = memory.views.compliance()
    return paging.of([deletion_dict(d) for d in deletions])


@router.get("/views/audit")
def audit(caller: Auditor, subject: Name) -> dict[str, Any]:
    """``views.audit``: every version in every lane, deleted ones flagged."""
    with caller.memory() as memory:
        known_subject(memory, subject)
        view = memory.views.audit(subject)
    return audit_dict(view)
