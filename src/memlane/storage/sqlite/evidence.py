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
_GRAMS = (16, 8, 4)
Hashes = npt.NDArray[np.uint64]
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

    ``data`` is cut into ``gram``-byte slices at multiples of ``gram``, hashed and sorted
    once. A needle of at least ``2 * gram - 1`` bytes that occurs at offset ``p`` covers
    whole slices, at its offsets ``o`` with ``(p + o) % gram == 0``: so for each of the
    ``gram`` classes of offsets, the needle is compared only where its rarest slice of that
    class lies in ``data``. Needles shorter than 7 bytes are searched plainly.

    >>> data = b"x" * 5 + b"the e-mail is zed@example.org" * 2 + b"y" * 40
    >>> sorted(present(data, [b"zed@example.org", b"the e-mail is zed@example.orgthe",
    ...                       b"the e-mail is zed@example.net!!!", b"e-mail", b"ab"]))
    [b'e-mail', b'the e-mail is zed@example.orgthe', b'zed@example.org']
    """
    found = [needle for needle in needles if len(needle) < 2 * _GRAMS[-1] - 1 and needle in data]
    for gram, shortest, below in ((16, 31, None), (8, 15, 31), (4, 7, 15)):
        tier = [n for n in needles if len(n) >= shortest and (below is None or len(n) < below)]
        if tier and len(data) >= gram:
            found += _by_slices(data, tier, gram)
    return found


def _by_slices(data: bytes, needles: Sequence[bytes], gram: int) -> list[bytes]:
    hashes = _hashes(data[: len(data) // gram * gram], gram)
    order = np.argsort(hashes, kind="stable")
    ordered = hashes[order]
    return [needle for needle in needles if _occurs(data, needle, gram, order, ordered)]


def _occurs(
    data: bytes, needle: bytes, gram: int, order: npt.NDArray[np.intp], ordered: Hashes
) -> bool:
    windows = len(needle) - gram + 1
    wanted = _hashes(b"".join(needle[o : o + gram] for o in range(windows)), gram)
    first = np.searchsorted(ordered, wanted, "left")
    counts = np.searchsorted(ordered, wanted, "right") - first
    for offsets in (range(r, windows, gram) for r in range(gram)):
        rarest = min(offsets, key=lambda o: int(counts[o]))
        for slot in order[first[rarest] : first[rarest] + counts[rarest]].tolist():
            start = slot * gram - rarest
            if start >= 0 and data[start : start + len(needle)] == needle:
                return True
    return False


def _hashes(data: bytes, gram: int) -> Hashes:
    """One 64-bit hash per ``gram``-byte slice of ``data`` (a multiple of ``gram`` long)."""
    if gram == 4:
        return np.frombuffer(data, dtype=np.uint32).astype(np.uint64)
    words = np.frombuffer(data, dtype=np.uint64).reshape(-1, gram // 8)
    mixed: Hashes = words[:, 0].copy()
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
    frames: set[int] = set()
    for needle in found:
        at = wal.find(needle, _WAL_HEADER)
        while at >= 0:
            frames.add((at - _WAL_HEADER) // (_FRAME_HEADER + page_size))
            at = wal.find(needle, at + 1)
    return len(frames)


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
