"""SQLite: the indexer's claim of docs another model embedded, by seeks (migration 17).

``model != x`` is no index range: the claim of any tenant's docs read the whole table each
time the indexer looked for work and found none (after every write; 72-100 ms at 10^5 docs,
holding the connection every search waits for). ``search_docs_by_model (model, id)`` gives
each model's docs in id order. The claims must take the same docs, in the same order, as the
plain condition did.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from memlane.storage.base import VectorClaim
from memlane.storage.sql import SQLSummaryStore
from memlane.storage.sqlite import SQLiteDatabase

NOW = 1_000_000
PLAIN = "model IS NOT NULL AND model != %(model)s"


@pytest.fixture
def store(tmp_path) -> Iterator[SQLSummaryStore]:
    database = SQLiteDatabase(tmp_path / "claims.db")
    yield SQLSummaryStore(database)
    database.close()


def insert(
    store: SQLSummaryStore, docs: list[tuple[str, str, str | None, int | None, bool]]
) -> None:
    """Docs ``(tenant, subject, model, claimed until, deleted)``, ids in list order."""
    store.db.executemany(
        "INSERT INTO search_docs (tenant, subject, kind, owner_id, text, model, claimed_until, "
        "deleted_at) VALUES (%s, %s, 'note', %s, %s, %s, %s, %s)",
        [
            (tenant, subject, n, f"note {n}", model, until, 1 if deleted else None)
            for n, (tenant, subject, model, until, deleted) in enumerate(docs)
        ],
    )


def claimed(store: SQLSummaryStore, which: str, where: str, model: str, limit: int) -> list[int]:
    """The ids the claim of ``which`` (a condition) in ``where`` selects, in its order."""
    sql = (
        f"SELECT id FROM search_docs WHERE {where} AND {which} "
        "AND (claimed_until IS NULL OR claimed_until < %(now)s) ORDER BY id LIMIT %(limit)s"
    )
    parameters = {"model": model, "now": NOW, "limit": limit, "tenant": "t1", "subject": "U-1"}
    return [row[0] for row in store.db.fetchall(sql, parameters)]


def plan_of_second_claim(store: SQLSummaryStore, tenant: str | None) -> str:
    sql = store.claim_statements(tenant, None)[1]
    claim = VectorClaim(model="a", limit=8, chars=4_000, now=NOW, until=NOW + 1)
    rows = store.db.fetchall("EXPLAIN QUERY PLAN " + sql, claim.parameters(tenant))
    return "\n".join(row[3] for row in rows)


@pytest.mark.parametrize("seed", range(8))
def test_the_claim_takes_the_docs_the_plain_condition_takes_in_its_order(
    store: SQLSummaryStore, seed: int
) -> None:
    """Random models, claims, deletions, tenants and subjects; every scope and limit."""
    rng = random.Random(seed)
    insert(
        store,
        [
            (
                rng.choice(["t0", "t1", "t2"]),
                rng.choice(["U-0", "U-1"]),
                rng.choice([None, "a", "a", "a", "b", "c"]),
                rng.choice([None, None, NOW - 1, NOW + 1]),
                rng.random() < 0.1,
            )
            for _ in range(rng.randrange(50, 400))
        ],
    )
    seeks = store.dialect.embedded_by_others
    scopes = [
        ("deleted_at IS NULL", "deleted_at IS NULL"),
        ("tenant = %(tenant)s AND deleted_at IS NULL",) * 2,
        (
            "tenant = %(tenant)s AND deleted_at IS NULL AND subject = %(subject)s",
            "tenant = %(tenant)s AND deleted_at IS NULL",
        ),
    ]
    for where, models in scopes:
        for model in ("a", "b", "d"):
            for limit in (1, 3, 17, 500):
                expected = claimed(store, PLAIN, where, model, limit)
                assert claimed(store, seeks(where, models), where, model, limit) == expected


def test_a_tenants_claim_finds_its_docs_behind_another_tenants_older_ones(
    store: SQLSummaryStore,
) -> None:
    """A model's first docs by id are another tenant's: the tenant's own are still taken."""
    insert(
        store, [("t0", "U-0", "old", None, False)] * 50 + [("t1", "U-1", "old", None, False)] * 5
    )
    claim = VectorClaim(model="new", limit=10, chars=100_000, now=NOW, until=NOW + 1)
    taken = store.claim_vectors("t1", claim)
    assert [doc for doc, _ in taken] == list(range(51, 56))


@pytest.mark.parametrize("analyzed", [False, True], ids=["as memlane plans", "analyzed"])
@pytest.mark.parametrize("changing", [False, True], ids=["idle", "a model changing"])
def test_the_claim_of_any_tenant_reads_no_whole_table(
    store: SQLSummaryStore, changing: bool, analyzed: bool
) -> None:
    """Idle (every doc embedded by the claiming model) and while another model's docs wait."""
    insert(
        store,
        [
            ("t0", f"U-{n % 30}", "b" if changing and n % 2 else "a", None, False)
            for n in range(3_000)
        ],
    )
    if analyzed:  # memlane never runs ANALYZE; a user may
        store.db.execute("ANALYZE")
    plan = plan_of_second_claim(store, None)
    assert "search_docs_by_model" in plan, plan
    assert not any(
        line.startswith("SCAN search_docs") or line.startswith("SCAN d")
        for line in plan.split("\n")
    ), plan
