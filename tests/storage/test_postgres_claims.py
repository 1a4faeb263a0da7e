"""The indexer's claim of docs another model embedded seeks, on PostgreSQL, never reads the table.

A worker that finds no doc waiting for a vector asks next for docs another model embedded
(``model IS NOT NULL AND model != x``): whenever it looks for work while idle, on every worker
process. ``!=`` is no index range, so the claim was a Seq Scan of the whole table each time
(68-153 ms at 10^5 docs, growing with the table). Migration 20's ``search_docs_by_model``
(model, id) gives each model's docs in id order: the claim finds the models present one seek
each and reads only the first docs of the others (PostgresDialect.embedded_by_others).
"""

from __future__ import annotations

import re

import pytest

from memlane.storage.base import VectorClaim
from memlane.storage.postgres import PostgresDatabase
from memlane.storage.sql import SQLSummaryStore
from tests.support.search_docs import scans, tenant_docs

MODEL = "test-model"


store = tenant_docs(MODEL)
"""Four tenants of 3,000 docs each, every doc embedded by ``MODEL``."""


def claim(limit: int = 8, now: int = 1) -> VectorClaim:
    return VectorClaim(model=MODEL, limit=limit, chars=100_000, now=now, until=now + 10)


def reads_by_model(read: tuple[str, str, str]) -> bool:
    """A read of ``search_docs`` that is a seek: by model or subject, or of the ids found so."""
    how, index, cond = read
    if how == "Seq Scan":
        return False
    if index == "search_docs_by_model":
        # A model range, or the lowest model (``min``: the index's first entry, no condition).
        return re.search(r"\bmodel [<>=]", cond) is not None or how == "Index Only Scan"
    if index == "search_docs_tenant_by_model":  # one tenant's models, and docs of each
        return re.search(r"\btenant = ", cond) is not None
    if re.search(r"\bsubject = ", cond):  # one subject's docs (a subject's claim)
        return True
    # The primary key, by the ids the seeks found (the claim's own rows).
    return index == "search_docs_pkey" and re.search(r"\bid = ", cond) is not None


@pytest.mark.parametrize("scope", [(None, None), ("t2", None), ("t2", "U-7")])
def test_the_claim_of_other_models_docs_seeks_when_none_is_there(
    store: SQLSummaryStore, scope: tuple[str | None, str | None]
) -> None:
    tenant, subject = scope
    first, others = store.claim_statements(tenant, subject)
    assert store.claim_vectors(tenant, claim()) == []
    parameters = claim().parameters(tenant)
    for generic in (False, True):  # psycopg prepares a statement after five runs
        reads = scans(store, others, parameters, generic=generic)
        assert reads, others
        assert all(reads_by_model(read) for read in reads), (generic, reads)
        if tenant is None:  # the first claim keeps its index of the docs waiting
            assert "search_docs_unembedded_by_id" in {
                index for _, index, _ in scans(store, first, parameters, generic=generic)
            }


def test_the_claim_of_other_models_docs_seeks_while_a_model_changes(
    store: SQLSummaryStore,
) -> None:
    store.db.execute(
        "UPDATE search_docs SET model = CASE WHEN mod(id, 3) = 0 THEN 'a-model' "
        "ELSE 'z-model' END WHERE mod(id, 3) = 0 OR mod(id, 7) = 0"
    )
    store.db.execute("VACUUM ANALYZE search_docs")
    others = store.claim_statements(None, None)[1]
    for generic in (False, True):
        reads = scans(store, others, claim().parameters(None), generic=generic)
        assert reads and all(reads_by_model(read) for read in reads), (generic, reads)


@pytest.mark.parametrize("subject", [None, "U-7"])
def test_a_tenants_claim_reads_only_its_own_docs(
    store: SQLSummaryStore, subject: str | None
) -> None:
    """Other tenants' docs of another model are not walked before the tenant's own.

    search_docs_by_model has no tenant: a tenant's claim read every doc of a model that only
    other tenants hold, filtered by tenant (here 9,000), to find none of its own. Migration
    22's search_docs_tenant_by_model (tenant, model, id) makes each read a seek in the
    tenant's entries. The any-tenant claim keeps search_docs_by_model (the test above).
    """
    store.db.execute("UPDATE search_docs SET model = 'a-model' WHERE tenant <> 't2'")
    store.db.execute("VACUUM ANALYZE search_docs")
    assert store.claim_vectors("t2", claim()) == []
    others = store.claim_statements("t2", subject)[1]
    for generic in (False, True):
        reads = scans(store, others, claim().parameters("t2"), generic=generic)
        assert reads and all(
            how != "Seq Scan"
            and (
                re.search(r"\btenant = ", cond) is not None
                or (index == "search_docs_pkey" and re.search(r"\bid = ", cond) is not None)
            )
            for how, index, cond in reads
        ), (generic, reads)


def test_claims_take_other_models_docs_oldest_first_each_once(postgres_url: str) -> None:
    """The same docs in the same order as ``ORDER BY id`` of them all, claimed ones passed."""
    database = PostgresDatabase(postgres_url)
    try:
        store = SQLSummaryStore(database)
        models = [MODEL, "a-model", "z-model", "c-model", MODEL, "z-model", "b-model", "a-model"]
        tenants = ["acme", "acme", "other", "acme", "acme", "acme", "other", "acme"]
        expected: dict[str | None, list[int]] = {None: [], "acme": []}  # no doc waits
        for n in range(200):
            model, tenant = models[n % len(models)], tenants[n % len(tenants)]
            deleted = 1 if n % 11 == 0 else None
            row = database.fetchone(
                "INSERT INTO search_docs (tenant, subject, kind, owner_id, text, model, "
                "tokens, deleted_at) VALUES (%s, 'U-' || %s, 'note', %s, 'doc', %s, "
                "to_tsvector('simple', 'doc'), %s) RETURNING id",
                (tenant, n % 5, n, model, deleted),
            )
            if model != MODEL and deleted is None:
                expected[None].append(row[0])
                if tenant == "acme":
                    expected["acme"].append(row[0])
        database.execute("ANALYZE search_docs")
        # A claim another worker holds until 50 is passed over, then taken once it ends.
        held = store.claim_vectors("acme", claim(limit=3, now=1))
        assert [doc_id for doc_id, _ in held] == expected["acme"][:3]
        taken: list[int] = []
        while batch := store.claim_vectors(None, claim(limit=7, now=2)):
            assert [doc_id for doc_id, _ in batch] == sorted(doc_id for doc_id, _ in batch)
            taken += [doc_id for doc_id, _ in batch]
        assert taken == [doc_id for doc_id in expected[None] if doc_id not in expected["acme"][:3]]
        late = store.claim_vectors(None, claim(limit=7, now=100))
        assert [doc_id for doc_id, _ in late] == expected[None][:7]
    finally:
        database.close()
