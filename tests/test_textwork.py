"""A long note's text work runs in a child interpreter, not in the request's (memlane.textwork)."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from pathlib import Path
from typing import Any

import pytest

import memlane
from memlane.errors import InvalidInput
from memlane.extract.model import Extraction
from memlane.extract.rules import RuleExtractor
from memlane.ingest import ReadNote
from memlane.router.evidence import note_keys
from memlane.textwork import LONG_NOTE_CHARS, TextProcess, read_note
from tests.support.textwork import text_child

FILLER = " ".join(f"In entry {n} the beekeeper moved the hives to the orchard." for n in range(120))
"""Some 7,000 characters of prose: a long note."""
LONG = "My email is ada@example.org and I live in Lyon. " + FILLER
AT = datetime(2026, 5, 1, 9, tzinfo=UTC)

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="POSIX pipes")


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[memlane.Memory]:
    with memlane.Memory(tmp_path / "m.db", embedder="hash", indexing="process") as memory:
        yield memory


@pytest.fixture
def worker() -> Iterator[TextProcess]:
    text = TextProcess()
    yield text
    text.close()


def _refused_here(mem: memlane.Memory, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Make the text work fail in this interpreter; the names of what was called here."""
    called: list[str] = []

    def extract(self: RuleExtractor, text: str, **_: Any) -> Extraction:
        called.append("extract")
        raise AssertionError("extracted in the request's interpreter")

    def keyer(*_: Any) -> list[tuple[str, str]]:
        called.append("note_keys")
        raise AssertionError("keyed in the request's interpreter")

    monkeypatch.setattr(RuleExtractor, "extract", extract)
    monkeypatch.setattr(mem.summaries, "_keyer", keyer)
    return called


def test_a_long_notes_facts_and_keys_are_read_in_the_child_and_there_when_remember_returns(
    mem: memlane.Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    called = _refused_here(mem, monkeypatch)  # the child is another interpreter: unpatched
    note = mem.remember("U-1", LONG)
    assert called == [] and text_child(mem).reads == 1
    # Read your writes: its facts and its keys are stored when remember returns.
    assert [fact.value for fact in mem.facts.get_all("U-1", "email")] == ["ada@example.org"]
    fact = mem.facts.get("U-1", "location")
    assert fact is not None and fact.value == "Lyon"
    assert fact.provenance == (f"note:{note.id}",)
    store = mem.summaries._store
    row = store.db.fetchone(  # type: ignore[attr-defined]
        "SELECT count(*) FROM note_keys WHERE tenant = %s AND subject = %s", (mem.tenant, "U-1")
    )
    assert row[0] == len(dict.fromkeys(note_keys("U-1", note.text, ("remember",))))
    assert store.db.fetchone("SELECT count(*) FROM note_keys_pending")[0] == 0  # type: ignore[attr-defined]
    monkeypatch.undo()
    found = mem.recall("U-1", "where did the beekeeper move the hives?")
    assert any("beekeeper" in item.text for item in found.items)


def test_a_short_note_is_read_in_the_request(
    mem: memlane.Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    called = _refused_here(mem, monkeypatch)
    with pytest.raises(AssertionError):
        mem.remember("U-1", "I live in Lyon")
    assert called == ["extract"] and text_child(mem).reads == 0


def test_the_request_holds_no_lock_while_the_child_reads(
    mem: memlane.Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    # While the note is read elsewhere, every other kind of request of the memory goes on:
    # the writer's thread waits for the child without the database or any lock of memlane.
    original = TextProcess.__call__
    meanwhile: list[object] = []

    def others() -> None:
        meanwhile.append(mem.facts.set("U-2", "location", "Paris"))
        meanwhile.append(mem.remember("U-2", "I like green tea"))
        meanwhile.append(mem.recall("U-2", "what tea do I like?"))
        meanwhile.append(mem.remember("U-3", "Volume 2. " + FILLER))  # read by the child too

    def reading(self: TextProcess, *args: Any, **options: Any) -> ReadNote | None:
        if args[1] == "U-1":  # the long note's reading is about to begin
            thread = threading.Thread(target=others)
            thread.start()
            thread.join(timeout=60)
            assert not thread.is_alive(), "another request waited for the long note's reading"
        return original(self, *args, **options)

    monkeypatch.setattr(TextProcess, "__call__", reading)
    mem.remember("U-1", LONG)
    assert len(meanwhile) == 4


CASES = (
    LONG,
    "我上周搬到北京了，新手机号是13912345678，旧号码13800001234已经停用。" * 50,
    "I moved from Shanghai to Beijing last month. Order ORD-20261015-88 hasn't arrived. "
    "Please call me instead of texting; my old e-mail bob@old.example is closed. " * 30,
    "叫我小王就行。我的生日是7月1日，我在杭州工作，以前在阿里巴巴上班，现在跳槽去蔚来了。" * 60,
)


@pytest.mark.parametrize("text", CASES, ids=["en", "zh-change", "en-change", "zh-facts"])
def test_the_child_reads_a_note_as_the_request_would(worker: TextProcess, text: str) -> None:
    # The child has a hash seed of its own: its answer must not depend on it.
    assert len(text) >= LONG_NOTE_CHARS
    cst = timezone(timedelta(hours=8))
    job = (RuleExtractor(), "U-1", text, text.strip(), AT, cst, ("remember",))
    there = worker(*job[:4], at=AT, timezone=cst, provenance=("remember",))
    here = read_note(*job)
    assert there is not None and worker.reads == 1
    assert there == here and there.extraction is not None and there.extraction.ops


def test_another_extractor_runs_in_the_request_and_the_keys_in_the_child(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[str] = []

    class Mine(RuleExtractor):
        def extract(self, text: str, **options: Any) -> Extraction:
            seen.append(text)
            return super().extract(text, **options)

    with memlane.Memory(
        tmp_path / "m.db", embedder="hash", indexing="process", extractor=Mine()
    ) as mem:
        monkeypatch.setattr(mem.summaries, "_keyer", None)  # would key nothing here
        mem.remember("U-1", LONG)
        assert seen == [LONG] and text_child(mem).reads == 1
        assert mem.facts.get("U-1", "location") is not None
        store = mem.summaries._store
        assert store.db.fetchone("SELECT count(*) FROM note_keys")[0] > 1000  # type: ignore[attr-defined]


def test_the_extractors_invalid_input_is_raised_in_the_caller(worker: TextProcess) -> None:
    naive = datetime(2026, 5, 1, 9)
    with pytest.raises(InvalidInput) as refused:
        worker(RuleExtractor(), "U-1", LONG, LONG, at=naive, timezone=UTC, provenance=())
    assert refused.value.field == "at" and worker.starts == 1


def test_a_child_that_died_leaves_the_note_to_the_request_and_the_next_starts_anew(
    worker: TextProcess,
) -> None:
    def read() -> ReadNote | None:
        return worker(RuleExtractor(), "U-1", LONG, LONG, at=AT, timezone=UTC, provenance=())

    assert read() is not None and worker.pid is not None
    os.kill(worker.pid, signal.SIGKILL)
    assert read() is None  # the caller reads it itself
    assert read() is not None and worker.starts == 2 and worker.reads == 2


def test_a_child_that_does_not_answer_in_time_is_stopped_and_the_next_starts_anew() -> None:
    worker = TextProcess(answer_seconds=0.5)
    try:
        worker.start()
        assert worker.pid is not None
        os.kill(worker.pid, signal.SIGSTOP)  # hangs, as a child stuck in a loop would
        read = worker(RuleExtractor(), "U-1", LONG, LONG, at=AT, timezone=UTC, provenance=())
        assert read is None and worker.pid is None  # the caller reads it itself
        worker.answer_seconds = 60.0
        read = worker(RuleExtractor(), "U-1", LONG, LONG, at=AT, timezone=UTC, provenance=())
        assert read is not None and worker.starts == 2
    finally:
        worker.close()


def test_what_cannot_be_sent_is_read_in_the_request(worker: TextProcess) -> None:
    class Zone(tzinfo):  # a class of the caller's own, local: it cannot be pickled
        def utcoffset(self, dt: datetime | None) -> timedelta:
            return timedelta(hours=2)

        def dst(self, dt: datetime | None) -> timedelta:
            return timedelta(0)

    zone = Zone()
    at = datetime(2026, 5, 1, 9, tzinfo=zone)
    assert worker(RuleExtractor(), "U-1", LONG, LONG, at=at, timezone=zone, provenance=()) is None
    assert worker.starts == 0


def test_a_closed_worker_or_a_short_note_reads_nothing(worker: TextProcess) -> None:
    assert worker(RuleExtractor(), "U-1", "hi", "hi", at=AT, timezone=UTC, provenance=()) is None
    assert worker.starts == 0
    worker.close()
    assert worker(RuleExtractor(), "U-1", LONG, LONG, at=AT, timezone=UTC, provenance=()) is None
    assert worker.starts == 0


def test_only_the_process_mode_reads_notes_in_a_child(tmp_path: Path) -> None:
    with memlane.Memory(tmp_path / "m.db", embedder="hash") as mem:
        assert mem._resources.text is None
        mem.remember("U-1", LONG)
        assert mem.facts.get("U-1", "location") is not None
