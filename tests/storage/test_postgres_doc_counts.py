"""BM25's N on PostgreSQL is read from counts the writes keep, exact, and no writer waits on them.

A tenant-wide search counted the docs of its scope at every call: an index-only walk of the
tenant's entries (14-20 ms at 10^5 notes, growing with the tenant). Migration 21's triggers
keep a count per (tenant, kind, slot of the subject) in every transaction that changes docs,
folded in as it commits, so N is a read of at most DOC_COUNT_SLOTS rows.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import psycopg
import pytest

import memlane
from memlane.storage.postgres import PostgresDatabase, functions, schema, search
from memlane.storage.sql import SQLSummaryStore
from memlane.storage.sql.summaries import search_scope
from tests.support.search_docs import tenant_docs

MODEL = "test-model"
AT = datetime(2026, 1, 1, tzinfo=UTC)

store = tenant_docs(MODEL, waiting_every=97, stale_every=89)
"""Four tenants of 3,000 notes (300 subjects), most embedded, a few waiting or stale."""

_INSERT = (
    "INSERT INTO search_docs (tenant, subject, kind, owner_id, text, tokens, deleted_at) "
    "VALUES (%s, %s, %s, %s, 'doc', to_tsvector('simple', 'doc'), %s)"
)


def counted(connection: Any, tenant: str, kind: str | None) -> int:
    """N as BM25 reads it, on this connection (in its transaction, if one is open)."""
    parameters = {"tenant": tenant, "kind": kind}
    return int(connection.execute(search.counted_docs(kind), parameters).fetchone()[0])


def assert_counts_exact(connection: Any) -> None:
    """Every (tenant, kind) and every slot holds what ``count(*)`` says, on this connection."""
    slot = f"hashtext(subject) & {functions.DOC_COUNT_SLOTS - 1}"
    truth = dict.fromkeys(
        [
            (row[0], row[1], row[2])
            for row in connection.execute(
                "SELECT tenant, kind, slot FROM search_doc_counts WHERE docs <> 0"
            ).fetchall()
        ],
        0,
    )
    for tenant, kind, at, docs in connection.execute(
        f"SELECT tenant, kind, {slot}, count(*) FROM search_docs WHERE deleted_at IS NULL "
        "GROUP BY 1, 2, 3"
    ).fetchall():
        truth[(tenant, kind, at)] = docs
    kept = {  # this transaction's changes are folded in as it commits
        (tenant, kind, at): int(docs)
        for tenant, kind, at, docs in connection.execute(
            "SELECT tenant, kind, slot, sum(docs) FROM (SELECT tenant, kind, slot, docs "
            "FROM search_doc_counts UNION ALL SELECT tenant, kind, slot, docs "
            "FROM search_doc_changes WHERE xact = pg_current_xact_id_if_assigned()::text::bigint"
            ") AS kept GROUP BY 1, 2, 3"
        ).fetchall()
    }
    assert {key: kept.get(key, 0) for key in truth} == truth
    for tenant, kind in {(tenant, kind) for tenant, kind, _ in truth} | {("none", "note")}:
        for of_kind in (kind, None):
            where, parameters = search_scope(tenant, None, of_kind)  # type: ignore[arg-type]
            sql = f"SELECT count(*) FROM search_docs WHERE {where}"
            exact = connection.execute(sql, parameters)
            assert counted(connection, tenant, of_kind) == exact.fetchone()[0], (tenant, of_kind)


def test_counts_follow_every_way_docs_change(postgres_url: str) -> None:
    """Inserted one and many at a time, marked deleted, brought back, moved, deleted, truncated."""
    with psycopg.connect(postgres_url, autocommit=True) as connection:
        connection.execute(
            "INSERT INTO search_docs (tenant, subject, kind, owner_id, text, tokens, deleted_at) "
            "SELECT 't' || mod(n, 3), 'U-' || mod(n, 70), CASE WHEN mod(n, 5) = 0 "
            "THEN 'summary' ELSE 'note' END, n, 'doc', to_tsvector('simple', 'doc'), "
            "CASE WHEN mod(n, 13) = 0 THEN 1 END FROM generate_series(1, 3000) AS n"
        )
        assert_counts_exact(connection)
        connection.execute(_INSERT, ("t0", "U-new", "note", 10_001, None))
        connection.execute(_INSERT, ("t0", "U-new", "note", 10_002, 5))
        assert_counts_exact(connection)
        steps = [
            "UPDATE search_docs SET deleted_at = 7 WHERE subject = 'U-3' AND deleted_at IS NULL",
            "UPDATE search_docs SET deleted_at = NULL WHERE subject = 'U-3' AND mod(id, 2) = 0",
            "UPDATE search_docs SET subject = 'U-moved' WHERE subject = 'U-4'",
            "UPDATE search_docs SET tenant = 't9', kind = 'summary' WHERE subject = 'U-5'",
            "UPDATE search_docs SET model = 'm', claimed_until = 3 WHERE subject = 'U-6'",
            "DELETE FROM search_docs WHERE subject = 'U-3' AND deleted_at IS NOT NULL",
            "DELETE FROM search_docs WHERE subject = 'U-7'",
        ]
        for step in steps:
            connection.execute(step)
            assert_counts_exact(connection)
        with connection.transaction():  # seen inside the writing transaction, then committed
            connection.execute("DELETE FROM search_docs WHERE subject = 'U-8'")
            connection.execute(_INSERT, ("t1", "U-8", "summary", 10_003, None))
            assert_counts_exact(connection)
        assert_counts_exact(connection)
        with pytest.raises(psycopg.errors.DivisionByZero), connection.transaction():
            connection.execute("DELETE FROM search_docs WHERE subject = 'U-9'")
            connection.execute("SELECT 1 / 0")
        assert_counts_exact(connection)
        connection.execute("TRUNCATE search_docs")
        assert_counts_exact(connection)
        assert connection.execute("SELECT count(*) FROM search_doc_changes").fetchone() == (0,)


def test_counts_follow_notes_forgotten_and_purged(postgres_url: str) -> None:
    """Through the memory's own paths: notes added, a subject forgotten, its rows purged."""
    with memlane.Memory(postgres_url, embedder="hash") as mem:
        mem.summaries.add_notes(
            [
                {"subject": f"U-{n % 7}", "text": f"note {n} about tennis", "at": AT}
                for n in range(60)
            ]
        )
        mem.summaries.add_note("U-0", "one more note", at=AT)
        mem.forget("U-1")
        with psycopg.connect(postgres_url, autocommit=True) as connection:
            assert_counts_exact(connection)
            assert counted(connection, "default", "note") == 61 - 9
        mem.purge("U-1", immediately=True)
        with psycopg.connect(postgres_url, autocommit=True) as connection:
            assert_counts_exact(connection)
            assert counted(connection, "default", "note") == 61 - 9


@pytest.mark.parametrize("same_slot", [False, True])
def test_writers_of_other_subjects_do_not_wait_for_an_open_transaction(
    postgres_url: str, same_slot: bool
) -> None:
    """One transaction changes subject A's docs and stays open; B's writer commits meanwhile.

    Counts are added to only as a transaction commits, so an open one holds no count row,
    whatever slot its subjects share. With a count row updated at each write, the second
    writer waited for the first's commit (here: fails at the lock timeout).
    """
    slot = f"hashtext(%s) & {functions.DOC_COUNT_SLOTS - 1}"
    with psycopg.connect(postgres_url, autocommit=True) as connection:
        connection.execute(_INSERT, ("acme", "U-A", "note", 1, None))
        connection.execute(_INSERT, ("acme", "U-A", "note", 2, None))
        of_a = connection.execute(f"SELECT {slot}", ("U-A",)).fetchone()
        subject = next(
            f"U-{n}"
            for n in range(1_000)
            if (connection.execute(f"SELECT {slot}", (f"U-{n}",)).fetchone() == of_a) == same_slot
        )
    with psycopg.connect(postgres_url) as first, psycopg.connect(postgres_url) as second:
        first.execute(_INSERT, ("acme", "U-A", "note", 3, None))
        first.execute("UPDATE search_docs SET deleted_at = 9 WHERE owner_id = 1")
        first.execute("DELETE FROM search_docs WHERE owner_id = 2")
        second.execute("SET lock_timeout = '2s'")
        second.execute(_INSERT, ("acme", subject, "note", 4, None))
        second.execute("UPDATE search_docs SET deleted_at = 9 WHERE owner_id = 4")
        second.execute("UPDATE search_docs SET deleted_at = NULL WHERE owner_id = 4")
        second.commit()  # never waited for ``first``, which is still open
        assert counted(second, "acme", "note") == 3
        first.commit()
        assert counted(second, "acme", "note") == 2
        assert_counts_exact(second)


def test_the_migration_counts_the_docs_already_stored(
    empty_postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with monkeypatch.context() as patch:
        patch.setattr(schema, "LATEST_VERSION", 20)
        with psycopg.connect(empty_postgres_url, autocommit=True) as connection:
            schema.migrate(connection)
            connection.execute(
                "INSERT INTO search_docs (tenant, subject, kind, owner_id, text, tokens, "
                "deleted_at) SELECT 't' || mod(n, 3), 'U-' || mod(n, 70), 'note', n, 'doc', "
                "to_tsvector('simple', 'doc'), CASE WHEN mod(n, 13) = 0 THEN 1 END "
                "FROM generate_series(1, 2000) AS n"
            )
    with psycopg.connect(empty_postgres_url, autocommit=True) as connection:
        assert schema.migrate(connection) == 20
        assert_counts_exact(connection)
        assert counted(connection, "t1", "note") == 667 - 51


def under_limit(plan: list[str], at: int) -> bool:
    """Whether the plan node on line ``at`` has a ``Limit`` above it."""
    indent = len(plan[at]) - len(plan[at].lstrip())
    for line in reversed(plan[:at]):
        if "->" in line and len(line) - len(line.lstrip()) < indent:
            if "Limit" in line:
                return True
            indent = len(line) - len(line.lstrip())
    return False


def test_a_tenant_wide_bm25_counts_no_docs(store: SQLSummaryStore) -> None:
    """N is read from the counts: the only reads of ``search_docs`` in BM25's statistics are
    the length sample's (under its ``LIMIT``). Counted, it was an aggregate over the scope."""
    where, parameters = search_scope("t1", None, "note")
    parameters |= {"words": "note word7", "match": "'note' | 'word7'", "limit": 10}
    sql = search.bm25_sql(where, search.counted_docs("note"))
    for generic in (False, True):
        if generic:
            store.db.execute("SET plan_cache_mode = force_generic_plan")
        plan = [row[0] for row in store.db.fetchall("EXPLAIN " + sql, parameters)]
        start = next(n for n, line in enumerate(plan) if "CTE stats" in line)
        depth = len(plan[start]) - len(plan[start].lstrip())
        stats = []
        for line in plan[start + 1 :]:
            if len(line) - len(line.lstrip()) <= depth:
                break
            stats.append(line)
        reads = [n for n, line in enumerate(stats) if " on search_docs " in line + " "]
        assert reads and all(under_limit(stats, n) for n in reads), (generic, stats)
        assert any("search_doc_counts" in line for line in stats), stats
    store.db.execute("RESET plan_cache_mode")


def test_bm25_ranks_as_with_the_docs_counted(store: SQLSummaryStore) -> None:
    """The same scores as ``count(*)`` of the scope gives, deleted docs left out of both."""
    store.db.execute("UPDATE search_docs SET deleted_at = 1 WHERE mod(id, 7) = 0")
    for tenant, kind in (("t1", "note"), ("t3", None), ("t9", "note")):
        where, parameters = search_scope(tenant, None, kind)  # type: ignore[arg-type]
        parameters |= {"words": "note word7 word9", "match": "'word7' | 'word9'", "limit": 20}
        ranked = store.db.fetchall(search.bm25_sql(where), parameters)
        assert ranked == store.db.fetchall(
            search.bm25_sql(where, search.counted_docs(kind)), parameters
        )
        assert len(ranked) == (20 if tenant != "t9" else 0)


def test_recall_of_a_tenant_reads_the_counts(postgres_url: str) -> None:
    """The lexical search of ``recall(None, ...)`` gets N from the counts (one statement)."""
    database = PostgresDatabase(postgres_url)
    try:
        statements: list[str] = []
        original = database.fetchall

        def fetchall(sql: str, parameters: Any = ()) -> list[Any]:
            statements.append(sql)
            return original(sql, parameters)

        database.fetchall = fetchall  # type: ignore[method-assign]
        SQLSummaryStore(database).lexical("acme", None, "note", "tennis", 10)
        assert any("search_doc_counts" in sql for sql in statements)
        statements.clear()
        SQLSummaryStore(database).lexical("acme", "U-1", "note", "tennis", 10)
        assert statements and not any("search_doc_counts" in sql for sql in statements)
    finally:
        database.close()
