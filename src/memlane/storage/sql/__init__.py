"""One store implementation per concern for every SQL database, over a small dialect seam."""

from __future__ import annotations

from memlane.storage.base import Backend
from memlane.storage.sql.archive import SQLArchiveStore
from memlane.storage.sql.dialect import Database, Dialect
from memlane.storage.sql.facts import SQLFactStore
from memlane.storage.sql.keys import SQLKeyStore
from memlane.storage.sql.privacy import SQLPrivacyStore
from memlane.storage.sql.subjects import SQLSubjectStore
from memlane.storage.sql.summaries import SQLSummaryStore
from memlane.storage.sql.workflows import SQLWorkflowStore

__all__ = [
    "Database",
    "Dialect",
    "SQLArchiveStore",
    "SQLFactStore",
    "SQLKeyStore",
    "SQLPrivacyStore",
    "SQLSubjectStore",
    "SQLSummaryStore",
    "SQLWorkflowStore",
    "sql_backend",
]


def sql_backend(url: str, database: Database) -> Backend:
    """Every store of a SQL database, as handed to the lanes."""
    return Backend(
        url=url,
        facts=SQLFactStore(database),
        summaries=SQLSummaryStore(database),
        privacy=SQLPrivacyStore(database),
        close=database.close,
        keys=SQLKeyStore(database),
        workflows=SQLWorkflowStore(database),
        archive=SQLArchiveStore(database),
        subjects=SQLSubjectStore(database),
    )
