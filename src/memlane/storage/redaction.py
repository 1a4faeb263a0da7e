"""What every backend's forget and purge share: the tables of free text, the deletion log.

Which texts mention a forgotten value is the privacy package's rule
(:mod:`memlane.privacy.matching`); the store receives it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from memlane.privacy.model import Deletion
from memlane.storage import lexical
from memlane.timeutil import from_micros

TEXT_TABLES = (
    ("summaries", "content"),
    ("notes", "text"),
    ("search_docs", "text"),
    ("turns", "content"),
)
"""Tables holding a subject's free text, with the column the text is in."""

DELETION_COLUMNS = (
    "id, subject, scope, requested_at, reason, purge_due, purged_at, requested_by, counts"
)
"""The ``deletions`` columns :func:`deletion` decodes, in order."""

CONTENT_COLUMNS = {
    "facts": ("value", "value_key", "reason"),
    **{table: (column,) for table, column in TEXT_TABLES},
    "summaries": ("content", "line_facts"),  # what recall derived of its lines: their words
}
"""Per purged table, the columns whose stored text a purge scans the files for afterwards."""

PIECE_BYTES = 48
"""A long text is looked for in pieces this long: a page boundary splits one piece, not all."""
MIN_PIECE_BYTES = 6
"""Shorter texts are not looked for: they occur by chance in any file."""

_DIGITS = re.compile(r"\D+")
_NUMBER = re.compile(r'"?[\d\s+\-().]+"?')


def scope_name(attribute: str | None) -> str:
    """How the deletion log names what was forgotten."""
    return "subject" if attribute is None else f"attribute:{attribute}"


def counts_json(counts: Mapping[str, int]) -> str:
    """The per-table counts of a deletion as stored in the log."""
    return json.dumps(dict(counts), sort_keys=True)


def deletion(row: Sequence[Any]) -> Deletion:
    """A deletion log entry from a row of :data:`DELETION_COLUMNS`."""
    return Deletion(
        id=row[0],
        subject=row[1],
        scope=row[2],
        requested_at=from_micros(row[3]),
        reason=row[4],
        purge_due=from_micros(row[5]),
        purged_at=None if row[6] is None else from_micros(row[6]),
        requested_by=row[7],
        counts=json.loads(row[8]),
    )


def written_forms(texts: Iterable[str | None]) -> set[bytes]:
    """The byte strings a purge scans the files for, so that no form of a text escapes it.

    Each text as stored (UTF-8), the search index's token form of it (SQLite's FTS5 keeps
    that verbatim), and, for a number written with separators (a phone number), its six or
    more digits alone. A text longer than :data:`PIECE_BYTES` is looked for as pieces at
    fixed offsets (and its last piece), since SQLite splits a long row over pages.

    >>> sorted(written_forms(['"+86 138-0000-1234"']))
    [b'"+86 138-0000-1234"', b'86 138 0000 1234 8613800001234', b'8613800001234']
    """
    found: set[bytes] = set()
    for text in texts:
        if not text:
            continue
        digits = _DIGITS.sub("", text) if _NUMBER.fullmatch(text) else ""
        forms = {text, lexical.document(text), digits if len(digits) >= 6 else ""}
        for form in forms:
            found.update(_pieces(form.encode("utf-8", "replace")))
    return found


def _pieces(data: bytes) -> list[bytes]:
    if len(data) < MIN_PIECE_BYTES:
        return []
    if len(data) <= PIECE_BYTES:
        return [data]
    starts = range(0, len(data) - PIECE_BYTES + 1, PIECE_BYTES)
    return [data[start : start + PIECE_BYTES] for start in starts] + [data[-PIECE_BYTES:]]
