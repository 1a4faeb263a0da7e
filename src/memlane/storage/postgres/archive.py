"""Rows out of and into PostgreSQL as ``memlane export`` / ``memlane import`` move them.

What only PostgreSQL stores is derived on load and never exported: ``facts.slot`` (from the
attribute's cardinality, as the fact store computes it), ``search_docs.tokens`` and ``dims``
(from the text and the vector), and ``turns.seq`` (insertion order: rows load in file order).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from memlane.storage.archive import CLOCK, Table, table_named
from memlane.storage.archiving import ArchiveRow
from memlane.storage.postgres.search import index_tokens, vector_literal

_ARRAY_TYPES = {"int": "bigint[]", "float": "float8[]", "str": "text[]", "bytes": "text[]"}
"""How a column travels to the server: one array per column (vectors as pgvector text)."""
_CLOCK = (
    "(SELECT id, greatest(last_tx, (SELECT last_value FROM memlane_tx)) AS last_tx "
    "FROM tx_clock) AS tx_clock"
)
"""The clock row as exported: the latest transaction time issued."""


def select(spec: Table) -> str:
    """The columns of ``spec`` as a SELECT lists them (vectors as float arrays)."""
    return ", ".join("vector::real[]" if name == "vector" else name for name in spec.names)


def decoded(spec: Table, values: Sequence[Any]) -> ArchiveRow:
    """A row as :func:`select` reads it, as an archive row (vectors as float32 bytes)."""
    row: ArchiveRow = dict(zip(spec.names, values, strict=True))
    if spec.name == "search_docs" and row["vector"] is not None:
        row["vector"] = np.asarray(row["vector"], dtype=np.float32).tobytes()
    return row


class PostgresArchiveReader:
    """Reads inside ``PostgresDialect.snapshot`` (one repeatable-read transaction)."""

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
        # The clock row: writes advance the memlane_tx sequence instead (schema migration 2).
        source = _CLOCK if spec.name == CLOCK else spec.name
        with self._connection.cursor(name=f"memlane_export_{spec.name}") as cursor:
            cursor.execute(f"SELECT {select(spec)} FROM {source} ORDER BY {order}")
            while fetched := cursor.fetchmany(chunk):
                yield [decoded(spec, values) for values in fetched]


def insert(spec: Table, rows: Sequence[ArchiveRow]) -> tuple[str, list[list[Any]]]:
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
