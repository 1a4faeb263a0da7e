"""PostgreSQL's exclusion constraint, on two hashes of the slot (migration 18), refuses overlaps.

Batched writes go in by ``COPY``, so the constraint is what stops a bad batch; and a database
migrated from version 4 keeps its versions and the same guarantee.
"""

from __future__ import annotations

import re

import psycopg
import pytest

import memlane
from memlane.errors import StorageError
from memlane.facts.temporal import FOREVER
from memlane.storage.postgres import dialect, schema
from memlane.storage.sql.facts import SQLFactStore

_INSERT = (
    "INSERT INTO facts (tenant, subject, attribute, value, value_key, valid_from, valid_to, "
    "tx_from, confidence, provenance, slot) VALUES ('default', %s, 'city', '\"x\"', '\"x\"', "
    "%s, %s, 1, 1.0, '[]', '')"
)


def _refuses_overlap(url: str) -> None:
    """The same key overlapping is refused; another subject, or meeting end to start, is not."""
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute(_INSERT, ("U-1", 10, 20))
        connection.execute(_INSERT, ("U-2", 10, 20))
        connection.execute(_INSERT, ("U-1", 20, 30))
        with pytest.raises(psycopg.errors.ExclusionViolation):
            connection.execute(_INSERT, ("U-1", 15, 25))
        definition = connection.execute(
            "SELECT pg_get_constraintdef(oid) FROM pg_constraint "
            "WHERE conname = 'facts_believed_never_overlap'"
        ).fetchone()
    assert definition is not None
    assert "EXCLUDE USING gist (slot_hash WITH =, slot_hash2 WITH =, int8range(" in definition[0]


def test_the_constraint_is_led_by_the_slot_hash_and_refuses_overlaps(postgres_url: str) -> None:
    memlane.Memory(postgres_url).close()
    _refuses_overlap(postgres_url)


def test_a_batch_copied_over_a_believed_version_is_refused_whole(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with memlane.Memory(postgres_url) as mem:
        mem.facts.set("U-1", "city", "Shanghai", valid_from="2026-01-01")
        # A planner blind to what is stored: the COPY then carries an overlapping version.
        monkeypatch.setattr(SQLFactStore, "believed_of", lambda self, tenant, ranges: {})
        writes = [
            {
                "subject": subject,
                "attribute": "city",
                "value": "Beijing",
                "valid_from": "2026-02-01",
            }
            for subject in ("U-0", "U-1", "U-2")
        ]
        with pytest.raises(StorageError, match="overlap"):
            mem.facts.set_many(writes)
        assert [fact.value for fact in mem.facts.audit("U-1")] == ["Shanghai"]
        assert mem.facts.audit("U-0") == mem.facts.audit("U-2") == []


def test_an_overlap_written_around_the_write_path_is_refused(postgres_url: str) -> None:
    """Raw SQL over versions ``set`` wrote: the two slot hashes alone still refuse it exactly.

    The constraint holds no text since migration 18: one key's versions have the same two
    hashes, so they conflict; another subject, attribute, tenant or (many-valued) value does not.
    """
    with memlane.Memory(postgres_url) as mem:
        mem.facts.define("likes", cardinality="many")
        mem.facts.set("U-1", "city", "Oslo", valid_from="2026-01-01")
        mem.facts.add("U-1", "likes", "tea", valid_from="2026-01-01")
    copy = (
        "INSERT INTO facts (tenant, subject, attribute, value, value_key, valid_from, valid_to, "
        "tx_from, confidence, provenance, slot) SELECT %s, %s, %s, value, value_key, "
        "valid_from + 1, valid_to, tx_from + 1, confidence, provenance, %s FROM facts "
        "WHERE tenant = 'default' AND subject = 'U-1' AND attribute = %s AND tx_to IS NULL"
    )
    with psycopg.connect(postgres_url, autocommit=True) as connection:
        slot = connection.execute(
            "SELECT slot FROM facts WHERE attribute = 'likes' AND tx_to IS NULL"
        ).fetchone()
        assert slot is not None and slot[0] != ""
        for overlap in (("default", "U-1", "city", "", "city"),
                        ("default", "U-1", "likes", slot[0], "likes")):  # fmt: skip
            with pytest.raises(psycopg.errors.ExclusionViolation):
                connection.execute(copy, overlap)
        for other in (("other", "U-1", "city", "", "city"),
                      ("default", "U-2", "city", "", "city"),
                      ("default", "U-1", "town", "", "city"),
                      ("default", "U-1", "likes", slot[0] + "x", "likes")):  # fmt: skip
            connection.execute(copy, other)
        hashes = connection.execute(
            "SELECT count(DISTINCT (slot_hash, slot_hash2)) FROM facts WHERE tx_to IS NULL"
        ).fetchone()
    assert hashes == (6,)


def test_a_database_of_version_4_migrates_keeping_its_versions(
    empty_postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = empty_postgres_url
    with monkeypatch.context() as patch:
        patch.setattr(schema, "LATEST_VERSION", 4)
        with psycopg.connect(url, autocommit=True) as connection:
            assert schema.migrate(connection) == 0
            connection.execute(_INSERT, ("U-9", 0, FOREVER))
            columns = connection.execute(
                "SELECT count(*) FROM information_schema.columns "
                "WHERE table_name = 'facts' AND column_name = 'slot_hash'"
            ).fetchone()
        assert columns == (0,)
    with memlane.Memory(url) as mem:
        assert [fact.value for fact in mem.facts.audit("U-9")] == ["x"]
        mem.facts.set("U-9", "city", "y", valid_from="2026-01-01")
        assert mem.facts.get("U-9", "city").value == "y"
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute("DELETE FROM facts")
    _refuses_overlap(url)


def test_a_database_of_version_17_migrates_to_two_slot_hashes_keeping_its_versions(
    empty_postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = empty_postgres_url
    with monkeypatch.context() as patch:
        patch.setattr(schema, "LATEST_VERSION", 17)
        with memlane.Memory(url) as mem:
            mem.facts.set("U-9", "city", "x", valid_from="2026-01-01")
    with memlane.Memory(url) as mem:
        assert [fact.value for fact in mem.facts.audit("U-9")] == ["x"]
        mem.facts.set("U-9", "city", "y", valid_from="2026-02-01")
        assert [fact.value for fact in mem.facts.history("U-9", "city")] == ["x", "y"]
    with psycopg.connect(url, autocommit=True) as connection:
        missing = connection.execute("SELECT count(*) FROM facts WHERE slot_hash2 IS NULL")
        assert missing.fetchone() == (0,)
        connection.execute("DELETE FROM facts")
    _refuses_overlap(url)


def test_a_writes_range_read_uses_a_btree_not_the_constraints_gist(postgres_url: str) -> None:
    """The GiST index is led by the slot hash: a read without the hash would walk all of it."""
    with memlane.Memory(postgres_url) as mem:
        mem.facts.set_many(
            [{"subject": f"U-{i:05d}", "attribute": "city", "value": "Oslo"} for i in range(2_000)]
        )
    with psycopg.connect(postgres_url, autocommit=True) as connection:
        connection.execute("ANALYZE facts")
        connection.execute("SET enable_seqscan = off")
        connection.execute("SET plan_cache_mode = force_generic_plan")
        columns = "id FROM facts WHERE tenant = $1 AND subject = $2 AND attribute = $3"
        connection.execute(
            f"PREPARE near(text, text, text, bigint, bigint) AS SELECT {columns} "
            "AND tx_to IS NULL AND deleted_at IS NULL AND valid_from <= $4 AND valid_to >= $5"
        )
        plan = "\n".join(
            row[0]
            for row in connection.execute(
                "EXPLAIN EXECUTE near('default', 'U-00007', 'city', 2, 1)"
            )
        )
    assert "facts_believed_never_overlap" not in plan, plan
    assert "using facts_believed" in plan or "using facts_by_tx" in plan, plan  # B-trees


def _bulk_loaded(url: str, count: int) -> None:
    """``count`` facts written by ``set_many``, autovacuum kept off the table."""
    with memlane.Memory(url) as mem:
        with psycopg.connect(url, autocommit=True) as connection:
            connection.execute("ALTER TABLE facts SET (autovacuum_enabled = false)")
        mem.facts.set_many(
            [{"subject": f"U-{i:05d}", "attribute": "city", "value": "Oslo"} for i in range(count)]
        )


def test_a_bulk_load_leaves_statistics_that_plan_a_writes_range_read_on_its_btree(
    postgres_url: str,
) -> None:
    """Stale statistics planned it on ``facts_by_value``: every version of the attribute.

    56 ms per ``set`` at 10^5 facts until autovacuum's ``ANALYZE`` (up to a minute later);
    a batch that outgrows what the planner believes now analyzes the table after it commits.
    """
    _bulk_loaded(postgres_url, 5_000)
    with psycopg.connect(postgres_url, autocommit=True) as connection:
        plan = "\n".join(
            row[0]
            for row in connection.execute(
                "EXPLAIN SELECT id FROM facts WHERE tenant = 'default' AND subject = 'U-00007' "
                "AND attribute = 'city' AND tx_to IS NULL AND deleted_at IS NULL "
                "AND valid_from <= 2 AND valid_to >= 1"
            )
        )
        believed = connection.execute("SELECT reltuples FROM pg_class WHERE relname = 'facts'")
        assert believed.fetchone() == (5_000,)  # what the planner believes: all of them
    assert "facts_by_value" not in plan, plan
    assert "using facts_believed" in plan or "using facts_by_tx" in plan, plan  # led by subject


def test_a_write_that_supersedes_nothing_reads_no_index_right_after_a_bulk_load(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Until a bulk load's statistics are gathered, the table looks empty to the planner.

    ``id = ANY('{}')`` then planned the close of a write that closes nothing as a walk of
    the whole GiST constraint index (43-176 ms at 10^5 facts, for a ``set`` of a new
    attribute); memlane_apply now skips it. The buffers of the call count its statements'.
    """
    monkeypatch.setattr(dialect, "ANALYZE_AFTER", 10**9)  # the statistics stay stale
    _bulk_loaded(postgres_url, 5_000)
    with psycopg.connect(postgres_url) as connection:
        for subject in ("U-00007", "U-00008"):  # the first call also compiles the function
            plan = "\n".join(
                row[0]
                for row in connection.execute(
                    "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) SELECT * FROM memlane_apply("
                    "'default', %s, 'status', 9000000000000000, '{}', '{\"\\\"new\\\"\"}', "
                    "'{\"\\\"new\\\"\"}', '{0}', %s, '{NULL}', '{NULL}', '{1.0}', "
                    "'{\"[]\"}', '{NULL}')",
                    (subject, [FOREVER]),
                )
            )
        connection.rollback()
    hits = [int(found) for found in re.findall(r"shared hit=(\d+)", plan)]
    assert hits and max(hits) < 200, (
        plan
    )  # before: 4,668 (5,000 facts), now 20 (every entry of the GiST index)
