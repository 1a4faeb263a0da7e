"""``/v1/keys``: an admin manages the keys of its own tenant."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter

from memlane.access import Role
from memlane.server.auth import Admin
from memlane.server.errors import API_ERRORS, not_found
from memlane.server.keys import MAX_KEY_LABEL_CHARS
from memlane.server.routes.common import Body, Name, Page, Published
from memlane.validation import text_schema

router = APIRouter(prefix="/v1/keys", tags=["keys"], responses=API_ERRORS)


class NewKey(Body):
    """The body of a key to create (for the admin's tenant)."""

    role: Role
    label: Annotated[str, Published.of(text_schema(MAX_KEY_LABEL_CHARS))] | None = None


@router.post("")
def create(caller: Admin, body: NewKey) -> dict[str, Any]:
    """A new key for this tenant; ``key`` is shown here once and never again."""
    record, key = caller.state.keys.create(caller.key.tenant, body.role, body.label)
    return {"key": key, **record.to_dict()}


@router.get("")
def list_keys(caller: Admin, paging: Page) -> dict[str, Any]:
    """This tenant's keys (never their secrets)."""
    return paging.of([k.to_dict() for k in caller.state.keys.list(caller.key.tenant)])


@router.delete("/{key_id}")
def revoke(caller: Admin, key_id: Name) -> dict[str, Any]:
    """Revoke one of this tenant's keys (404: no such key in this tenant)."""
    record = caller.state.keys.revoke(key_id, caller.key.tenant)
    if record is None:
        raise not_found()
    return record.to_dict()
