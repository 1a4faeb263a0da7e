"""API keys on SQLite: one row per key, the secret kept only as its hash."""

from __future__ import annotations

from memlane.access import ApiKey
from memlane.storage.key_rows import KEY_COLUMNS as _COLUMNS
from memlane.storage.key_rows import key as _key
from memlane.storage.key_rows import key_row
from memlane.storage.sqlite.database import SQLiteDatabase


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
                key_row(key),
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
