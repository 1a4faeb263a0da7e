"""The summary lane on PostgreSQL: summary versions, notes, turns, and their search index.

Search runs inside the database, with the scope (tenant, subject, kind, not deleted) in the
WHERE clause of the ranking query itself:

- nearest neighbours by inner product (pgvector's ``<#>``) over ``search_docs.vector``, through
  one partial HNSW index per vector width, created by the write that first stores that width;
- lexical matches ranked by BM25 (as FTS5 ranks them) over ``search_docs.tokens``, a
  ``tsvector`` of the same tokens the SQLite FTS5 index gets (:mod:`memlane.storage.lexical`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
import numpy.typing as npt
import psycopg

from memlane.errors import StorageError
from memlane.facts.normalize import canonical_json
from memlane.storage import lexical
from memlane.storage import rows as decode
from memlane.storage.base import DocKind
from memlane.storage.postgres.database import PostgresDatabase
from memlane.summaries.model import Note, Summary, SummaryContent
from memlane.timeutil import from_micros
from memlane.window.model import Turn

STORYLINE = ""  # the session_id under which a subject's storyline is stored
HNSW_MAX_DIMS = 2000
"""The widest ``vector`` pgvector's HNSW indexes; wider vectors are searched exactly."""
BM25_K1 = 1.2
BM25_B = 0.75
"""FTS5's BM25 parameters, so both backends rank words alike."""
BM25_LENGTH_SAMPLE = 2000
EF_SEARCH_DEFAULT = 40
EF_SEARCH_MAX = 1000

_SUMMARY_COLUMNS = decode.SUMMARY_COLUMNS
_NOTE_COLUMNS = decode.NOTE_COLUMNS


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


def vector_literal(vector: npt.NDArray[np.float32]) -> str:
    """The text form pgvector reads a float32 vector from; every value round-trips exactly."""
    return "[" + ",".join(repr(value) for value in vector.astype(np.float64).tolist()) + "]"


def ensure_vector_index(database: PostgresDatabase, dims: int) -> None:
    """Create the HNSW index of vectors ``dims`` wide unless it exists (or cannot: too wide).

    Call it inside the write transaction that stores the first vectors of a width (it holds
    the write lock, so no other writer races to create the index; readers go on reading).
    """
    if not 0 < dims <= HNSW_MAX_DIMS:
        return
    name = f"search_docs_hnsw_{int(dims)}"
    if database.fetchone("SELECT to_regclass(%s)", (name,))[0] is not None:
        return
    database.execute(
        f"CREATE INDEX IF NOT EXISTS {name} ON search_docs USING hnsw "
        f"((vector::vector({int(dims)})) vector_ip_ops) WHERE dims = {int(dims)}"
    )


class PostgresSummaryStore:
    """:class:`memlane.storage.base.SummaryStore` on one PostgreSQL database, every tenant."""

    def __init__(self, database: PostgresDatabase) -> None:
        self.db = database
        self._iterative_scan: bool | None = None

    @contextmanager
    def transaction(self) -> Iterator[PostgresSummaryStore]:
        """A write transaction; nested calls join the outer one."""
        with self.db.write():
            yield self

    def next_tx(self, now: int) -> int:
        """The next transaction time (shared with the other lanes)."""
        return self.db.next_tx(now)

    # -- summaries ----------------------------------------------------------------------

    def put_summary(
        self,
        tenant: str,
        subject: str,
        session_id: str | None,
        content: SummaryContent,
        period: tuple[int, int],
        provenance: Sequence[str],
        tx: int,
    ) -> Summary:
        """Store a new version of a session summary (or, with ``session_id=None``, storyline).

        The previous version stays, closed at ``tx``; only the new one is searchable.
        """
        self.db.wrote()
        key = STORYLINE if session_id is None else session_id
        previous = self.db.fetchall(
            "UPDATE summaries SET tx_to = %s WHERE tenant = %s AND subject = %s "
            "AND session_id = %s AND tx_to IS NULL RETURNING id, version",
            (tx, tenant, subject, key),
        )
        version = max(row[1] for row in previous) + 1 if previous else 1
        for old_id, _ in previous:
            self._drop_doc("summary", old_id)
        row = self.db.fetchone(
            "INSERT INTO summaries (tenant, subject, session_id, version, content, period_from, "
            "period_to, tx_from, provenance) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s) "
            "RETURNING id",
            (
                tenant,
                subject,
                key,
                version,
                _content_json(content),
                period[0],
                period[1],
                tx,
                canonical_json(list(provenance)),
            ),
        )
        summary_id = int(row[0])
        self._add_doc(tenant, subject, "summary", summary_id, content.as_text())
        return Summary(
            id=summary_id,
            subject=subject,
            session_id=session_id,
            content=content,
            period_from=from_micros(period[0]),
            period_to=from_micros(period[1]),
            version=version,
            tx_from=from_micros(tx),
            provenance=tuple(provenance),
        )

    def current_summary(
        self, tenant: str, session_id: str | None, subject: str | None
    ) -> Summary | None:
        """The latest version for a session (any subject if ``subject`` is None) or storyline."""
        sql = (
            f"SELECT {_SUMMARY_COLUMNS} FROM summaries WHERE tenant = %s AND session_id = %s "
            "AND tx_to IS NULL AND deleted_at IS NULL"
        )
        parameters: tuple[Any, ...] = (tenant, STORYLINE if session_id is None else session_id)
        if subject is not None:
            sql += " AND subject = %s"
            parameters += (subject,)
        row = self.db.fetchone(sql + " ORDER BY tx_from DESC, id DESC LIMIT 1", parameters)
        return decode.summary(row) if row else None

    def summary_versions(self, tenant: str, subject: str, session_id: str | None) -> list[Summary]:
        """Every stored version of one summary, oldest first (deleted ones excluded)."""
        rows = self.db.fetchall(
            f"SELECT {_SUMMARY_COLUMNS} FROM summaries WHERE tenant = %s AND subject = %s "
            "AND session_id = %s AND deleted_at IS NULL ORDER BY version",
            (tenant, subject, STORYLINE if session_id is None else session_id),
        )
        return [decode.summary(row) for row in rows]

    def audit(self, tenant: str, subject: str) -> tuple[list[Summary], list[Note]]:
        """Every summary version and note of a subject, deleted ones included (flagged)."""
        summaries = self.db.fetchall(
            f"SELECT {_SUMMARY_COLUMNS} FROM summaries WHERE tenant = %s AND subject = %s "
            "ORDER BY tx_from, id",
            (tenant, subject),
        )
        notes = self.db.fetchall(
            f"SELECT {_NOTE_COLUMNS} FROM notes WHERE tenant = %s AND subject = %s "
            "ORDER BY tx_from, id",
            (tenant, subject),
        )
        return [decode.summary(row) for row in summaries], [decode.note(row) for row in notes]

    def summaries(self, tenant: str, ids: Sequence[int]) -> dict[int, Summary]:
        """Summaries by id (only those of ``tenant``)."""
        if not ids:
            return {}
        rows = self.db.fetchall(
            f"SELECT {_SUMMARY_COLUMNS} FROM summaries WHERE tenant = %s AND id = ANY(%s)",
            (tenant, list(ids)),
        )
        return {row[0]: decode.summary(row) for row in rows}

    # -- notes --------------------------------------------------------------------------

    def put_note(
        self,
        tenant: str,
        subject: str,
        text: str,
        *,
        said_at: int,
        session_id: str | None,
        source: str | None,
        provenance: Sequence[str],
        tx: int,
    ) -> Note:
        """Store a note and index it for search."""
        self.db.wrote()
        row = self.db.fetchone(
            "INSERT INTO notes (tenant, subject, text, said_at, tx_from, session_id, source, "
            "provenance) VALUES (%s, %s, %s, %s, %s, %s, %s, %s) RETURNING id",
            (
                tenant,
                subject,
                text,
                said_at,
                tx,
                session_id,
                source,
                canonical_json(list(provenance)),
            ),
        )
        note_id = int(row[0])
        self._add_doc(tenant, subject, "note", note_id, text)
        return Note(
            id=note_id,
            subject=subject,
            text=text,
            at=from_micros(said_at),
            tx_from=from_micros(tx),
            session_id=session_id,
            source=source,
            provenance=tuple(provenance),
        )

    def notes(self, tenant: str, subject: str) -> list[Note]:
        """A subject's notes in the order they were said."""
        rows = self.db.fetchall(
            f"SELECT {_NOTE_COLUMNS} FROM notes WHERE tenant = %s AND subject = %s "
            "AND deleted_at IS NULL ORDER BY said_at, id",
            (tenant, subject),
        )
        return [decode.note(row) for row in rows]

    def notes_by_id(self, tenant: str, ids: Sequence[int]) -> dict[int, Note]:
        """Notes by id (only those of ``tenant``)."""
        if not ids:
            return {}
        rows = self.db.fetchall(
            f"SELECT {_NOTE_COLUMNS} FROM notes WHERE tenant = %s AND id = ANY(%s)",
            (tenant, list(ids)),
        )
        return {row[0]: decode.note(row) for row in rows}

    # -- turns --------------------------------------------------------------------------

    def put_turn(self, tenant: str, turn: Turn) -> None:
        """Keep a raw turn (only for memories that retain transcripts).

        A turn stored again under its id replaces the old row whole, undeleted, and moves
        behind the turns stored before it (as SQLite's ``INSERT OR REPLACE`` gives it a new
        rowid): its ``seq`` is drawn anew.
        """
        with self.db.write():
            self.db.wrote()
            self.db.execute(
                "INSERT INTO turns (id, tenant, subject, session_id, role, speaker, content, "
                "said_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s) "
                "ON CONFLICT (tenant, id) DO UPDATE SET subject = excluded.subject, "
                "session_id = excluded.session_id, role = excluded.role, "
                "speaker = excluded.speaker, content = excluded.content, "
                "said_at = excluded.said_at, deleted_at = NULL, seq = DEFAULT",
                decode.turn_values(tenant, turn),
            )

    def turns(self, tenant: str, session_id: str) -> list[Turn]:
        """The retained turns of a session, in order."""
        rows = self.db.fetchall(
            f"SELECT {decode.TURN_COLUMNS} FROM turns "
            "WHERE tenant = %s AND session_id = %s AND deleted_at IS NULL ORDER BY said_at, seq",
            (tenant, session_id),
        )
        return [decode.turn(row) for row in rows]

    # -- search -------------------------------------------------------------------------

    def pending_vectors(
        self, tenant: str, subject: str | None, model: str, limit: int
    ) -> list[tuple[int, str]]:
        """Searchable items in scope that have no vector from ``model`` yet."""
        where, parameters = _scope(tenant, subject, None)
        rows = self.db.fetchall(
            f"SELECT id, text FROM search_docs WHERE {where} "
            "AND (model IS NULL OR model != %(model)s) ORDER BY id LIMIT %(limit)s",
            {**parameters, "model": model, "limit": limit},
        )
        return [(row[0], row[1]) for row in rows]

    def put_vectors(self, model: str, vectors: Sequence[tuple[int, bytes]]) -> None:
        """Attach vectors (float32 bytes) to search items, indexing each new width."""
        if not vectors:
            return
        rows = []
        for doc_id, blob in vectors:
            vector = np.frombuffer(blob, dtype=np.float32)
            rows.append((model, vector_literal(vector), len(vector), doc_id))
        with self.db.write():
            self.db.wrote()
            self.db.executemany(
                "UPDATE search_docs SET model = %s, vector = %s::vector, dims = %s WHERE id = %s",
                rows,
            )
            for dims in sorted({row[2] for row in rows}):
                ensure_vector_index(self.db, dims)

    def vector_state(
        self, tenant: str, subject: str | None, kind: DocKind, model: str
    ) -> tuple[int, int, int]:
        """``(items in scope, items embedded by model, highest item id)``: a cheap signature."""
        where, parameters = _scope(tenant, subject, kind)
        row = self.db.fetchone(
            "SELECT count(*), count(*) FILTER (WHERE model = %(model)s), coalesce(max(id), 0) "
            f"FROM search_docs WHERE {where}",
            {**parameters, "model": model},
        )
        return int(row[0]), int(row[1]), int(row[2])

    def nearest(
        self,
        tenant: str,
        subject: str | None,
        kind: DocKind,
        model: str,
        query: Sequence[float] | npt.NDArray[np.float32],
        limit: int,
    ) -> list[int]:
        """Owner ids of the items in scope embedded by ``model``, largest inner product first.

        The width's HNSW index answers when the planner prefers it (approximate, but scanned
        iteratively so the scope filter still leaves ``limit`` rows); otherwise the scan is
        exact. Either way the candidates are re-sorted exactly, ties by doc id.
        """
        vector = np.asarray(query, dtype=np.float32).reshape(-1)
        if limit < 1 or len(vector) == 0:
            return []
        sql, parameters = self._nearest_query(tenant, subject, kind, model, vector, limit)
        return [row[0] for row in self._search(sql, parameters, ef_search=limit)]

    def _nearest_query(
        self,
        tenant: str,
        subject: str | None,
        kind: DocKind,
        model: str,
        vector: npt.NDArray[np.float32],
        limit: int,
    ) -> tuple[str, dict[str, Any]]:
        """The SQL (and its parameters) of :meth:`nearest`."""
        dims = len(vector)
        where, parameters = _scope(tenant, subject, kind)
        # The width is written into the SQL, never bound: the planner must see the index's
        # expression and its partial predicate verbatim to use it, even for a generic plan.
        distance = f"(vector::vector({dims})) <#> %(query)s::vector({dims})"
        sql = (
            f"WITH hits AS MATERIALIZED (SELECT id, owner_id, {distance} AS distance "
            f"FROM search_docs WHERE {where} AND model = %(model)s AND dims = {dims} "
            f"ORDER BY {distance}, id LIMIT %(limit)s) "
            "SELECT owner_id FROM hits ORDER BY distance, id"
        )
        return sql, {**parameters, "model": model, "query": vector_literal(vector), "limit": limit}

    def lexical(
        self, tenant: str, subject: str | None, kind: DocKind, text: str, limit: int
    ) -> list[int]:
        """Owner ids of the items in scope that match ``text``, best BM25 first (ties by id).

        BM25 as FTS5 computes it (k1 = 1.2, b = 0.75), but with the statistics of the scope
        rather than of the whole table (no other tenant sways a score), a doc's length counted
        in distinct tokens, and the average length of a scope beyond
        :data:`BM25_LENGTH_SAMPLE` docs estimated from that many.
        """
        terms = lexical.terms(text)
        if not terms or limit < 1:
            return []
        where, parameters = _scope(tenant, subject, kind)
        rows = self.db.fetchall(
            _bm25_sql(where),
            {**parameters, "words": " ".join(terms), "match": tsquery(terms), "limit": limit},
        )
        return [row[0] for row in rows]

    # -- internals ----------------------------------------------------------------------

    def _add_doc(self, tenant: str, subject: str, kind: DocKind, owner_id: int, text: str) -> None:
        self.db.execute(
            "INSERT INTO search_docs (tenant, subject, kind, owner_id, text, tokens) "
            "VALUES (%s, %s, %s, %s, %s, to_tsvector('simple', %s))",
            (tenant, subject, kind, owner_id, text, index_tokens(text)),
        )

    def _drop_doc(self, kind: DocKind, owner_id: int) -> None:
        self.db.execute(
            "DELETE FROM search_docs WHERE kind = %s AND owner_id = %s", (kind, owner_id)
        )

    def _search(self, sql: str, parameters: dict[str, Any], *, ef_search: int) -> list[Any]:
        """Run a nearest-neighbour query with the HNSW settings it needs, local to it.

        Local settings need a transaction: the open write transaction if this thread is in
        one, else a short read transaction on a pooled connection.
        """
        settings = self._hnsw_settings(ef_search)
        if self.db.in_transaction:
            self.db.fetchone(settings)
            return self.db.fetchall(sql, parameters)
        try:
            with self.db.pool.connection() as connection, connection.transaction():
                connection.execute(settings)
                return list(connection.execute(sql, parameters).fetchall())
        except psycopg.Error as error:
            raise StorageError(f"PostgreSQL error: {error}") from error

    def _hnsw_settings(self, ef_search: int) -> str:
        """The statement that sets, for the current transaction, how an HNSW scan runs.

        A candidate list as deep as the results asked for, and (pgvector 0.8+) iterative
        scans, so that the scope filter on the index's candidates cannot starve the results.
        """
        if self._iterative_scan is None:
            row = self.db.fetchone("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
            self._iterative_scan = row is not None and _version(row[0]) >= (0, 8)
        depth = min(max(ef_search, EF_SEARCH_DEFAULT), EF_SEARCH_MAX)
        settings = f"SELECT set_config('hnsw.ef_search', '{depth}', true)"
        if self._iterative_scan:
            settings += ", set_config('hnsw.iterative_scan', 'relaxed_order', true)"
        return settings


def _scope(tenant: str, subject: str | None, kind: DocKind | None) -> tuple[str, dict[str, Any]]:
    """The filter every search applies inside its ranking: tenant, subject, kind, not deleted."""
    clauses = ["tenant = %(tenant)s", "deleted_at IS NULL"]
    parameters: dict[str, Any] = {"tenant": tenant}
    if subject is not None:
        clauses.append("subject = %(subject)s")
        parameters["subject"] = subject
    if kind is not None:
        clauses.append("kind = %(kind)s")
        parameters["kind"] = kind
    return " AND ".join(clauses), parameters


def _bm25_sql(where: str) -> str:
    """The lexical ranking query: BM25 over the docs in scope ``where`` matching any term.

    A term's frequency in a doc is ``ts_rank_cd`` with every weight 1 and the term alone as
    the query (each occurrence is a cover worth exactly 1), computed in C rather than by
    unnesting every matched tsvector. The average length comes from at most
    ``BM25_LENGTH_SAMPLE`` docs of the scope, so a tenant-wide search reads the whole scope
    only in the index (to count it).
    """
    return f"""
        WITH terms AS MATERIALIZED (
            SELECT lexeme, plainto_tsquery('simple', lexeme) AS query
            FROM unnest(tsvector_to_array(to_tsvector('simple', %(words)s))) AS lexeme
        ), stats AS MATERIALIZED (
            SELECT count(*)::float8 AS docs, coalesce((
                SELECT avg(length(tokens)) FROM (
                    SELECT tokens FROM search_docs WHERE {where} LIMIT {BM25_LENGTH_SAMPLE}
                ) AS sample
            ), 1)::float8 AS avgdl
            FROM search_docs WHERE {where}
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


def _version(text: str) -> tuple[int, ...]:
    """``"0.8.2"`` as ``(0, 8, 2)`` (non-numeric parts count as 0)."""
    return tuple(int(part) if part.isdigit() else 0 for part in text.split("."))


def _content_json(content: SummaryContent) -> str:
    return canonical_json({name: list(lines) for name, lines in content.sections().items()})
