"""Tenants of many search docs on PostgreSQL, inserted by the server in one statement.

``store = tenant_docs("test-model")`` in a test module gives it a fixture ``store``: a
:class:`SQLSummaryStore` over a fresh database holding ``tenants`` tenants ('t0', 't1', ...)
of ``subjects`` subjects ('U-0', ...) with ``per_subject`` notes each, embedded by the model
given; every ``waiting_every``-th doc waits for a vector and every ``stale_every``-th holds
another model's ('older-model'). Analyzed, so plans are those of a table this size.
:func:`scans` reads a statement's plan for the reads of ``search_docs`` in it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from memlane.storage.postgres import PostgresDatabase
from memlane.storage.sql import SQLSummaryStore

_INSERT = (
    "INSERT INTO search_docs (tenant, subject, kind, owner_id, text, model, tokens) "
    "SELECT 't' || mod(n, %(tenants)s), 'U-' || mod(n / %(tenants)s, %(subjects)s), 'note', "
    "n, 'note ' || n, CASE WHEN mod(n, %(waiting_every)s) = 0 THEN NULL "
    "WHEN mod(n, %(stale_every)s) = 0 THEN 'older-model' ELSE %(model)s END, "
    "to_tsvector('simple', 'note word' || mod(n, 50)) FROM generate_series(1, %(count)s) AS n"
)


def tenant_docs(
    model: str,
    *,
    tenants: int = 4,
    subjects: int = 300,
    per_subject: int = 10,
    waiting_every: int | None = None,
    stale_every: int | None = None,
) -> Callable[..., Any]:
    """A fixture named ``store`` of that many docs (``None``: no doc waits, or is stale)."""
    never = tenants * subjects * per_subject + 1  # past the last doc: no doc is one

    @pytest.fixture(name="store")
    def store(postgres_url: str) -> Iterator[SQLSummaryStore]:
        database = PostgresDatabase(postgres_url)
        database.execute(
            _INSERT,
            {
                "tenants": tenants,
                "subjects": subjects,
                "model": model,
                "waiting_every": waiting_every or never,
                "stale_every": stale_every or never,
                "count": tenants * subjects * per_subject,
            },
        )
        database.execute("VACUUM ANALYZE search_docs")
        yield SQLSummaryStore(database)
        database.close()

    return store


def scans(
    store: SQLSummaryStore, sql: str, parameters: Any, *, generic: bool = False
) -> list[tuple[str, str, str]]:
    """Each read of ``search_docs`` in the plan: (how, which index, its index condition).

    ``generic``: the plan made for any parameters (``$1``, ...), as a statement prepared by
    psycopg after a few runs may get.
    """
    if generic:
        numbers: dict[str, int] = {}

        def number(found: re.Match[str]) -> str:
            return f"${numbers.setdefault(found.group(1), len(numbers) + 1)}"

        explain = "EXPLAIN (GENERIC_PLAN) " + re.sub(r"%\((\w+)\)s", number, sql)
        plan = [row[0] for row in store.db.fetchall(explain.replace("%%", "%"))]
    else:
        plan = [row[0] for row in store.db.fetchall("EXPLAIN " + sql, parameters)]
    found = []
    for n, line in enumerate(plan):
        read = re.search(r"(Seq Scan|Index Only Scan|Index Scan|Bitmap Heap Scan)"
                         r"(?: Backward)?(?: using (\w+))? on search_docs\b", line)  # fmt: skip
        if read is None:
            continue
        cond = next(
            (
                later.strip()
                for later in plan[n + 1 : n + 4]
                if "Index Cond" in later or "Recheck Cond" in later
            ),
            "",
        )
        found.append((read.group(1), read.group(2) or "", cond))
    return found
