"""Search on PostgreSQL: the SQL and values of its vector and lexical ranking.

Search runs inside the database, with the scope (tenant, subject, kind, not deleted) in the
WHERE clause of the ranking query itself:

- nearest neighbours by inner product (pgvector's ``<#>``) over ``search_docs.vector``: one
  partial HNSW index per vector width on the vectors as half floats, created by the write that
  first stores that width, proposes candidates that the stored float32 vectors rank;
- lexical matches ranked by BM25 (as FTS5 ranks them) over ``search_docs.tokens``, a
  ``tsvector`` of the same tokens the SQLite FTS5 index gets (:mod:`memlane.storage.lexical`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from memlane.storage import lexical
from memlane.storage.postgres.schema import HNSW_MAX_DIMS, VECTOR_INDEX, VECTOR_INDEX_NAME

if TYPE_CHECKING:
    from memlane.storage.postgres.database import PostgresDatabase

BM25_K1 = 1.2
BM25_B = 0.75
"""FTS5's BM25 parameters, so both backends rank words alike."""
BM25_LENGTH_SAMPLE = 2000
HALF_SLACK = 16
"""Candidates ranked beyond the results asked (:func:`half_candidates`)."""
EF_SEARCH_DEFAULT = 128
"""The least ``hnsw.ef_search`` of a search (the candidates asked, if more): the search width
of SQLite's graphs (:data:`memlane.storage.sqlite.graph_files.EXPANSION_SEARCH`). pgvector's
own default, 40, found 0.76-0.85 of the exact ten nearest among 10^5 clustered vectors and 128
found 0.94-0.96, a tenant-wide search taking 2.47 ms instead of 2.23 (``bench/pg_vector_index.py``,
docs/benchmarks.md)."""
EF_SEARCH_MAX = 1000
"""The most ``hnsw.ef_search`` a search asks for, however many candidates it wants."""


def index_tokens(text: str) -> str:
    """The string whose ``to_tsvector('simple', %s)`` is the ``tokens`` of a doc with ``text``.

    Whoever writes ``search_docs.text`` (a redaction, say) writes ``tokens`` from it too:
    ``UPDATE search_docs SET text = %s, tokens = to_tsvector('simple', %s)`` with
    ``(text, index_tokens(text))``.
    """
    return lexical.document(text)


def tsquery(terms: Sequence[str]) -> str | None:
    """A ``to_tsquery('simple', ...)`` input matching any of ``terms`` (``None``: no terms)."""
    if not terms:
        return None
    quoted = ("'" + term.replace("\\", "\\\\").replace("'", "''") + "'" for term in terms)
    return " | ".join(quoted)


def half_candidates(limit: int) -> int:
    """How many vectors, nearest as half floats, are ranked by their float32 values for ``limit``.

    Half floats round each value by at most 2^-11 of it, so the inner product of two unit
    vectors moves by at most about 10^-3 (Cauchy-Schwarz): only near ties change places, and
    :data:`HALF_SLACK` more than asked leaves room for runs of them. An exact scan (a small
    scope) then gives the exact ranking, as SQLite's does.

    >>> half_candidates(10)
    26
    """
    return limit + HALF_SLACK


def vector_literal(vector: npt.NDArray[np.float32]) -> str:
    """The text form pgvector reads a float32 vector from; every value round-trips exactly."""
    return "[" + ",".join(repr(value) for value in vector.astype(np.float64).tolist()) + "]"


def ensure_vector_index(database: PostgresDatabase, dims: int) -> None:
    """Create the HNSW index of vectors ``dims`` wide unless it exists (or cannot: too wide).

    Call it inside the write transaction that stores the first vectors of a width, one that
    holds the write lock exclusive (see :func:`vector_index_ready`), so no other writer races
    to create it; readers go on reading.
    """
    if vector_index_ready(database, dims):
        return
    database.execute(VECTOR_INDEX.format(dims=int(dims)))


def vector_index_ready(database: PostgresDatabase, dims: int) -> bool:
    """Whether vectors ``dims`` wide need no index made first (it exists, or cannot exist).

    Storing the first vectors of a width creates their index, which needs the write lock
    exclusive from the start: taken later, after the update has locked rows, two writers
    could each wait for the other.
    """
    if not 0 < dims <= HNSW_MAX_DIMS:
        return True
    name = VECTOR_INDEX_NAME.format(dims=int(dims))
    return database.fetchone("SELECT to_regclass(%s)", (name,))[0] is not None


def nearest_sql(where: str, dims: int) -> str:
    """The vector ranking query: the ``%(limit)s`` docs in scope ``where`` nearest ``%(query)s``.

    Of vectors ``dims`` wide, by inner product, ties by id. Up to :data:`HNSW_MAX_DIMS` the
    ``%(candidates)s`` nearest as half floats (what the width's index orders by) are ranked by
    their stored float32 vectors; wider ones, which no index holds, at once. The width is
    written into the SQL, never bound: the planner must see the index's expression and its
    partial predicate verbatim to use it, even for a generic plan. The query is cast to a
    vector first everywhere: a parameter's type comes from its first use, and a half float's
    would round it in the exact ranking too.
    """
    exact = f"vector <#> %(query)s::vector({dims})"
    scope = f"FROM search_docs WHERE {where} AND model = %(model)s AND dims = {dims}"
    if dims > HNSW_MAX_DIMS:
        return f"SELECT owner_id {scope} ORDER BY {exact}, id LIMIT %(limit)s"
    half = f"(vector::halfvec({dims})) <#> (%(query)s::vector({dims}))::halfvec({dims})"
    return (
        f"WITH hits AS MATERIALIZED (SELECT id, owner_id, vector {scope} "
        f"ORDER BY {half}, id LIMIT %(candidates)s) "
        f"SELECT owner_id FROM hits ORDER BY {exact}, id LIMIT %(limit)s"
    )


def bm25_sql(where: str, docs: str | None = None) -> str:
    """The lexical ranking query: BM25 over the docs in scope ``where`` matching any term.

    ``docs``: SQL of how many docs the scope holds (:func:`counted_docs`), else they are
    counted (``count(*)`` of the scope).

    A term's frequency in a doc is ``ts_rank_cd`` with every weight 1 and the term alone as
    the query (each occurrence is a cover worth exactly 1), computed in C rather than by
    unnesting every matched tsvector. The average length comes from at most
    ``BM25_LENGTH_SAMPLE`` docs of the scope, so with ``docs`` given a tenant-wide search
    reads no more of the scope than that. The sample is read in model order: for a tenant-wide
    scope that is ``search_docs_tenant_scope``'s own (migration 19), an index range that
    stops after the sample; read in no order, it was a Seq Scan that stopped only after that
    many docs of the scope, every doc of other tenants before them read first.
    """
    return f"""
        WITH terms AS MATERIALIZED (
            SELECT lexeme, plainto_tsquery('simple', lexeme) AS query
            FROM unnest(tsvector_to_array(to_tsvector('simple', %(words)s))) AS lexeme
        ), stats AS MATERIALIZED (
            SELECT ({docs or f"SELECT count(*) FROM search_docs WHERE {where}"})::float8
                AS docs, coalesce((
                SELECT avg(length(tokens)) FROM (
                    SELECT tokens FROM search_docs WHERE {where}
                    ORDER BY model LIMIT {BM25_LENGTH_SAMPLE}
                ) AS sample
            ), 1)::float8 AS avgdl
        ), hits AS (
            SELECT id, length(tokens)::float8 AS length,
                ts_rank_cd('{{1,1,1,1}}', tokens, terms.query)::float8 AS frequency,
                count(*) OVER (PARTITION BY lexeme)::float8 AS matching
            FROM search_docs CROSS JOIN terms
            WHERE {where} AND tokens @@ to_tsquery('simple', %(match)s)
                AND tokens @@ terms.query
        ), ranked AS (
            SELECT id, sum(
                greatest(ln((docs - matching + 0.5) / (matching + 0.5)), 1e-6) * frequency
                * ({BM25_K1} + 1)
                / (frequency + {BM25_K1} * (1 - {BM25_B} + {BM25_B} * length / avgdl))
            ) AS score
            FROM hits CROSS JOIN stats GROUP BY id
            ORDER BY score DESC, id LIMIT %(limit)s
        )
        SELECT owner_id FROM ranked JOIN search_docs USING (id) ORDER BY score DESC, id"""


def counted_docs(kind: str | None) -> str:
    """SQL of how many docs of ``%(tenant)s`` (and ``%(kind)s``) are in scope, from the counts.

    Migration 21's triggers keep them (``search_doc_counts``, at most ``DOC_COUNT_SLOTS``
    rows per kind), plus this transaction's own changes not yet folded into them (none
    unless the reader is the writer: another transaction's are folded as it commits, and
    invisible before). Exact as ``count(*)`` in any snapshot: a change and its count commit
    together.
    """
    of_kind = "" if kind is None else " AND kind = %(kind)s"
    return (
        "SELECT (SELECT coalesce(sum(docs), 0) FROM search_doc_counts "
        f"WHERE tenant = %(tenant)s{of_kind}) + (SELECT coalesce(sum(docs), 0) "
        "FROM search_doc_changes WHERE xact = pg_current_xact_id_if_assigned()::text::bigint "
        f"AND tenant = %(tenant)s{of_kind})"
    )


def held_sql(where: str, bound: int | None) -> str:
    """How many docs in scope ``where`` hold each term (``%(terms)s``), up to ``bound``.

    Each term's ``%(queries)s`` is its ``to_tsquery`` input (:func:`tsquery`): the GIN index
    finds its docs, of which at most ``bound`` are read (``None``: all).
    """
    limit = "" if bound is None else f" LIMIT {int(bound)}"
    return (
        "SELECT term, (SELECT count(*) FROM (SELECT 1 FROM search_docs "
        f"WHERE {where} AND tokens @@ to_tsquery('simple', query){limit}) AS held) "
        "FROM unnest(%(terms)s::text[], %(queries)s::text[]) AS t(term, query)"
    )


def version(text: str) -> tuple[int, ...]:
    """``"0.8.2"`` as ``(0, 8, 2)`` (non-numeric parts count as 0)."""
    return tuple(int(part) if part.isdigit() else 0 for part in text.split("."))
