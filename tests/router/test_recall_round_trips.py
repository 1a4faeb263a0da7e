"""How many statements one recall sends to the database: a round trip each on PostgreSQL.

Judging candidates and citing summary lines once read per candidate, per line and per word
(a LoCoMo recall made ~160 statements, 116 ms p50 on PostgreSQL); what a recall needs of a
subject's stored keys is now read at once per kind of question. Counted on SQLite (the same
SQL store serves both), on the recall's own thread (the background indexer is not counted).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

import memlane
from memlane.storage.sqlite.database import SQLiteDatabase
from tests.conftest import FakeClock

TOPICS = [
    "I adopted a cat named Luna{n} from the shelter",
    "My favourite hike{n} was the ridge above Lake Bled",
    "I started pottery classes{n} at the studio on Mill Road",
    "We went camping{n} with the kids near the river",
    "I ran a charity race{n} for mental health last Saturday",
    "I painted a lake sunrise{n} for my sister",
]


@pytest.fixture
def statements(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """A counter of the statements the test's thread runs on SQLite."""
    count, thread = [0], threading.get_ident()
    for name in ("fetchall", "cursor", "executemany"):
        real = getattr(SQLiteDatabase, name)

        def counting(self, *args, _real=real, **kwargs):  # type: ignore[no-untyped-def]
            if threading.get_ident() == thread:
                count[0] += 1
            return _real(self, *args, **kwargs)

        monkeypatch.setattr(SQLiteDatabase, name, counting)
    yield count


def _statements_of_one_recall(clock: FakeClock, count: list[int], sessions: int) -> int:
    with memlane.Memory(":memory:", clock=clock, embedder="hash") as mem:
        for number in range(sessions):
            session = mem.session("U-1", f"s{number}")
            for topic in TOPICS:
                session.add("user", topic.format(n=number))
                clock.advance(minutes=1)
            session.close()
            clock.advance(days=1)
        assert mem.index.wait(timeout=60)
        mem.recall("U-1", "where did I hike?")  # keys, vectors: all settled
        count[0] = 0
        found = mem.recall("U-1", "what about my cat, the pottery and the camping trips?")
        assert len(found.items) >= min(8, 2 * sessions)  # notes and summaries to judge
        return count[0]


def test_a_recall_sends_as_many_statements_however_many_candidates_it_judges(
    clock: FakeClock, statements: list[int]
) -> None:
    few = _statements_of_one_recall(clock, statements, 2)
    many = _statements_of_one_recall(clock, statements, 8)
    assert many - few <= 4, (few, many)  # before: 27 and 59; now 17 and 17
    assert many <= 20, many  # 23-26: a note-keys read per judged summary, a count per word
