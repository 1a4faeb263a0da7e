"""What kind of database a memory location names: one rule for the library and its benchmarks.

A location is a file path, ``:memory:``, ``sqlite:///path`` or ``postgresql://...`` (also
``postgres://``); :func:`memlane.storage.open_backend` opens it.

>>> scheme("postgresql://u@localhost/db"), scheme("./memlane.db"), scheme("SQLite:///m.db")
('postgresql', '', 'sqlite')
>>> is_postgres("postgres://u@db/m"), is_postgres("/tmp/postgres.db")
(True, False)
"""

from __future__ import annotations

POSTGRES_SCHEMES = frozenset({"postgres", "postgresql"})
"""The schemes of a PostgreSQL location."""


def scheme(location: str) -> str:
    """The location's scheme, lower-cased; ``""`` for a path (or ``:memory:``)."""
    return location.split("://", 1)[0].lower() if "://" in location else ""


def is_postgres(location: str) -> bool:
    """Whether the location names a PostgreSQL database."""
    return scheme(location) in POSTGRES_SCHEMES
