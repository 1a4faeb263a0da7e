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

import numpy as np
import numpy.typing as npt

from memlane.storage.sql.dialect import BytesCheck

if TYPE_CHECKING:
    from memlane.storage.sqlite.database import SQLiteDatabase

CHECKPOINT_WAIT_SECONDS = 5.0
"""How long a purge keeps retrying a checkpoint that readers hold up."""
_FIRST_PAUSE = 0.01
_LONGEST_PAUSE = 0.25
_WAL_HEADER = 32
_FRAME_HEADER = 24
_GRAMS = (16, 8)
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
    found: dict[Path, list[bytes]] = {}
    for suffix in SUFFIXES:
        file = path.with_name(path.name + suffix)
        try:
            data = file.read_bytes()
        except FileNotFoundError:
            continue
        found[file] = present(data, needles)
    # One value no live row stores settles it; a shared value needs a look at every table.
    live: set[bytes] = set()
    for needle in sorted({needle for hits in found.values() for needle in hits}):
        if not _stored_live(database, needle):
            break
        live.add(needle)
    held = [
        _where(file, [needle for needle in hits if needle not in live], result)
        for file, hits in found.items()
        if set(hits) - live
    ]
    return BytesCheck(not held, tuple(held), complete=not result.busy)


def present(data: bytes, needles: Sequence[bytes]) -> list[bytes]:
    """The needles that occur in ``data``, without searching all of it once per needle.

    A needle of at least ``2 * gram - 1`` bytes covers one of ``data``'s ``gram``-byte
    slices at a multiple of ``gram``, whatever its offset: so the slices are hashed and
    sorted once, and a needle is compared only where one of its own slices (at any of the
    ``gram`` shifts) hashes alike. Needles shorter than 15 bytes are searched plainly, one
    pass over ``data`` each (the scan's main cost when a subject had many short values).

    >>> data = b"x" * 5 + b"the e-mail is zed@example.org" * 2 + b"y" * 40
    >>> sorted(present(data, [b"zed@example.org", b"the e-mail is zed@example.orgthe",
    ...                       b"the e-mail is zed@example.net!!!", b"e-mail"]))
    [b'e-mail', b'the e-mail is zed@example.orgthe', b'zed@example.org']
    """
    found = [needle for needle in needles if len(needle) < 2 * _GRAMS[-1] - 1 and needle in data]
    for gram, shortest, longest in zip(_GRAMS, (31, 15), (None, 31), strict=True):
        tier = [n for n in needles if len(n) >= shortest and (longest is None or len(n) < longest)]
        found += _by_slices(data, tier, gram)
    return found


def _by_slices(data: bytes, needles: Sequence[bytes], gram: int) -> list[bytes]:
    if not needles or len(data) < gram:
        return []
    hashes = _hashes(data[: len(data) // gram * gram], gram)
    order = np.argsort(hashes, kind="stable")
    ordered = hashes[order]
    wanted = _hashes(
        b"".join(n[shift : shift + gram] for n in needles for shift in range(gram)), gram
    )
    first = np.searchsorted(ordered, wanted, "left")
    after = np.searchsorted(ordered, wanted, "right")
    found: dict[int, bytes] = {}
    for match in np.flatnonzero(after > first).tolist():
        which, shift = divmod(match, gram)
        needle = needles[which]
        if which in found:
            continue
        # The slice at offset q matched the needle's slice at ``shift``: it starts at q - shift.
        for slot in order[first[match] : after[match]].tolist():
            start = slot * gram - shift
            if start >= 0 and data[start : start + len(needle)] == needle:
                found[which] = needle
                break
    return list(found.values())


def _hashes(data: bytes, gram: int) -> npt.NDArray[np.uint64]:
    """One 64-bit hash per ``gram``-byte slice of ``data`` (a multiple of ``gram`` long)."""
    words = np.frombuffer(data, dtype=np.uint64).reshape(-1, gram // 8)
    mixed: npt.NDArray[np.uint64] = words[:, 0].copy()
    for column in range(1, gram // 8):
        mixed = (mixed * np.uint64(0x9E3779B97F4A7C15)) ^ words[:, column]
    return mixed


def _where(file: Path, found: list[bytes], result: Checkpoint) -> str:
    what = f"{len(found)} of the purged values looked for"
    if file.name.endswith("-wal"):
        what = (
            f"{_frames_holding(file.read_bytes(), found)} frame(s) in {file.name} still hold {what}"
        )
    else:
        what = f"{file.name} still holds {what}"
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
