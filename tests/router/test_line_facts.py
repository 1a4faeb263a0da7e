"""What judging a summary's lines asks of their text: derived when it is written, stored with it.

The storage tests run on SQLite and PostgreSQL (the one SQL store writes the column on both).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import memlane
from memlane.router import adjudicate
from memlane.router.line_facts import line_facts, read_line_facts, stored_line_facts
from memlane.router.summary_lane import derive_line_facts, summary_lines
from memlane.storage.redaction import CONTENT_COLUMNS
from memlane.summaries.model import SummaryContent
from memlane.summaries.text import normalize_for_dedupe
from tests.conftest import FakeClock
from tests.support import note_keys as keyed
from tests.support.conversations import current_texts, said_in_session
from tests.support.note_keys import store_of
from tests.support.schema_files import rewind, version_before

backend = keyed.backend  # both databases, for this module only
memory = keyed.memory

LINES = [
    "I moved out of 12 Harbour Rd, Leeds",
    "New email: a@x.org — the old one is closed",
    "Not Bex anymore",
    "我上个月从兰州搬去绍兴了",
    "to do: call me on +44 7700 900123",
    "about: 洗牙取消周四, 洗牙约, 周四晚上七点",
]


def test_stored_line_facts_read_back_as_derived():
    stored = read_line_facts(stored_line_facts(LINES, "U-1"))
    assert list(stored) == sorted(LINES)
    for line in LINES:
        assert stored[line] == line_facts(line, "U-1"), line
    assert read_line_facts(None) == {} and read_line_facts("") == {}


def test_a_lines_facts_are_its_dedupe_keys_values_by_kind_and_what_it_only_takes_back():
    moved = line_facts("I moved out of 12 Harbour Rd, Leeds", "U-1")
    assert normalize_for_dedupe("U-1 moved out of 12 Harbour Rd, Leeds") in moved.said
    assert set(moved.kinds) == {"address"}
    gone = line_facts("Not Bex anymore", "U-1")
    assert gone.retracted is not None
    assert gone.only_takes_back("what name do i go by?")
    assert not gone.only_takes_back("what happened with bex?")  # the query names it
    assert line_facts("My name is Bex", "U-1").retracted is None


def test_an_about_line_of_several_topics_is_stored_topic_by_topic():
    content = SummaryContent(topic=("洗牙取消周四", "洗牙约"))
    stored = read_line_facts(derive_line_facts("U-1", content))
    assert set(stored) == {"about: 洗牙取消周四, 洗牙约", "about: 洗牙取消周四", "about: 洗牙约"}


def test_a_summary_is_stored_with_its_line_facts(memory: memlane.Memory, clock: FakeClock):
    said_in_session(memory, clock, "s-1", "Deliver everything to my office: 12 Harbour Rd, Leeds")
    summary = memory.summaries.for_session("s-1", "U-1")
    assert summary is not None and summary.line_facts is not None
    stored = read_line_facts(summary.line_facts)
    lines = summary_lines(summary)
    assert lines and all(stored[line] == line_facts(line, "U-1") for line in lines)
    (version,) = memory.summaries.versions("U-1", "s-1")
    assert version.line_facts == summary.line_facts


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The lines whose dedupe keys the adjudicator derives at recall (what a line's facts store)."""
    asked: list[str] = []
    derive = adjudicate.said_keys

    def counting(line: str, subject: str) -> frozenset[str]:
        asked.append(line)
        return derive(line, subject)

    monkeypatch.setattr(adjudicate, "said_keys", counting)
    yield asked


def test_recall_judges_a_summarys_lines_by_their_stored_facts_and_the_same_without_them(
    memory: memlane.Memory, clock: FakeClock, counted: list[str]
):
    said_in_session(memory, clock, "s-1", "Deliver everything to my office: 12 Harbour Rd, Leeds")
    said = "please stop using my work address, deliver to 9 Mill Lane from now on"
    said_in_session(memory, clock, "s-2", said, days=40)
    question = "which address do we deliver to?"
    stored = memory.recall("U-1", question)
    assert "9 Mill Lane" in stored.items[0].text
    assert not any("12 Harbour Rd" in text for text in current_texts(stored))
    assert any(item.kind == "summary" for item in stored.items)
    assert counted == []  # nothing derived at recall: every summary line's facts were stored
    store = store_of(memory)
    with store.db.write():
        store.db.execute("UPDATE summaries SET line_facts = NULL")
    derived = memory.recall("U-1", question)
    assert counted  # a version stored without them: derived at recall, as before
    assert [(i.ref, i.text, i.status, i.provenance) for i in derived.items] == [
        (i.ref, i.text, i.status, i.provenance) for i in stored.items
    ]


def test_purge_proves_the_line_facts_gone_with_the_summary():
    assert "line_facts" in CONTENT_COLUMNS["summaries"]


def test_a_file_from_before_line_facts_is_migrated_and_judged_at_recall(
    tmp_path: Path, clock: FakeClock
):
    path = tmp_path / "old.db"
    with memlane.Memory(path, clock=clock, embedder="hash") as mem:
        said_in_session(mem, clock, "s-1", "Deliver everything to my office: 12 Harbour Rd")
        said = "please stop using my work address, deliver to 9 Mill Lane from now on"
        said_in_session(mem, clock, "s-2", said, days=40)
        before = mem.recall("U-1", "which address do we deliver to?")
    rewind(path, version_before("line_facts"), "ALTER TABLE summaries DROP COLUMN line_facts")
    with memlane.Memory(path, clock=clock, embedder="hash") as mem:
        summary = mem.summaries.for_session("s-1", "U-1")
        assert summary is not None and summary.line_facts is None
        after = mem.recall("U-1", "which address do we deliver to?")
    assert [(i.ref, i.text, i.status) for i in after.items] == [
        (i.ref, i.text, i.status) for i in before.items
    ]


def test_stored_line_facts_are_parsed_once_for_the_process():
    """The same summaries are recalled again and again: their JSON is not parsed each time."""
    stored = stored_line_facts(["I moved to 12 Harbour Rd", "about: tea"], "U-1")
    assert read_line_facts(stored) is read_line_facts("".join(list(stored)))  # equal text
