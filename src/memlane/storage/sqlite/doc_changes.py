"""Which search docs this connection changed: a log kept by temporary triggers.

A vector graph (:mod:`memlane.storage.sqlite.ann`) patched after a write needs the docs that
write touched, not every id of its scope. Temporary triggers (they live in this connection
only, nothing is added to the file) append the id of every doc inserted, deleted, or whose
vector, model, scope or deletion changed, to a temporary table. A position in the log is only
good while no other connection has committed (``PRAGMA data_version``) and the log was not cut
short; otherwise a reader must compare the whole scope instead.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from memlane.storage.sqlite.database import SQLiteDatabase

LOG_LIMIT = 100_000
"""Entries the log keeps before it is emptied (every reader then compares whole scopes)."""

_LOG = "memlane_doc_changes"
_WATCHED = "model, vector, deleted_at, tenant, subject, kind"
_SCHEMA = (
    f"CREATE TEMP TABLE IF NOT EXISTS {_LOG} (seq INTEGER PRIMARY KEY, doc_id INTEGER NOT NULL)",
    f"CREATE TEMP TRIGGER IF NOT EXISTS {_LOG}_insert AFTER INSERT ON main.search_docs "
    f"BEGIN INSERT INTO {_LOG} (doc_id) VALUES (new.id); END",
    f"CREATE TEMP TRIGGER IF NOT EXISTS {_LOG}_update AFTER UPDATE OF {_WATCHED} "
    f"ON main.search_docs BEGIN INSERT INTO {_LOG} (doc_id) VALUES (new.id); END",
    f"CREATE TEMP TRIGGER IF NOT EXISTS {_LOG}_delete AFTER DELETE ON main.search_docs "
    f"BEGIN INSERT INTO {_LOG} (doc_id) VALUES (old.id); END",
)


ENDS = (
    f"SELECT (SELECT coalesce(min(seq), 0) FROM {_LOG}), (SELECT coalesce(max(seq), 0) FROM {_LOG})"
)
"""The first and last entries of the log, each read from an end of its key. (``min`` and
``max`` in one ``SELECT`` are computed by a scan: 7 ms at 100,000 entries, at every search
of a long-running process that writes, as the log grows up to :data:`LOG_LIMIT`.)"""


class Position(NamedTuple):
    """A point in the log: its epoch (bumped when emptied), ``data_version``, last entry."""

    epoch: int
    data_version: int
    seq: int


class DocChanges:
    """The log of one connection's search-doc changes."""

    def __init__(self, database: SQLiteDatabase) -> None:
        self.db = database
        self._epoch = 0
        self._installed = False

    def position(self) -> Position:
        """Where the log is now (installing it on first use; emptying it when long)."""
        with self.db.lock:
            connection = self.db.connection
            if not self._installed:
                for statement in _SCHEMA:
                    connection.execute(statement)
                self._installed = True
            first, last = connection.execute(ENDS).fetchone()
            if last - first >= LOG_LIMIT and not connection.in_transaction:
                connection.execute(f"DELETE FROM {_LOG}")
                self._epoch += 1
                last = 0  # the next entry's seq is 1 again (the table is empty)
            version = connection.execute("PRAGMA data_version").fetchone()[0]
            return Position(self._epoch, int(version), int(last))

    def since(self, start: Position, end: Position, most: int | None = None) -> list[int] | None:
        """Docs changed between two positions; ``None`` if the log cannot tell (compare all).

        With ``most``: also ``None`` when more docs than that changed, read no further (a
        search after an import would otherwise read every doc it wrote, tens of thousands).
        """
        if not self.tells(start, end):
            return None
        limit = "" if most is None or end.seq - start.seq <= most else f" LIMIT {int(most) + 1}"
        with self.db.lock:  # the log is the shared connection's own table: read there
            rows = self.db.fetchall(
                f"SELECT DISTINCT doc_id FROM {_LOG} WHERE seq > %s AND seq <= %s{limit}",
                (start.seq, end.seq),
            )
        if most is not None and len(rows) > most:
            return None
        return [row[0] for row in rows]

    def tells(self, start: Position, end: Position) -> bool:
        """Whether the log holds every doc changed between the positions (see the module)."""
        return (start.epoch, start.data_version) == (end.epoch, end.data_version)
