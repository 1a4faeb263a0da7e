"""The PostgreSQL functions and triggers that memlane's migrations create, one text each.

:mod:`memlane.storage.postgres.schema` runs them in its numbered migrations. A function
that several migrations create again (``CREATE OR REPLACE``) has one text, today's: a new
database gets it at once. The advisory lock keys the functions take are here too.
"""

from __future__ import annotations

WRITE_LOCK = 7_236_715_117_002
"""Advisory lock key of writing: shared by keyed fact writes, exclusive for any other write."""
CLOCK_LOCK = 7_236_715_117_003
"""Advisory lock key held (for a few statements) while a transaction time is issued."""

# Transaction times and key locks (migration 3).

NEXT_TX = f"""CREATE FUNCTION memlane_next_tx(now BIGINT, count INTEGER, mark BOOLEAN)
        RETURNS BIGINT LANGUAGE plpgsql AS $$
        DECLARE
            first BIGINT;
        BEGIN
            PERFORM pg_advisory_lock({CLOCK_LOCK});
            first := greatest(nextval('memlane_tx'), now,
                              (SELECT last_tx FROM tx_clock WHERE id = 1) + 1);
            PERFORM setval('memlane_tx', first + count - 1);
            IF mark THEN
                PERFORM pg_advisory_xact_lock((first >> 31)::INTEGER,
                                              (first & 2147483647)::INTEGER);
            END IF;
            PERFORM pg_advisory_unlock({CLOCK_LOCK});
            RETURN first;
        END $$"""
"""Issue ``count`` consecutive times, the first >= now, > every one issued before and > the
clock row (which an import raises). The first of a transaction also takes an advisory lock
named by that time (its two 31-bit halves) until the transaction ends: the mark that
memlane_settle waits on."""

GIVE_BACK_TX = f"""CREATE FUNCTION memlane_give_back_tx(first BIGINT, last BIGINT)
        RETURNS VOID LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM pg_advisory_lock({CLOCK_LOCK});
            IF (SELECT last_value FROM memlane_tx) = last THEN
                PERFORM setval('memlane_tx', greatest(first - 1, 1));
            END IF;
            PERFORM pg_advisory_unlock({CLOCK_LOCK});
        END $$"""
"""After a rollback: if the sequence issued nothing since [first, last], issue those times
again (a failed write leaves no gap)."""

LOCK_KEYS = f"""CREATE FUNCTION memlane_lock_keys(keys BIGINT[], timeout TEXT)
        RETURNS VOID LANGUAGE plpgsql AS $$
        DECLARE
            key BIGINT;
        BEGIN
            PERFORM set_config('lock_timeout', timeout, true);
            PERFORM pg_advisory_xact_lock_shared({WRITE_LOCK});
            FOREACH key IN ARRAY keys LOOP
                PERFORM pg_advisory_xact_lock(key);
            END LOOP;
        END $$"""
"""A keyed write: the write lock shared, then each key's lock, in the order given (sorted by
the caller, so two writers never wait for each other in a cycle)."""

SETTLE = f"""CREATE FUNCTION memlane_settle(t BIGINT, own TEXT, timeout TEXT)
        RETURNS VOID LANGUAGE plpgsql AS $$
        DECLARE
            mark RECORD;
        BEGIN
            PERFORM set_config('lock_timeout', timeout, true);
            PERFORM pg_advisory_lock({CLOCK_LOCK});
            PERFORM pg_advisory_unlock({CLOCK_LOCK});
            FOR mark IN
                SELECT l.classid::BIGINT AS high, l.objid::BIGINT AS low
                FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid
                WHERE l.locktype = 'advisory' AND l.objsubid = 2 AND l.granted
                  AND l.database = (SELECT oid FROM pg_database
                                    WHERE datname = current_database())
                  AND (l.classid::BIGINT << 31 | l.objid::BIGINT) <= t
                  AND a.application_name IS DISTINCT FROM own
            LOOP
                PERFORM pg_advisory_xact_lock_shared(mark.high::INTEGER, mark.low::INTEGER);
            END LOOP;
        END $$"""
"""Before a read as of transaction time t: wait until every write transaction whose first time
is <= t has ended, except those of the reader's own process (named by application_name),
which it would wait for forever."""

# Writes (migrations 3, 8, 12, 14 and 23).

APPLY = """CREATE OR REPLACE FUNCTION memlane_apply(
    p_tenant TEXT, p_subject TEXT, p_attribute TEXT, p_tx BIGINT, closing BIGINT[],
    p_value TEXT[], p_key TEXT[], p_from BIGINT[], p_to BIGINT[], p_source TEXT[],
    p_reason TEXT[], p_confidence DOUBLE PRECISION[], p_provenance TEXT[],
    p_stated BIGINT[])
RETURNS SETOF facts LANGUAGE plpgsql AS $$
DECLARE
    many BOOLEAN;
    closed INTEGER := 0;
    one INTEGER;
    version BIGINT;
BEGIN
    IF cardinality(closing) > 0 THEN
        FOREACH version IN ARRAY closing LOOP
            RETURN QUERY UPDATE facts SET tx_to = p_tx
                WHERE id = version AND num_nulls(tx_to) = 1 RETURNING *;
            GET DIAGNOSTICS one = ROW_COUNT;
            closed := closed + one;
        END LOOP;
        IF closed <> cardinality(closing) THEN
            RAISE EXCEPTION 'a version to supersede was no longer believed'
                USING ERRCODE = 'serialization_failure';
        END IF;
    END IF;
    many := coalesce((SELECT cardinality = 'many' FROM attributes
                      WHERE tenant = p_tenant AND name = p_attribute), false);
    RETURN QUERY INSERT INTO facts (tenant, subject, attribute, value, value_key,
            valid_from, valid_to, tx_from, source, reason, confidence, provenance,
            stated_tx, slot)
        SELECT p_tenant, p_subject, p_attribute, v.value, v.key, v.valid_from,
               v.valid_to, p_tx, v.source, v.reason, v.confidence, v.provenance,
               v.stated, CASE WHEN many THEN v.key ELSE '' END
        FROM unnest(p_value, p_key, p_from, p_to, p_source, p_reason, p_confidence,
                    p_provenance, p_stated)
            WITH ORDINALITY AS v(value, key, valid_from, valid_to, source, reason,
                                 confidence, provenance, stated, n)
        ORDER BY v.n
        RETURNING *;
END $$"""
"""Close-and-insert of one write in one round trip: supersede ``closing`` at ``p_tx`` (all of
them, or fail; nothing is read when there are none, see migration 8), then insert the new
versions in order; returns the superseded rows, then the inserted ones. Migration 3 created
it, migrations 8, 14 and 23 replace it (the same text: a new database gets it at once).

Each superseded id is closed by its own ``UPDATE ... WHERE id = version``: plpgsql keeps one
generic plan of it. ``WHERE id = ANY(closing)`` was planned anew at every call (PostgreSQL
costs a generic plan for an array of ten, a custom one for the array given, and kept choosing
the custom one): 6% of the server's CPU time of a ``set``.

The version must still be believed: ``num_nulls(tx_to) = 1`` says ``tx_to IS NULL`` in a form
that implies no partial index's predicate (migration 23). Written ``tx_to IS NULL``, it let
the plan kept from a connection's first call on a table never analyzed (a new database, before
autovacuum's first ANALYZE) read ``facts_believed`` whole for each close, the two plans
costing the same on so few rows: 148 us a close after 1,000 sets, 878 us after 5,000, growing
with the table until an ANALYZE made plpgsql plan again. Now the only index that serves it is
the primary key's."""

WRITE_VIEW = """CREATE FUNCTION memlane_write_view(p_tenant TEXT, p_subject TEXT, p_attribute TEXT,
            high BIGINT, low BIGINT)
        RETURNS TABLE (cardinality TEXT, identifier INTEGER, normalizer TEXT, id BIGINT,
            value_key TEXT, valid_from BIGINT, valid_to BIGINT, value TEXT, source TEXT,
            reason TEXT, confidence DOUBLE PRECISION, provenance TEXT, tx_from BIGINT,
            stated_tx BIGINT)
        LANGUAGE plpgsql AS $$
        BEGIN
            RETURN QUERY SELECT d.cardinality, d.identifier, d.normalizer, f.id, f.value_key,
                f.valid_from, f.valid_to, f.value, f.source, f.reason, f.confidence,
                f.provenance, f.tx_from, f.stated_tx
            FROM (SELECT 1 AS one) AS k
            LEFT JOIN attributes AS d ON d.tenant = p_tenant AND d.name = p_attribute
            LEFT JOIN facts AS f ON f.tenant = p_tenant AND f.subject = p_subject
                AND f.attribute = p_attribute AND f.tx_to IS NULL AND f.deleted_at IS NULL
                AND f.valid_from <= high AND f.valid_to >= low;
        END $$"""
"""What a single write plans from, read by a function: its query is planned once per
connection (plpgsql keeps the plan) while the call goes in the simple query that begins
the transaction (one round trip, no prepared statement). Migration 12."""

# The docs in scope per (tenant, kind), kept by triggers (migration 21).

DOC_COUNT_SLOTS = 64
"""Rows a (tenant, kind) count is spread over, by a hash of the subject (migration 21)."""
DOC_SLOT = f"(hashtext(subject) & {DOC_COUNT_SLOTS - 1})"
"""A doc's count slot: the low bits of its subject's hash (``&``: never negative)."""
XACT = "pg_current_xact_id()::text::bigint"
"""The writing transaction's id (64 bits, never reused): whose counts are not yet folded."""

COUNT_DOC_CHANGES = f"""CREATE FUNCTION memlane_count_doc_changes() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO search_doc_changes (xact, tenant, kind, slot, docs)
        SELECT {XACT}, tenant, kind, {DOC_SLOT}, count(*) FROM added
        WHERE deleted_at IS NULL GROUP BY 2, 3, 4;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO search_doc_changes (xact, tenant, kind, slot, docs)
        SELECT {XACT}, tenant, kind, {DOC_SLOT}, -count(*) FROM removed
        WHERE deleted_at IS NULL GROUP BY 2, 3, 4;
    ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO search_doc_changes (xact, tenant, kind, slot, docs)
        SELECT {XACT}, tenant, kind, slot, sum(docs) FROM (
            SELECT NEW.tenant, NEW.kind, hashtext(NEW.subject) & {DOC_COUNT_SLOTS - 1},
                   CASE WHEN NEW.deleted_at IS NULL THEN 1 ELSE 0 END
            UNION ALL
            SELECT OLD.tenant, OLD.kind, hashtext(OLD.subject) & {DOC_COUNT_SLOTS - 1},
                   CASE WHEN OLD.deleted_at IS NULL THEN -1 ELSE 0 END
        ) AS moved (tenant, kind, slot, docs) GROUP BY 2, 3, 4 HAVING sum(docs) <> 0;
    ELSE  -- TRUNCATE
        DELETE FROM search_doc_counts;
        DELETE FROM search_doc_changes;
    END IF;
    RETURN NULL;
END $$"""
"""What a statement did to the docs in scope, as insert-only rows of its transaction.

INSERT and DELETE statements are counted once each, from their transition tables (a bulk
load is a row per slot, not per doc); an UPDATE is counted per row, and only when a row
enters or leaves a scope (deleted, brought back, moved): the trigger's ``WHEN`` leaves out
every other update (a vector stored, a claim) before any function runs."""

FOLD_DOC_CHANGES = """CREATE FUNCTION memlane_fold_doc_changes() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    -- The first change of the transaction to get here folds them all; the rest find their
    -- own row gone (one primary key probe each).
    IF EXISTS (SELECT 1 FROM search_doc_changes WHERE id = NEW.id) THEN
        WITH folded AS (
            DELETE FROM search_doc_changes WHERE xact = NEW.xact
            RETURNING tenant, kind, slot, docs
        )
        INSERT INTO search_doc_counts AS c (tenant, kind, slot, docs)
        SELECT tenant, kind, slot, sum(docs) FROM folded GROUP BY 1, 2, 3
        HAVING sum(docs) <> 0 ORDER BY 1, 2, 3
        ON CONFLICT (tenant, kind, slot) DO UPDATE SET docs = c.docs + excluded.docs;
    END IF;
    RETURN NULL;
END $$"""
"""A transaction's changes added to the counts as it commits (a deferred trigger)."""
