"""Exact row copies out of and into a SQL database, for ``memlane export`` / ``memlane import``.

Derived data is never part of a row: the dialect computes it on load (SQLite's full-text rows;
PostgreSQL's ``facts.slot``, ``search_docs.tokens`` and ``dims``, and ``turns.seq``), or
later: the ``note_keys`` of loaded notes are derived after the load by
:meth:`memlane.Memory.import_export` (else by the first recall of their subject).
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager

from memlane.storage.archive import CLOCK, Key, Table, partition, table_named
from memlane.storage.archiving import ArchiveReader, ArchiveRow
from memlane.storage.sql.dialect import SQLStore


class SQLArchiveStore(SQLStore):
    """:class:`memlane.storage.base.ArchiveStore` on one SQL database."""

    def snapshot(self) -> AbstractContextManager[ArchiveReader]:
        """A read-only view of every table as of one instant, for a consistent export."""
        return self.dialect.snapshot()

    def match(self, table: str, rows: Sequence[ArchiveRow]) -> int:
        """How many of ``rows`` are stored already, identical (the clock never counts)."""
        spec = table_named(table)
        if spec.name == CLOCK or not rows:
            return 0
        _, matched = partition(spec, rows, self._stored(spec, rows))
        return matched

    def load(self, table: str, rows: Sequence[ArchiveRow]) -> int:
        """Insert the rows not stored yet, with what is derived from them, in one transaction."""
        spec = table_named(table)
        if not rows:
            return 0
        if spec.name == CLOCK:
            return self._raise_clock(rows)
        with self.db.write():
            fresh, _ = partition(spec, rows, self._stored(spec, rows))
            if not fresh:
                return 0
            self.db.wrote()
            self.dialect.insert_rows(spec.name, fresh)
            if spec.name == "notes":  # what recall needs of them is derived at their first recall
                self.db.executemany(
                    "INSERT INTO note_keys_pending (note_id, tenant, subject) VALUES (%s, %s, %s)",
                    [(row["id"], row["tenant"], row["subject"]) for row in fresh],
                )
        return len(fresh)

    def finish(self) -> None:
        """After a load: make new writes follow the loaded data (ids, indexes)."""
        self.dialect.finish_load()

    def _stored(self, spec: Table, rows: Sequence[ArchiveRow]) -> dict[Key, ArchiveRow]:
        """The stored rows that have the keys of ``rows``."""
        keys = list(dict.fromkeys(spec.key_of(row) for row in rows))
        return {spec.key_of(row): row for row in self.dialect.stored_rows(spec.name, keys)}

    def _raise_clock(self, rows: Sequence[ArchiveRow]) -> int:
        """Raise the transaction clock to the loaded value, never lower it.

        One statement outside a write transaction (whose commit writes back the clock it read
        at its start); it takes the write lock for itself, so it waits for writers.
        """
        value = max(int(row["last_tx"] or 0) for row in rows)
        return self.db.execute(
            "UPDATE tx_clock SET last_tx = %s WHERE id = 1 AND last_tx < %s", (value, value)
        )
