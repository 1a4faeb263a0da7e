"""API keys on SQLite: one row per key, the secret kept only as its hash."""

from __future__ import annotations

from typing import Any, cast

from memlane.server.model import ApiKey, Role
from memlane.storage.sqlite.database import SQLiteDatabase
from memlane.timeutil import from_micros, to_micros

_COLUMNS = "id, tenant, role, secret_hash, created_at, revoked_at, label"


class SQLiteKeyStore:
    """The API keys of every tenant of one SQLite database."""

    def __init__(self, database: SQLiteDatabase) -> None:
        self.db = database

    def put_key(self, key: ApiKey) -> None:
        """Store a new key (its id must be new)."""
        with self.db.write():
            self.db.wrote()
            self.db.execute(
                f"INSERT INTO api_keys ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    key.id,
                    key.tenant,
                    key.role,
                    key.secret_hash,
                    to_micros(key.created_at),
                    None if key.revoked_at is None else to_micros(key.revoked_at),
                    key.label,
                ),
            )

    def key(self, key_id: str) -> ApiKey | None:
        """The key with this public id, revoked or not."""
        rows = self.db.fetchall(f"SELECT {_COLUMNS} FROM api_keys WHERE id = ?", (key_id,))
        return _key(rows[0]) if rows else None

    def keys(self, tenant: str | None) -> list[ApiKey]:
        """Every key of ``tenant`` (``None``: of every tenant), oldest first."""
        if tenant is None:
            rows = self.db.fetchall(f"SELECT {_COLUMNS} FROM api_keys ORDER BY created_at, id")
        else:
            rows = self.db.fetchall(
                f"SELECT {_COLUMNS} FROM api_keys WHERE tenant = ? ORDER BY created_at, id",
                (tenant,),
            )
        return [_key(row) for row in rows]

    def revoke(self, key_id: str, tenant: str | None, *, now: int) -> ApiKey | None:
        """Revoke a key (of ``tenant``, if given); ``None`` if there is no such key.

        Revoking a revoked key keeps its first revocation time.
        """
        scope = "id = ?" if tenant is None else "id = ? AND tenant = ?"
        parameters: tuple[str, ...] = (key_id,) if tenant is None else (key_id, tenant)
        with self.db.write():
            self.db.wrote()
            self.db.execute(
                f"UPDATE api_keys SET revoked_at = ? WHERE {scope} AND revoked_at IS NULL",
                (now, *parameters),
            )
            rows = self.db.fetchall(f"SELECT {_COLUMNS} FROM api_keys WHERE {scope}", parameters)
        return _key(rows[0]) if rows else None


def _key(row: Any) -> ApiKey:
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
