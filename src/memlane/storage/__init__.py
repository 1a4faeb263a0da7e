"""Storage backends behind small protocols; nothing outside this package knows which is used."""

from __future__ import annotations

import os
from pathlib import Path

from memlane.errors import InvalidInput
from memlane.locations import POSTGRES_SCHEMES, scheme
from memlane.storage.base import Backend
from memlane.storage.fact_stores import FactStore, FactWriter, Scope

__all__ = ["Backend", "FactStore", "FactWriter", "Scope", "open_backend"]

DEFAULT_URL = "./memlane.db"


def open_backend(url: str | os.PathLike[str] | None) -> Backend:
    """Open the backend a location names.

    ``None`` reads ``MEMLANE_URL`` and falls back to ``./memlane.db``. A file path,
    ``sqlite:///path`` or ``:memory:`` opens SQLite; ``postgresql://...`` opens PostgreSQL.

    Raises:
        InvalidInput: the location is empty or names a backend this build cannot open.
        StorageError: the database cannot be opened or reached.
    """
    if url is None:
        location: object = os.environ.get("MEMLANE_URL", DEFAULT_URL)
    else:
        location = os.fspath(url) if isinstance(url, str | os.PathLike) else None
    if not isinstance(location, str):  # a number, or a path of bytes
        raise InvalidInput(
            "url", f"must be a file path, sqlite:/// or postgresql:// URL, got {url!r}"
        )
    if not location.strip():
        raise InvalidInput("url", "empty memory location")
    named = scheme(location)
    if named in POSTGRES_SCHEMES:
        try:
            import psycopg  # noqa: F401
            import psycopg_pool  # noqa: F401
        except ImportError as error:
            raise InvalidInput(
                "url", "the PostgreSQL backend needs psycopg: pip install 'memlane[postgres]'"
            ) from error
        from memlane.storage.postgres import open_postgres

        return open_postgres(location)
    if named == "sqlite":
        # sqlite:///relative.db, sqlite:////absolute.db, sqlite:///:memory: (as SQLAlchemy)
        rest = location.split("://", 1)[1]
        location = rest[1:] if rest.startswith("/") else rest
    elif named:
        raise InvalidInput("url", f"unknown memory location scheme {named!r}")

    from memlane.storage.sqlite import open_sqlite

    if location != ":memory:":
        parent = Path(location).expanduser().resolve().parent
        if not parent.is_dir():
            raise InvalidInput("url", f"directory {parent} does not exist")
        location = str(Path(location).expanduser())
    return open_sqlite(location)
