"""PostgreSQL-only privacy checks: purged values leave every table and every table file.

The contract suite (tests/privacy) checks what reads see on both backends; here we look
underneath, with SQL over every text column and with the bytes of the relation files (heap,
TOAST and indexes, read under the server's data directory after a CHECKPOINT).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

import pytest

import memlane
from memlane.server.model import ApiKey
from tests.conftest import FakeClock
from tests.support.privacy import fill as fill_lanes
from tests.support.services import stored_bytes

if TYPE_CHECKING:
    import psycopg

    from memlane.storage.postgres.database import PostgresDatabase
    from memlane.storage.sql import SQLPrivacyStore

SECRETS = ("Shanghaiville", "13800001234", "138-0000-1234", "zed@example.org", "Quokkaberry")


def open_memory(url: str, clock: FakeClock, tenant: str = "default") -> memlane.Memory:
    return memlane.Memory(
        url,
        tenant=tenant,
        clock=clock,
        embedder="hash",
        retention=timedelta(days=30),
        retain_transcripts=True,
    )


def fill(mem: memlane.Memory) -> None:
    """U-001's secrets in every lane (facts, notes, summaries, search, turns, workflows)."""
    fill_lanes(mem)
    for order in ("ORD-1", "ORD-2"):
        mem.workflows.record(
            task=f"Refund order {order} for U-001 at 138-0000-1234",
            task_type="order_refund",
            steps=[{"action": "refund", "args": {"order": order, "phone": "13800001234"}}],
            success=True,
        )
    mem.summaries.index()


@pytest.fixture
def mem(postgres_url: str, clock: FakeClock) -> Iterator[memlane.Memory]:
    with open_memory(postgres_url, clock) as memory:
        yield memory


@pytest.fixture
def admin(postgres_url: str) -> Iterator[object]:
    """A superuser connection to the test's database (the server's own URL is a superuser's)."""
    psycopg = pytest.importorskip("psycopg")
    with psycopg.connect(postgres_url, autocommit=True) as connection:
        yield connection


def text_columns(admin) -> list[tuple[str, str]]:
    """Every text-like column of every memlane table."""
    rows = admin.execute(
        "SELECT table_name, column_name FROM information_schema.columns "
        "WHERE table_schema = 'public' AND data_type IN ('text', 'tsvector', 'USER-DEFINED') "
        "ORDER BY table_name, column_name"
    ).fetchall()
    return [(table, column) for table, column in rows]


def rows_mentioning(admin, needle: str) -> list[str]:
    """``table.column`` of every column that has a row containing ``needle`` (any case)."""
    found = []
    for table, column in text_columns(admin):
        hit = admin.execute(
            f'SELECT 1 FROM "{table}" WHERE "{column}"::text ILIKE %s LIMIT 1',
            (f"%{needle}%",),
        ).fetchone()
        if hit:
            found.append(f"{table}.{column}")
    return found


def test_a_purged_value_is_in_no_table_and_no_table_file(mem, admin, postgres_url, clock):
    fill(mem)
    before = stored_bytes(postgres_url)
    # The checks below could fail: the files do hold every value before the purge.
    assert [s for s in SECRETS if s.encode() in before] == list(SECRETS)
    mem.forget("U-001", reason="GDPR")
    clock.advance(days=31)
    report = mem.purge()
    assert report.deletions == (1,) and report.vacuumed
    # The server's files cannot be scanned from a client: unknown, and said so, never True.
    assert report.bytes_verified is None and "cannot be scanned" in report.held[0]
    assert report.rows["facts"] >= 3 and report.rows["search_docs"] >= 1
    assert "search_fts" not in report.rows  # no separate index on PostgreSQL
    for secret in SECRETS:
        assert rows_mentioning(admin, secret) == [], secret
    raw = stored_bytes(postgres_url)
    # tsvector lexemes are lower-case, so look for both spellings.
    leaked = [s for s in SECRETS if s.encode() in raw or s.lower().encode() in raw]
    assert leaked == []
    assert b"Lisbon" in raw and rows_mentioning(admin, "Lisbon")  # U-002 stays


def test_purging_one_attribute_removes_its_values_from_the_files(mem, admin, postgres_url):
    fill(mem)
    deletion = mem.forget("U-001", "email")
    assert deletion.counts["facts"] >= 1
    report = mem.purge(subject="U-001", immediately=True)
    assert report.total_rows >= 1
    assert rows_mentioning(admin, "zed@example.org") == []
    raw = stored_bytes(postgres_url)
    assert (b"zed@example.org" in raw, b"Shanghaiville" in raw) == (False, True)


def test_forget_and_purge_in_one_tenant_leave_another_untouched(postgres_url, admin, clock):
    with (
        open_memory(postgres_url, clock, "t1") as one,
        open_memory(postgres_url, clock, "t2") as two,
    ):
        fill(one)
        fill(two)
        tables = [
            row[0]
            for row in admin.execute(
                "SELECT table_name FROM information_schema.columns "
                "WHERE table_schema = 'public' AND column_name = 'tenant' ORDER BY table_name"
            ).fetchall()
        ]

        def snapshot(tenant: str) -> dict[str, list[tuple[object, ...]]]:
            return {
                table: admin.execute(
                    f'SELECT * FROM "{table}" AS r WHERE tenant = %s ORDER BY r::text', (tenant,)
                ).fetchall()
                for table in tables
            }

        before = snapshot("t2")
        assert before["facts"] and before["search_docs"] and before["turns"]
        one.forget("U-001", "phone")
        one.forget("U-001", reason="GDPR")
        assert one.purge(immediately=True).total_rows > 0
        assert snapshot("t2") == before
        assert two.views.compliance() == []
        assert [fact.value for fact in two.facts.get_all("U-001", "phone")] == ["138-0000-1234"]
        assert two.summaries.search_notes("U-001", "Quokkaberry", k=5)
        assert "13800001234" in repr(two.workflows.trajectories("order_refund"))
        assert not one.facts.profile("U-001") and one.views.audit("U-001").facts == []


def test_forget_counts_match_sqlite(postgres_url, tmp_path, clock):
    """The same data forgotten on both backends: the same rows marked, the same rows purged."""
    reports = {}
    for name, url in (("sqlite", str(tmp_path / "twin.db")), ("postgresql", postgres_url)):
        with open_memory(url, FakeClock(clock.now)) as memory:
            fill(memory)
            phone = memory.forget("U-001", "phone")
            everything = memory.forget("U-001")
            purged = memory.purge(immediately=True)
            reports[name] = (phone.counts, everything.counts, purged.rows)
    sqlite_rows = dict(reports["sqlite"][2])
    assert sqlite_rows.pop("search_fts") == sqlite_rows["search_docs"]
    assert reports["postgresql"] == (*reports["sqlite"][:2], sqlite_rows)
    assert reports["postgresql"][0]["turns"] >= 1  # the phone's turn was found by its digits


def test_privacy_store_purge_is_scoped_by_due_date_and_subject(postgres_url):
    """The store itself: retention, subject filter and the log's purged_at."""
    from memlane.storage.postgres.database import PostgresDatabase
    from memlane.storage.sql import SQLPrivacyStore

    database = PostgresDatabase(postgres_url)
    try:
        store = SQLPrivacyStore(database)
        for subject, now in (("A", 100), ("B", 200)):
            with database.write():
                database.execute(
                    "INSERT INTO notes (tenant, subject, text, said_at, tx_from, provenance) "
                    "VALUES ('t', %s, 'secret of ' || %s, 1, 1, '[]')",
                    (subject, subject),
                )
            store.forget(
                "t", subject, None, now=now, purge_due=now + 50, reason=None, requested_by="ops"
            )
        assert store.purge("t", None, now=149, immediately=False).deletions == ()
        first = store.purge("t", None, now=150, immediately=False)
        assert first.deletions == (1,) and first.rows["notes"] == 1
        assert store.purge("t", "A", now=1000, immediately=False).deletions == ()
        assert store.purge("t", "B", now=0, immediately=True).deletions == (2,)
        log = store.deletions("t")
        assert [(d.subject, d.requested_by, d.counts["notes"]) for d in log] == [
            ("A", "ops", 1),
            ("B", "ops", 1),
        ]
        assert [d.purged_at is not None for d in log] == [True, True]
        assert database.fetchone("SELECT count(*) FROM notes")[0] == 0
    finally:
        database.close()


def _forgotten_note(database: PostgresDatabase, store: SQLPrivacyStore, secret: str) -> None:
    """A note of subject A holding ``secret``, forgotten and due at once."""
    with database.write():
        database.execute(
            "INSERT INTO notes (tenant, subject, text, said_at, tx_from, provenance) "
            f"VALUES ('t', 'A', 'the {secret} secret', 1, 1, '[]')"
        )
    store.forget("t", "A", None, now=10, purge_due=10, reason=None, requested_by=None)


def test_a_purge_blocked_by_a_long_transaction_fails_and_is_retried(postgres_url, admin):
    """The rewrite waits for table locks only as long as the lock timeout; then it fails,
    and the deletions stay due so that the next purge rewrites the files."""
    from memlane.errors import StorageError
    from memlane.storage.postgres.database import PostgresDatabase
    from memlane.storage.sql import SQLPrivacyStore

    database = PostgresDatabase(postgres_url, lock_timeout=0.2)
    try:
        store = SQLPrivacyStore(database)
        _forgotten_note(database, store, "Zanzibarite")
        with admin.transaction():  # an open reader, as a long export would be
            admin.execute("SELECT count(*) FROM notes").fetchone()
            with pytest.raises(StorageError, match="lock"):
                store.purge("t", None, now=20, immediately=False)
        assert database.fetchone("SELECT count(*) FROM notes")[0] == 0  # the rows did go
        assert store.deletions("t")[0].purged_at is None  # but the purge is not logged done
        retried = store.purge("t", None, now=30, immediately=False)
        assert retried.deletions == (1,) and retried.vacuumed
        assert retried.bytes_verified is None
        assert store.deletions("t")[0].purged_at is not None
        assert b"Zanzibarite" not in stored_bytes(postgres_url)
        with database.write(), pytest.raises(StorageError, match="inside a write"):
            store.purge("t", None, now=40, immediately=True)
    finally:
        database.close()


@contextmanager
def old_snapshot(postgres_url: str) -> Iterator[psycopg.Connection[Any]]:
    """A session holding a repeatable-read snapshot taken now (no table read, no lock)."""
    psycopg = pytest.importorskip("psycopg")
    with psycopg.connect(postgres_url) as reader:
        reader.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        reader.execute("SELECT 1").fetchone()
        yield reader
        reader.rollback()


def test_a_purge_waits_for_a_snapshot_older_than_it_before_rewriting(postgres_url):
    """VACUUM FULL copies a deleted row that an older snapshot might still see: the purge
    waits for such a reader to end (here, a quarter second later) before rewriting."""
    from memlane.storage.postgres.database import PostgresDatabase
    from memlane.storage.sql import SQLPrivacyStore

    database = PostgresDatabase(postgres_url, lock_timeout=10.0)
    try:
        store = SQLPrivacyStore(database)
        _forgotten_note(database, store, "Zanzibarite")
        with old_snapshot(postgres_url) as reader:
            ended = threading.Timer(0.25, reader.rollback)
            ended.start()
            report = store.purge("t", None, now=20, immediately=False)
            ended.join()
        assert report.deletions == (1,) and report.bytes_verified is None
        assert store.deletions("t")[0].purged_at is not None
        assert b"Zanzibarite" not in stored_bytes(postgres_url)
    finally:
        database.close()


def test_a_snapshot_held_past_the_lock_timeout_keeps_the_deletions_due(postgres_url):
    """A reader that outlasts the wait is named, the purge says the bytes are still there,
    and the next purge (the reader gone) rewrites the files again."""
    from memlane.storage.postgres.database import PostgresDatabase
    from memlane.storage.sql import SQLPrivacyStore

    database = PostgresDatabase(postgres_url, lock_timeout=0.3)
    try:
        store = SQLPrivacyStore(database)
        _forgotten_note(database, store, "Zanzibarite")
        with old_snapshot(postgres_url) as reader:
            pid = reader.info.backend_pid
            held = store.purge("t", None, now=20, immediately=False)
        assert held.deletions == (1,) and held.bytes_verified is False
        assert any(f"session {pid} " in reason for reason in held.held), held.held
        assert database.fetchone("SELECT count(*) FROM notes")[0] == 0
        assert store.deletions("t")[0].purged_at is None
        retried = store.purge("t", None, now=30, immediately=False)
        assert retried.deletions == (1,) and retried.bytes_verified is None
        assert store.deletions("t")[0].purged_at is not None
        assert b"Zanzibarite" not in stored_bytes(postgres_url)
    finally:
        database.close()


@pytest.mark.parametrize(
    ("query", "plain"),
    [
        ("autovacuum: VACUUM public.notes", True),
        ("  VACUUM (VERBOSE) notes", True),
        ("autovacuum: VACUUM ANALYZE public.notes", False),  # ANALYZE takes a snapshot
        ("autovacuum: ANALYZE public.notes", False),
        ("VACUUM FULL notes", False),
        ("vacuum (full) notes", False),
        ("SELECT * FROM notes -- VACUUM", False),
        (None, False),
    ],
)
def test_only_a_plain_vacuum_s_xmin_is_not_waited_for(admin, query, plain):
    from memlane.storage.postgres.snapshots import PLAIN_VACUUM

    sql = f"SELECT {PLAIN_VACUUM} FROM (SELECT %s::text AS query) AS session"
    assert admin.execute(sql, (query,)).fetchone()[0] is plain


def test_a_purge_by_a_role_that_may_not_rewrite_the_tables_fails(postgres_url, admin):
    """VACUUM only warns when it skips a table; the purge must not claim the bytes gone."""
    from psycopg.conninfo import conninfo_to_dict, make_conninfo

    from memlane.errors import StorageError
    from memlane.storage.postgres.database import PostgresDatabase
    from memlane.storage.sql import SQLPrivacyStore

    role = "memlane_app_" + conninfo_to_dict(postgres_url)["dbname"].rsplit("_", 1)[-1]
    admin.execute(f"CREATE ROLE {role} LOGIN")
    admin.execute(f"GRANT CREATE, USAGE ON SCHEMA public TO {role}")
    admin.execute(f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {role}")
    admin.execute(f"GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO {role}")
    params = conninfo_to_dict(postgres_url)
    params["user"] = role
    database = PostgresDatabase(make_conninfo(**params))
    try:
        store = SQLPrivacyStore(database)
        _forgotten_note(database, store, "Quillbrook")
        with pytest.raises(StorageError, match="refused"):
            store.purge("t", None, now=20, immediately=True)
        assert store.deletions("t")[0].purged_at is None
    finally:
        database.close()
        admin.execute(f"DROP OWNED BY {role}")
        admin.execute(f"DROP ROLE {role}")


def at(second: int) -> datetime:
    return datetime(2026, 3, 2, 12, 0, second, tzinfo=UTC)


def test_keys_are_listed_and_revoked_by_tenant(postgres_url):
    from memlane.storage.postgres.database import PostgresDatabase
    from memlane.storage.sql import SQLKeyStore

    database = PostgresDatabase(postgres_url)
    try:
        keys = SQLKeyStore(database)
        for key_id, tenant, second in (("k-b", "a", 1), ("k-a", "a", 1), ("k-c", "b", 0)):
            keys.put_key(ApiKey(key_id, tenant, "agent", "hash-" + key_id, at(second)))
        # Oldest first; a tie in created_at is broken by id, in byte order.
        assert [k.id for k in keys.keys("a")] == ["k-a", "k-b"]
        assert [k.id for k in keys.keys(None)] == ["k-c", "k-a", "k-b"]
        assert keys.keys("nobody") == []
        now = 1_900_000_000_000_000
        assert keys.revoke("k-a", "b", now=now) is None  # another tenant's key
        assert keys.key("k-a").active
        revoked = keys.revoke("k-a", "a", now=now)
        assert revoked is not None and not revoked.active
        again = keys.revoke("k-a", None, now=now + 5)
        assert again.revoked_at == revoked.revoked_at  # the first revocation time stays
        assert keys.key("k-b").active and keys.key("k-c").active
        assert keys.key("missing") is None and keys.revoke("missing", None, now=now) is None
        assert keys.key("k-b") == ApiKey("k-b", "a", "agent", "hash-k-b", at(1))
    finally:
        database.close()
