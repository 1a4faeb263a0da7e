"""How every backend stores API keys: the columns, and the key a row decodes to."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from memlane.access import ApiKey, Role
from memlane.timeutil import from_micros, to_micros

KEY_COLUMNS = "id, tenant, role, secret_hash, created_at, revoked_at, label"
"""The ``api_keys`` columns, in the order :func:`key_row` writes and :func:`key` reads."""


def key_row(key: ApiKey) -> tuple[Any, ...]:
    """The values of :data:`KEY_COLUMNS` for a key."""
    return (
        key.id,
        key.tenant,
        key.role,
        key.secret_hash,
        to_micros(key.created_at),
        None if key.revoked_at is None else to_micros(key.revoked_at),
        key.label,
    )


def key(row: Sequence[Any]) -> ApiKey:
    """A key from a row of :data:`KEY_COLUMNS`."""
    key_id, tenant, role, secret_hash, created_at, revoked_at, label = row
    return ApiKey(
        id=key_id,
        tenant=tenant,
        role=cast(Role, role),
        secret_hash=secret_hash,
        created_at=from_micros(created_at),
        revoked_at=None if revoked_at is None else from_micros(revoked_at),
        label=label,
    )
