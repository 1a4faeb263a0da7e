"""The embedded backend: one SQLite file in WAL mode, behind the shared SQL stores."""

from __future__ import annotations

from pathlib import Path

from memlane.storage.base import Backend
from memlane.storage.sql import sql_backend
from memlane.storage.sqlite.database import SQLiteDatabase
from memlane.storage.sqlite.dialect import SQLiteDialect

__all__ = ["SQLiteDatabase", "SQLiteDialect", "open_sqlite"]


def open_sqlite(path: str | Path) -> Backend:
    """Open (creating and migrating if needed) the SQLite database at ``path``."""
    return sql_backend(str(path), SQLiteDatabase(path))
