"""The at-scale backend: PostgreSQL with pgvector and btree_gist, behind the shared SQL stores."""

from __future__ import annotations

from memlane.storage.base import Backend
from memlane.storage.postgres.database import PostgresDatabase
from memlane.storage.postgres.dialect import PostgresDialect
from memlane.storage.sql import sql_backend

__all__ = ["PostgresDatabase", "PostgresDialect", "open_postgres"]


def open_postgres(url: str) -> Backend:
    """Connect to (creating and migrating the schema if needed) the database at ``url``."""
    return sql_backend(url, PostgresDatabase(url))
