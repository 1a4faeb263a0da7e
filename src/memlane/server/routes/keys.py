"""``/v1/keys``: an admin manages the keys of its own tenant (the tenant of its key)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter

from memlane.operations import catalog
from memlane.server.auth import Admin
from memlane.server.declared import Arguments, body, query
from memlane.server.errors import API_ERRORS, not_found
from memlane.server.routes.common import JsonRoute, Page

router = APIRouter(prefix="/v1/keys", tags=["keys"], responses=API_ERRORS, route_class=JsonRoute)


@router.post("")
def create(
    caller: Admin, given: Annotated[Arguments, body(catalog.KEY_CREATE, "NewKey")]
) -> dict[str, Any]:
    """A new key for this tenant; ``key`` is shown here once and never again."""
    record, key = caller.state.keys.create(tenant=caller.key.tenant, **given)
    return {"key": key, **record.to_dict()}


@router.get("")
def list_keys(
    caller: Admin, paging: Page, given: Annotated[Arguments, query(catalog.KEY_LIST)]
) -> dict[str, Any]:
    """This tenant's keys (never their secrets)."""
    found = caller.state.keys.list(tenant=caller.key.tenant, **given)
    return paging.of([k.to_dict() for k in found])


@router.delete("/{key_id}")
def revoke(caller: Admin, given: Annotated[Arguments, query(catalog.KEY_REVOKE)]) -> dict[str, Any]:
    """Revoke one of this tenant's keys (404: no such key in this tenant)."""
    record = caller.state.keys.revoke(tenant=caller.key.tenant, **given)
    if record is None:
        raise not_found()
    return record.to_dict()
