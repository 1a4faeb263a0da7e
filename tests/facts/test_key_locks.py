"""PostgreSQL locks the keys a fact write touches, not the database, and reads stay stable.

A writer process takes its transaction time and stops inside its write (its key locked).
Meanwhile a write of another subject goes through and commits, with a later time. A read
as of that later time, of the stopped writer's key, must wait for it and see its write: had
it answered at once (nothing), the same read would answer differently a moment later, and
the past of the database would have changed (invariant 3; docs/bitemporal.md).
"""

from __future__ import annotations

import multiprocessing
import threading
import time
from typing import Any

import memlane
from memlane.timeutil import to_micros

WAIT_S = 30.0


def _stopping_writer(url: str, issued: Any, release: Any, done: Any) -> None:
    """Set U-A's location, stopping after its transaction time is issued until ``release``."""
    import memlane.facts.lane as lane_module

    plan = lane_module.plan_assert

    def stopped(*arguments: Any, **options: Any) -> Any:
        issued.set()
        release.wait(WAIT_S)
        return plan(*arguments, **options)

    lane_module.plan_assert = stopped  # type: ignore[assignment]
    with memlane.Memory(url) as mem:
        fact = mem.facts.set("U-A", "location", "Shanghai", valid_from="2026-01-01")
        done.put(to_micros(fact.tx_from))


def test_other_keys_commit_meanwhile_and_reads_as_of_their_time_wait(postgres_url: str) -> None:
    context = multiprocessing.get_context("spawn")
    issued, release, done = context.Event(), context.Event(), context.Queue()
    writer = context.Process(target=_stopping_writer, args=(postgres_url, issued, release, done))
    writer.start()
    try:
        assert issued.wait(WAIT_S), "the writer never reached its write"
        with memlane.Memory(postgres_url) as mem:
            started = time.monotonic()
            other = mem.facts.set("U-B", "location", "Beijing", valid_from="2026-01-01")
            # With one lock for the whole database this would wait for the stopped writer.
            assert time.monotonic() - started < WAIT_S / 3
            known_at = other.tx_from  # later than the stopped writer's time, which is issued

            answers: list[Any] = []
            reader = threading.Thread(
                target=lambda: answers.append(
                    mem.facts.get("U-A", "location", valid_at="2026-02-01", known_at=known_at)
                )
            )
            reader.start()
            reader.join(1.0)
            assert reader.is_alive(), f"the read did not wait for the open write: {answers}"
            release.set()
            reader.join(WAIT_S)
            written = done.get(timeout=WAIT_S)
            assert written < to_micros(known_at)
            assert answers and answers[0] is not None and answers[0].value == "Shanghai"
            again = mem.facts.get("U-A", "location", valid_at="2026-02-01", known_at=known_at)
            assert again == answers[0]
    finally:
        release.set()
        writer.join(WAIT_S)
    assert writer.exitcode == 0


def test_transaction_times_stay_unique_and_increasing_across_writers(postgres_url: str) -> None:
    """Threads of one process, each on its own subject: times never repeat."""
    stamps: list[int] = []
    errors: list[BaseException] = []
    with memlane.Memory(postgres_url) as mem:

        def work(n: int) -> None:
            try:
                for k in range(25):
                    fact = mem.facts.set(f"U-{n}", "status", f"s{k}")
                    stamps.append(to_micros(fact.tx_from))
                batch = mem.facts.set_many(
                    {"subject": f"U-{n}", "attribute": "tier", "value": k} for k in range(20)
                )
                stamps.extend(to_micros(fact.tx_from) for fact in batch)
            except BaseException as error:  # reported below
                errors.append(error)

        threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(WAIT_S * 2)
    assert not errors, errors
    assert len(stamps) == len(set(stamps)) == 4 * 45
