"""What SQLite does its own way: exact vector scans, ``rowid``, VACUUM, archive I/O.

FTS5 (the lexical search and the rows it reads) is :mod:`.full_text`'s.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from operator import itemgetter
from typing import TYPE_CHECKING, Any, TypeVar, cast

from memlane.errors import StorageError
from memlane.storage import vectors
from memlane.storage.archive import table_named
from memlane.storage.archiving import ArchiveRow
from memlane.storage.base import Coverage, DocKind
from memlane.storage.sql.dialect import (
    NOTE_KEY_COLUMNS,
    BytesCheck,
    DocScope,
    KeyRange,
    Vector,
)
from memlane.storage.sql.summaries import coverage, vector_state
from memlane.storage.sqlite import evidence
from memlane.storage.sqlite.ann import VectorIndexes
from memlane.storage.sqlite.full_text import FullTextIndex
from memlane.storage.sqlite.graph_rows import change_stamp
from memlane.storage.sqlite.scan_matrices import ScanMatrices

if TYPE_CHECKING:
    from memlane.storage.sqlite.database import SQLiteDatabase

_NULLABLE = frozenset({0, 1, 10, 11})
"""The columns of a new version :meth:`SQLiteDialect.insert_versions` may find ``None`` in:
``id``, ``tx_to``, ``source``, ``reason``."""

STATE_CACHE_ENTRIES = 10_000
"""How many scopes' vector counts and coverages a database keeps (all dropped when full)."""
_LOOKUP_CHUNK = 400
"""Keys per archive lookup statement (two parameters each at most; SQLite allows 32,766)."""
BY_MODEL = "substr({}model, 1)"
"""A doc's model as ``search_docs_by_model`` (migration 17) indexes it (``.format('d.')``
qualifies it): an expression no other query names. Indexed as the plain column, it was the
index SQLite's planner (without statistics) chose for reads asking ``model = ?`` in their
scope: every doc of the model read to find a few owners' vectors."""

_Scope = tuple[str, str | None, DocKind, str]
_T = TypeVar("_T")


class SQLiteDialect:
    """:class:`memlane.storage.sql.Dialect` of one SQLite database."""

    fact_slot = ""
    apply_function = ""
    write_view_function = ""
    turn_order = "rowid"
    # No round trips to save: 32 a statement made a fresh connection compile parts of up to
    # 32 and seek the padding's; 8 read a first recall's ~70 kinds in 3.6-3.9 ms instead of
    # 5.2-5.4, and steady recalls' kinds no slower (docs/benchmarks.md, stop 43).
    kinds_per_read = 8
    doc_tokens = ""
    skip_locked = ""
    vector_read = "vector"
    # Every read of the process waits while a write holds the one connection (6,600 rows of
    # a 20,000-character note: 40-80 ms at load 5); a part of 256 is a few ms.
    key_rows_per_write: int | None = 256
    put_turn = (
        "INSERT OR REPLACE INTO turns (id, tenant, subject, session_id, role, speaker, "
        "content, said_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)"
    )

    def embedded_by_others(self, where: str, models: str) -> str:
        """The docs another model embedded, by seeks of ``search_docs_by_model`` (migration 17).

        ``model != x`` is no index range: the indexer's claim of any tenant's docs read every
        row of the table each time it looked for work and found none (after every write:
        72-100 ms at 10^5 docs, holding the connection every search waits for). The index
        gives each model's docs in id order: the models present are found one seek each (the
        next after the one before), and of each model other than ``x`` the docs up to its
        ``limit``-th claimable one in scope are read; the claim takes the first ``limit`` of
        them all by id, the same docs in the same order as ``ORDER BY id`` of every such doc.
        With no doc of another model, that is a seek per model present. The plain condition
        stays beside it: a tenant's claim then reads the tenant's index entries as before
        (its model is in them) instead of each of its docs' rows.
        """
        claimable = "(claimed_until IS NULL OR claimed_until < %(now)s)"
        live = "model IS NOT NULL AND deleted_at IS NULL"  # the index's rows
        model, in_d, in_e = (BY_MODEL.format(table) for table in ("", "d.", "e."))
        return (
            "model IS NOT NULL AND model != %(model)s AND id IN ("
            "WITH RECURSIVE models (model) AS ("
            f"SELECT min({model}) FROM search_docs WHERE {models} AND {live} "
            f"UNION ALL SELECT (SELECT min({model}) FROM search_docs WHERE {models} "
            f"AND {live} AND {model} > models.model) FROM models "
            "WHERE models.model IS NOT NULL) "
            # (models first, and the index named: with statistics of a table whose models
            # change, the planner scanned every doc instead)
            f"SELECT d.id FROM models CROSS JOIN search_docs AS d INDEXED BY "
            f"search_docs_by_model ON {in_d} = models.model AND d.model IS NOT NULL "
            "AND d.id <= coalesce((SELECT e.id FROM search_docs AS e INDEXED BY "
            f"search_docs_by_model WHERE {in_e} = models.model AND {live} "
            f"AND {where} AND {claimable} ORDER BY e.id LIMIT 1 OFFSET %(limit)s - 1), "
            f"{2**63 - 1}) WHERE models.model != %(model)s AND {where} AND {claimable})"
        )

    def __init__(self, database: SQLiteDatabase) -> None:
        self.db = database
        self.vector_indexes = VectorIndexes(database)
        self.scans = ScanMatrices(database, database.doc_changes, self._scope_state)
        self.full_text = FullTextIndex(database)
        # Per (what, scope): the change stamp it was read at, and what was read.
        self._states: dict[tuple[Any, ...], tuple[tuple[int, int], Any]] = {}
        self._states_lock = threading.Lock()

    def bytewise(self, column: str) -> str:
        """SQLite compares text byte by byte already (``BINARY``)."""
        return column

    def ascii_lower(self, column: str) -> str:
        """SQLite's ``lower`` folds ASCII letters only (no ICU)."""
        return f"lower({column})"

    def any_of(self, column: str) -> str:
        """One JSON array parameter: no statement grows with the ids, no chunking."""
        return f"{column} IN (SELECT value FROM json_each(%s))"

    def filter_only(self, column: str) -> str:
        """SQLite's unary ``+``: the term cannot use an index, so the owners' index leads."""
        return f"+{column}"

    def ids(self, ids: Sequence[int] | Sequence[str]) -> Any:
        """The ids as the JSON array :meth:`any_of` reads."""
        return json.dumps(list(ids))

    def array(self, values: Sequence[str | int | float | None]) -> Any:
        """A JSON array (SQLite has no :attr:`apply_function` to take one)."""
        return json.dumps(list(values))

    def key_ranges(self, ranges: Sequence[KeyRange]) -> tuple[str, tuple[Any, ...]]:
        """One JSON array parameter of ``[subject, attribute, lo, hi]`` rows."""
        source = (
            "(SELECT json_extract(value, '$[0]') AS subject, json_extract(value, '$[1]') "
            "AS attribute, json_extract(value, '$[2]') AS lo, json_extract(value, '$[3]') AS hi "
            "FROM json_each(%s)) AS k"
        )
        return source, (json.dumps(list(ranges)),)  # each range a tuple: a JSON array

    def new_ids(self, table: str, count: int) -> list[int]:
        """After the largest id: the next ``rowid`` SQLite would give (the write lock is held)."""
        last = int(self.db.fetchone(f"SELECT coalesce(max(id), 0) FROM {table}")[0])
        return list(range(last + 1, last + 1 + count))

    def close_versions(self, closes: Sequence[tuple[int, int]]) -> int:
        """One prepared ``UPDATE``, run per version (in-process: no round trips to save)."""
        return self.db.executemany(
            "UPDATE facts SET tx_to = %s WHERE id = %s AND tx_to IS NULL",
            [(tx, fact_id) for fact_id, tx in closes],
        )

    def insert_versions(self, tenant: str, rows: Sequence[Sequence[Any]]) -> None:
        """One prepared ``INSERT``, run per version (an ``id`` of ``None`` is the next rowid).

        A column that is ``NULL`` in every row (usually ``tx_to``, ``source`` and
        ``reason``; ``id`` without ids) is written as ``NULL`` in the statement instead of
        bound per row: Python's ``sqlite3`` looks for an adapter of every ``None`` it binds
        (~3,300 instructions each, a tenth of a version's cost), and binds the rest as they
        are.
        """
        if not rows:
            return
        count = len(rows)
        bound = [
            n
            for n in range(15)
            if n not in _NULLABLE or list(map(itemgetter(n), rows)).count(None) < count
        ]
        values = ", ".join("%s" if n in bound else "NULL" for n in range(15))
        if len(bound) < 15:
            rows = list(map(itemgetter(*bound), rows))
        self.db.executemany(
            "INSERT INTO facts (id, tx_to, tenant, subject, attribute, value, value_key, "
            "valid_from, valid_to, tx_from, source, reason, confidence, provenance, stated_tx) "
            f"VALUES ({values})",
            rows,
        )

    def insert_note_keys(self, rows: Sequence[Sequence[Any]]) -> None:
        """One prepared ``INSERT``, run per row."""
        self.db.executemany(
            f"INSERT INTO note_keys ({NOTE_KEY_COLUMNS}) VALUES ({', '.join(['%s'] * 7)})", rows
        )

    def index_hint(self, index: str) -> str:
        """``INDEXED BY``: the planner misjudges a few queries without it."""
        return f"INDEXED BY {index}"

    def row_key(self, table: str) -> str:
        """Every table has a ``rowid``."""
        return "rowid"

    # -- search -------------------------------------------------------------------------

    def add_doc(self, doc_id: int, tenant: str, subject: str, kind: DocKind, text: str) -> None:
        """Index the doc in FTS5, with its scope tokens (:meth:`.FullTextIndex.add`)."""
        self.full_text.add(doc_id, tenant, subject, kind, text)

    def drop_docs(self, doc_ids: Sequence[int]) -> None:
        """Remove the docs from FTS5 (:meth:`.FullTextIndex.drop`)."""
        self.full_text.drop(doc_ids)

    def vectors_need_no_lock(self, widths: set[int]) -> bool:
        """Always (SQLite has one writer at a time anyway)."""
        return True

    def put_vectors(self, model: str, vectors: Sequence[tuple[int, bytes]]) -> None:
        """Store the float32 blobs as they are; once committed, they are kept in memory too.

        (:mod:`.recent_vectors`: a search ranking what its graph lacks reads them from there.)
        """
        self.db.executemany(
            "UPDATE search_docs SET model = %s, vector = %s, claimed_until = NULL "
            "WHERE id = %s AND deleted_at IS NULL",
            [(model, blob, doc_id) for doc_id, blob in vectors],
        )
        recent = self.vector_indexes.recent
        if recent is not None:
            written_at = recent.written_at()
            self.db.after_commit(lambda: recent.keep(model, vectors, written_at))

    def nearest(self, scope: DocScope, model: str, vector: Vector, limit: int) -> list[int]:
        """A large scope's graph (:mod:`.ann`), else exact: the scope's matrix @ query.

        The matrix is kept in step with the scope (:mod:`.scan_matrices`).
        """
        key: _Scope = (*scope, model)
        found = self.vector_indexes.nearest(scope, model, vector, limit)
        if found is not None:
            self.scans.forget(key)  # the graph serves this scope now
            return found
        scan = self.scans.matrix(key)
        return vectors.nearest(vector, scan.owners, scan.matrix, limit)

    def vector_state(self, scope: DocScope, model: str) -> tuple[int, int, int]:
        """Counted again only once the database changed (:meth:`_until_changed`)."""
        return self._until_changed(
            ("state", *scope, model), lambda: vector_state(self.db, *scope, model)
        )

    def _scope_state(self, key: _Scope) -> tuple[int, int, int]:
        tenant, subject, kind, model = key
        return self.vector_state(DocScope(tenant, subject, kind), model)

    def coverage(self, scope: DocScope, model: str) -> Coverage:
        """Asked again only once the database changed (:meth:`_until_changed`)."""
        return self._until_changed(
            ("coverage", *scope, model), lambda: coverage(self.db, *scope, model)
        )

    def _until_changed(self, key: tuple[Any, ...], read: Callable[[], _T]) -> _T:
        """What ``read`` returns, read again only once the database changed.

        (:func:`.graph_rows.change_stamp`.) Not kept inside a write transaction: what it
        changed may yet be rolled back.
        """
        stamp = change_stamp(self.db)
        with self._states_lock:
            kept = self._states.get(key)
        if kept is not None and kept[0] == stamp and not self.db.in_transaction:
            return cast(_T, kept[1])
        value = read()
        if not self.db.in_transaction:
            with self._states_lock:
                if len(self._states) >= STATE_CACHE_ENTRIES:
                    self._states.clear()
                self._states[key] = (stamp, value)
        return value

    def lexical(self, scope: DocScope, terms: Sequence[str], limit: int) -> list[int]:
        """FTS5's BM25 in the scope (:meth:`.FullTextIndex.search`)."""
        return self.full_text.search(scope, terms, limit)

    # -- purge --------------------------------------------------------------------------

    def purge_index(self, tenant: str, subject: str) -> dict[str, int]:
        """Remove the FTS5 rows of the subject's deleted docs."""
        docs = self.db.fetchall(
            "SELECT id FROM search_docs WHERE tenant = %s AND subject = %s "
            "AND deleted_at IS NOT NULL",
            (tenant, subject),
        )
        self.drop_docs([row[0] for row in docs])
        self.vector_indexes.purged(tenant, subject)
        return {"search_fts": len(docs)}

    def compact(self, tables: Sequence[str], needles: Sequence[bytes]) -> BytesCheck:
        """Merge FTS segments, VACUUM, checkpoint the WAL, then scan every file for ``needles``.

        The checkpoint's answer is checked and retried for a bounded time without blocking
        other writers (:func:`evidence.checkpoint`); only the scan decides the answer.
        """
        with self.db.lock:
            self.full_text.merge()
            self.db.execute("VACUUM")
        if self.db.path == ":memory:":
            return BytesCheck(None, ("an in-memory database has no files to scan",))
        return evidence.scan(self.db, needles, evidence.checkpoint(self.db))

    # -- archive ------------------------------------------------------------------------

    @contextmanager
    def snapshot(self) -> Iterator[SQLiteArchiveReader]:
        """One read transaction: in WAL mode, the file as of its first read."""
        with self.db.lock:
            began = not self.db.connection.in_transaction
            if began:
                self.db.execute("BEGIN")
            try:
                yield SQLiteArchiveReader(self.db)
            finally:
                if began and self.db.connection.in_transaction:
                    self.db.execute("COMMIT")

    def stored_rows(self, table: str, keys: Sequence[tuple[Any, ...]]) -> Iterator[ArchiveRow]:
        """The stored rows with these keys, a few hundred keys per statement."""
        spec = table_named(table)
        width = len(spec.key)
        for start in range(0, len(keys), _LOOKUP_CHUNK):
            part = keys[start : start + _LOOKUP_CHUNK]
            one = "(" + ", ".join(["%s"] * width) + ")"
            where = f"({', '.join(spec.key)}) IN (VALUES {', '.join([one] * len(part))})"
            for values in self.db.fetchall(
                f"SELECT {', '.join(spec.names)} FROM {spec.name} WHERE {where}",
                [value for key in part for value in key],
            ):
                yield dict(zip(spec.names, values, strict=True))

    def insert_rows(self, table: str, rows: Sequence[ArchiveRow]) -> None:
        """Insert the rows as they are, and the full-text rows of search docs."""
        spec = table_named(table)
        self.db.executemany(
            f"INSERT INTO {spec.name} ({', '.join(spec.names)}) "
            f"VALUES ({', '.join(['%s'] * len(spec.names))})",
            [tuple(row[name] for name in spec.names) for row in rows],
        )
        if spec.name == "search_docs":
            self.full_text.add_rows(rows)

    def finish_load(self) -> None:
        """Nothing to do: SQLite picks the next id after the largest one stored."""

    def close(self) -> None:
        """Stop building vector graphs (before the connection closes)."""
        self.vector_indexes.close()


class SQLiteArchiveReader:
    """Reads inside :meth:`SQLiteDialect.snapshot` (one read transaction)."""

    def __init__(self, database: SQLiteDatabase) -> None:
        self.db = database

    def count(self, table: str) -> int:
        """The number of rows in ``table``."""
        return int(self.db.fetchone(f"SELECT count(*) FROM {table_named(table).name}")[0])

    def rows(self, table: str, chunk: int) -> Iterator[list[ArchiveRow]]:
        """Every row by primary key (turns by insertion order), ``chunk`` at a time."""
        spec = table_named(table)
        # rowid is the order in which turns said at the same instant are read back.
        order = "rowid" if spec.name == "turns" else ", ".join(spec.key)
        cursor = self.db.cursor(f"SELECT {', '.join(spec.names)} FROM {spec.name} ORDER BY {order}")
        while True:
            try:
                fetched = cursor.fetchmany(chunk)
            except sqlite3.Error as error:
                raise StorageError(f"SQLite error: {error}") from error
            if not fetched:
                return
            yield [dict(zip(spec.names, row, strict=True)) for row in fetched]
