"""SQLite: a purge proves the bytes gone by scanning every file, or says what holds them.

Issue 16: with another connection holding a read transaction, the WAL checkpoint cannot
finish, and the purged values stay in ``-wal`` (and the file); the purge must not claim
them gone, and a later purge, once the reader has finished, must finish the job.
"""

from __future__ import annotations

import json
import random
import sqlite3
import threading
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner

import memlane
from memlane.cli import cli
from memlane.storage.redaction import written_forms
from memlane.storage.sqlite import evidence
from tests.conftest import FakeClock
from tests.support.privacy import fill

SECRETS = ("zed@example.org", "Shanghaiville", "13800001234", "Quokkaberry")


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "m.db"


@pytest.fixture
def mem(path: Path, clock: FakeClock, monkeypatch) -> Iterator[memlane.Memory]:
    monkeypatch.setattr(evidence, "CHECKPOINT_WAIT_SECONDS", 0.3)
    with memlane.Memory(
        path, clock=clock, embedder="hash", retention=timedelta(days=30), retain_transcripts=True
    ) as memory:
        yield memory


def files(path: Path) -> bytes:
    """Every byte of the database's files: the file, its log and the log's index."""
    return b"".join(
        candidate.read_bytes()
        for suffix in evidence.SUFFIXES
        if (candidate := path.with_name(path.name + suffix)).exists()
    )


def secrets_in(path: Path) -> list[str]:
    raw = files(path)
    return [secret for secret in SECRETS if secret.encode() in raw]


def reader(path: Path) -> sqlite3.Connection:
    """Another connection inside a read transaction: it holds the snapshot it began with."""
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("BEGIN")
    connection.execute("SELECT count(*) FROM facts").fetchone()
    return connection


def test_a_reader_holding_a_snapshot_stops_the_purge_from_claiming_the_bytes_gone(mem, path):
    fill(mem)
    mem.forget("U-001", reason="GDPR")
    holder = reader(path)
    report = mem.purge(subject="U-001", immediately=True)
    # The purged values are still in the files, and the report says so, and why.
    assert secrets_in(path), "the reader should keep the old frames alive"
    assert report.bytes_verified is False and report.deletions == (1,)
    assert report.rows["facts"] >= 3  # the rows did go
    (held,) = report.held
    assert "m.db-wal" in held and "old snapshot" in held and "frame(s)" in held
    assert mem.views.compliance()[0].purged_at is None  # not logged as purged
    # While the reader lasts, a later purge retries the compaction (not "nothing due").
    again = mem.purge()
    assert again.deletions == (1,) and again.bytes_verified is False
    holder.rollback()
    holder.close()
    done = mem.purge()  # retention has not passed: retried because it is unproven
    assert done.deletions == (1,) and done.bytes_verified is True and done.held == ()
    assert mem.views.compliance()[0].purged_at is not None
    assert secrets_in(path) == []
    assert b"Lisbon" in files(path)
    assert mem.purge(immediately=True).deletions == ()


def test_a_purge_without_readers_is_verified_at_once(mem, path, clock):
    fill(mem)
    mem.forget("U-001", "email")
    clock.advance(days=31)
    report = mem.purge()
    assert report.deletions == (1,) and report.bytes_verified is True
    assert b"zed@example.org" not in files(path)


def test_a_value_another_subject_still_stores_does_not_block_the_proof(mem, path):
    fill(mem)
    mem.facts.define("email", cardinality="many", identifier=True)
    mem.facts.add("U-002", "email", "zed@example.org")  # a live copy of the same value
    mem.forget("U-001")
    report = mem.purge(immediately=True)
    assert report.bytes_verified is True
    assert b"zed@example.org" in files(path) and b"Quokkaberry" not in files(path)


def test_the_scan_finds_a_leftover_in_any_file(mem, path):
    fill(mem)
    mem.forget("U-001")
    mem.purge(immediately=True)
    needles = sorted(written_forms(["Quokkaberry fan club"]))
    database = mem._backend.privacy.db  # type: ignore[attr-defined]
    result = evidence.checkpoint(database)
    assert evidence.scan(database, needles, result).verified is True
    leftover = path.with_name(path.name + "-journal")
    leftover.write_bytes(b"\0" * 100 + b"Quokkaberry fan club" + b"\0" * 100)
    check = evidence.scan(database, needles, result)
    leftover.unlink()
    assert check.verified is False
    assert check.held == (
        "m.db-journal still holds 1 of the purged values looked for after a complete "
        "checkpoint; purge again to rewrite the file",
    )


def test_the_checkpoint_reports_a_reader_and_gives_up_in_bounded_time(mem, path):
    fill(mem)
    holder = reader(path)
    mem.remember("U-002", "one more write after the reader began")
    result = evidence.checkpoint(mem._backend.privacy.db, wait=0.1)  # type: ignore[attr-defined]
    holder.close()
    assert result.busy and result.log > result.checkpointed
    after = evidence.checkpoint(mem._backend.privacy.db)  # type: ignore[attr-defined]
    assert not after.busy and after.log == 0


def test_cli_purge_exits_3_and_names_the_holder(path, monkeypatch):
    monkeypatch.setenv("MEMLANE_URL", str(path))
    monkeypatch.setattr(evidence, "CHECKPOINT_WAIT_SECONDS", 0.1)
    runner = CliRunner()
    assert runner.invoke(cli, ["fact", "set", "U-1", "city", "Reykjavikopolis"]).exit_code == 0
    assert runner.invoke(cli, ["forget", "U-1"]).exit_code == 0
    holder = reader(path)
    held = runner.invoke(cli, ["purge", "--immediately"])
    holder.close()
    assert held.exit_code == 3 and "NOT verified" in held.output and "old snapshot" in held.output
    # Another process (a new handle) retries: the rows are gone and their values were known
    # only to the first one, so it rewrites and checkpoints but cannot claim a scan.
    done = json.loads(runner.invoke(cli, ["purge", "--immediately", "--json"]).output)
    assert done["deletions"] == [1] and done["bytes_verified"] is None
    assert "another process" in done["held"][0] and "no page predates" in done["held"][0]
    assert b"Reykjavikopolis" not in files(path)
    assert "nothing due" in runner.invoke(cli, ["purge", "--immediately"]).output


def test_the_fast_search_finds_what_a_plain_search_finds():
    rng = random.Random(16)
    for _ in range(200):
        data = bytearray(rng.randbytes(rng.randrange(0, 3000)))
        needles = [rng.randbytes(rng.randrange(6, 80)) for _ in range(8)]
        for needle in needles[:4]:  # half of them planted, at any offset
            at = rng.randrange(0, len(data) + 1)
            data[at:at] = needle
        data = bytes(data)
        assert sorted(evidence.present(data, needles)) == sorted(n for n in needles if n in data)


def test_another_tenants_write_lands_while_the_purge_waits_for_a_reader(mem, path, monkeypatch):
    """The purge's checkpoint waits for the reader between attempts, never holding the writer."""
    monkeypatch.setattr(evidence, "CHECKPOINT_WAIT_SECONDS", 30.0)
    fill(mem)
    mem.forget("U-001", reason="GDPR")
    waiting, returned = threading.Event(), threading.Event()
    checkpoint = evidence.checkpoint

    def noted(database, wait=None):
        waiting.set()
        try:
            return checkpoint(database, wait)
        finally:
            returned.set()

    monkeypatch.setattr(evidence, "checkpoint", noted)
    holder = reader(path)
    purging = threading.Thread(target=mem.purge, kwargs={"subject": "U-001", "immediately": True})
    purging.start()
    try:
        assert waiting.wait(10)
        other = mem.for_tenant("other-tenant")
        other.facts.set("U-9", "location", "Lisbon")
        other.remember("U-9", "The customer moved to Lisbon")
        assert not returned.is_set(), "the writes should land while the purge still waits"
        assert other.facts.get("U-9", "location").value == "Lisbon"
    finally:
        holder.rollback()
        holder.close()
        purging.join(60)
    assert not purging.is_alive()
