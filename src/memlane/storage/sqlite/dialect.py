"""What SQLite does its own way: exact vector scans, FTS5, ``rowid``, VACUUM, archive I/O."""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar, cast

import numpy as np
import numpy.typing as npt

from memlane.errors import StorageError
from memlane.storage import lexical, vectors
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
from memlane.storage.sql.summaries import coverage, search_scope, vector_state
from memlane.storage.sqlite import evidence
from memlane.storage.sqlite.ann import VectorIndexes
from memlane.storage.sqlite.graph_rows import change_stamp

if TYPE_CHECKING:
    from memlane.storage.sqlite.database import SQLiteDatabase

MATRIX_CACHE_ENTRIES = 64
"""How many scopes' vector matrices a database keeps in memory."""
STATE_CACHE_ENTRIES = 10_000
"""How many scopes' vector counts and coverages a database keeps (all dropped when full)."""
_LOOKUP_CHUNK = 400
COMMON_DOCS = lexical.COMMON_DOCS
"""A query term held by more documents of the scope is left out (:meth:`SQLiteDialect.lexical`)."""
LARGE_SCOPE = 2_000
"""A scope whose token more documents hold than this, and at least half of the index, is not
ANDed into a lexical match whose terms few documents hold (at most :data:`FEW_MATCHES` in
every scope together): the matches are filtered by scope through ``search_docs`` instead.
FTS5 reads a token's whole doclist for the AND, 8-15 ms at 10^5 documents against under 1 ms
for the match alone. A token held by half the index or more has FTS5's floor of an IDF
(1e-6), so its term adds nothing to BM25 and leaving it out ranks as before."""
VOCABULARY_ENTRIES = 10_000
"""Vocabulary counts kept (:meth:`SQLiteDialect._held`) before the memory is cleared."""
BY_MODEL = "substr({}model, 1)"
"""A doc's model as ``search_docs_by_model`` (migration 17) indexes it (``.format('d.')``
qualifies it): an expression no other query names. Indexed as the plain column, it was the
index SQLite's planner (without statistics) chose for reads asking ``model = ?`` in their
scope: every doc of the model read to find a few owners' vectors."""
VOCABULARY_LOOKUPS = 200
"""Vocabulary counts read per statement (SQLite joins at most 500 selects in one)."""
FEW_MATCHES = 5_000
"""Most documents (in every scope) a lexical match may hold to be filtered by scope."""
OVERFETCH = 2
"""Best matches of every scope read per match wanted, when the scope holds most of the index."""
"""Keys per archive lookup statement (two parameters each at most; SQLite allows 32,766)."""

Matrix = npt.NDArray[np.float32]
_Scope = tuple[str, str | None, DocKind, str]
_Counted = str | tuple[str, str] | None
"""What a count is kept of: a term's documents (``None``: the index's), or a term's in a scope."""
_T = TypeVar("_T")
_FTS_SCOPE = ("tenant", "subject", "kind", "text")


class SQLiteDialect:
    """:class:`memlane.storage.sql.Dialect` of one SQLite database."""

    fact_slot = ""
    apply_function = ""
    write_view_function = ""
    turn_order = "rowid"
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
        # Per scope: the vector_state it was loaded at, its owner ids and their vectors.
        self._matrices: dict[_Scope, tuple[tuple[int, int, int], list[int], Matrix]] = {}
        self._matrices_lock = threading.Lock()
        self.vector_indexes = VectorIndexes(database)
        # Per (what, scope): the change stamp it was read at, and what was read.
        self._states: dict[tuple[Any, ...], tuple[tuple[int, int], Any]] = {}
        # The full-text stamp (:meth:`_text_stamp`) the counts of terms were read at, and the
        # counts (:meth:`_held`, :meth:`_in_scope`); the full-text writes this connection
        # made (each moves the stamp).
        self._vocabulary: tuple[tuple[bytes, int] | None, dict[_Counted, int]] = (None, {})
        self._text_writes = 0

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
        return source, (json.dumps([list(r) for r in ranges]),)

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
        """One prepared ``INSERT``, run per version (an ``id`` of ``None`` is the next rowid)."""
        self.db.executemany(
            "INSERT INTO facts (id, tx_to, tenant, subject, attribute, value, value_key, "
            "valid_from, valid_to, tx_from, source, reason, confidence, provenance, stated_tx) "
            f"VALUES ({', '.join(['%s'] * 15)})",
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
        """Index the doc in FTS5, with its scope tokens."""
        self._text_written()
        self.db.execute(
            "INSERT INTO search_fts (rowid, tokens) VALUES (%s, %s)",
            (doc_id, fts_tokens(tenant, subject, kind, text)),
        )

    def drop_docs(self, doc_ids: Sequence[int]) -> None:
        """Remove the docs from FTS5."""
        # One rowid at a time: FTS5 seeks an equality, but scans for a list.
        self._text_written()
        self.db.executemany("DELETE FROM search_fts WHERE rowid = %s", [(i,) for i in doc_ids])

    def vectors_need_no_lock(self, widths: set[int]) -> bool:
        """Always (SQLite has one writer at a time anyway)."""
        return True

    def put_vectors(self, model: str, vectors: Sequence[tuple[int, bytes]]) -> None:
        """Store the float32 blobs as they are."""
        self.db.executemany(
            "UPDATE search_docs SET model = %s, vector = %s, claimed_until = NULL "
            "WHERE id = %s AND deleted_at IS NULL",
            [(model, blob, doc_id) for doc_id, blob in vectors],
        )

    def nearest(self, scope: DocScope, model: str, vector: Vector, limit: int) -> list[int]:
        """A large scope's graph (:mod:`.ann`), else exact: the scope's matrix @ query.

        The matrix is cached until the scope changes.
        """
        found = self.vector_indexes.nearest(scope, model, vector, limit)
        if found is not None:
            with self._matrices_lock:
                self._matrices.pop((*scope, model), None)  # the graph serves this scope now
            return found
        owners, matrix = self._matrix(scope, model)
        return vectors.nearest(vector, owners, matrix, limit)

    def vector_state(self, scope: DocScope, model: str) -> tuple[int, int, int]:
        """Counted again only once the database changed (:meth:`_until_changed`)."""
        return self._until_changed(
            ("state", *scope, model), lambda: vector_state(self.db, *scope, model)
        )

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
        with self._matrices_lock:
            kept = self._states.get(key)
        if kept is not None and kept[0] == stamp and not self.db.in_transaction:
            return cast(_T, kept[1])
        value = read()
        if not self.db.in_transaction:
            with self._matrices_lock:
                if len(self._states) >= STATE_CACHE_ENTRIES:
                    self._states.clear()
                self._states[key] = (stamp, value)
        return value

    def _matrix(self, scope: DocScope, model: str) -> tuple[list[int], Matrix]:
        """The scope's owner ids and vectors, loaded again only when the scope changed."""
        key: _Scope = (*scope, model)
        state = self.vector_state(scope, model)
        with self._matrices_lock:
            cached = self._matrices.get(key)
        if cached is not None and cached[0] == state:
            return cached[1], cached[2]
        where, parameters = search_scope(*scope)
        rows = self.db.fetchall(
            f"SELECT owner_id, vector FROM search_docs WHERE {where} AND model = %(model)s "
            "ORDER BY id",
            {**parameters, "model": model},
        )
        owners, matrix = [row[0] for row in rows], vectors.as_matrix([row[1] for row in rows])
        with self._matrices_lock:
            if len(self._matrices) >= MATRIX_CACHE_ENTRIES:
                self._matrices.pop(next(iter(self._matrices)))
            self._matrices[key] = (state, owners, matrix)
        return owners, matrix

    def lexical(self, scope: DocScope, terms: Sequence[str], limit: int) -> list[int]:
        """FTS5's BM25, the scope token ANDed into the match so FTS5 itself narrows it.

        Only the terms that name few documents of the scope are matched, when the query has
        some (:meth:`_telling`): BM25 scores every document the match holds, so a word most of
        a large scope says would cost a score per document, for a weight near nothing.
        """
        tenant, subject, kind = scope
        token = lexical.scope_token(tenant, kind, *(() if subject is None else (subject,)))
        telling = self._telling(terms, token)
        words = " OR ".join(_phrase(term) for term in telling)
        match = f'({words}) AND "{token}"'
        if self._few_in_large(telling, token):
            match = f"({words})"  # the scope is filtered by search_docs
            found = self._best_in_scope(scope, match, limit)
            if found is not None:
                return found
        where, parameters = search_scope(tenant, subject, kind, alias="d.")
        rows = self.db.fetchall(
            "SELECT d.owner_id FROM search_fts JOIN search_docs AS d ON d.id = search_fts.rowid "
            f"WHERE search_fts MATCH %(match)s AND {where} "
            "ORDER BY bm25(search_fts), d.id LIMIT %(limit)s",
            {**parameters, "match": match, "limit": limit},
        )
        return [row[0] for row in rows]

    def _best_in_scope(self, scope: DocScope, match: str, limit: int) -> list[int] | None:
        """The ``limit`` best matches in scope, from the best of every scope; ``None``: too few.

        The scope holds most of the index (:meth:`_few_in_large`), so the best
        :data:`OVERFETCH` times ``limit`` matches of every scope are read in BM25's order
        (ties by id, as the joined query orders them) and only they are looked up in
        ``search_docs``: a few rows instead of every match's (each row of ``search_docs``
        holds a vector: one page read each in a large file). If fewer than ``limit`` of them
        are in scope while more matches exist, the caller asks the joined query.
        """
        wanted = OVERFETCH * limit
        best = [
            row[0]
            for row in self.db.fetchall(
                "SELECT rowid FROM search_fts WHERE search_fts MATCH %s "
                "ORDER BY bm25(search_fts), rowid LIMIT %s",
                (match, wanted),
            )
        ]
        where, parameters = search_scope(*scope, alias="+")
        owners = dict(
            self.db.fetchall(
                "SELECT id, owner_id FROM search_docs WHERE id IN "
                f"(SELECT value FROM json_each(%(ids)s)) AND {where}",
                {**parameters, "ids": json.dumps(best)},
            )
        )
        kept = [owners[doc] for doc in best if doc in owners]
        if len(kept) < limit and len(best) == wanted:
            return None
        return kept[:limit]

    def _held(self, terms: Sequence[str | None]) -> dict[str | None, int]:
        """How many documents of every scope hold each term (FTS5's vocabulary: an upper bound).

        ``None``: how many documents the index holds. The terms not kept are read in one
        statement; kept until the full-text index may have changed (:meth:`_kept`): a
        lookup costs about 0.4 ms in a large index (a scope's own token, held by each of its
        documents, 5 ms at 10^5 and 0.1-0.3 s at 10^6), and a recall asks for the same terms
        in several searches, while vectors stored meanwhile change none of them.
        """

        def read(missing: Sequence[_Counted]) -> dict[_Counted, int]:
            found: dict[_Counted, int] = dict.fromkeys(missing, 0)
            for start in range(0, len(missing), VOCABULARY_LOOKUPS):
                part = cast(list[str | None], missing[start : start + VOCABULARY_LOOKUPS])
                found.update(self._vocabulary_counts(part))
            return found

        kept = self._kept(terms, read)
        return {term: kept[term] for term in terms}

    def _in_scope(self, terms: Sequence[str], token: str) -> dict[str, int]:
        """How many documents of the scope (``token``) hold each term, up to COMMON_DOCS + 1.

        Kept as :meth:`_held`'s counts are: a question's common word ("about", in a sixth of
        a 10^5-note subject) was counted in its scope by every search asking it (0.4 ms
        each), and the count changes only with the full-text index.
        """

        def read(missing: Sequence[_Counted]) -> dict[_Counted, int]:
            return {
                pair: self.db.fetchone(
                    "SELECT count(*) FROM (SELECT 1 FROM search_fts WHERE search_fts MATCH %s "
                    "LIMIT %s)",
                    (f"{_phrase(pair[0])} AND {_phrase(pair[1])}", COMMON_DOCS + 1),
                )[0]
                for pair in cast(list[tuple[str, str]], missing)
            }

        kept = self._kept([(term, token) for term in terms], read)
        return {term: kept[(term, token)] for term in terms}

    def _kept(
        self,
        keys: Sequence[_Counted],
        read: Callable[[Sequence[_Counted]], dict[_Counted, int]],
    ) -> dict[_Counted, int]:
        """Counts of ``keys``: those not kept are ``read`` (at once), then kept.

        Until the full-text index may have changed (:meth:`_text_stamp`); nothing read inside
        a write transaction is kept (it may yet be rolled back).
        """
        stamp = self._text_stamp()
        with self._matrices_lock:
            if self._vocabulary[0] != stamp or len(self._vocabulary[1]) >= VOCABULARY_ENTRIES:
                self._vocabulary = (stamp, {})
            known = {key: self._vocabulary[1].get(key) for key in keys}
        missing = [key for key, count in known.items() if count is None]
        found: dict[_Counted, int] = {}
        if missing:
            found = read(missing)
            if not self.db.in_transaction:
                with self._matrices_lock:
                    if self._vocabulary[0] == stamp:
                        self._vocabulary[1].update(found)
        return {key: found[key] if count is None else count for key, count in known.items()}

    def _text_written(self) -> None:
        """Count a write to the full-text index (before it is made)."""
        with self._matrices_lock:
            self._text_writes += 1

    def _text_stamp(self) -> tuple[bytes, int]:
        """Moves whenever the full-text index may have changed.

        That is: a commit changed it (FTS5's structure record, ``search_fts_data`` id 10,
        which each commit that writes to the index rewrites with its write counter moved),
        or this connection wrote to it (every write here counts, rolled back or not). A vector
        stored, a claim taken or a fact written, here or in another process, does not move
        it. (``PRAGMA data_version`` cannot tell this connection's commits from another's on
        the read connections that a recall's reads run on.)
        """
        row = self.db.stamp_row("SELECT block FROM search_fts_data WHERE id = 10")
        return (b"" if row is None else bytes(row[0])), self._text_writes

    def _vocabulary_counts(self, terms: Sequence[str | None]) -> list[tuple[str | None, int]]:
        """The vocabulary's count of each term, in one statement (``None``: of documents).

        The documents are read from FTS5's own total (:func:`fts5_rows`), not counted: a
        count walked every document (23 ms at 10^5 cold, ten times that at 10^6), and it was
        read again at the first recall after every note written. FTS5 writes its total at
        the commit, so inside a write transaction they are counted.
        """
        parts: list[str] = []  # one equality lookup per term: fts5vocab indexes no IN
        parameters: list[str | None] = []
        for term in terms:
            if term is None and self.db.in_transaction:  # the total lags until the commit
                parts.append("SELECT %s, count(*) FROM search_fts_docsize")
                parameters.append(None)
            elif term is None:
                parts.append("SELECT %s, block FROM search_fts_data WHERE id = 1")
                parameters.append(None)
            else:
                parts.append("SELECT %s, doc FROM search_vocab WHERE term = %s")
                parameters += [term, term]
        rows = self.db.fetchall(" UNION ALL ".join(parts), parameters)
        return [(term, _documents(count) if term is None else int(count)) for term, count in rows]

    def _few_in_large(self, terms: Sequence[str], token: str) -> bool:
        """Whether ``terms`` match few documents and the scope (``token``) holds many.

        Then the match leaves the scope's token out (:data:`LARGE_SCOPE`).
        """
        if sum(self._held(terms).values()) > FEW_MATCHES:
            return False
        held = self._held([token, None])
        return held[token] > LARGE_SCOPE and 2 * held[token] >= held[None]

    def _telling(self, terms: Sequence[str], token: str) -> Sequence[str]:
        """The terms held by at most :data:`COMMON_DOCS` documents of the scope (``token``).

        All of them when none is held by more; the rarest one alone when every one is. FTS5's
        vocabulary counts a term's documents in every scope at once (an upper bound, read
        from its index in well under a millisecond); only a term above the bound there is
        counted in the scope, and only up to the bound.
        """
        if len(terms) < 2:
            return terms
        held = self._held(terms)
        scoped = self._in_scope([term for term in terms if held[term] > COMMON_DOCS], token)
        common = {term for term, count in scoped.items() if count > COMMON_DOCS}
        if not common:
            return terms
        return [term for term in terms if term not in common] or [min(terms, key=held.__getitem__)]

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
            self._text_written()
            self.db.execute("INSERT INTO search_fts (search_fts) VALUES ('optimize')")
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
            self._text_written()
            self.db.executemany(
                "INSERT INTO search_fts (rowid, tokens) VALUES (%s, %s)",
                [(row["id"], fts_tokens(*(str(row[n]) for n in _FTS_SCOPE))) for row in rows],
            )

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


def _phrase(term: str) -> str:
    """A term as an FTS5 string (a phrase of one token)."""
    return '"' + term.replace('"', '""') + '"'


def fts_tokens(tenant: str, subject: str, kind: str, text: str) -> str:
    """What FTS5 indexes for a search item: the text's tokens and its two scope tokens."""
    scopes = lexical.scope_token(tenant, kind), lexical.scope_token(tenant, kind, subject)
    return " ".join((lexical.document(text), *scopes))


def _documents(read: int | bytes) -> int:
    """The document count read: counted, or FTS5's averages record."""
    return fts5_rows(read) if isinstance(read, bytes) else int(read)


def fts5_rows(averages: bytes) -> int:
    """The rows an FTS5 table holds, from its ``_data`` record 1 (the "averages" record).

    FTS5 writes that record at every commit that inserted or deleted rows (not before): its
    first field is the total row count, an SQLite varint (big-endian, 7 bits a byte while
    the top bit is set; a ninth byte gives 8), followed by each column's token total. Empty
    until the first commit that inserted rows: no rows.
    """
    if not averages:
        return 0
    value = 0
    for position, byte in enumerate(averages[:9]):
        if position == 8:
            return (value << 8) | byte
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return value
    raise StorageError("the full-text index's averages record is truncated")
