"""The fixtures and helpers of the note-keys tests (tests/storage/test_note_keys*.py).

A test module binds the fixtures by name (``backend = keyed.backend``, ``memory =
keyed.memory``): only the modules that do run on both backends; every other module keeps
the ``backend`` of tests/conftest.py (not a tests/storage conftest, which would change it).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import memlane
from memlane.storage.sql import SQLSummaryStore, schema
from tests.conftest import FakeClock


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def memory(clock: FakeClock, scratch_url: str) -> Iterator[memlane.Memory]:
    with memlane.Memory(scratch_url, clock=clock, embedder="hash") as mem:
        yield mem


def store_of(mem: memlane.Memory) -> SQLSummaryStore:
    store = mem.summaries._store
    assert isinstance(store, SQLSummaryStore)
    return store


def key_rows(mem: memlane.Memory, subject: str) -> int:
    row = store_of(mem).db.fetchone(
        "SELECT count(*) FROM note_keys WHERE tenant = %s AND subject = %s",
        (mem.tenant, subject),
    )
    return int(row[0])


def pending(mem: memlane.Memory) -> int:
    return int(store_of(mem).db.fetchone("SELECT count(*) FROM note_keys_pending")[0])


def rekeyed(mem: memlane.Memory) -> None:
    """Make every note wait for its keys again, as the re-keying migrations do."""
    store = store_of(mem)
    with store.db.write():
        for statement in schema.REKEY_NOTES:
            store.db.execute(statement)
