"""The rows of a scope that SQLite's vector graphs (:mod:`.ann`) are built and checked from.

Each function reads one thing of one scope ``(tenant, subject or None, kind, model)``: its
embedded ids whole or among some, their count, its vectors a chunk at a time;
:func:`change_stamp` tells whether the database changed at all.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import numpy.typing as npt

from memlane.storage.base import DocKind
from memlane.storage.sql.summaries import search_scope
from memlane.storage.vectors import as_matrix

if TYPE_CHECKING:
    from memlane.storage.sqlite.database import SQLiteDatabase


class Reads(Protocol):
    """Where a scope's rows are read from: the database (:class:`.database.SQLiteDatabase`).

    Its queries outside a write transaction run on its read-only connections.
    """

    def fetchall(self, sql: str, parameters: Any = ...) -> list[Any]:
        """Every row of a query."""

    def fetchone(self, sql: str, parameters: Any = ...) -> Any:
        """The first row of a query, or ``None``."""


ScopeKey = tuple[str, str | None, DocKind, str]
Stamp = tuple[int, int]
Ids = npt.NDArray[np.int64]

CHUNK = 2_000
"""Vectors read (and added to a graph) per statement while building."""
IDS_PIECE = 20_000
"""Ids read per statement when a scope's embedded ids are read whole (about 15 ms of a
10^6-doc scope's ~1 s): a search waits for the shared connection one piece at most."""


def change_stamp(database: SQLiteDatabase) -> Stamp:
    """Moves whenever any connection changes the database (another's commit, or this one's).

    (:meth:`.SQLiteDatabase.change_stamp`: taken before the reads kept under it.)
    """
    return database.change_stamp()


def scope_sql(key: ScopeKey, by_id: bool = False) -> tuple[str, dict[str, Any]]:
    """The scope's filter; ``by_id``: for rows looked up by id, so no column of it is indexed.

    (SQLite's planner would otherwise read the scope's whole index range, every vector of it,
    to check a few ids: ``+column`` is not an indexable term.)
    """
    tenant, subject, kind, model = key
    alias = "+" if by_id else ""
    where, parameters = search_scope(tenant, subject, kind, alias=alias)
    return f"{where} AND {alias}model = %(model)s", {**parameters, "model": model}


def embedded_count(database: Reads, key: ScopeKey, at_most: int | None = None) -> int:
    """How many docs in the scope have a vector from its model (counted up to ``at_most``)."""
    where, parameters = scope_sql(key)
    rows = f"SELECT 1 FROM search_docs WHERE {where}"
    if at_most is not None:  # a scope of 10^6 is not read to learn it has over 2,000
        rows, parameters = f"{rows} LIMIT %(at_most)s", {**parameters, "at_most": at_most}
    return int(database.fetchone(f"SELECT count(*) FROM ({rows})", parameters)[0])


def embedded_ids(database: Reads, key: ScopeKey, among: Ids | None = None) -> Ids:
    """The ids of the docs in the scope with a vector from its model (``among`` these), sorted.

    The whole scope is read :data:`IDS_PIECE` ids a statement, in id order: the building
    thread reads a scope of 10^6 in about a second, and searches share its connection.
    """
    where, parameters = scope_sql(key, by_id=among is not None)
    if among is not None:
        where = f"id IN (SELECT value FROM json_each(%(ids)s)) AND {where}"
        parameters["ids"] = json.dumps(among.tolist())
        rows = database.fetchall(
            f"SELECT id FROM search_docs WHERE {where} ORDER BY id", parameters
        )
        return _ids(rows)
    pieces, after = [], 0
    while True:
        rows = database.fetchall(
            f"SELECT id FROM search_docs WHERE {where} AND id > %(after)s ORDER BY id "
            "LIMIT %(piece)s",
            {**parameters, "after": after, "piece": IDS_PIECE},
        )
        pieces.append(_ids(rows))
        if len(rows) < IDS_PIECE:
            return np.concatenate(pieces)
        after = int(rows[-1][0])


def newest_embedded(database: Reads, key: ScopeKey, above: int, limit: int) -> Ids:
    """The newest ``limit`` ids above ``above`` of the scope's docs with a vector, sorted.

    Read from the newest down: a few index entries, not the scope.
    """
    where, parameters = scope_sql(key)
    rows = database.fetchall(
        f"SELECT id FROM search_docs WHERE {where} AND id > %(above)s "
        "ORDER BY id DESC LIMIT %(limit)s",
        {**parameters, "above": above, "limit": limit},
    )
    return _ids(rows[::-1])


def vector_chunk(database: Reads, key: ScopeKey, after: int, upto: int) -> list[Any]:
    """``(id, vector)`` of the next ``CHUNK`` embedded docs in scope, ids in ``(after, upto]``."""
    where, parameters = scope_sql(key)
    return database.fetchall(
        f"SELECT id, vector FROM search_docs WHERE {where} AND id > %(after)s "
        "AND id <= %(upto)s ORDER BY id LIMIT %(chunk)s",
        {**parameters, "after": after, "upto": upto, "chunk": CHUNK},
    )


def highest_embedded(database: Reads, key: ScopeKey) -> int:
    """The highest id of a doc in the scope with a vector from its model (0: none)."""
    where, parameters = scope_sql(key)
    row = database.fetchone(
        f"SELECT coalesce(max(id), 0) FROM search_docs WHERE {where}", parameters
    )
    return int(row[0])


def docs_of(
    database: Reads, key: ScopeKey, ids: Sequence[int] | Ids | None, columns: str
) -> list[Any]:
    """``columns`` of the scope's embedded docs (of ``ids`` only, unless ``None``), by id."""
    where, parameters = scope_sql(key, by_id=ids is not None)
    if ids is not None:
        listed = ids.tolist() if isinstance(ids, np.ndarray) else list(ids)
        where = f"id IN (SELECT value FROM json_each(%(ids)s)) AND {where}"
        parameters["ids"] = json.dumps(listed)
    return database.fetchall(
        f"SELECT {columns} FROM search_docs WHERE {where} ORDER BY id", parameters
    )


def contains(ids: Ids, values: Ids) -> npt.NDArray[np.bool_]:
    """Which of ``values`` are in the sorted ``ids`` (a binary search each, no sort of ``ids``)."""
    at = np.minimum(np.searchsorted(ids, values), max(len(ids) - 1, 0))
    return (ids[at] == values) if len(ids) else np.zeros(len(values), dtype=bool)


def as_rows(rows: Sequence[Any], dims: int) -> npt.NDArray[np.float32] | None:
    """The vectors (second column) of ``rows`` as one matrix; ``None`` if one is another width."""
    if not rows:
        return np.empty((0, dims), dtype=np.float32)
    try:
        matrix = as_matrix([row[1] for row in rows])
    except ValueError:  # widths differ
        return None
    return matrix if matrix.shape[1] == dims else None


def _ids(rows: Sequence[Any]) -> Ids:
    """The first column of ``rows`` (doc ids), as they come."""
    return np.fromiter((row[0] for row in rows), dtype=np.int64, count=len(rows))
