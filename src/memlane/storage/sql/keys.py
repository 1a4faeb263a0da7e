"""API keys on a SQL database: one row per key, the secret kept only as its hash."""

from __future__ import annotations

from memlane.access import ApiKey
from memlane.storage.sql.dialect import SQLStore
from memlane.storage.sql.rows import KEY_COLUMNS, key_row
from memlane.storage.sql.rows import key as decode_key


class SQLKeyStore(SQLStore):
    """The API keys of every tenant of one SQL database."""

    def put_key(self, key: ApiKey) -> None:
        """Store a new key (its id must be new)."""
        with self.db.write():
            self.db.wrote()
            self.db.execute(
                f"INSERT INTO api_keys ({KEY_COLUMNS}) VALUES (%s, %s, %s, %s, %s, %s, %s)",
                key_row(key),
            )

    def key(self, key_id: str) -> ApiKey | None:
        """The key with this public id, revoked or not."""
        row = self.db.fetchone(f"SELECT {KEY_COLUMNS} FROM api_keys WHERE id = %s", (key_id,))
        return decode_key(row) if row else None

    def keys(self, tenant: str | None) -> list[ApiKey]:
        """Every key of ``tenant`` (``None``: of every tenant), oldest first."""
        # Key ids are text: byte order breaks ties between keys created in the same microsecond.
        order = f"ORDER BY created_at, {self.dialect.bytewise('id')}"
        if tenant is None:
            rows = self.db.fetchall(f"SELECT {KEY_COLUMNS} FROM api_keys {order}")
        else:
            rows = self.db.fetchall(
                f"SELECT {KEY_COLUMNS} FROM api_keys WHERE tenant = %s {order}", (tenant,)
            )
        return [decode_key(row) for row in rows]

    def revoke(self, key_id: str, tenant: str | None, *, now: int) -> ApiKey | None:
        """Revoke a key (of ``tenant``, if given); ``None`` if there is no such key.

        Revoking a revoked key keeps its first revocation time.
        """
        scope = "id = %s" if tenant is None else "id = %s AND tenant = %s"
        parameters: tuple[str, ...] = (key_id,) if tenant is None else (key_id, tenant)
        with self.db.write():
            self.db.wrote()
            self.db.execute(
                f"UPDATE api_keys SET revoked_at = %s WHERE {scope} AND revoked_at IS NULL",
                (now, *parameters),
            )
            row = self.db.fetchone(f"SELECT {KEY_COLUMNS} FROM api_keys WHERE {scope}", parameters)
        return decode_key(row) if row else None
