"""The at-scale backend: PostgreSQL with pgvector and btree_gist, shared by many workers."""

from __future__ import annotations

from memlane.storage.base import Backend
from memlane.storage.postgres.archive import PostgresArchiveStore
from memlane.storage.postgres.database import PostgresDatabase
from memlane.storage.postgres.facts import PostgresFactStore
from memlane.storage.postgres.keys import PostgresKeyStore
from memlane.storage.postgres.privacy import PostgresPrivacyStore
from memlane.storage.postgres.summaries import PostgresSummaryStore
from memlane.storage.postgres.workflows import PostgresWorkflowStore

__all__ = [
    "PostgresArchiveStore",
    "PostgresDatabase",
    "PostgresFactStore",
    "PostgresKeyStore",
    "PostgresPrivacyStore",
    "PostgresSummaryStore",
    "PostgresWorkflowStore",
    "open_postgres",
]


def open_postgres(url: str) -> Backend:
    """Connect to (creating and migrating the schema if needed) the database at ``url``."""
    database = PostgresDatabase(url)
    return Backend(
        url=url,
        facts=PostgresFactStore(database),
        summaries=PostgresSummaryStore(database),
        privacy=PostgresPrivacyStore(database),
        close=database.close,
        keys=PostgresKeyStore(database),
        workflows=PostgresWorkflowStore(database),
        archive=PostgresArchiveStore(database),
    )
