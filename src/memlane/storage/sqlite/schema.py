"""The SQLite schema as numbered migrations; ``PRAGMA user_version`` records how far a file is."""

from __future__ import annotations

import sqlite3

from memlane.errors import SchemaError

MIGRATIONS: tuple[tuple[str, ...], ...] = (
    # 1: the exact lane.
    (
        """CREATE TABLE attributes (
            tenant TEXT NOT NULL,
            name TEXT NOT NULL,
            cardinality TEXT NOT NULL CHECK (cardinality IN ('one', 'many')),
            identifier INTEGER NOT NULL,
            normalizer TEXT NOT NULL,
            defined_at INTEGER NOT NULL,
            PRIMARY KEY (tenant, name)
        ) WITHOUT ROWID""",
        """CREATE TABLE tx_clock (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            last_tx INTEGER NOT NULL
        )""",
        "INSERT INTO tx_clock (id, last_tx) VALUES (1, 0)",
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
        # Point reads of the current belief: get, get_all, history, profile, write planning.
        """CREATE INDEX facts_believed ON facts (tenant, subject, attribute, valid_from)
            WHERE tx_to IS NULL""",
        # Reverse lookups by normalized value, on both time axes.
        "CREATE INDEX facts_by_value ON facts (tenant, attribute, value_key)",
        # The audit view and reads as of an earlier transaction time.
        "CREATE INDEX facts_by_tx ON facts (tenant, subject, attribute, tx_from)",
    ),
    # 2: the summary lane: summary versions, notes, and one search index over both.
    (
        """CREATE TABLE summaries (
            id INTEGER PRIMARY KEY,
            tenant TEXT NOT NULL,
            subject TEXT NOT NULL,
            session_id TEXT NOT NULL,  -- '' for the subject's storyline
            version INTEGER NOT NULL,
            content TEXT NOT NULL,
            period_from INTEGER NOT NULL,
            period_to INTEGER NOT NULL,
            tx_from INTEGER NOT NULL,
            tx_to INTEGER,
            provenance TEXT NOT NULL,
            deleted_at INTEGER,
            UNIQUE (tenant, subject, session_id, version)
        )""",
        """CREATE INDEX summaries_by_session ON summaries (tenant, session_id, subject)
            WHERE tx_to IS NULL""",
        """CREATE TABLE notes (
            id INTEGER PRIMARY KEY,
            tenant TEXT NOT NULL,
            subject TEXT NOT NULL,
            text TEXT NOT NULL,
            said_at INTEGER NOT NULL,
            tx_from INTEGER NOT NULL,
            session_id TEXT,
            source TEXT,
            provenance TEXT NOT NULL,
            deleted_at INTEGER
        )""",
        "CREATE INDEX notes_by_subject ON notes (tenant, subject, said_at)",
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
        # Covers the scope filter and the "what is embedded" signature of every search.
        """CREATE INDEX search_docs_scope
            ON search_docs (tenant, subject, kind, deleted_at, model)""",
        """CREATE VIRTUAL TABLE search_fts USING fts5(
            tokens, tokenize = 'unicode61 remove_diacritics 2'
        )""",
        # Raw turns, kept only when a memory opts in with retain_transcripts=True.
        """CREATE TABLE turns (
            id TEXT NOT NULL,
            tenant TEXT NOT NULL,
            subject TEXT NOT NULL,
            session_id TEXT NOT NULL,
            role TEXT NOT NULL,
            speaker TEXT,
            content TEXT NOT NULL,
            said_at INTEGER NOT NULL,
            deleted_at INTEGER,
            PRIMARY KEY (tenant, id)
        )""",
    ),
    # 3: deletions, for the compliance view and purge.
    (
        """CREATE TABLE deletions (
            id INTEGER PRIMARY KEY,
            tenant TEXT NOT NULL,
            subject TEXT NOT NULL,
            scope TEXT NOT NULL,
            requested_at INTEGER NOT NULL,
            requested_by TEXT,
            reason TEXT,
            purge_due INTEGER NOT NULL,
            purged_at INTEGER,
            counts TEXT NOT NULL
        )""",
        "CREATE INDEX deletions_by_tenant ON deletions (tenant, requested_at)",
        "CREATE INDEX notes_deleted ON notes (tenant, subject) WHERE deleted_at IS NOT NULL",
        # When a version's reason was stated (re-inserted remainders keep it); NULL: tx_from.
        "ALTER TABLE facts ADD COLUMN stated_tx INTEGER",
    ),
    # API keys of the HTTP API: bound to one tenant and role; only the secret's hash is kept.
    (
        """CREATE TABLE api_keys (
            id TEXT PRIMARY KEY,
            tenant TEXT NOT NULL,
            role TEXT NOT NULL CHECK (role IN ('agent', 'auditor', 'compliance', 'admin')),
            secret_hash TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            revoked_at INTEGER,
            label TEXT
        )""",
        "CREATE INDEX api_keys_by_tenant ON api_keys (tenant, created_at)",
    ),
    # The workflow lane: recorded runs, and every revision of every workflow (JSON body).
    (
        """CREATE TABLE workflow_runs (
            id INTEGER PRIMARY KEY,
            tenant TEXT NOT NULL,
            task_type TEXT NOT NULL,
            task TEXT NOT NULL,
            steps TEXT NOT NULL,
            success INTEGER NOT NULL,
            reason TEXT,
            recorded_at INTEGER NOT NULL,
            deleted_at INTEGER
        )""",
        "CREATE INDEX workflow_runs_by_type ON workflow_runs (tenant, task_type, id)",
        """CREATE TABLE workflows (
            id INTEGER PRIMARY KEY,
            tenant TEXT NOT NULL,
            task_type TEXT NOT NULL,
            version INTEGER NOT NULL,
            body TEXT NOT NULL,
            tx_from INTEGER NOT NULL,
            tx_to INTEGER,
            deleted_at INTEGER
        )""",
        "CREATE INDEX workflows_by_type ON workflows (tenant, task_type, tx_from)",
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
