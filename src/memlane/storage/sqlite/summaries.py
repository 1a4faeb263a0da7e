"""The summary lane on SQLite: summary versions, notes, and their hybrid search index."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
import numpy.typing as npt

from memlane.facts.normalize import canonical_json
from memlane.storage import lexical
from memlane.storage import rows as decode
from memlane.storage import vectors as search
from memlane.storage.base import DocKind
from memlane.storage.sqlite.database import SQLiteDatabase
from memlane.summaries.model import Note, Summary, SummaryContent
from memlane.timeutil import from_micros
from memlane.window.model import Turn

STORYLINE = ""  # the session_id under which a subject's storyline is stored
MATRIX_CACHE_ENTRIES = 64
"""How many scopes' vector matrices a store keeps in memory."""
Matrix = npt.NDArray[np.float32]

_SUMMARY_COLUMNS = decode.SUMMARY_COLUMNS
_NOTE_COLUMNS = decode.NOTE_COLUMNS


class SQLiteSummaryStore:
    """Summaries, storylines and notes of every tenant in one SQLite database."""

    def __init__(self, database: SQLiteDatabase) -> None:
        self.db = database
        # Per scope: the vector_state it was loaded at, its owner ids and their vectors.
        self._matrices: dict[
            tuple[str, str | None, DocKind, str], tuple[tuple[int, int, int], list[int], Matrix]
        ] = {}
        self._matrices_lock = threading.Lock()

    @contextmanager
    def transaction(self) -> Iterator[SQLiteSummaryStore]:
        """A write transaction; nested calls join the outer one."""
        with self.db.write():
            yield self

    def next_tx(self, now: int) -> int:
        """The next transaction time (shared with the exact lane)."""
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
            "UPDATE summaries SET tx_to = ? WHERE tenant = ? AND subject = ? AND session_id = ? "
            "AND tx_to IS NULL RETURNING id, version",
            (tx, tenant, subject, key),
        )
        version = previous[0][1] + 1 if previous else 1
        for old_id, _ in previous:
            self._drop_doc("summary", old_id)
        cursor = self.db.execute(
            "INSERT INTO summaries (tenant, subject, session_id, version, content, period_from, "
            "period_to, tx_from, provenance) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
        summary_id = cursor.lastrowid
        assert summary_id is not None
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
            f"SELECT {_SUMMARY_COLUMNS} FROM summaries WHERE tenant = ? AND session_id = ? "
            "AND tx_to IS NULL AND deleted_at IS NULL"
        )
        parameters: tuple[Any, ...] = (tenant, STORYLINE if session_id is None else session_id)
        if subject is not None:
            sql += " AND subject = ?"
            parameters += (subject,)
        rows = self.db.fetchall(sql + " ORDER BY tx_from DESC LIMIT 1", parameters)
        return decode.summary(rows[0]) if rows else None

    def summary_versions(self, tenant: str, subject: str, session_id: str | None) -> list[Summary]:
        """Every stored version of one summary, oldest first (deleted ones excluded)."""
        rows = self.db.fetchall(
            f"SELECT {_SUMMARY_COLUMNS} FROM summaries WHERE tenant = ? AND subject = ? "
            "AND session_id = ? AND deleted_at IS NULL ORDER BY version",
            (tenant, subject, STORYLINE if session_id is None else session_id),
        )
        return [decode.summary(row) for row in rows]

    def audit(self, tenant: str, subject: str) -> tuple[list[Summary], list[Note]]:
        """Every summary version and note of a subject, deleted ones included (flagged)."""
        summaries = self.db.fetchall(
            f"SELECT {_SUMMARY_COLUMNS} FROM summaries WHERE tenant = ? AND subject = ? "
            "ORDER BY tx_from, id",
            (tenant, subject),
        )
        notes = self.db.fetchall(
            f"SELECT {_NOTE_COLUMNS} FROM notes WHERE tenant = ? AND subject = ? "
            "ORDER BY tx_from, id",
            (tenant, subject),
        )
        return [decode.summary(row) for row in summaries], [decode.note(row) for row in notes]

    def summaries(self, tenant: str, ids: Sequence[int]) -> dict[int, Summary]:
        """Summaries by id (only those of ``tenant``)."""
        marks = ",".join("?" * len(ids))
        rows = self.db.fetchall(
            f"SELECT {_SUMMARY_COLUMNS} FROM summaries WHERE tenant = ? AND id IN ({marks})",
            (tenant, *ids),
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
        cursor = self.db.execute(
            "INSERT INTO notes (tenant, subject, text, said_at, tx_from, session_id, source, "
            "provenance) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
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
        note_id = cursor.lastrowid
        assert note_id is not None
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
            f"SELECT {_NOTE_COLUMNS} FROM notes WHERE tenant = ? AND subject = ? "
            "AND deleted_at IS NULL ORDER BY said_at, id",
            (tenant, subject),
        )
        return [decode.note(row) for row in rows]

    def notes_by_id(self, tenant: str, ids: Sequence[int]) -> dict[int, Note]:
        """Notes by id (only those of ``tenant``)."""
        marks = ",".join("?" * len(ids))
        rows = self.db.fetchall(
            f"SELECT {_NOTE_COLUMNS} FROM notes WHERE tenant = ? AND id IN ({marks})",
            (tenant, *ids),
        )
        return {row[0]: decode.note(row) for row in rows}

    def put_turn(self, tenant: str, turn: Turn) -> None:
        """Keep a raw turn (only for memories that retain transcripts)."""
        with self.db.write():
            self.db.wrote()
            self.db.execute(
                "INSERT OR REPLACE INTO turns (id, tenant, subject, session_id, role, speaker, "
                "content, said_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                decode.turn_values(tenant, turn),
            )

    def turns(self, tenant: str, session_id: str) -> list[Turn]:
        """The retained turns of a session, in order."""
        rows = self.db.fetchall(
            f"SELECT {decode.TURN_COLUMNS} FROM turns "
            "WHERE tenant = ? AND session_id = ? AND deleted_at IS NULL ORDER BY said_at, rowid",
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
            "AND (model IS NULL OR model != ?) ORDER BY id LIMIT ?",
            (*parameters, model, limit),
        )
        return [(row[0], row[1]) for row in rows]

    def put_vectors(self, model: str, vectors: Sequence[tuple[int, bytes]]) -> None:
        """Attach vectors (float32 bytes) to search items."""
        with self.db.write():
            self.db.wrote()
            self.db.connection.executemany(
                "UPDATE search_docs SET model = ?, vector = ? WHERE id = ?",
                [(model, blob, doc_id) for doc_id, blob in vectors],
            )

    def vector_state(
        self, tenant: str, subject: str | None, kind: DocKind, model: str
    ) -> tuple[int, int, int]:
        """``(items in scope, items embedded by model, highest item id)``: a cheap signature."""
        where, parameters = _scope(tenant, subject, kind)
        row = self.db.fetchall(
            f"SELECT count(*), coalesce(sum(model = ?), 0), coalesce(max(id), 0) "
            f"FROM search_docs WHERE {where}",
            (model, *parameters),
        )[0]
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

        Exact: the scope's vectors as one matrix (kept until the scope's signature changes)
        times the query.
        """
        owners, matrix = self._matrix(tenant, subject, kind, model)
        vector = np.asarray(query, dtype=np.float32).reshape(-1)
        return search.nearest(vector, owners, matrix, limit)

    def _matrix(
        self, tenant: str, subject: str | None, kind: DocKind, model: str
    ) -> tuple[list[int], Matrix]:
        """The scope's owner ids and vectors, loaded again only when the scope changed."""
        key = (tenant, subject, kind, model)
        state = self.vector_state(tenant, subject, kind, model)
        with self._matrices_lock:
            cached = self._matrices.get(key)
        if cached is not None and cached[0] == state:
            return cached[1], cached[2]
        where, parameters = _scope(tenant, subject, kind)
        rows = self.db.fetchall(
            f"SELECT owner_id, vector FROM search_docs WHERE {where} AND model = ? ORDER BY id",
            (*parameters, model),
        )
        owners, matrix = [row[0] for row in rows], search.as_matrix([row[1] for row in rows])
        with self._matrices_lock:
            if len(self._matrices) >= MATRIX_CACHE_ENTRIES:
                self._matrices.pop(next(iter(self._matrices)))
            self._matrices[key] = (state, owners, matrix)
        return owners, matrix

    def lexical(
        self, tenant: str, subject: str | None, kind: DocKind, text: str, limit: int
    ) -> list[int]:
        """Owner ids of the items in scope that match ``text``, best BM25 first."""
        expression = _match_expression(lexical.terms(text))
        if expression is None:
            return []
        scope = (
            lexical.scope_token(tenant, kind)
            if subject is None
            else lexical.scope_token(tenant, kind, subject)
        )
        expression = f'({expression}) AND "{scope}"'
        where, parameters = _scope(tenant, subject, kind, alias="d.")
        rows = self.db.fetchall(
            "SELECT d.owner_id FROM search_fts JOIN search_docs AS d ON d.id = search_fts.rowid "
            f"WHERE search_fts MATCH ? AND {where} ORDER BY bm25(search_fts), d.id LIMIT ?",
            (expression, *parameters, limit),
        )
        return [row[0] for row in rows]

    def _add_doc(self, tenant: str, subject: str, kind: DocKind, owner_id: int, text: str) -> None:
        cursor = self.db.execute(
            "INSERT INTO search_docs (tenant, subject, kind, owner_id, text) "
            "VALUES (?, ?, ?, ?, ?)",
            (tenant, subject, kind, owner_id, text),
        )
        self.db.execute(
            "INSERT INTO search_fts (rowid, tokens) VALUES (?, ?)",
            (cursor.lastrowid, fts_tokens(tenant, subject, kind, text)),
        )

    def _drop_doc(self, kind: DocKind, owner_id: int) -> None:
        rows = self.db.fetchall(
            "DELETE FROM search_docs WHERE kind = ? AND owner_id = ? RETURNING id", (kind, owner_id)
        )
        for (doc_id,) in rows:
            self.db.execute("DELETE FROM search_fts WHERE rowid = ?", (doc_id,))


def fts_tokens(tenant: str, subject: str, kind: str, text: str) -> str:
    """What FTS5 indexes for a search item: the text's tokens and its two scope tokens."""
    return " ".join(
        (
            lexical.document(text),
            lexical.scope_token(tenant, kind),
            lexical.scope_token(tenant, kind, subject),
        )
    )


def _scope(
    tenant: str, subject: str | None, kind: DocKind | None, alias: str = ""
) -> tuple[str, tuple[Any, ...]]:
    """The filter every search applies before ranking: tenant, subject, kind, not deleted."""
    clauses = [f"{alias}tenant = ?", f"{alias}deleted_at IS NULL"]
    parameters: list[Any] = [tenant]
    if subject is not None:
        clauses.append(f"{alias}subject = ?")
        parameters.append(subject)
    if kind is not None:
        clauses.append(f"{alias}kind = ?")
        parameters.append(kind)
    return " AND ".join(clauses), tuple(parameters)


def _match_expression(terms: Sequence[str]) -> str | None:
    """An FTS5 ``MATCH`` expression matching any of ``terms`` (``None``: nothing to match)."""
    if not terms:
        return None
    return " OR ".join('"' + term.replace('"', '""') + '"' for term in terms)


def _content_json(content: SummaryContent) -> str:
    return canonical_json({name: list(lines) for name, lines in content.sections().items()})
