"""Sessions whose snapshots predate a moment: what keeps a purge's deleted rows in the files.

A deleted row version stays in its table while any transaction of the database might still
see it: one whose snapshot was taken before the deletion committed (``backend_xmin``), or
one that was already running then (``backend_xid``). ``VACUUM FULL`` copies such rows into
the new files like live ones, so a purge waits for those sessions to end before rewriting.
"""

from __future__ import annotations

import time
from typing import Any

import psycopg

_FIRST_PAUSE = 0.01
_LONGEST_PAUSE = 0.2

_BOUNDARY_SQL = "SELECT pg_snapshot_xmax(pg_current_snapshot())::text"

PLAIN_VACUUM = (
    "coalesce(query ~* '^\\s*(autovacuum:\\s*)?VACUUM\\M' "
    "AND query !~* '\\mANALY[SZ]E\\M' AND query !~* '\\mFULL\\M', false)"
)
"""Of a session's ``query``: a plain VACUUM (autovacuum's too), whose xmin other vacuums
ignore, so it is not waited for; its ANALYZE part takes a snapshot like any reader, and a
VACUUM FULL is a transaction like any other."""

# age() of two transaction ids taken in one statement orders them: the older has the larger
# age. Sessions of other roles show their transaction ids only to superusers and members of
# pg_read_all_stats; for the rest they read as NULL and are not waited for.
_OLDER_SQL = f"""
SELECT pid, coalesce(nullif(application_name, ''), backend_type), coalesce(state, ''),
       coalesce(floor(extract(epoch FROM now() - xact_start))::bigint, 0)
FROM pg_stat_activity
WHERE datid = (SELECT oid FROM pg_database WHERE datname = current_database())
  AND pid <> pg_backend_pid()
  AND (age(backend_xmin) > age(%(boundary)s::text::xid)
       OR age(backend_xid) > age(%(boundary)s::text::xid))
  AND NOT {PLAIN_VACUUM}
ORDER BY xact_start
"""


def boundary(connection: psycopg.Connection[Any]) -> int:
    """The first transaction id not yet finished now: every commit so far is older."""
    row = connection.execute(_BOUNDARY_SQL).fetchone()
    assert row is not None
    # backend_xmin and backend_xid are 32-bit: the epoch is dropped.
    return int(row[0]) % 2**32


def older_than(connection: psycopg.Connection[Any], xid: int) -> list[str]:
    """The other sessions of this database whose snapshot or transaction predates ``xid``."""
    rows = connection.execute(_OLDER_SQL, {"boundary": xid}).fetchall()
    return [
        f"PostgreSQL session {pid} ({name}, {state or 'no state'}, in a transaction for "
        f"{seconds} s) holds a snapshot from before the purge, so its deleted rows were "
        "copied into the rewritten files; the deletions stay due and the next purge retries"
        for pid, name, state, seconds in rows
    ]


def wait_for_older(connection: psycopg.Connection[Any], xid: int, timeout: float) -> list[str]:
    """Wait up to ``timeout`` s for the sessions older than ``xid`` to end; say who is left.

    ``connection`` must be in autocommit mode: the activity view is read once per
    transaction.
    """
    deadline = time.monotonic() + timeout
    pause = _FIRST_PAUSE
    while True:
        held = older_than(connection, xid)
        left = deadline - time.monotonic()
        if not held or left <= 0:
            return held
        time.sleep(min(pause, left))
        pause = min(pause * 2, _LONGEST_PAUSE)
