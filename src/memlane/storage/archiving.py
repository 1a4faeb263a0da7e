"""The archive protocol: what ``memlane export`` / ``memlane import`` need of a backend.

The flow that uses it (tables, order, resuming) is :mod:`memlane.storage.archive`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Protocol

ArchiveValue = int | float | str | bytes | None
"""A stored value as an archive moves it: integer, float, text, vector bytes or NULL."""

ArchiveRow = dict[str, ArchiveValue]
"""One row of a logical table by column name (the columns :mod:`memlane.storage.archive` lists)."""


class ArchiveReader(Protocol):
    """One consistent snapshot of every table, read for an export."""

    def count(self, table: str) -> int:
        """The number of rows in ``table``."""
        ...

    def rows(self, table: str, chunk: int) -> Iterator[list[ArchiveRow]]:
        """Every row of ``table`` in export order, at most ``chunk`` rows at a time."""
        ...


class ArchiveStore(Protocol):
    """Exact copies of every tenant's rows out of and into one database.

    Rows keep their ids and every time column. Derived data (search tokens, full-text rows,
    PostgreSQL's ``facts.slot``, ``search_docs.dims``, ``turns.seq``) is never part of a row:
    :meth:`load` computes it.
    """

    def snapshot(self) -> AbstractContextManager[ArchiveReader]:
        """A read-only view of the database as of one instant, for a consistent export."""
        ...

    def match(self, table: str, rows: Sequence[ArchiveRow]) -> int:
        """How many of ``rows`` are stored already, identical; writes nothing.

        Raises:
            ArchiveConflict: a row's key is stored with different data.
        """
        ...

    def load(self, table: str, rows: Sequence[ArchiveRow]) -> int:
        """Insert the rows not stored yet, in one transaction; return how many were inserted.

        Rows stored already and identical are skipped, so loading again resumes a load.
        ``tx_clock`` is not inserted but raised to the loaded value if that is later.

        Raises:
            ArchiveConflict: a row's key is stored with different data (nothing is written).
        """
        ...

    def finish(self) -> None:
        """After a load: make new writes follow the loaded data (ids, indexes)."""
        ...
