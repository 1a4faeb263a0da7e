"""Every bad input gets InvalidInput naming the field, and nothing is written."""

from __future__ import annotations

from datetime import datetime

import pytest

import memlane
from memlane.storage.sqlite.schema import LATEST_VERSION


@pytest.fixture
def seeded(mem: memlane.Memory) -> memlane.Memory:
    mem.facts.define("phone", cardinality="many", identifier=True)
    mem.facts.set("U-1", "location", "Shanghai", valid_from="2026-01-01")
    mem.facts.add("U-1", "phone", "138-0000-1234")
    return mem


GOOD = {"subject": "U-1", "attribute": "location", "value": "Lisbon"}
"""One call of ``set_many`` that is fine (each bad batch has it first: nothing is written)."""

BAD_WRITES = [
    ("valid_to", lambda m: m.facts.set("U-1", "location", "X", "2026-05-01", "2026-05-01")),
    ("valid_to", lambda m: m.facts.set("U-1", "location", "X", "2026-05-02", "2026-05-01")),
    ("valid_to", lambda m: m.facts.set("U-1", "location", "X", valid_to="2020-01-01")),
    ("valid_from", lambda m: m.facts.set("U-1", "location", "X", valid_from="next tuesday")),
    ("valid_from", lambda m: m.facts.set("U-1", "location", "X", valid_from="2026-13-01")),
    ("valid_from", lambda m: m.facts.set("U-1", "location", "X", valid_from=1_700_000_000)),
    ("subject", lambda m: m.facts.set("", "location", "X")),
    ("subject", lambda m: m.facts.set("   ", "location", "X")),
    ("subject", lambda m: m.facts.set(None, "location", "X")),
    ("attribute", lambda m: m.facts.set("U-1", "", "X")),
    ("attribute", lambda m: m.facts.set("U-1", " location", "X")),
    ("value", lambda m: m.facts.set("U-1", "location", {1, 2})),
    ("value", lambda m: m.facts.set("U-1", "location", float("nan"))),
    ("value", lambda m: m.facts.set("U-1", "location", object())),
    ("value", lambda m: m.facts.set("U-1", "location", None)),
    ("value", lambda m: m.facts.add("U-1", "phone", "no digits here")),
    ("attribute", lambda m: m.facts.set("U-1", "phone", "139")),
    ("attribute", lambda m: m.facts.add("U-1", "location", "Paris")),
    ("confidence", lambda m: m.facts.set("U-1", "location", "X", confidence=1.5)),
    ("provenance", lambda m: m.facts.set("U-1", "location", "X", provenance="s-1#1")),
    ("attribute", lambda m: m.facts.define("location", cardinality="many")),
    ("attribute", lambda m: m.facts.define("phone", cardinality="many", identifier=False)),
    ("cardinality", lambda m: m.facts.define("x", cardinality="several")),
    ("normalizer", lambda m: m.facts.define("x", identifier=True, normalizer="soundex")),
    ("writes", lambda m: m.facts.set_many(None)),
    ("writes", lambda m: m.facts.set_many([GOOD, [("subject", "U-1"), ("attribute", "a")]])),
    ("writes", lambda m: m.facts.set_many([GOOD, "subject=U-1"])),
    ("writes", lambda m: m.facts.set_many([GOOD, {**GOOD, "vaild_from": "2026-01-01"}])),
    ("writes", lambda m: m.facts.set_many([GOOD, {"subject": "U-1", "attribute": "a"}])),
    ("writes", lambda m: m.facts.set_many([GOOD, {**GOOD, 7: "x"}])),
    ("value", lambda m: m.facts.set_many([GOOD, {**GOOD, "value": None}])),
]


@pytest.mark.parametrize(("field", "write"), BAD_WRITES)
def test_bad_write_is_refused_and_leaves_no_trace(seeded, field, write):
    before = seeded.facts.audit("U-1")
    with pytest.raises(memlane.InvalidInput) as raised:
        write(seeded)
    assert raised.value.field == field
    assert str(raised.value).startswith(f"{field}: ")
    assert isinstance(raised.value, ValueError)
    assert seeded.facts.audit("U-1") == before


BAD_READS = [
    ("valid_at", lambda m: m.facts.get("U-1", "location", valid_at="yesterday-ish")),
    ("known_at", lambda m: m.facts.history("U-1", "location", known_at="")),
    ("attribute", lambda m: m.facts.get("U-1", "phone")),
    ("subject", lambda m: m.facts.profile("")),
]


@pytest.mark.parametrize(("field", "read"), BAD_READS)
def test_bad_read_is_refused(seeded, field, read):
    with pytest.raises(memlane.InvalidInput) as raised:
        read(seeded)
    assert raised.value.field == field


def test_ambiguous_and_missing_local_times_are_refused(clock, scratch_url):
    with memlane.Memory(scratch_url, timezone="America/New_York", clock=clock) as mem:
        with pytest.raises(memlane.InvalidInput, match="occurs twice"):
            mem.facts.set("U-1", "x", 1, valid_from="2026-11-01T01:30")
        with pytest.raises(memlane.InvalidInput, match="does not exist"):
            mem.facts.set("U-1", "x", 1, valid_from=datetime(2026, 3, 8, 2, 30))
        fact = mem.facts.set("U-1", "x", 1, valid_from="2026-11-01T01:30-04:00")
        assert fact.valid_from.isoformat() == "2026-11-01T05:30:00+00:00"


def test_dates_are_read_in_the_memory_time_zone(clock, scratch_url):
    with memlane.Memory(scratch_url, timezone="Asia/Shanghai", clock=clock) as mem:
        fact = mem.facts.set("U-1", "x", 1, valid_from="2026-03-01")
        assert fact.valid_from.isoformat() == "2026-02-28T16:00:00+00:00"


def test_a_failed_write_inside_a_batch_rolls_back_the_batch(seeded):
    before = seeded.facts.audit("U-1")
    with pytest.raises(memlane.InvalidInput), seeded.facts.batch():
        seeded.facts.set("U-1", "location", "Berlin", valid_from="2026-02-01")
        seeded.facts.set("U-1", "location", "X", valid_from="garbage")
    assert seeded.facts.audit("U-1") == before


def test_batch_commits_together_with_increasing_transaction_times(seeded):
    written = seeded.facts.set_many(
        {"subject": "U-2", "attribute": "n", "value": i} for i in range(3)
    )
    assert [f.tx_from for f in written] == sorted({f.tx_from for f in written})
    assert [f.value for f in seeded.facts.audit("U-2")] == [0, 0, 1, 1, 2]


def test_bad_memory_arguments(tmp_path):
    with pytest.raises(memlane.InvalidInput, match="timezone"):
        memlane.Memory(":memory:", timezone="Mars/Olympus")
    with pytest.raises(memlane.InvalidInput, match="tenant"):
        memlane.Memory(":memory:", tenant="")
    with pytest.raises(memlane.InvalidInput, match="url"):
        memlane.Memory(tmp_path / "missing-dir" / "m.db")
    with pytest.raises(memlane.InvalidInput, match="url"):
        memlane.Memory("mysql://host/db")
    with (
        memlane.Memory(":memory:", clock=lambda: datetime(2026, 1, 1)) as mem,
        pytest.raises(memlane.InvalidInput, match="clock"),
    ):
        mem.facts.set("U-1", "x", 1)


BAD_OPENINGS = [
    ("embedder", {"embedder": "bogus"}),
    ("embedder", {"embedder": "hash:xyz"}),
    ("embedder", {"embedder": -1}),
    ("embedder", {"embedder": object()}),
    ("timezone", {"timezone": None}),
    ("timezone", {"timezone": 8}),
    ("region", {"region": 0}),
    ("region", {"region": ["CN"]}),
    ("clock", {"clock": "2026-01-01"}),
]


@pytest.mark.parametrize(("field", "given"), BAD_OPENINGS, ids=lambda x: repr(x)[:24])
def test_a_memory_is_refused_when_it_opens_not_at_its_first_use(tmp_path, field, given):
    """A bad embedder spec once failed at the first write needing a vector (or in the
    background indexer, where no caller saw it); other types failed with AttributeError."""
    path = tmp_path / "m.db"
    with pytest.raises(memlane.InvalidInput) as raised:
        memlane.Memory(path, **given)
    assert raised.value.field == field
    assert not path.exists()  # refused before anything was opened


@pytest.mark.parametrize("location", [-1, 1.5, b"m.db", ["m.db"]], ids=repr)
def test_a_location_that_is_no_path_is_refused(location):
    with pytest.raises(memlane.InvalidInput) as raised:
        memlane.Memory(location)
    assert raised.value.field == "url"


def test_a_memory_opens_with_an_embedder_object_or_a_spec(tmp_path):
    from memlane.embed import HashEmbedder

    with memlane.Memory(tmp_path / "a.db", embedder=HashEmbedder(dim=64)) as mem:
        assert mem.embedder().dim == 64
    with memlane.Memory(tmp_path / "b.db", embedder="hash:64") as mem:
        assert mem.embedder().dim == 64


def test_a_database_from_a_newer_memlane_is_refused(backend, memory_url):
    memlane.Memory(memory_url).close()
    if backend == "sqlite":
        import sqlite3

        with sqlite3.connect(memory_url) as connection:
            connection.execute(f"PRAGMA user_version = {LATEST_VERSION + 1}")
    else:
        import psycopg

        from memlane.storage.postgres.schema import LATEST_VERSION as PG_LATEST

        with psycopg.connect(memory_url, autocommit=True) as connection:
            connection.execute("INSERT INTO memlane_schema VALUES (%s)", (PG_LATEST + 1,))
    with pytest.raises(memlane.SchemaError, match="newer"):
        memlane.Memory(memory_url)


def test_an_unreachable_postgresql_server_is_a_clear_storage_error():
    from tests.support.services import free_port

    url = f"postgresql://memlane@127.0.0.1:{free_port()}/nowhere?connect_timeout=1"
    with pytest.raises(memlane.StorageError, match="cannot open PostgreSQL") as raised:
        memlane.Memory(url)
    assert "127.0.0.1" in str(raised.value)


def test_a_postgresql_url_without_psycopg_names_the_extra(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "psycopg", None)
    with pytest.raises(memlane.InvalidInput, match=r"memlane\[postgres\]"):
        memlane.Memory("postgresql://memlane@localhost/memlane")
