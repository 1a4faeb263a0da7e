"""After a purge: the WAL checkpoint, retried without stalling writers, and the file scan.

A checkpoint in ``TRUNCATE`` mode copies the log into the database file and empties the log,
but only when no other connection still reads an older snapshot. It answers
``(busy, log frames, checkpointed frames)``; ``busy`` means it could not finish. While it
waits for readers it blocks every writer of the file, so it is tried with no busy wait, a
few times over a bounded period, and the writers of other tenants run in between.
Then every file of the database is scanned for the purged values: what proves the purge.
"""

from __future__ import annotations

import struct
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from memlane.storage.sql.dialect import BytesCheck

if TYPE_CHECKING:
    from memlane.storage.sqlite.database import SQLiteDatabase

CHECKPOINT_WAIT_SECONDS = 5.0
"""How long a purge keeps retrying a checkpoint that readers hold up."""
_FIRST_PAUSE = 0.01
_LONGEST_PAUSE = 0.25
_WAL_HEADER = 32
_FRAME_HEADER = 24
SUFFIXES = ("", "-wal", "-shm", "-journal")
"""The files of a SQLite database: the file itself, its log, the log's index, a journal."""


class Checkpoint(NamedTuple):
    """``PRAGMA wal_checkpoint(TRUNCATE)``'s answer, and how long it was retried."""

    busy: bool
    log: int
    checkpointed: int
    waited: float


def checkpoint(database: SQLiteDatabase, wait: float | None = None) -> Checkpoint:
    """Checkpoint and truncate the log, retried with growing pauses for at most ``wait`` s.

    Each attempt runs with no busy timeout, so it never blocks other writers while it waits
    for a reader; between attempts the connection is free.
    """
    wait = CHECKPOINT_WAIT_SECONDS if wait is None else wait
    started = time.monotonic()
    pause = _FIRST_PAUSE
    while True:
        with database.lock:
            database.execute("PRAGMA busy_timeout = 0")
            try:
                busy, log, done = database.fetchone("PRAGMA wal_checkpoint(TRUNCATE)")
            finally:
                database.execute(f"PRAGMA busy_timeout = {int(database.busy_timeout * 1000)}")
        waited = time.monotonic() - started
        if not busy or waited >= wait:
            return Checkpoint(bool(busy), log, done, waited)
        time.sleep(min(pause, wait - waited))
        pause = min(pause * 2, _LONGEST_PAUSE)


def scan(database: SQLiteDatabase, needles: Sequence[bytes], result: Checkpoint) -> BytesCheck:
    """Look for every needle in every file of the database; say what still holds one.

    A value found that a live row also stores (another subject's copy of the same text) is
    not a purged byte, so it does not count.
    """
    path = Path(database.path)
    held: list[str] = []
    for suffix in SUFFIXES:
        file = path.with_name(path.name + suffix)
        try:
            data = file.read_bytes()
        except FileNotFoundError:
            continue
        found = [needle for needle in needles if needle in data]
        found = [needle for needle in found if not _stored_live(database, needle)]
        if found:
            held.append(_where(file.name, suffix, data, found, result))
    return BytesCheck(not held, tuple(held), complete=not result.busy)


def _where(name: str, suffix: str, data: bytes, found: list[bytes], result: Checkpoint) -> str:
    what = f"{len(found)} purged value(s)"
    if suffix == "-wal":
        frames = _frames_holding(data, found)
        what = f"{frames} frame(s) in {name} still hold {what}"
    else:
        what = f"{name} still holds {what}"
    if result.busy:
        return (
            f"{what}: another connection holds a read transaction begun before the purge "
            f"(an old snapshot), so the log could not be checkpointed and truncated "
            f"({result.log - result.checkpointed} of {result.log} frames not copied after "
            f"{result.waited:.1f} s); purge again once that reader has finished"
        )
    return f"{what} after a complete checkpoint; purge again to rewrite the file"


def _frames_holding(wal: bytes, found: list[bytes]) -> int:
    """How many frames of a WAL file hold one of the values (in their page image)."""
    if len(wal) < _WAL_HEADER:
        return 0
    page_size = struct.unpack(">I", wal[8:12])[0]
    frame = _FRAME_HEADER + page_size
    count = 0
    for start in range(_WAL_HEADER, len(wal) - frame + 1, frame):
        page = wal[start + _FRAME_HEADER : start + frame]
        count += any(needle in page for needle in found)
    return count


def _stored_live(database: SQLiteDatabase, needle: bytes) -> bool:
    """True if a row of any table (deleted-but-not-purged ones too) holds the needle."""
    for table, columns in _text_columns(database):
        condition = " OR ".join(f'instr(CAST("{c}" AS BLOB), %s) > 0' for c in columns)
        if database.fetchone(
            f'SELECT 1 FROM "{table}" WHERE {condition} LIMIT 1', [needle] * len(columns)
        ):
            return True
    return False


def _text_columns(database: SQLiteDatabase) -> list[tuple[str, list[str]]]:
    tables = database.fetchall(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%%'"
    )
    found = []
    for (table,) in tables:
        columns = database.fetchall(f"SELECT name, type FROM pragma_table_info('{table}')")
        names = [name for name, kind in columns if kind.upper() in ("TEXT", "BLOB", "")]
        if names:
            found.append((table, names))
    return found
