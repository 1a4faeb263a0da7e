"""A tenant-wide scope's coverage on PostgreSQL seeks its own index, not every doc of the tenant.

``recall(None, ...)`` asks whether any doc of one tenant and kind (every subject) waits for a
vector. ``search_docs_scope`` has the subject after the tenant, so each probe walked every
entry of the tenant (PostgreSQL 18 skips from subject to subject within it), or the planner
read the table from its start until a row of the tenant turned up. Migration 19 gives the scope
``search_docs_tenant_scope`` (tenant, kind, model), partial on ``kind IS NOT NULL``: no claim
of the background indexer names a kind, so none can use it (test_claim_order: the claims keep
``search_docs_unembedded_by_id``); coverage reads it in model order, three seeks.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from memlane.storage.postgres import PostgresDatabase, search
from memlane.storage.sql import SQLSummaryStore
from memlane.storage.sql.summaries import search_scope
from tests.support.search_docs import scans, tenant_docs

MODEL = "test-model"


store = tenant_docs(MODEL, waiting_every=97, stale_every=89)
"""Four tenants of 3,000 notes (300 subjects), most embedded, a few waiting or stale."""


def asked(store: SQLSummaryStore, monkeypatch: pytest.MonkeyPatch, call: Any) -> list[Any]:
    """The statements ``call`` sends (sql, parameters)."""
    sent: list[Any] = []
    for name in ("fetchone", "fetchall"):
        original = getattr(store.db, name)

        def spy(sql: str, parameters: Any = (), original: Any = original) -> Any:
            sent.append((sql, parameters))
            return original(sql, parameters)

        monkeypatch.setattr(store.db, name, spy)
    call()
    monkeypatch.undo()
    return sent


def seeks_the_tenant_scope(read: tuple[str, str, str]) -> bool:
    how, index, cond = read
    return (
        how != "Seq Scan"
        and index == "search_docs_tenant_scope"
        and re.search(r"tenant = ('t2'|\$\d)", cond) is not None
        and re.search(r"kind = ('\w+'|\$\d)", cond) is not None
    )


def test_coverage_of_a_tenant_wide_scope_seeks_the_index_led_by_tenant_and_kind(
    store: SQLSummaryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert store.coverage("t2", None, "note", MODEL) == (True, True)
    [(sql, parameters)] = asked(
        store, monkeypatch, lambda: store.coverage("t2", None, "note", MODEL)
    )
    reads = scans(store, sql, parameters)
    assert reads, sql
    assert all(seeks_the_tenant_scope(read) for read in reads), reads
    # A kind the tenant has no doc of (summaries here): the old probes' plan for any
    # parameters read the whole table to find none (104 ms at 10^5 notes).
    for kind in ("note", "summary"):
        [(sql, parameters)] = asked(
            store, monkeypatch, lambda kind=kind: store.coverage("t2", None, kind, MODEL)
        )
        reads = scans(store, sql, parameters, generic=True)
        assert reads and all(seeks_the_tenant_scope(read) for read in reads), reads


@pytest.mark.parametrize(
    "models",
    [
        [],
        [None],
        [None, None],
        [MODEL],
        [MODEL, MODEL],
        [MODEL, None],
        ["a-model", MODEL],
        [MODEL, "z-model"],
        ["a-model"],
        ["z-model", "a-model"],
        ["z-model", None],
    ],
)
def test_tenant_wide_coverage_says_what_its_docs_say(
    postgres_url: str, models: list[str | None]
) -> None:
    database = PostgresDatabase(postgres_url)
    try:
        store = SQLSummaryStore(database)
        rows = [("acme", f"U-{n}", "note", n, model) for n, model in enumerate(models)]
        # Beside them: another tenant's, another kind's, a deleted one, none of the scope's.
        rows += [("other", "U-0", "note", 100, None), ("other", "U-0", "note", 101, "b-model")]
        rows += [("acme", "U-0", "summary", 102, None), ("acme", "U-0", "summary", 103, MODEL)]
        for row in rows:
            database.execute(
                "INSERT INTO search_docs (tenant, subject, kind, owner_id, text, model, tokens) "
                "VALUES (%s, %s, %s, %s, 'text', %s, to_tsvector('simple', 'text'))",
                row,
            )
        database.execute(
            "INSERT INTO search_docs (tenant, subject, kind, owner_id, text, model, tokens, "
            "deleted_at) VALUES ('acme', 'U-0', 'note', 104, 'gone', NULL, "
            "to_tsvector('simple', 'gone'), 1)"
        )
        expected = (MODEL in models, any(model != MODEL for model in models))
        assert store.coverage("acme", None, "note", MODEL) == expected
        assert store.coverage("acme", "U-0", "note", MODEL) == (
            models[:1] == [MODEL],
            bool(models) and models[0] != MODEL,
        )
    finally:
        database.close()


def test_a_subject_scope_still_reads_its_own_subject(store: SQLSummaryStore) -> None:
    where, parameters = search_scope("t2", "U-7", "note")
    reads = scans(
        store,
        f"SELECT EXISTS (SELECT 1 FROM search_docs WHERE {where} AND model IS NULL)",
        parameters,
    )
    assert [read[1] for read in reads] == ["search_docs_scope"], reads


@pytest.mark.parametrize("subject", [None, "U-7"])
def test_bm25_reads_no_scope_from_the_table(postgres_url: str, subject: str | None) -> None:
    """Its statistics too: the length sample is an index range, never a Seq Scan.

    Read in no order, the sample of a scope holding most of the table was a Seq Scan that
    stopped after ``BM25_LENGTH_SAMPLE`` docs of it, every doc of other tenants before them
    read first (here 3,000; at 10^5 notes of one tenant, 463 pages read for 2,000 docs).
    """
    database = PostgresDatabase(postgres_url)
    try:
        database.execute(
            "INSERT INTO search_docs (tenant, subject, kind, owner_id, text, model, tokens) "
            "SELECT CASE WHEN n <= 3000 THEN 'early' ELSE 'big' END, 'U-' || mod(n, 300), "
            "'note', n, 'note ' || n, %(model)s, "
            "to_tsvector('simple', 'note word' || mod(n, 50)) FROM generate_series(1, 12000) n",
            {"model": MODEL},
        )
        database.execute("VACUUM ANALYZE search_docs")
        where, parameters = search_scope("big", subject, "note")
        parameters |= {"words": "note word7", "match": "note | word7", "limit": 10}
        store = SQLSummaryStore(database)
        for generic in (False, True):
            reads = scans(store, search.bm25_sql(where), parameters, generic=generic)
            assert reads and all(how != "Seq Scan" for how, _, _ in reads), (generic, reads)
    finally:
        database.close()
