"""Crash safety: a writer killed with SIGKILL mid-stream, 20 times, loses nothing it acknowledged.

The writer commits batches of three writes, each carrying a unique tag in its provenance and
a unique value (so no write is a no-op and nothing coalesces). Before a batch it logs the
batch's tags as *intended*; after the commit returns it logs them as *acknowledged* (an
append plus flush: the bytes reach the kernel, so they survive the process's death). The
test kills it at a random moment, starts a new one, and after 20 kills checks that:

- every acknowledged tag is in ``audit()`` (no acknowledged write is missing);
- every batch is all-or-nothing (no partial version), and only the batch in flight at a
  kill may be present without its acknowledgement;
- invariants 1 and 2 hold on what is believed.
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
import random
import signal
import time
from pathlib import Path

import pytest

import memlane

SUBJECT = "U-crash"
KILLS = 20
BATCH = 3


def writer(url: str, seed: int, log_path: str) -> None:
    """Write batches forever, logging intent before and acknowledgement after each commit."""
    rng = random.Random(seed)
    with memlane.Memory(url) as mem, open(log_path, "a", encoding="utf-8") as log:
        number = 0
        while True:
            tags = [f"k{seed}-{number + i}" for i in range(BATCH)]
            number += BATCH
            log.write("intend " + " ".join(tags) + "\n")
            log.flush()
            with mem.facts.batch():
                for tag in tags:
                    day = rng.randrange(1, 28)
                    if rng.random() < 0.5:
                        mem.facts.set(
                            SUBJECT, "city", f"city-{tag}", f"2026-03-{day:02d}", provenance=[tag]
                        )
                    else:
                        mem.facts.add(SUBJECT, "phone", f"phone-{tag}", provenance=[tag])
            log.write("ack " + " ".join(tags) + "\n")
            log.flush()


def _batches(log_path: Path) -> tuple[list[tuple[str, ...]], set[str]]:
    """Every intended batch, and the tags whose batch was acknowledged."""
    intended: list[tuple[str, ...]] = []
    acknowledged: set[str] = set()
    for line in log_path.read_text(encoding="utf-8").splitlines():
        word, *tags = line.split()
        if word == "intend" and len(tags) == BATCH:
            intended.append(tuple(tags))
        elif word == "ack" and len(tags) == BATCH:
            acknowledged.update(tags)
    return intended, acknowledged


@pytest.mark.slow
def test_kill_9_mid_stream_loses_no_acknowledged_write(memory_url: str, tmp_path: Path) -> None:
    with memlane.Memory(memory_url) as mem:
        mem.facts.define("phone", cardinality="many")
    log_path = tmp_path / "writes.log"
    log_path.touch()
    context = multiprocessing.get_context("fork")
    rng = random.Random(7)
    for kill in range(KILLS):
        acknowledged_before = _batches(log_path)[1]
        process = context.Process(target=writer, args=(memory_url, kill, str(log_path)))
        process.start()
        # Kill only once this writer has acknowledged something, so every run writes.
        deadline = time.monotonic() + 30
        while _batches(log_path)[1] == acknowledged_before:
            assert process.is_alive() and time.monotonic() < deadline, "the writer never wrote"
            time.sleep(0.01)
        time.sleep(rng.uniform(0.0, 0.15))
        assert process.pid is not None
        os.kill(process.pid, signal.SIGKILL)
        process.join(timeout=30)
        assert process.exitcode == -signal.SIGKILL

    intended, acknowledged = _batches(log_path)
    assert len(acknowledged) >= KILLS * BATCH
    with memlane.Memory(memory_url) as mem:
        audit = mem.facts.audit(SUBJECT)
        # Writes after the crashes still work and still get later transaction times.
        after = mem.facts.set(SUBJECT, "city", "after-the-crashes", "2026-04-01")
        assert after.tx_from > max(fact.tx_from for fact in audit)
    stored = {tag for fact in audit for tag in fact.provenance}
    missing = acknowledged - stored
    assert not missing, f"acknowledged writes lost: {sorted(missing)[:5]}"
    unacknowledged_present = 0
    for batch in intended:
        present = [tag in stored for tag in batch]
        assert all(present) or not any(present), f"a partial batch is stored: {batch}"
        if all(present) and batch[0] not in acknowledged:
            unacknowledged_present += 1  # committed, then killed before the ack was logged
    assert unacknowledged_present <= KILLS
    assert stored <= {tag for batch in intended for tag in batch}, "a version nobody wrote"
    believed = [fact for fact in audit if fact.believed]
    cities = sorted((f.valid_from, f.valid_to) for f in believed if f.attribute == "city")
    for (_, end), (start, _) in itertools.pairwise(cities):
        assert end is not None and end <= start, "two believed cities overlap (invariant 1)"
