"""What PostgreSQL does its own way: arrays, collation, search, ``VACUUM FULL``, bulk loads.

Ids travel as one array (``= ANY``), text sorts in byte order (``COLLATE "C"``), facts carry
the slot of the exclusion constraint, search uses pgvector HNSW and a ``tsvector``.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from string import ascii_lowercase, ascii_uppercase
from typing import TYPE_CHECKING, Any

import numpy as np
import psycopg

from memlane.errors import StorageError
from memlane.storage import lexical
from memlane.storage.archive import table_named
from memlane.storage.archiving import ArchiveRow
from memlane.storage.base import Coverage, DocKind
from memlane.storage.postgres import archive, search, snapshots
from memlane.storage.sql.dialect import (
    NOTE_KEY_COLUMNS,
    BytesCheck,
    DocScope,
    KeyRange,
    Vector,
)
from memlane.storage.sql.summaries import coverage, search_scope, vector_state

if TYPE_CHECKING:
    from memlane.storage.postgres.database import PostgresDatabase

# Tables ``Memory.forget`` rewrites through the workflow lane's scrub: the store cannot tell
# whether a scrub changed them, and each changed row left its old version behind.
_SCRUBBED = ("workflow_runs", "workflows")
UNVERIFIED = (
    "PostgreSQL: the tables were rewritten (VACUUM FULL), but their files are the server's "
    "and cannot be scanned from a client (pageinspect and superuser rights would be needed), "
    "so whether the purged bytes are gone is unknown; the server's WAL and backups keep "
    "copies until they are recycled"
)
"""Why a purge on PostgreSQL reports ``bytes_verified`` as unknown."""
ANALYZE_AFTER = 1_000
"""A batch copying at least this many versions (or a transaction adding as many search docs)
may leave the planner's statistics stale (:meth:`PostgresDialect._analyze_if_outgrown`)."""
_COPIED = (
    "id, tx_to, tenant, subject, attribute, value, value_key, valid_from, valid_to, tx_from, "
    "source, reason, confidence, provenance, stated_tx, slot"
)
"""The columns of a fact version as :meth:`PostgresDialect.insert_versions` copies them."""
_COPIED_TYPES = (
    *("int8", "int8", "text", "text", "text", "text", "text", "int8", "int8", "int8"),
    *("text", "text", "float8", "text", "int8", "text"),
)
_PLANNED_BY = (
    "tenant, subject, attribute, value_key, valid_from, valid_to, tx_from, tx_to, deleted_at"
)
"""The columns of ``facts`` that reads filter on: what a bulk load's ``ANALYZE`` refreshes."""
_DOCS_PLANNED_BY = "tenant, subject, kind, owner_id, model, dims, deleted_at, claimed_until, tokens"
"""The columns of ``search_docs`` that searches and claims filter on (not the texts, vectors)."""
_IDENTITY_TABLES = (
    "facts",
    "summaries",
    "notes",
    "search_docs",
    "deletions",
    "workflow_runs",
    "workflows",
)
"""Tables whose ``id`` is an identity column: its sequence must pass the loaded ids."""


class PostgresDialect:
    """:class:`memlane.storage.sql.Dialect` of one PostgreSQL database."""

    # The slot a new version occupies in the exclusion constraint: every value of a
    # one-valued (or undeclared) attribute shares '', each value of a many-valued one has its own.
    fact_slot = (
        "coalesce((SELECT CASE cardinality WHEN 'many' THEN %s ELSE '' END FROM attributes "
        "WHERE tenant = %s AND name = %s), '')"
    )
    # Close-and-insert of one write in one round trip (schema migration 2).
    apply_function = "memlane_apply"
    # A single write's definition and believed versions (schema migration 12).
    write_view_function = "memlane_write_view"
    turn_order = "seq"
    kinds_per_read = 32  # a round trip each statement
    doc_tokens = "to_tsvector('simple', %s)"
    skip_locked = " FOR UPDATE SKIP LOCKED"
    vector_read = "vector::real[]"
    # Reads never wait for a write, and a note's rows are one COPY: parts would only add trips.
    key_rows_per_write: int | None = None
    # As SQLite's INSERT OR REPLACE: the row replaced whole, undeleted, with a new ``seq``.
    put_turn = (
        "INSERT INTO turns (id, tenant, subject, session_id, role, speaker, content, said_at) "
        "VALUES (%s, %s, %s, %s, %s, %s, %s, %s) "
        "ON CONFLICT (tenant, id) DO UPDATE SET subject = excluded.subject, "
        "session_id = excluded.session_id, role = excluded.role, speaker = excluded.speaker, "
        "content = excluded.content, said_at = excluded.said_at, deleted_at = NULL, "
        "seq = DEFAULT"
    )

    def __init__(self, database: PostgresDatabase) -> None:
        self.db = database
        self._iterative_scan: bool | None = None

    def bytewise(self, column: str) -> str:
        """``COLLATE "C"``: byte order, as SQLite compares, whatever the database's locale."""
        return f'{column} COLLATE "C"'

    def ascii_lower(self, column: str) -> str:
        """ASCII letters folded, nothing else: PostgreSQL's ``lower`` would fold every script."""
        return f"translate({column}, '{ascii_uppercase}', '{ascii_lowercase}')"

    def any_of(self, column: str) -> str:
        """``= ANY`` of one array parameter."""
        return f"{column} = ANY(%s)"

    def filter_only(self, column: str) -> str:
        """The column as it is: PostgreSQL's planner has statistics to choose the index by."""
        return column

    def ids(self, ids: Sequence[int] | Sequence[str]) -> Any:
        """The ids as a list (psycopg sends an array)."""
        return list(ids)

    def array(self, values: Sequence[str | int | float | None]) -> Any:
        r"""The array's literal (``{...}``), written here: a text parameter cast in the SQL.

        psycopg adapts a list in Python, element by element (its type, its dumper, its
        quoting): two thirds of a ``set``'s parameter binding. Each element is a number, NULL,
        or a string in double quotes with ``\\`` and ``"`` escaped (PostgreSQL's array input);
        psycopg then quotes the whole literal as any string.
        """
        return "{" + ",".join(map(_element, values)) + "}"

    def key_ranges(self, ranges: Sequence[KeyRange]) -> tuple[str, tuple[Any, ...]]:
        """One JSON array of ``[subject, attribute, lo, hi]`` rows (cheaper to send than arrays)."""
        source = (
            "(SELECT e->>0 AS subject, e->>1 AS attribute, (e->>2)::bigint AS lo, "
            "(e->>3)::bigint AS hi FROM json_array_elements(%s::json) AS e) AS k"
        )
        return source, (json.dumps(ranges),)

    def new_ids(self, table: str, count: int) -> list[int]:
        """``count`` values of the table's identity sequence, in one statement and one array."""
        row = self.db.fetchone(
            "SELECT array_agg(id ORDER BY id) FROM (SELECT "
            f"nextval(pg_get_serial_sequence('{table}', 'id')) AS id FROM generate_series(1, %s)) "
            "AS issued",
            (count,),
        )
        return list(row[0] or [])

    def close_versions(self, closes: Sequence[tuple[int, int]]) -> int:
        """One ``UPDATE`` joined to two arrays: one round trip for the batch."""
        return self.db.execute(
            "UPDATE facts SET tx_to = u.tx FROM unnest(%s::bigint[], %s::bigint[]) AS u(id, tx) "
            "WHERE facts.id = u.id AND facts.tx_to IS NULL",
            ([fact_id for fact_id, _ in closes], [tx for _, tx in closes]),
        )

    def insert_versions(self, tenant: str, rows: Sequence[Sequence[Any]]) -> None:
        """A binary ``COPY`` of the rows, each with the slot of its attribute's definition.

        Definitions cannot change while a keyed write holds the write lock shared, so the
        many-valued attributes among the rows' are read once, before the copy.
        """
        if not rows:
            return
        names = sorted({row[4] for row in rows})
        many = {
            name
            for (name,) in self.db.fetchall(
                "SELECT name FROM attributes WHERE tenant = %s AND name = ANY(%s) "
                "AND cardinality = 'many'",
                (tenant, names),
            )
        }
        skip = 1 if rows[0][0] is None else 0  # no ids: the table's identity numbers them
        columns = _COPIED.removeprefix("id, ") if skip else _COPIED
        self.db.copy(
            f"COPY facts ({columns}) FROM STDIN (FORMAT BINARY)",
            _COPIED_TYPES[skip:],
            ((*row[skip:], row[6] if row[4] in many else "") for row in rows),
        )
        if len(rows) >= ANALYZE_AFTER:
            self.db.after_commit(lambda: self._analyze_if_outgrown("facts", _PLANNED_BY, len(rows)))

    def _analyze_if_outgrown(self, table: str, columns: str, added: int) -> None:
        """``ANALYZE table (columns)`` if ``added`` rows are over a tenth of its planned size.

        The planner's row counts are those of the last ``ANALYZE`` (autovacuum runs one up to
        a minute later); until then a table loaded in bulk looks nearly empty. A write's
        range read was planned on the index of values (every version of the attribute: 56 ms
        per ``set`` at 10^5 facts) instead of ``facts_believed`` (under 1 ms); a subject's
        vector search after an import of 10^4 notes read every doc of the tenant instead of
        the HNSW index, and its lexical search took 15 ms instead of 4. PostgreSQL's advice
        for bulk loads ("Populating a Database": run ``ANALYZE`` afterwards). A role that may
        not analyze the table gets a warning from the server, not an error. Only the columns
        reads filter on are analyzed (``columns``): the row count comes with any of them, and
        skipping the values, reasons and provenance took a third off its CPU time for facts
        (48 -> 31 ms at 20,000); autovacuum analyzes them all.
        """
        row = self.db.fetchone(f"SELECT reltuples FROM pg_class WHERE oid = '{table}'::regclass")
        believed = float(row[0]) if row is not None else -1.0
        if believed < 0 or added > believed / 10:
            with contextlib.suppress(StorageError):  # the batch is committed whatever happens
                self.db.execute(f"ANALYZE {table} ({columns})")

    def insert_note_keys(self, rows: Sequence[Sequence[Any]]) -> None:
        """A binary ``COPY``: a note has a hundred keys or more, each an index entry.

        Run as one ``INSERT`` per row (pipelined), a subject's ten short notes took 17 ms.
        """
        if rows:
            self.db.copy(
                f"COPY note_keys ({NOTE_KEY_COLUMNS}) FROM STDIN (FORMAT BINARY)",
                ("text", "text", "text", "text", "int8", "int8", "int8"),
                rows,
            )

    def index_hint(self, index: str) -> str:
        """PostgreSQL takes no hints."""
        return ""

    def row_key(self, table: str) -> str:
        """``id``; turns are keyed by (tenant, id), and ``seq`` is their own identity."""
        return "seq" if table == "turns" else "id"

    # -- search -------------------------------------------------------------------------

    def add_doc(self, doc_id: int, tenant: str, subject: str, kind: DocKind, text: str) -> None:
        """Count it: the doc's ``tokens`` are in its own row.

        An import's many docs outgrow the planner's statistics of ``search_docs``; they are
        refreshed after it commits (:meth:`_analyze_if_outgrown`).
        """
        added = self.db.of_transaction("search docs added", lambda: [0])
        added[0] += 1
        if added[0] == ANALYZE_AFTER:
            self.db.after_commit(
                lambda: self._analyze_if_outgrown("search_docs", _DOCS_PLANNED_BY, added[0])
            )

    def drop_docs(self, doc_ids: Sequence[int]) -> None:
        """Nothing: deleting the row took its tokens and vector."""

    def purge_index(self, tenant: str, subject: str) -> dict[str, int]:
        """Nothing: there is no separate index."""
        return {}

    def vectors_need_no_lock(self, widths: set[int]) -> bool:
        """True unless a width's HNSW index must be created first (under the exclusive lock)."""
        return all(search.vector_index_ready(self.db, dims) for dims in widths)

    def put_vectors(self, model: str, vectors: Sequence[tuple[int, bytes]]) -> None:
        """Store the vectors as pgvector values, and index each new width."""
        rows = []
        for doc_id, blob in vectors:
            vector = np.frombuffer(blob, dtype=np.float32)
            rows.append((model, search.vector_literal(vector), len(vector), doc_id))
        self.db.executemany(
            "UPDATE search_docs SET model = %s, vector = %s::vector, dims = %s, "
            "claimed_until = NULL WHERE id = %s AND deleted_at IS NULL",
            rows,
        )
        for dims in sorted({row[2] for row in rows}):
            search.ensure_vector_index(self.db, dims)

    def embedded_by_others(self, where: str, models: str) -> str:
        """The docs another model embedded, by seeks of ``search_docs_by_model`` (migration 20).

        ``model != x`` is no index range: asked as it reads, the claim was a Seq Scan of the
        whole table each time the indexer looked for work and found none (68-153 ms at 10^5
        docs). The index gives each model's docs in id order, so the models present are found
        one seek each (the next after the one before), and each model other than ``x`` gives
        its first ``limit`` claimable docs in id order; the first ``limit`` of those are the
        claim's, the same docs in the same order as ``ORDER BY id`` of them all. They are
        locked (``SKIP LOCKED``) as they are read, so a doc another claim is taking is passed
        over, as the plain claim does. With no doc of another model that is a seek per model
        present, whatever the table holds. A model's docs are asked as a range ordered by
        (model, id), the index's order: asked as ``model = m ORDER BY id``, the planner may
        walk the primary key instead, past every doc of the other models, and only the
        index gives that order without reading the whole range first.

        A tenant's claim (``models``: its scope) reads ``search_docs_tenant_by_model``
        (tenant, model, id) (migration 22) the same way: its own models, and its own docs of
        each. Through ``search_docs_by_model`` it walked every other tenant's docs of a model
        before its own first one (that index has no tenant).
        """
        return (
            "id = ANY(ARRAY(WITH RECURSIVE models (model) AS ("
            f"SELECT min(model) FROM search_docs WHERE {models} "
            "UNION ALL SELECT (SELECT min(d.model) FROM search_docs AS d "
            f"WHERE {models} AND d.model > m.model) "
            "FROM models AS m WHERE m.model IS NOT NULL) "
            "SELECT o.id FROM models CROSS JOIN LATERAL ("
            f"SELECT id FROM search_docs WHERE {where} AND model >= models.model "
            "AND model <= models.model AND (claimed_until IS NULL OR claimed_until < %(now)s) "
            f"ORDER BY model, id LIMIT %(limit)s{self.skip_locked}) AS o "
            "WHERE models.model <> %(model)s ORDER BY o.id LIMIT %(limit)s))"
        )

    def vector_state(self, scope: DocScope, model: str) -> tuple[int, int, int]:
        """Counted by the server each time (other workers write at any moment)."""
        return vector_state(self.db, *scope, model)

    def coverage(self, scope: DocScope, model: str) -> Coverage:
        """Asked of the server each time (other workers write at any moment).

        A tenant-wide scope is read in ``search_docs_tenant_scope``'s order (migration 19):
        its highest model (NULL first: any doc waiting), its lowest, and its lowest from
        ``model`` on, three seeks. Asked as ``EXISTS``, the planner may read the table from
        its start until a row of the tenant turns up, which it costs as a few rows when the
        tenant holds much of the table, and which is every row before the tenant's (a tenant
        whose docs are the newest). Only that index gives the scope in model order, so no
        other plan reads less than the whole scope. A subject's scope keeps the probes of
        :func:`~memlane.storage.sql.summaries.coverage`: ``deleted_at IS NULL`` is no
        equality to PostgreSQL, so ``search_docs_scope`` gives no model order to a subject.
        """
        if scope.subject is not None:
            return coverage(self.db, *scope, model)
        where, parameters = search_scope(*scope)
        first = f"SELECT model FROM search_docs WHERE {where}"
        row = self.db.fetchone(
            "SELECT coalesce(f.model = %(model)s, false), "
            "t.model IS NULL OR t.model > %(model)s OR b.model < %(model)s "
            f"FROM ({first} ORDER BY model DESC LIMIT 1) AS t "
            f"CROSS JOIN ({first} ORDER BY model LIMIT 1) AS b "
            f"LEFT JOIN ({first} AND model >= %(model)s ORDER BY model LIMIT 1) AS f ON true",
            {**parameters, "model": model},
        )
        return Coverage(False, False) if row is None else Coverage(bool(row[0]), bool(row[1]))

    def nearest(self, scope: DocScope, model: str, vector: Vector, limit: int) -> list[int]:
        """The width's HNSW index when the planner prefers it, else an exact scan.

        The index (half floats) proposes :func:`~memlane.storage.postgres.search.half_candidates`
        vectors, scanned iteratively so that the scope filter still leaves that many; they are
        ranked by their stored float32 vectors, ties by doc id. Vectors too wide for an index
        are ranked exactly as stored.
        """
        sql, parameters = self.nearest_query(scope, model, vector, limit)
        return [row[0] for row in self._search(sql, parameters, ef_search=parameters["candidates"])]

    def nearest_query(
        self, scope: DocScope, model: str, vector: Vector, limit: int
    ) -> tuple[str, dict[str, Any]]:
        """The SQL and parameters of :meth:`nearest` (for ``EXPLAIN``: is the index used?)."""
        where, parameters = search_scope(*scope)
        parameters |= {
            "model": model,
            "query": search.vector_literal(vector),
            "limit": limit,
            "candidates": search.half_candidates(limit),
        }
        return search.nearest_sql(where, len(vector)), parameters

    def lexical(self, scope: DocScope, terms: Sequence[str], limit: int) -> list[int]:
        """BM25 as FTS5 computes it (k1 = 1.2, b = 0.75), over the scope's statistics.

        Rather than the whole table's (no other tenant sways a score), a doc's length counted
        in distinct tokens, a tenant-wide scope's size read from the counts the writes keep
        (:func:`~memlane.storage.postgres.search.counted_docs`), and the average length of a
        scope beyond :data:`~memlane.storage.postgres.search.BM25_LENGTH_SAMPLE` docs
        estimated from that many.
        Only the terms that name few documents of the scope are matched, when the query has
        some (:meth:`_telling`), as on SQLite.
        """
        where, parameters = search_scope(*scope)
        terms = self._telling(terms, where, parameters)
        # A tenant-wide scope's N from the counts (migration 21): counted, it was an
        # index-only walk of the tenant's docs at every search. A subject's docs are counted.
        docs = search.counted_docs(scope.kind) if scope.subject is None else None
        rows = self.db.fetchall(
            search.bm25_sql(where, docs),
            {
                **parameters,
                "words": " ".join(terms),
                "match": search.tsquery(terms),
                "limit": limit,
            },
        )
        return [row[0] for row in rows]

    def _telling(
        self, terms: Sequence[str], where: str, parameters: dict[str, Any]
    ) -> Sequence[str]:
        """The terms held by at most :data:`~memlane.storage.lexical.COMMON_DOCS` docs in scope.

        All of them when none is held by more; the rarest one alone when every one is (as
        :meth:`memlane.storage.sqlite.full_text.FullTextIndex._telling`). BM25 scores every doc
        the match holds: a question's common word ("about", in a sixth of the notes) made a
        tenant-wide search of 10^5 notes score 17,000 of them. Each term is counted in the
        scope up to the bound (at most that many docs read a term); exactly only when every
        term is past it.
        """
        if len(terms) < 2:
            return terms
        held = self._held(terms, where, parameters, lexical.COMMON_DOCS + 1)
        kept = [term for term in terms if held[term] <= lexical.COMMON_DOCS]
        if len(kept) == len(terms):
            return terms
        if kept:
            return kept
        exact = self._held(terms, where, parameters, None)
        return [min(terms, key=exact.__getitem__)]

    def _held(
        self, terms: Sequence[str], where: str, parameters: dict[str, Any], bound: int | None
    ) -> dict[str, int]:
        """How many docs in scope hold each term, up to ``bound`` (one statement)."""
        rows = self.db.fetchall(
            search.held_sql(where, bound),
            {
                **parameters,
                "terms": list(terms),
                "queries": [search.tsquery([term]) for term in terms],
            },
        )
        return {row[0]: int(row[1]) for row in rows}

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
            self._iterative_scan = row is not None and search.version(row[0]) >= (0, 8)
        depth = min(max(ef_search, search.EF_SEARCH_DEFAULT), search.EF_SEARCH_MAX)
        settings = f"SELECT set_config('hnsw.ef_search', '{depth}', true)"
        if self._iterative_scan:
            settings += ", set_config('hnsw.iterative_scan', 'relaxed_order', true)"
        return settings

    # -- purge --------------------------------------------------------------------------

    def compact(self, tables: Sequence[str], needles: Sequence[bytes]) -> BytesCheck:
        """Rewrite ``tables`` (and the workflow tables), so purged values leave the files.

        A DELETE (and the UPDATE that marked a row deleted, or scrubbed a workflow) only
        flags the old row version dead: its bytes stay in the heap page until VACUUM. A plain
        VACUUM is not enough: it prunes the page but leaves the freed bytes where they were
        (measured on PostgreSQL 18: a deleted value stays readable in the heap file), and a
        GIN index never drops the keys of emptied posting lists, so the search tokens of a
        purged text would stay in ``search_docs_tokens``. ``VACUUM FULL`` writes each table
        and its indexes to new files and truncates the old ones, as SQLite's VACUUM rebuilds
        its file. It cannot run in a transaction, hence after the commit, on a pooled
        autocommit connection. It holds each table's exclusive lock while copying it (one
        table at a time), as SQLite's VACUUM holds the whole file; while it waits for that
        lock every other query on the table queues behind it, so the wait is bounded by the
        database's lock timeout (a long export or a stuck transaction makes the purge fail
        instead of stalling every worker). The new files reach disk at the next checkpoint;
        WAL segments and base backups keep their copies until they are recycled.

        A deleted row that a running transaction might still see is copied like a live one,
        so the rewrite first waits, as long as the lock timeout, for the sessions whose
        snapshots predate the purge (:mod:`~memlane.storage.postgres.snapshots`); one still
        there makes the answer ``False``, naming it, and the deletions stay due.

        The rewrite is not verified: the table files belong to the server, and reading their
        pages from a client needs ``pageinspect`` and superuser rights, which an application
        role does not have. So ``needles`` are not looked for, and the answer says so
        (``bytes_verified`` is ``None``, unknown, never ``True``).
        """
        names = ", ".join([*tables, *_SCRUBBED])
        timeout = f"{int(self.db.lock_timeout * 1000)}ms"
        # VACUUM skips a table its role may not maintain with only a WARNING; the purge
        # would then claim bytes gone that are still there, so warnings are errors here.
        warnings: list[str] = []

        def collect(notice: Any) -> None:
            if notice.severity_nonlocalized == "WARNING":
                warnings.append(str(notice.message_primary))

        try:
            # SET is per connection, so the pooled connection is borrowed for all of it.
            with self.db.pool.connection() as connection:
                after_purge = snapshots.boundary(connection)
                held = snapshots.wait_for_older(connection, after_purge, self.db.lock_timeout)
                connection.add_notice_handler(collect)
                connection.execute(f"SET lock_timeout = '{timeout}'")
                try:
                    connection.execute(f"VACUUM FULL {names}")
                finally:
                    connection.execute("RESET lock_timeout")
                    connection.remove_notice_handler(collect)
        except psycopg.errors.LockNotAvailable as error:
            raise StorageError(
                f"purged rows are deleted, but rewriting {names} could not take a table lock "
                f"within {self.db.lock_timeout:g} s (a long transaction holds it); the "
                f"deletions stay due and the next purge retries: {error}"
            ) from error
        except psycopg.Error as error:
            raise StorageError(f"PostgreSQL error while rewriting {names}: {error}") from error
        if warnings:
            raise StorageError(
                f"purged rows are deleted, but rewriting {names} was refused: "
                f"{'; '.join(warnings)} (the role needs to own the tables, or the MAINTAIN "
                "privilege on them); the deletions stay due and the next purge retries"
            )
        if held:
            return BytesCheck(False, tuple(held), complete=False)
        return BytesCheck(None, (UNVERIFIED,))

    # -- archive ------------------------------------------------------------------------

    @contextmanager
    def snapshot(self) -> Iterator[archive.PostgresArchiveReader]:
        """A read-only, repeatable-read transaction: every table as of one instant."""
        try:
            with self.db.pool.connection() as connection, connection.transaction():
                connection.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                yield archive.PostgresArchiveReader(connection)
        except psycopg.Error as error:
            raise StorageError(f"PostgreSQL error: {error}") from error

    def stored_rows(self, table: str, keys: Sequence[tuple[Any, ...]]) -> Iterator[ArchiveRow]:
        """The stored rows with these keys, in one statement over key arrays."""
        spec = table_named(table)
        if len(spec.key) == 1:
            where = f"{spec.key[0]} = ANY(%s)"
            parameters: list[Any] = [[key[0] for key in keys]]
        else:
            # Composite keys are text (attributes, turns): pairs from two parallel arrays.
            where = f"({', '.join(spec.key)}) IN (SELECT * FROM unnest(%s::text[], %s::text[]))"
            parameters = [[key[0] for key in keys], [key[1] for key in keys]]
        sql = f"SELECT {archive.select(spec)} FROM {spec.name} WHERE {where}"
        for values in self.db.fetchall(sql, parameters):
            yield archive.decoded(spec, values)

    def insert_rows(self, table: str, rows: Sequence[ArchiveRow]) -> None:
        """One statement for the chunk, with the derived columns."""
        self.db.execute(*archive.insert(table_named(table), rows))

    def finish_load(self) -> None:
        """Move each id sequence past the loaded ids; index every loaded vector width."""
        with self.db.write():
            self.db.wrote()
            for name in _IDENTITY_TABLES:
                # nextval then setval(..., false): the next id is the larger of the two, and a
                # sequence already ahead (ids of purged rows) never moves back.
                self.db.fetchone(
                    f"SELECT setval(pg_get_serial_sequence('{name}', 'id'), "
                    f"greatest((SELECT coalesce(max(id), 0) FROM {name}) + 1, "
                    f"nextval(pg_get_serial_sequence('{name}', 'id'))), false)"
                )
            widths = self.db.fetchall(
                "SELECT DISTINCT dims FROM search_docs WHERE dims IS NOT NULL ORDER BY dims"
            )
            for (dims,) in widths:
                search.ensure_vector_index(self.db, int(dims))
        for name in (*_IDENTITY_TABLES, "attributes", "turns", "api_keys"):
            self.db.execute(f"ANALYZE {name}")


def _element(value: str | int | float | None) -> str:
    """One element of an array literal (:meth:`PostgresDialect.array`)."""
    if value is None:
        return "NULL"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, int):
        return str(value)
    return repr(float(value))  # a finite float (confidence): repr reads back exactly
