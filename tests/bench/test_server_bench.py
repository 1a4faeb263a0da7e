"""memlane bench server: a real server process, real clients, every acknowledged write kept."""

from __future__ import annotations

from memlane.bench.server import run


def test_load_on_loopback_loses_no_acknowledged_write():
    results = run(clients=2, seconds=1.5, progress=lambda _: None)
    metrics = results.systems["memlane"]
    assert metrics["acknowledged_writes"]["2 clients"] > 0
    assert metrics["acknowledged_missing"]["2 clients"] == 0
    assert metrics["errors"]["2 clients"] == 0
    assert metrics["requests_per_s"]["2 clients"] > 0
