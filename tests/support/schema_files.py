"""SQLite files as an earlier memlane left them, for tests of what a migration does."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from memlane.storage.sqlite import schema


def version_before(marker: str) -> int:
    """The schema version just before the first SQLite migration whose SQL holds ``marker``."""
    return next(
        number
        for number, statements in enumerate(schema.MIGRATIONS)
        if any(marker in statement for statement in statements)
    )


def rewind(path: Path, version: int, *undo: str) -> None:
    """Run ``undo`` on the file at ``path`` and mark it as written at schema ``version``."""
    connection = sqlite3.connect(path)
    for statement in undo:
        connection.execute(statement)
    connection.execute(f"PRAGMA user_version = {version}")
    connection.commit()
    connection.close()
