"""A large ``set_many`` on PostgreSQL locks the database, not each of its keys.

Each advisory lock is an entry in the server's shared lock table (about
``max_locks_per_transaction`` x ``max_connections`` for every session together): a batch
taking one lock per key ran out of it at 20,000 keys on a default server.
"""

from __future__ import annotations

from typing import Any

import pytest

import memlane
from memlane.storage.postgres.database import MAX_KEY_LOCKS
from memlane.storage.postgres.dialect import PostgresDialect

_HELD = "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()"


def _locks_held_by(mem: memlane.Memory, writes: list[dict[str, Any]]) -> int:
    """How many advisory locks ``set_many(writes)`` holds while it inserts."""
    held: list[int] = []
    insert_versions = PostgresDialect.insert_versions

    def counting(self: PostgresDialect, tenant: str, rows: Any) -> None:
        held.append(int(self.db.fetchone(_HELD)[0]))
        insert_versions(self, tenant, rows)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(PostgresDialect, "insert_versions", counting)
        mem.facts.set_many(writes)
    return held[0]


def test_a_batch_of_many_keys_takes_one_lock_a_small_one_each_key(postgres_url: str) -> None:
    many = MAX_KEY_LOCKS * 4
    with memlane.Memory(postgres_url) as mem:
        small = [{"subject": f"S-{n}", "attribute": "tier", "value": n} for n in range(10)]
        # Each key's lock, the write lock shared, and the mark of its first transaction time.
        assert _locks_held_by(mem, small) == 10 + 2
        large = [{"subject": f"L-{n}", "attribute": "tier", "value": n} for n in range(many)]
        assert _locks_held_by(mem, large) == 1 + 1  # the write lock exclusive, and the mark
        assert mem.facts.get(f"L-{many - 1}", "tier").value == many - 1
