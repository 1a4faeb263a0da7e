"""Exact row copies out of and into PostgreSQL, for ``memlane export`` / ``memlane import``.

What only PostgreSQL stores is derived on load and never exported: ``facts.slot`` (from the
attribute's cardinality, as the fact store computes it), ``search_docs.tokens`` and ``dims``
(from the text and the vector), and ``turns.seq`` (insertion order: rows load in file order).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
import psycopg

from memlane.errors import StorageError
from memlane.storage.archive import CLOCK, Key, Table, partition, table_named
from memlane.storage.base import ArchiveRow
from memlane.storage.postgres.database import PostgresDatabase
from memlane.storage.postgres.summaries import ensure_vector_index, index_tokens, vector_literal

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

_ARRAY_TYPES = {"int": "bigint[]", "float": "float8[]", "str": "text[]", "bytes": "text[]"}
"""How a column travels to the server: one array per column (vectors as pgvector text)."""


def _select(spec: Table) -> str:
    """The columns of ``spec`` as a SELECT lists them (vectors as float arrays)."""
    return ", ".join("vector::real[]" if name == "vector" else name for name in spec.names)


def _decoded(spec: Table, values: Sequence[Any]) -> ArchiveRow:
    row: ArchiveRow = dict(zip(spec.names, values, strict=True))
    if spec.name == "search_docs" and row["vector"] is not None:
        row["vector"] = np.asarray(row["vector"], dtype=np.float32).tobytes()
    return row


class PostgresArchiveReader:
    """Reads inside :meth:`PostgresArchiveStore.snapshot` (one repeatable-read transaction)."""

    def __init__(self, connection: Any) -> None:
        self._connection = connection

    def count(self, table: str) -> int:
        """The number of rows in ``table``."""
        spec = table_named(table)
        row = self._connection.execute(f"SELECT count(*) FROM {spec.name}").fetchone()
        return int(row[0])

    def rows(self, table: str, chunk: int) -> Iterator[list[ArchiveRow]]:
        """Every row by primary key (turns by insertion order), through a server-side cursor."""
        spec = table_named(table)
        if spec.name == "turns":
            order = "seq"
        else:
            # Text keys in byte order, as SQLite sorts them, so both export identical files.
            order = ", ".join(
                f'{name} COLLATE "C"' if spec.column(name).kind == "str" else name
                for name in spec.key
            )
        with self._connection.cursor(name=f"memlane_export_{spec.name}") as cursor:
            cursor.execute(f"SELECT {_select(spec)} FROM {spec.name} ORDER BY {order}")
            while fetched := cursor.fetchmany(chunk):
                yield [_decoded(spec, values) for values in fetched]


class PostgresArchiveStore:
    """:class:`memlane.storage.base.ArchiveStore` on one PostgreSQL database."""

    def __init__(self, database: PostgresDatabase) -> None:
        self.db = database

    @contextmanager
    def snapshot(self) -> Iterator[PostgresArchiveReader]:
        """A read-only, repeatable-read transaction: every table as of one instant."""
        try:
            with self.db.pool.connection() as connection, connection.transaction():
                connection.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                yield PostgresArchiveReader(connection)
        except psycopg.Error as error:
            raise StorageError(f"PostgreSQL error: {error}") from error

    def match(self, table: str, rows: Sequence[ArchiveRow]) -> int:
        """How many of ``rows`` are stored already, identical (the clock never counts)."""
        spec = table_named(table)
        if spec.name == CLOCK or not rows:
            return 0
        _, matched = partition(spec, rows, self._stored(spec, rows))
        return matched

    def load(self, table: str, rows: Sequence[ArchiveRow]) -> int:
        """Insert the rows not stored yet, with their derived columns, in one transaction."""
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
            sql, arrays = _insert(spec, fresh)
            self.db.execute(sql, arrays)
        return len(fresh)

    def finish(self) -> None:
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
                ensure_vector_index(self.db, int(dims))
        for name in (*_IDENTITY_TABLES, "attributes", "turns", "api_keys"):
            self.db.execute(f"ANALYZE {name}")

    # -- internals ----------------------------------------------------------------------

    def _stored(self, spec: Table, rows: Sequence[ArchiveRow]) -> dict[Key, ArchiveRow]:
        """The stored rows that have the keys of ``rows``."""
        keys = list(dict.fromkeys(spec.key_of(row) for row in rows))
        if len(spec.key) == 1:
            where = f"{spec.key[0]} = ANY(%s)"
            parameters: list[Any] = [[key[0] for key in keys]]
        else:
            # Composite keys are text (attributes, turns): pairs from two parallel arrays.
            where = f"({', '.join(spec.key)}) IN (SELECT * FROM unnest(%s::text[], %s::text[]))"
            parameters = [[key[0] for key in keys], [key[1] for key in keys]]
        stored = self.db.fetchall(
            f"SELECT {_select(spec)} FROM {spec.name} WHERE {where}", parameters
        )
        found: dict[Key, ArchiveRow] = {}
        for values in stored:
            row = _decoded(spec, values)
            found[spec.key_of(row)] = row
        return found

    def _raise_clock(self, rows: Sequence[ArchiveRow]) -> int:
        """Raise the transaction clock to the loaded value, never lower it.

        Outside :meth:`PostgresDatabase.write`, whose commit writes back the clock it read at
        its start; the single statement takes the same row lock, so it waits for writers.
        """
        value = max(int(row["last_tx"] or 0) for row in rows)
        return self.db.execute(
            "UPDATE tx_clock SET last_tx = %s WHERE id = 1 AND last_tx < %s", (value, value)
        )


def _insert(spec: Table, rows: Sequence[ArchiveRow]) -> tuple[str, list[list[Any]]]:
    """One statement for a whole chunk: INSERT ... SELECT from one array per column.

    Far fewer round trips and executor starts than a statement per row; ``WITH ORDINALITY``
    keeps the rows in file order (the order ``turns.seq`` numbers them in).
    """
    arrays: dict[str, list[Any]] = {name: [row[name] for row in rows] for name in spec.names}
    types = {column.name: _ARRAY_TYPES[column.kind] for column in spec.columns}
    targets = list(spec.names)
    selected = [f'u."{name}"' for name in spec.names]
    join = ""
    if spec.name == "facts":
        # As the fact store computes it: '' for a one-valued (or undeclared) attribute, the
        # value's key for a many-valued one.
        targets.append("slot")
        selected.append("CASE a.cardinality WHEN 'many' THEN u.value_key ELSE '' END")
        join = " LEFT JOIN attributes AS a ON a.tenant = u.tenant AND a.name = u.attribute"
    elif spec.name == "search_docs":
        vectors = [
            None if blob is None else np.frombuffer(blob, dtype=np.float32)
            for blob in arrays["vector"]
        ]
        arrays["vector"] = [None if v is None else vector_literal(v) for v in vectors]
        arrays["dims"] = [None if v is None else len(v) for v in vectors]
        arrays["document"] = [index_tokens(str(text)) for text in arrays["text"]]
        types |= {"dims": "bigint[]", "document": "text[]"}
        selected[targets.index("vector")] = "u.vector::vector"
        targets += ["dims", "tokens"]
        selected += ["u.dims", "to_tsvector('simple', u.document)"]
    names = list(arrays)
    unnest = ", ".join(f"%b::{types[name]}" for name in names)
    aliases = ", ".join(f'"{name}"' for name in names)
    sql = (
        f"INSERT INTO {spec.name} ({', '.join(targets)}) SELECT {', '.join(selected)} "
        f"FROM unnest({unnest}) WITH ORDINALITY AS u({aliases}, position){join} "
        "ORDER BY u.position"
    )
    return sql, [arrays[name] for name in names]
