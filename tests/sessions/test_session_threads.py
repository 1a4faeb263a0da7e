"""A ``Memory`` and its ``Session``s shared between threads; tenant handles of one memory."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

from tests.conftest import FakeClock

import memlane
from memlane.summaries.model import SummaryContent
from memlane.summaries.offline import OfflineSummarizer
from memlane.window.model import Turn

THREADS = 8
TURNS_EACH = 12


def test_turns_from_many_threads_are_numbered_ordered_and_all_folded(
    scratch_url: str, clock: FakeClock
) -> None:
    with memlane.Memory(scratch_url, clock=clock, embedder="hash") as mem:
        session = mem.session("U-1", session_id="s-1", window=3)

        def talk(worker: int) -> list[str]:
            return [
                session.add("user", f"worker {worker} says line {n}").id for n in range(TURNS_EACH)
            ]

        with ThreadPoolExecutor(THREADS) as pool:
            ids = [turn_id for batch in pool.map(talk, range(THREADS)) for turn_id in batch]
        total = THREADS * TURNS_EACH
        assert sorted(ids) == sorted(f"s-1#{n}" for n in range(1, total + 1))
        numbers = [int(t.id.split("#")[1]) for t in session.window()]
        assert numbers == list(range(total - 2, total + 1))  # the last 3 rounds, in order
        summary = session.close()
        assert summary is not None
        assert sorted(summary.provenance) == sorted(ids)  # nothing lost between the two


class GatedSummarizer(OfflineSummarizer):
    """The offline summarizer, whose first fold waits for a gate (a slow model)."""

    def __init__(self) -> None:
        super().__init__()
        self.entered = threading.Event()
        self.release = threading.Event()

    def update(self, previous: SummaryContent | None, turns: Sequence[Turn]) -> SummaryContent:
        if not self.entered.is_set():
            self.entered.set()
            assert self.release.wait(30)
        return super().update(previous, turns)


def test_a_slow_fold_blocks_neither_turns_nor_reads_of_its_session(
    scratch_url: str, clock: FakeClock
) -> None:
    summarizer = GatedSummarizer()
    with memlane.Memory(scratch_url, clock=clock, embedder="hash", summarizer=summarizer) as mem:
        session = mem.session("U-1", session_id="s-1", window=1)
        session.add("user", "first")
        folding = threading.Thread(target=session.add, args=("user", "second"))
        folding.start()  # evicts round 1: its fold waits in the summarizer
        try:
            assert summarizer.entered.wait(10)
            session.add("user", "third")  # evicts round 2 while the first fold is running
            assert [t.content for t in session.window()] == ["third"]
            assert mem.recall("U-1", "third").items is not None
            assert folding.is_alive()
        finally:
            summarizer.release.set()
            folding.join(30)
        summary = session.close()
        assert summary is not None
        assert set(summary.provenance) == {"s-1#1", "s-1#2", "s-1#3"}


def test_concurrent_closes_fold_once(scratch_url: str, clock: FakeClock) -> None:
    with memlane.Memory(scratch_url, clock=clock, embedder="hash") as mem:
        session = mem.session("U-1", session_id="s-1", window=5)
        session.add("user", "I like tea")
        with ThreadPoolExecutor(4) as pool:
            summaries = list(pool.map(lambda _: session.close(), range(4)))
        assert len({s.version for s in summaries if s is not None}) == 1
        assert mem.summaries.storyline("U-1") is not None
        assert len(mem.summaries.versions("U-1")) == 1


def test_tenant_handles_share_resources_not_data(scratch_url: str, clock: FakeClock) -> None:
    with memlane.Memory(scratch_url, clock=clock, embedder="hash") as mem:
        acme = mem.for_tenant("acme")
        globex = mem.for_tenant("globex")
        assert acme.embedder() is globex.embedder() is mem.embedder()
        acme.facts.set("U-1", "city", "Oslo")
        assert globex.facts.get("U-1", "city") is None
        assert mem.for_tenant("acme").facts.get("U-1", "city").value == "Oslo"
        acme.session("U-1", session_id="s-1").add("user", "hello")
        assert acme.for_tenant("acme").running_session("U-1", "s-1") is not None
        assert globex.running_session("U-1", "s-1") is None
        acme.close()  # folds acme's session, releases nothing shared
        assert acme.summaries.for_session("s-1") is not None
        assert globex.facts.get("U-1", "city") is None  # the database is still open


def test_workflow_runs_recorded_from_many_threads_are_all_indexed(
    scratch_url: str, clock: FakeClock
) -> None:
    with memlane.Memory(scratch_url, clock=clock, embedder="hash") as mem:

        def record(worker: int) -> list[str]:
            types = []
            for n in range(6):
                kind = f"kind_{(worker + n) % 3}"
                steps = [{"action": "open", "args": {"order": f"ORD-{worker}-{n}"}}]
                mem.workflows.record(f"handle {kind} for order ORD-{worker}-{n}", steps, True, kind)
                types.append(str(mem.workflows.infer_type(f"handle {kind} for order ORD-9")))
            return types

        with ThreadPoolExecutor(THREADS) as pool:
            inferred = [t for batch in pool.map(record, range(THREADS)) for t in batch]
        assert set(inferred) <= {"kind_0", "kind_1", "kind_2"}
        assert len(mem.workflows.trajectories()) == THREADS * 6
