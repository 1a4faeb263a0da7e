"""The summary lane on a SQL database: summary versions, notes, turns, and their search index.

Each searchable item (the current version of a summary, every note) has one ``search_docs``
row; its vector is filled later, so that writes never wait for an embedding model. Ranking
runs in the dialect, with the scope (tenant, subject, kind, not deleted) applied before it:
SQLite scans the scope's vectors exactly and ranks words with FTS5, PostgreSQL uses pgvector's
HNSW and BM25 over a ``tsvector``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from memlane.errors import InvalidInput
from memlane.facts.normalize import canonical_json
from memlane.storage import lexical
from memlane.storage.base import Coverage, DocKind, VectorClaim, scope_key
from memlane.storage.sql import rows as decode
from memlane.storage.sql.dialect import Database, DocScope
from memlane.storage.sql.note_keys import SQLNoteKeys
from memlane.storage.vectors import as_vector, unstorable
from memlane.summaries.model import Note, Summary, SummaryContent
from memlane.timeutil import from_micros
from memlane.window.model import Turn

STORYLINE = ""  # the session_id under which a subject's storyline is stored

_SUMMARY_COLUMNS = decode.SUMMARY_COLUMNS
_NOTE_COLUMNS = decode.NOTE_COLUMNS


class SQLSummaryStore(SQLNoteKeys):
    """:class:`memlane.storage.base.SummaryStore` on one SQL database, every tenant."""

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
        line_facts: str | None = None,
    ) -> Summary:
        """Store a new version of a session summary (or, with ``session_id=None``, storyline).

        The previous version stays, closed at ``tx``; only the new one is searchable.
        ``line_facts`` is what recall asks of its lines' text, stored in the same row.
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
            "period_to, tx_from, provenance, line_facts) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s) "
            f"RETURNING {_SUMMARY_COLUMNS}",
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
                line_facts,
            ),
        )
        self._add_doc(tenant, subject, "summary", int(row[0]), content.as_text())
        return decode.summary(row)

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
        rows = self._by_id(_SUMMARY_COLUMNS, "summaries", tenant, ids)
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
        keys: Sequence[tuple[str, str]] | None = None,
    ) -> Note:
        """Store a note and index it for search.

        ``keys`` are what recall needs of it (see :mod:`memlane.storage.sql.note_keys`);
        without them the note waits to be keyed by the first recall of its subject.
        """
        self.db.wrote()
        provenance_json = canonical_json(list(provenance))
        note_id = self.db.insert(
            "INSERT INTO notes (tenant, subject, text, said_at, tx_from, session_id, source, "
            "provenance) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
            (tenant, subject, text, said_at, tx, session_id, source, provenance_json),
        )
        self._add_doc(tenant, subject, "note", note_id, text)
        self.write_keys(tenant, subject, (note_id, said_at, tx), keys)
        at, tx_from = from_micros(said_at), from_micros(tx)
        return Note(note_id, subject, text, at, tx_from, session_id, source, tuple(provenance))

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
        rows = self._by_id(_NOTE_COLUMNS, "notes", tenant, ids)
        return {row[0]: decode.note(row) for row in rows}

    def notes_said(self, tenant: str, ids: Sequence[int]) -> dict[int, tuple[int, tuple[str, ...]]]:
        """Per note id (only those of ``tenant``), when it was said and its provenance."""
        rows = self._by_id("id, said_at, provenance", "notes", tenant, ids)
        return {row[0]: (int(row[1]), tuple(json.loads(row[2]))) for row in rows}

    def note_texts(self, tenant: str, ids: Sequence[int]) -> dict[int, tuple[str, str]]:
        """Per note id (only those of ``tenant``), its subject and its text."""
        rows = self._by_id("id, subject, text", "notes", tenant, ids)
        return {row[0]: (row[1], row[2]) for row in rows}

    def _by_id(self, columns: str, table: str, tenant: str, ids: Sequence[int]) -> list[Any]:
        if not ids:
            return []
        # Looked up by id, the tenant only filtering: else SQLite's planner reads the tenant's
        # whole index range instead (a scan of every note of the tenant, per search).
        return self.db.fetchall(
            f"SELECT {columns} FROM {table} WHERE {self.dialect.any_of('id')} "
            f"AND {self.dialect.filter_only('tenant')} = %s",
            (self.dialect.ids(ids), tenant),
        )

    # -- turns --------------------------------------------------------------------------

    def put_turn(self, tenant: str, turn: Turn) -> None:
        """Keep a raw turn (only for memories that retain transcripts).

        A turn stored again under its id replaces the old row whole, undeleted, and moves
        behind the turns stored before it.
        """
        with self.db.write([scope_key(tenant, turn.subject, "turns")]):
            self.db.wrote()
            self.db.execute(self.dialect.put_turn, decode.turn_values(tenant, turn))

    def turns(self, tenant: str, session_id: str) -> list[Turn]:
        """The retained turns of a session, in order."""
        rows = self.db.fetchall(
            f"SELECT {decode.TURN_COLUMNS} FROM turns WHERE tenant = %s AND session_id = %s "
            f"AND deleted_at IS NULL ORDER BY said_at, {self.dialect.turn_order}",
            (tenant, session_id),
        )
        return [decode.turn(row) for row in rows]

    # -- search -------------------------------------------------------------------------

    def claim_vectors(self, tenant: str | None, claim: VectorClaim) -> list[tuple[int, str]]:
        """Claim searchable items of ``tenant`` (``None``: any) with no vector from the model.

        Items never embedded come first (an index finds them), then items another model
        embedded; each ``(doc id, text)`` returned is claimed until ``claim.until``, so that no
        other worker, in any process, takes it before then. One statement, atomic on both
        databases (PostgreSQL skips rows another claim is locking).
        """
        for sql in self.claim_statements(tenant, claim.subject):
            rows = self.db.fetchall(sql, claim.parameters(tenant))
            if rows:
                return sorted((row[0], row[1]) for row in rows)
        return []

    def claim_statements(self, tenant: str | None, subject: str | None) -> tuple[str, str]:
        """The SQL of :meth:`claim_vectors`' two claims, in turn (for ``EXPLAIN`` too).

        Their named parameters are :meth:`VectorClaim.parameters`.
        """
        models = where = "deleted_at IS NULL"
        if tenant is not None:
            where = search_scope(tenant, subject, None)[0]
            models = search_scope(tenant, None, None)[0]
        return (
            self._claim_sql("model IS NULL", where),
            self._claim_sql(self.dialect.embedded_by_others(where, models), where),
        )

    def release_vectors(self, doc_ids: Sequence[int]) -> None:
        """Give claimed items back unembedded (a worker stopping before it embedded them)."""
        if doc_ids:
            self.db.execute(
                f"UPDATE search_docs SET claimed_until = NULL WHERE {self.dialect.any_of('id')}",
                (self.dialect.ids(doc_ids),),
            )

    def graphs_pending(self, tenant: str | None, model: str) -> int:
        """Vectors in ``tenant``'s scopes whose graph is being built (SQLite's :mod:`.ann`)."""
        graphs = getattr(self.dialect, "vector_indexes", None)  # only SQLite builds its own
        return 0 if graphs is None else int(graphs.building_count(tenant, model))

    def graphs_follow(self, model: str, doc_ids: Sequence[int]) -> None:
        """The indexer stored these vectors: SQLite's large subjects get their graphs early.

        (:meth:`.sqlite.ann.VectorIndexes.follow`: built, or brought up to date, in the
        background while a backlog is embedded, not at the first search after it.)
        """
        graphs = getattr(self.dialect, "vector_indexes", None)
        if graphs is not None:
            graphs.follow(model, doc_ids)

    def graphs_pace(self, wait_for_requests: Callable[[], object]) -> None:
        """The building thread of SQLite's graphs waits for requests between its steps."""
        graphs = getattr(self.dialect, "vector_indexes", None)
        if graphs is not None:
            graphs.pace(wait_for_requests)

    def graphs_ready(self, tenant: str | None, model: str, timeout: float | None) -> bool:
        """Every large subject scope of ``tenant`` has its graph (SQLite's :mod:`.ann`)."""
        graphs = getattr(self.dialect, "vector_indexes", None)
        return True if graphs is None else bool(graphs.prepare(tenant, model, timeout))

    def pending_count(self, tenant: str | None, subject: str | None, model: str) -> int:
        """How many undeleted items have no vector from ``model`` (``tenant=None``: any)."""
        where, parameters = "deleted_at IS NULL", dict[str, Any]()
        if tenant is not None:
            where, parameters = search_scope(tenant, subject, None)
        row = self.db.fetchone(
            f"SELECT count(*) FROM search_docs WHERE {where} "
            "AND (model IS NULL OR model != %(model)s)",
            {**parameters, "model": model},
        )
        return int(row[0])

    def unembedded(
        self, tenant: str, kind: DocKind, owner_ids: Sequence[int], model: str
    ) -> set[int]:
        """Which of these owners' items have no vector from ``model`` yet."""
        if not owner_ids:
            return set()
        rows = self.db.fetchall(
            f"SELECT owner_id FROM search_docs WHERE {self.dialect.filter_only('tenant')} = %s "
            f"AND kind = %s AND {self.dialect.any_of('owner_id')} "
            "AND (model IS NULL OR model != %s)",
            (tenant, kind, self.dialect.ids(owner_ids), model),
        )
        return {row[0] for row in rows}

    def vectors(
        self, tenant: str, kind: DocKind, owner_ids: Sequence[int], model: str
    ) -> dict[int, npt.NDArray[np.float32]]:
        """The vectors ``model`` gave these owners' undeleted items (those it embedded)."""
        if not owner_ids:
            return {}
        rows = self.db.fetchall(
            f"SELECT owner_id, {self.dialect.vector_read} FROM search_docs "
            f"WHERE {self.dialect.filter_only('tenant')} = %s AND kind = %s "
            f"AND {self.dialect.any_of('owner_id')} AND model = %s AND deleted_at IS NULL",
            (tenant, kind, self.dialect.ids(owner_ids), model),
        )
        return {row[0]: as_vector(row[1]) for row in rows}

    def put_vectors(self, model: str, vectors: Sequence[tuple[int, bytes]]) -> None:
        """Attach vectors (float32 bytes) to search items, ending their claims.

        Items deleted meanwhile keep no vector. It locks no key: the rows it updates are
        locked by the update itself, and no other write waits for it (a forget does), unless
        a new width needs its index made first (then it locks every write out).

        Raises:
            InvalidInput: a vector holds a value no index keeps (:func:`unstorable`); none
                of them is stored.
        """
        if not vectors:
            return
        for doc_id, blob in vectors:
            reason = unstorable(as_vector(blob))
            if reason is not None:
                raise InvalidInput(f"the vector of search item {doc_id}", f"it holds {reason}")
        widths = {len(blob) // 4 for _, blob in vectors}
        with self.db.write(() if self.dialect.vectors_need_no_lock(widths) else None):
            self.db.wrote()
            self.dialect.put_vectors(model, vectors)

    def after_commit(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` once what this thread is writing has committed (now if nothing)."""
        self.db.after_commit(callback)

    def vector_state(
        self, tenant: str, subject: str | None, kind: DocKind, model: str
    ) -> tuple[int, int, int]:
        """``(items in scope, items embedded by model, highest item id)``: a cheap signature."""
        return self.dialect.vector_state(DocScope(tenant, subject, kind), model)

    def coverage(self, tenant: str, subject: str | None, kind: DocKind, model: str) -> Coverage:
        """Whether some items of the scope have a vector from ``model``, and some none."""
        return self.dialect.coverage(DocScope(tenant, subject, kind), model)

    def nearest(
        self,
        tenant: str,
        subject: str | None,
        kind: DocKind,
        model: str,
        query: Sequence[float] | npt.NDArray[np.float32],
        limit: int,
    ) -> list[int]:
        """Owner ids of the items in scope embedded by ``model``, largest inner product first."""
        vector = np.asarray(query, dtype=np.float32).reshape(-1)
        if limit < 1 or len(vector) == 0:
            return []
        reason = unstorable(vector)
        if reason is not None:
            raise InvalidInput("query vector", f"it holds {reason}")
        return self.dialect.nearest(DocScope(tenant, subject, kind), model, vector, limit)

    def lexical(
        self, tenant: str, subject: str | None, kind: DocKind, text: str, limit: int
    ) -> list[int]:
        """Owner ids of the items in scope that match ``text``, best BM25 first (ties by id)."""
        terms = lexical.terms(text)
        if not terms or limit < 1:
            return []
        return self.dialect.lexical(DocScope(tenant, subject, kind), terms, limit)

    # -- internals ----------------------------------------------------------------------

    def _claim_sql(self, which: str, where: str) -> str:
        # The first candidate always, then as many as fit in the character budget: a batch's
        # time is bounded (a model call must not keep a searcher waiting long).
        return (
            "UPDATE search_docs SET claimed_until = %(until)s WHERE id IN ("
            "SELECT id FROM (SELECT id, row_number() OVER (ORDER BY id) AS n, "
            "sum(length(text)) OVER (ORDER BY id) AS upto FROM ("
            f"SELECT id, text FROM search_docs WHERE {where} AND {which} "
            "AND (claimed_until IS NULL OR claimed_until < %(now)s) "
            f"ORDER BY id LIMIT %(limit)s{self.dialect.skip_locked}) AS candidates"
            ") AS sized WHERE n = 1 OR upto <= %(chars)s) RETURNING id, text"
        )

    def _add_doc(self, tenant: str, subject: str, kind: DocKind, owner_id: int, text: str) -> None:
        tokens = self.dialect.doc_tokens
        doc_id = self.db.insert(
            f"INSERT INTO search_docs (tenant, subject, kind, owner_id, text"
            f"{', tokens' if tokens else ''}) VALUES (%s, %s, %s, %s, %s"
            f"{', ' + tokens if tokens else ''})",
            (tenant, subject, kind, owner_id, text, *((lexical.document(text),) if tokens else ())),
        )
        self.dialect.add_doc(doc_id, tenant, subject, kind, text)

    def _drop_doc(self, kind: DocKind, owner_id: int) -> None:
        rows = self.db.fetchall(
            "DELETE FROM search_docs WHERE kind = %s AND owner_id = %s RETURNING id",
            (kind, owner_id),
        )
        self.dialect.drop_docs([row[0] for row in rows])


def search_scope(
    tenant: str, subject: str | None, kind: DocKind | None, alias: str = ""
) -> tuple[str, dict[str, Any]]:
    """The filter every search applies before ranking: tenant, subject, kind, not deleted."""
    clauses = [f"{alias}tenant = %(tenant)s", f"{alias}deleted_at IS NULL"]
    parameters: dict[str, Any] = {"tenant": tenant}
    if subject is not None:
        clauses.append(f"{alias}subject = %(subject)s")
        parameters["subject"] = subject
    if kind is not None:
        clauses.append(f"{alias}kind = %(kind)s")
        parameters["kind"] = kind
    return " AND ".join(clauses), parameters


def vector_state(
    database: Database, tenant: str, subject: str | None, kind: DocKind, model: str
) -> tuple[int, int, int]:
    """``(docs in scope, docs embedded by model, highest doc id)``: a cheap signature."""
    where, parameters = search_scope(tenant, subject, kind)
    row = database.fetchone(
        "SELECT count(*), count(*) FILTER (WHERE model = %(model)s), coalesce(max(id), 0) "
        f"FROM search_docs WHERE {where}",
        {**parameters, "model": model},
    )
    return int(row[0]), int(row[1]), int(row[2])


def coverage(
    database: Database, tenant: str, subject: str | None, kind: DocKind, model: str
) -> Coverage:
    """Whether some docs in scope have a vector from ``model``, and some none: index seeks.

    ``model <> x`` is no index range, so a scope all of whose docs are embedded would be read
    whole to find none; ``IS NULL``, ``< x`` and ``> x`` are three seeks.
    """
    where, parameters = search_scope(tenant, subject, kind)
    some = [
        f"EXISTS (SELECT 1 FROM search_docs WHERE {where} AND model {test})"
        for test in ("= %(model)s", "IS NULL", "< %(model)s", "> %(model)s")
    ]
    row = database.fetchone(
        f"SELECT {some[0]}, {' OR '.join(some[1:])}", {**parameters, "model": model}
    )
    return Coverage(bool(row[0]), bool(row[1]))


def _content_json(content: SummaryContent) -> str:
    return canonical_json({name: list(lines) for name, lines in content.sections().items()})
