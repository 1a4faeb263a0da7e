"""The tables both databases share, written once; each backend fills in its column types.

``{id}`` is the type of an integer key the database assigns, ``{ref}`` that of a column
referring to one, ``{time}`` that of an instant (integer microseconds), ``{seq}``
PostgreSQL's insertion-order column of turns (SQLite has ``rowid``). Tables whose shape
differs (``facts``, ``search_docs``) and the numbering of migrations stay with each
backend's ``schema.py``.
"""

from __future__ import annotations

from collections.abc import Sequence

from memlane.storage.base import TIMED_KINDS

ATTRIBUTES = """CREATE TABLE attributes (
    tenant TEXT NOT NULL,
    name TEXT NOT NULL,
    cardinality TEXT NOT NULL CHECK (cardinality IN ('one', 'many')),
    identifier INTEGER NOT NULL,
    normalizer TEXT NOT NULL,
    defined_at {time} NOT NULL,
    PRIMARY KEY (tenant, name)
)"""
CLOCK = (
    "CREATE TABLE tx_clock (id INTEGER PRIMARY KEY CHECK (id = 1), last_tx {time} NOT NULL)",
    "INSERT INTO tx_clock (id, last_tx) VALUES (1, 0)",
)
FACT_INDEXES = (
    # Point reads of the current belief: get, get_all, history, profile, write planning.
    """CREATE INDEX facts_believed ON facts (tenant, subject, attribute, valid_from)
        WHERE tx_to IS NULL""",
    # Reverse lookups by normalized value, on both time axes.
    "CREATE INDEX facts_by_value ON facts (tenant, attribute, value_key)",
    # The audit view and reads as of an earlier transaction time.
    "CREATE INDEX facts_by_tx ON facts (tenant, subject, attribute, tx_from)",
)
SUMMARIES = (
    """CREATE TABLE summaries (
        id {id},
        tenant TEXT NOT NULL,
        subject TEXT NOT NULL,
        session_id TEXT NOT NULL,  -- '' for the subject's storyline
        version INTEGER NOT NULL,
        content TEXT NOT NULL,
        period_from {time} NOT NULL,
        period_to {time} NOT NULL,
        tx_from {time} NOT NULL,
        tx_to {time},
        provenance TEXT NOT NULL,
        deleted_at {time},
        UNIQUE (tenant, subject, session_id, version)
    )""",
    """CREATE INDEX summaries_by_session ON summaries (tenant, session_id, subject)
        WHERE tx_to IS NULL""",
)
NOTES = (
    """CREATE TABLE notes (
        id {id},
        tenant TEXT NOT NULL,
        subject TEXT NOT NULL,
        text TEXT NOT NULL,
        said_at {time} NOT NULL,
        tx_from {time} NOT NULL,
        session_id TEXT,
        source TEXT,
        provenance TEXT NOT NULL,
        deleted_at {time}
    )""",
    "CREATE INDEX notes_by_subject ON notes (tenant, subject, said_at)",
)
NOTES_DELETED = "CREATE INDEX notes_deleted ON notes (tenant, subject) WHERE deleted_at IS NOT NULL"
# Covers the scope filter and the "what is embedded" signature of every search.
SEARCH_SCOPE = (
    "CREATE INDEX search_docs_scope ON search_docs (tenant, subject, kind, deleted_at, model)"
)
# What recall needs of each note, derived from it when it is written (see
# memlane.router.evidence): one row per (note, kind, key), so that recall fetches by index the
# notes sharing a word, a claim, a slot or a turn instead of reading every note of a subject.
# Notes whose rows are not written yet (stored before this table existed, or imported) wait
# in note_keys_pending and are keyed by the first recall of their subject (an import keys its own).
NOTE_KEYS = (
    """CREATE TABLE note_keys (
        tenant TEXT NOT NULL,
        subject TEXT NOT NULL,
        kind TEXT NOT NULL,
        key TEXT NOT NULL,
        note_id {ref} NOT NULL,
        said_at {time} NOT NULL,  -- the note's, so that the latest holders come first by index
        tx_from {time} NOT NULL
    )""",
    """CREATE INDEX note_keys_by_key ON note_keys
        (tenant, subject, kind, key, said_at DESC, tx_from DESC, note_id)""",
    "CREATE INDEX note_keys_by_note ON note_keys (note_id, kind, key)",
    """CREATE TABLE note_keys_pending (
        note_id {ref} PRIMARY KEY,
        tenant TEXT NOT NULL,
        subject TEXT NOT NULL
    )""",
    "CREATE INDEX note_keys_pending_by_subject ON note_keys_pending (tenant, subject)",
    """INSERT INTO note_keys_pending (note_id, tenant, subject)
        SELECT id, tenant, subject FROM notes WHERE deleted_at IS NULL""",
)
SUMMARY_LINE_FACTS = ("ALTER TABLE summaries ADD COLUMN line_facts TEXT",)
"""What judging a summary's lines asks of their text (:mod:`memlane.router.line_facts`),
written with each version; a version stored before has none and is derived at recall. A
later change to how lines are read clears the column (``UPDATE summaries SET line_facts =
NULL``) as :data:`REKEY_NOTES` does for notes."""
# Every live note keyed again by the first recall of its subject: what recall needs of a note
# changed (slot rows: the kind names the slot key, the key a digest of the clause filed).
REKEY_NOTES = (
    "DELETE FROM note_keys",
    """INSERT INTO note_keys_pending (note_id, tenant, subject)
        SELECT id, tenant, subject FROM notes WHERE deleted_at IS NULL
        AND id NOT IN (SELECT note_id FROM note_keys_pending)""",
)
# A subject's pending notes in id order straight from one index. Led by (tenant, subject)
# alone, a prepared statement's generic plan read the primary key in id order instead,
# filtering the whole table: 4 ms at 19,350 pending notes, on every recall of any subject.
PENDING_IN_ORDER = (
    "DROP INDEX note_keys_pending_by_subject",
    "CREATE INDEX note_keys_pending_by_subject ON note_keys_pending (tenant, subject, note_id)",
)
# Per subject, a number that moves with every write changing its notes' keys: a note stored,
# keyed (with it, later in parts, or again), forgotten or purged. What recall reads of the keys
# (how many notes hold a word, which do, which words a note holds) depends on nothing else, so
# a reader may keep it across recalls while the number stays (memlane.summaries.sources_kept).
# Moved once per write transaction and subject, in the transaction itself; never reset (a row
# is never deleted), so a number once read stands for one state of the keys.
NOTE_STAMPS = (
    """CREATE TABLE IF NOT EXISTS note_stamps (
        tenant TEXT NOT NULL,
        subject TEXT NOT NULL,
        stamp {time} NOT NULL,
        PRIMARY KEY (tenant, subject)
    )""",
)
TIMED_KEYS = f"kind LIKE '{TIMED_KINDS}%'"
"""The key rows of kinds starting with :data:`memlane.storage.base.TIMED_KINDS`. A read states
it word for word (``%`` doubled for the placeholders) for SQLite to use the partial index below;
SQLite plans ``kind >= 's' AND kind < 't'`` beside ``kind = ?`` as a range and sorts."""
# A slot key's latest rows straight from one index, however many notes are filed under it:
# judging a clause reads the latest few clauses filed under each of its slot probes (see
# memlane.router.refilling.RECENT_FILINGS). Led by the key, note_keys_by_key made that read
# every distinct clause filed under the probe (a tenth of a 10^4-note subject per probe).
# Partial: slot rows are about 4 of 10 key rows, and no other kind is read by time.
NOTE_KEYS_RECENT = (
    f"""CREATE INDEX IF NOT EXISTS note_keys_recent ON note_keys
        (tenant, subject, kind, said_at DESC, tx_from DESC, note_id, key) WHERE {TIMED_KEYS}""",
)
# A key's believed versions by where they end. Led by valid_from, facts_believed gave a write
# (which reads the versions touching [start, end)) and a read at an instant every version that
# began before it: the whole history of a key set again and again, each superseded value
# leaving its truncated version believed (a set at 5,000 earlier versions of one key took 6x
# one at 10, on SQLite). A version still valid at or after an instant ends after it, and a key
# has few of those, so led by valid_to the same reads take the live versions only. One-valued
# reads take the first version ending after the instant (believed versions of one key never
# overlap, so the order by end is the order by start).
BELIEVED_BY_END = (
    "DROP INDEX facts_believed",
    """CREATE INDEX facts_believed ON facts (tenant, subject, attribute, valid_to)
        WHERE tx_to IS NULL""",
)
# The background indexer's queue is the table itself: rows without a vector, in id order
# (this index finds the new ones without reading the embedded), claimed for a while by one
# worker of any process so that two never embed the same rows.
SEARCH_CLAIMS = (
    "ALTER TABLE search_docs ADD COLUMN claimed_until {time}",
    "CREATE INDEX search_docs_unembedded ON search_docs (tenant, id) WHERE model IS NULL",
)
# The background indexer claims the oldest unembedded items of any tenant. Led by tenant,
# search_docs_unembedded cannot give them in id order without a tenant, so each claim read
# search_docs from its first row past every embedded one: 400 ms per batch of 8 with 10^5
# notes embedded, a backlog of 65,000 draining at ~20 items/s (slower as the table grows).
UNEMBEDDED_IN_ORDER = (
    "CREATE INDEX IF NOT EXISTS search_docs_unembedded_by_id ON search_docs (id) "
    "WHERE model IS NULL",
)
# Raw turns, kept only when a memory opts in with retain_transcripts=True.
TURNS = """CREATE TABLE turns (
    id TEXT NOT NULL,
    tenant TEXT NOT NULL,
    subject TEXT NOT NULL,
    session_id TEXT NOT NULL,
    role TEXT NOT NULL,
    speaker TEXT,
    content TEXT NOT NULL,
    said_at {time} NOT NULL,
    deleted_at {time},{seq}
    PRIMARY KEY (tenant, id)
)"""
DELETIONS = (
    """CREATE TABLE deletions (
        id {id},
        tenant TEXT NOT NULL,
        subject TEXT NOT NULL,
        scope TEXT NOT NULL,
        requested_at {time} NOT NULL,
        requested_by TEXT,
        reason TEXT,
        purge_due {time} NOT NULL,
        purged_at {time},
        counts TEXT NOT NULL
    )""",
    "CREATE INDEX deletions_by_tenant ON deletions (tenant, requested_at)",
)
# API keys of the HTTP API: bound to one tenant and role; only the secret's hash is kept.
API_KEYS = (
    """CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        tenant TEXT NOT NULL,
        role TEXT NOT NULL CHECK (role IN ('agent', 'auditor', 'compliance', 'admin')),
        secret_hash TEXT NOT NULL,
        created_at {time} NOT NULL,
        revoked_at {time},
        label TEXT
    )""",
    "CREATE INDEX api_keys_by_tenant ON api_keys (tenant, created_at)",
)
# The workflow lane: recorded runs, and every revision of every workflow (JSON body).
WORKFLOWS = (
    """CREATE TABLE workflow_runs (
        id {id},
        tenant TEXT NOT NULL,
        task_type TEXT NOT NULL,
        task TEXT NOT NULL,
        steps TEXT NOT NULL,
        success INTEGER NOT NULL,
        reason TEXT,
        recorded_at {time} NOT NULL,
        deleted_at {time}
    )""",
    "CREATE INDEX workflow_runs_by_type ON workflow_runs (tenant, task_type, id)",
    """CREATE TABLE workflows (
        id {id},
        tenant TEXT NOT NULL,
        task_type TEXT NOT NULL,
        version INTEGER NOT NULL,
        body TEXT NOT NULL,
        tx_from {time} NOT NULL,
        tx_to {time},
        deleted_at {time}
    )""",
    "CREATE INDEX workflows_by_type ON workflows (tenant, task_type, tx_from)",
)


def typed(statements: Sequence[str], **types: str) -> tuple[str, ...]:
    """``statements`` with the database's column types filled in."""
    return tuple(statement.format(**types) for statement in statements)
