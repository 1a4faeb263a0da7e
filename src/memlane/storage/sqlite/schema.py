"""The SQLite schema as numbered migrations; ``PRAGMA user_version`` records how far a file is."""

from __future__ import annotations

import sqlite3

from memlane.errors import SchemaError
from memlane.storage.sql import schema as shared

_TYPES = {"id": "INTEGER PRIMARY KEY", "ref": "INTEGER", "time": "INTEGER", "seq": ""}

_COUNTED_IN = (
    "INSERT INTO search_scope_docs (tenant, kind, subject, docs) "
    "VALUES (new.tenant, new.kind, new.subject, 1), (new.tenant, new.kind, '', 1) "
    "ON CONFLICT (tenant, kind, subject) DO UPDATE SET docs = docs + 1;"
)
_OLD_SCOPES = "tenant = old.tenant AND kind = old.kind AND subject IN (old.subject, '')"
_COUNTED_OUT = (
    f"UPDATE search_scope_docs SET docs = docs - 1 WHERE {_OLD_SCOPES}; "
    f"DELETE FROM search_scope_docs WHERE docs = 0 AND {_OLD_SCOPES};"
)
SCOPE_DOCS = (
    """CREATE TABLE IF NOT EXISTS search_scope_docs (
        tenant TEXT NOT NULL,
        kind TEXT NOT NULL,
        subject TEXT NOT NULL,
        docs INTEGER NOT NULL,
        PRIMARY KEY (tenant, kind, subject)
    ) WITHOUT ROWID""",
    "CREATE TRIGGER IF NOT EXISTS search_docs_scope_added AFTER INSERT ON search_docs "
    f"BEGIN {_COUNTED_IN} END",
    "CREATE TRIGGER IF NOT EXISTS search_docs_scope_removed AFTER DELETE ON search_docs "
    f"BEGIN {_COUNTED_OUT} END",
    "CREATE TRIGGER IF NOT EXISTS search_docs_scope_moved AFTER UPDATE OF tenant, kind, subject "
    "ON search_docs WHEN (old.tenant, old.kind, old.subject) "
    f"IS NOT (new.tenant, new.kind, new.subject) BEGIN {_COUNTED_OUT} {_COUNTED_IN} END",
)
"""Docs per scope, as FTS5 holds them (every ``search_docs`` row has its ``search_fts`` row,
deleted or not, until it is removed): a subject's of a kind, and with subject ``''`` (no
subject is empty) the whole tenant's. A scope that no doc is left in has no row, so a purged
subject's name does not stay behind in the table."""

MIGRATIONS: tuple[tuple[str, ...], ...] = (
    # 1: the exact lane.
    (
        *shared.typed([shared.ATTRIBUTES + " WITHOUT ROWID"], **_TYPES),
        *shared.typed(shared.CLOCK, **_TYPES),
        """CREATE TABLE facts (
            id INTEGER PRIMARY KEY,
            tenant TEXT NOT NULL,
            subject TEXT NOT NULL,
            attribute TEXT NOT NULL,
            value TEXT NOT NULL,
            value_key TEXT NOT NULL,
            valid_from INTEGER NOT NULL,
            valid_to INTEGER NOT NULL,
            tx_from INTEGER NOT NULL,
            tx_to INTEGER,
            source TEXT,
            reason TEXT,
            confidence REAL NOT NULL,
            provenance TEXT NOT NULL,
            deleted_at INTEGER,
            CHECK (valid_from < valid_to),
            CHECK (tx_to IS NULL OR tx_from < tx_to)
        )""",
        *shared.FACT_INDEXES,
    ),
    # 2: the summary lane: summary versions, notes, and one search index over both.
    (
        *shared.typed(shared.SUMMARIES + shared.NOTES, **_TYPES),
        # One row per searchable item (the current version of each summary, every note);
        # the vector is filled lazily so that writes never wait for an embedding model.
        """CREATE TABLE search_docs (
            id INTEGER PRIMARY KEY,
            tenant TEXT NOT NULL,
            subject TEXT NOT NULL,
            kind TEXT NOT NULL CHECK (kind IN ('summary', 'note')),
            owner_id INTEGER NOT NULL,
            text TEXT NOT NULL,
            model TEXT,
            vector BLOB,
            deleted_at INTEGER,
            UNIQUE (kind, owner_id)
        )""",
        shared.SEARCH_SCOPE,
        """CREATE VIRTUAL TABLE search_fts USING fts5(
            tokens, tokenize = 'unicode61 remove_diacritics 2'
        )""",
        *shared.typed([shared.TURNS], **_TYPES),
    ),
    # 3: deletions, for the compliance view and purge.
    (
        *shared.typed(shared.DELETIONS, **_TYPES),
        shared.NOTES_DELETED,
        # When a version's reason was stated (re-inserted remainders keep it); NULL: tx_from.
        "ALTER TABLE facts ADD COLUMN stated_tx INTEGER",
    ),
    shared.typed(shared.API_KEYS, **_TYPES),
    shared.typed(shared.WORKFLOWS, **_TYPES),
    # 6: what recall needs of each note, written with it (existing notes keyed lazily).
    shared.typed(shared.NOTE_KEYS, **_TYPES),
    # 7: claims of the background indexer.
    shared.typed(shared.SEARCH_CLAIMS, **_TYPES),
    # 8: notes keyed again (slot rows name the clause they file).
    shared.REKEY_NOTES,
    # 9: a subject's pending notes in id order from one index.
    shared.PENDING_IN_ORDER,
    # 10: the indexer's claims of any tenant in id order from one index.
    shared.UNEMBEDDED_IN_ORDER,
    # 11: a slot key's latest rows from one index.
    shared.NOTE_KEYS_RECENT,
    # 12: notes keyed again (slot rows under masked-value keys: heads and tails cut at words).
    shared.REKEY_NOTES,
    # 13: a key's believed versions by where they end (reads and writes take the live ones).
    shared.BELIEVED_BY_END,
    # 14: what recall asks of a summary's lines, stored with each version (older: at recall).
    shared.SUMMARY_LINE_FACTS,
    # 15: a number per subject that moves with every write of its notes' keys.
    shared.typed([shared.NOTE_STAMPS[0] + " WITHOUT ROWID"], **_TYPES),
    # 16: a tenant-wide scope's docs (every subject, one kind) from one index. The scope index
    # has the subject after the tenant, so with the subject unconstrained every read of a
    # tenant-wide scope (does any doc wait for a vector; a graph build's chunks; its newest
    # ids) walked every doc of the tenant: 0.3-1 s each at 10^6 notes. (On PostgreSQL these
    # columns took the place of search_docs_unembedded_by_id in the indexer's claims; its
    # migration 19 is partial, on a predicate no claim implies.)
    (
        "CREATE INDEX IF NOT EXISTS search_docs_tenant_scope ON search_docs "
        "(tenant, kind, deleted_at, model)",
    ),
    # 17: each model's docs in id order, for the indexer's claim of docs another model
    # embedded (``SQLiteDialect.embedded_by_others``): ``model != x`` read the whole table
    # each time the indexer looked for work and found none (72-100 ms at 10^5 docs). The
    # model as an expression no other query names (``dialect.BY_MODEL``): on the column,
    # reads asking ``model = ?`` in their scope were planned through it.
    (
        "CREATE INDEX IF NOT EXISTS search_docs_by_model ON search_docs "
        "(substr(model, 1), id) WHERE deleted_at IS NULL AND model IS NOT NULL",
    ),
    # 18: how many docs each scope holds, kept by triggers (FullTextIndex reads it to plan a
    # match): FTS5's vocabulary walked a scope token's whole doclist to count it, 2 ms at
    # 10^5 docs and 0.1-0.3 s at 10^6, at the first search and again after every write.
    (
        *SCOPE_DOCS,
        "DELETE FROM search_scope_docs",  # (counted anew whole)
        "INSERT INTO search_scope_docs (tenant, kind, subject, docs) "
        "SELECT tenant, kind, subject, count(*) FROM search_docs GROUP BY 1, 2, 3 "
        "UNION ALL SELECT tenant, kind, '', count(*) FROM search_docs GROUP BY 1, 2",
    ),
)

LATEST_VERSION = len(MIGRATIONS)


def migrate(connection: sqlite3.Connection) -> int:
    """Bring the database up to :data:`LATEST_VERSION`; return the version found.

    Raises:
        SchemaError: the file was written by a newer memlane.
    """
    found: int = connection.execute("PRAGMA user_version").fetchone()[0]
    if found > LATEST_VERSION:
        raise SchemaError(
            f"database schema version {found} is newer than this memlane supports "
            f"({LATEST_VERSION}); upgrade memlane"
        )
    if found == LATEST_VERSION:
        return found
    connection.execute("BEGIN IMMEDIATE")
    try:
        # Another process may have migrated while we waited for the lock.
        current: int = connection.execute("PRAGMA user_version").fetchone()[0]
        for version in range(current + 1, LATEST_VERSION + 1):
            for statement in MIGRATIONS[version - 1]:
                connection.execute(statement)
            connection.execute(f"PRAGMA user_version = {version}")
    except BaseException:
        connection.execute("ROLLBACK")
        raise
    connection.execute("COMMIT")
    return found
