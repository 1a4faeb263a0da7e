"""The embedded backend: one SQLite file in WAL mode."""

from __future__ import annotations

from pathlib import Path

from memlane.storage.base import Backend
from memlane.storage.sqlite.archive import SQLiteArchiveStore
from memlane.storage.sqlite.database import SQLiteDatabase
from memlane.storage.sqlite.facts import SQLiteFactStore
from memlane.storage.sqlite.keys import SQLiteKeyStore
from memlane.storage.sqlite.privacy import SQLitePrivacyStore
from memlane.storage.sqlite.summaries import SQLiteSummaryStore
from memlane.storage.sqlite.workflows import SQLiteWorkflowStore

__all__ = [
    "SQLiteArchiveStore",
    "SQLiteDatabase",
    "SQLiteFactStore",
    "SQLiteKeyStore",
    "SQLitePrivacyStore",
    "SQLiteSummaryStore",
    "SQLiteWorkflowStore",
    "open_sqlite",
]


def open_sqlite(path: str | Path) -> Backend:
    """Open (creating and migrating if needed) the SQLite database at ``path``."""
    database = SQLiteDatabase(path)
    return Backend(
        url=str(path),
        facts=SQLiteFactStore(database),
        summaries=SQLiteSummaryStore(database),
        privacy=SQLitePrivacyStore(database),
        close=database.close,
        keys=SQLiteKeyStore(database),
        workflows=SQLiteWorkflowStore(database),
        archive=SQLiteArchiveStore(database),
    )
