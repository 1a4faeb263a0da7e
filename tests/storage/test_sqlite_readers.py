"""SQLite's reads outside a write transaction run on read connections: they wait for no writer.

Each test holds a write transaction open on another thread (an Event keeps it open, no timing)
and reads meanwhile: on the one shared connection, the read waited for the write's lock until
the transaction ended, so ``on_thread`` gave up (the ``WAITED`` seconds only end a wait that
would never end by itself).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import pytest

import memlane
from memlane.storage.nesting import HeldLock
from memlane.storage.sql.summaries import SQLSummaryStore
from memlane.storage.sqlite.database import SQLiteDatabase, reads_only
from memlane.storage.sqlite.dialect import SQLiteDialect

AT = datetime(2026, 3, 1, tzinfo=UTC)
WAITED = 30.0
_T = TypeVar("_T")


def dialect(mem: memlane.Memory) -> SQLiteDialect:
    store = mem.summaries._store
    assert isinstance(store, SQLSummaryStore) and isinstance(store.dialect, SQLiteDialect)
    return store.dialect


def database(mem: memlane.Memory) -> SQLiteDatabase:
    db = dialect(mem).db
    assert isinstance(db, SQLiteDatabase)
    return db


@contextmanager
def write_open(db: SQLiteDatabase, write: Callable[[], Any]) -> Iterator[None]:
    """Another thread runs ``write`` in a write transaction left open until the block ends."""
    opened, release, failed = threading.Event(), threading.Event(), []

    def hold() -> None:
        try:
            with db.write():
                write()
                opened.set()
                release.wait()
        except BaseException as error:  # (reported by the test)
            failed.append(error)
            opened.set()

    thread = threading.Thread(target=hold)
    thread.start()
    try:
        assert opened.wait(WAITED) and not failed, failed
        yield
    finally:
        release.set()
        thread.join()
    assert not failed, failed


def on_thread(read: Callable[[], _T]) -> _T:
    """What ``read`` returns on a thread of its own; fails if it does not return."""
    done, result, failed = threading.Event(), [], []

    def run() -> None:
        try:
            result.append(read())
        except BaseException as error:  # (reported by the test)
            failed.append(error)
        done.set()

    threading.Thread(target=run, daemon=True).start()
    assert done.wait(WAITED), "the read waited for the open write transaction"
    assert not failed, failed
    return result[0]


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[memlane.Memory]:
    with memlane.Memory(tmp_path / "m.db", embedder="hash", indexing="inline") as memory:
        yield memory


def test_a_read_returns_while_another_thread_holds_a_write_open(mem: memlane.Memory) -> None:
    """It sees what was committed, not the open transaction's rows; after the commit, those."""
    mem.facts.set("U-1", "location", "Paris")
    db = database(mem)
    with write_open(db, lambda: mem.facts.set("U-1", "location", "Rome")):
        assert on_thread(lambda: mem.facts.get("U-1", "location").value) == "Paris"
        assert on_thread(lambda: db.fetchone("SELECT count(*) FROM facts")[0]) == 1
    assert on_thread(lambda: mem.facts.get("U-1", "location").value) == "Rome"


def test_the_writing_thread_reads_its_own_rows(mem: memlane.Memory) -> None:
    db = database(mem)
    with db.write():
        mem.facts.set("U-1", "location", "Rome")
        assert mem.facts.get("U-1", "location").value == "Rome"
        assert on_thread(lambda: mem.facts.get("U-1", "location")) is None


def test_a_recall_returns_while_a_write_is_open_and_finds_what_was_committed(
    mem: memlane.Memory,
) -> None:
    """Read-your-writes on any thread: a note that returned is recalled, a write open or not."""
    mem.remember("U-1", "I adopted a cat named Luna from the shelter")
    mem.facts.set("U-1", "pet", "Luna")

    def recalled() -> str:
        found = mem.recall("U-1", "what is my cat called?")
        return " ".join(item.text for item in found.items)

    assert "Luna" in on_thread(recalled)
    with write_open(database(mem), lambda: mem.remember("U-1", "I moved to Rome in May")):
        assert "Luna" in on_thread(recalled)
        assert "Rome" not in on_thread(recalled)
    assert "Rome" in on_thread(lambda: " ".join(i.text for i in mem.recall("U-1", "Rome?").items))


def test_a_stamp_taken_while_a_write_is_open_moves_when_it_commits(mem: memlane.Memory) -> None:
    """Also as read inside the next write (whose connection's own commits move no version)."""
    db = database(mem)
    with db.write():
        db.change_stamp()  # the shared connection's version, seen
    with write_open(db, lambda: mem.facts.set("U-1", "location", "Rome")):
        during = on_thread(db.change_stamp)
    assert db.change_stamp() != during
    with db.write():
        assert db.change_stamp() != during


@pytest.mark.parametrize("where", ["here", "elsewhere"])
def test_a_cache_never_keeps_a_read_made_before_a_commit_under_a_later_stamp(
    tmp_path: Path, where: str
) -> None:
    """The stamp is taken before the read: a commit during the read leaves it behind."""
    path = tmp_path / "m.db"
    with (
        memlane.Memory(path, embedder="hash", indexing="inline") as mem,
        memlane.Memory(path, embedder="hash", indexing="inline") as other,
    ):
        found, db = dialect(mem), database(mem)
        writer = mem if where == "here" else other

        def count() -> int:
            return int(db.fetchone("SELECT count(*) FROM search_docs")[0])

        def count_then_commit() -> int:
            counted = count()
            on_thread(lambda: writer.summaries.add_note("U-1", "took kazudi lessons", at=AT))
            return counted

        assert found._until_changed(("docs",), count_then_commit) == 0
        assert found._until_changed(("docs",), count) == 1
        vocabulary = found.full_text._vocabulary_counts

        def held_then_commit(terms: Any) -> Any:
            counts = vocabulary(terms)
            on_thread(lambda: writer.summaries.add_note("U-2", "kazudi again", at=AT))
            return counts

        found.full_text._vocabulary_counts = held_then_commit  # type: ignore[method-assign]
        assert found.full_text._held(["kazudi"]) == {"kazudi": 1}
        found.full_text._vocabulary_counts = vocabulary  # type: ignore[method-assign]
        assert found.full_text._held(["kazudi"]) == {"kazudi": 2}


def test_a_thread_holding_the_lock_reads_on_the_shared_connection_and_no_other_does(
    mem: memlane.Memory,
) -> None:
    """Holding the database's lock outside a write transaction (a snapshot's read transaction,
    a temporary table), a thread reads on the shared connection: its own uncommitted view (on
    a read connection it read the committed one). Any other thread meanwhile reads on a read
    connection: the committed view, without waiting for the holder."""
    db = database(mem)
    committed = db.fetchone("SELECT last_tx FROM tx_clock")[0]
    with db.lock:
        db.execute("BEGIN")
        try:
            db.execute("UPDATE tx_clock SET last_tx = last_tx + 1000")
            with db.lock:  # held again: still this thread's
                assert db.fetchone("SELECT last_tx FROM tx_clock")[0] == committed + 1000
            assert db.fetchone("SELECT last_tx FROM tx_clock")[0] == committed + 1000
            assert on_thread(lambda: db.fetchone("SELECT last_tx FROM tx_clock")[0]) == committed
        finally:
            db.execute("ROLLBACK")
    assert not db.lock.held_here


def test_the_lock_tells_only_its_holder_that_it_holds_it() -> None:
    lock = HeldLock()
    assert not lock.held_here
    with lock:
        with lock:
            assert lock.held_here and not on_thread(lambda: lock.held_here)
        assert lock.held_here  # one hold released, one left
        with lock.plain:  # a statement's hold is not counted, nor does it end this one
            assert lock.held_here
        assert lock.held_here
    assert not lock.held_here
    with lock.plain:
        assert not lock.held_here
    with lock:  # another thread is refused while this one holds it, and then takes it
        assert not on_thread(lambda: lock.acquire(timeout=0.01))
        assert not on_thread(lambda: lock.acquire(blocking=False))
    assert lock.acquire(timeout=1) and lock.held_here
    lock.release()
    assert not lock.held_here


def test_the_statements_that_may_write_stay_on_the_shared_connection() -> None:
    assert reads_only("SELECT owner_id FROM search_docs WHERE deleted_at IS NULL")
    assert reads_only("  with r AS (SELECT 1) SELECT * FROM r")
    assert not reads_only("UPDATE search_docs SET claimed_until = 1 WHERE id = 2 RETURNING id")
    assert not reads_only("WITH c AS (SELECT 1) DELETE FROM search_docs RETURNING id")
    assert not reads_only("PRAGMA data_version")
    assert not reads_only("INSERT INTO t SELECT 1 RETURNING id")


def test_an_in_memory_database_and_a_closed_one(tmp_path: Path) -> None:
    """``:memory:`` has one connection (a read connection would open another database)."""
    with memlane.Memory(":memory:", embedder="hash", indexing="inline") as mem:
        mem.facts.set("U-1", "location", "Paris")
        with write_open(database(mem), lambda: None):
            pass
        assert mem.facts.get("U-1", "location").value == "Paris"
    mem = memlane.Memory(tmp_path / "m.db", embedder="hash", indexing="inline")
    db = database(mem)
    db.fetchone("SELECT 1")
    mem.close()
    with pytest.raises(memlane.StorageError):
        db.fetchone("SELECT count(*) FROM facts")


def test_the_pool_lends_a_connection_to_one_statement_and_closes_them_all(
    mem: memlane.Memory,
) -> None:
    """A read connection refuses writes; one lent while the pool closes is closed when back."""
    readers = database(mem)._readers
    assert readers is not None
    with readers.lent() as first, readers.lent() as second:
        assert first is not second  # each statement its own
        with pytest.raises(memlane.StorageError, match="readonly"):
            first.fetchall("INSERT INTO tx_clock (last_tx) VALUES (1)")
    with readers.lent() as again:
        assert again is first  # the last given back (second went back before it)
        readers.close()
        assert again.fetchone("SELECT 1") == (1,)
    with pytest.raises(memlane.StorageError):
        again.fetchone("SELECT 1")
    with pytest.raises(memlane.StorageError), readers.lent():
        pass
