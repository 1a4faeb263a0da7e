"""memlane bench server: a real server process, real clients, every acknowledged write kept."""

from __future__ import annotations

import pytest

from memlane.bench.server import run
from memlane.errors import InvalidInput


def test_load_over_tenants_on_loopback_loses_no_acknowledged_write():
    results = run(
        clients=(2,), backends=("sqlite",), tenants=5, seconds=1.5, progress=lambda _: None
    )
    metrics = results.systems["memlane"]
    group = "sqlite 2 clients"
    assert metrics["acknowledged_writes"][group] > 0
    assert metrics["acknowledged_missing"][group] == 0
    assert metrics["errors"][group] == 0
    assert metrics["requests_per_s"][group] > 0
    assert metrics["db_connections_max"][group] == 1  # one SQLite connection for 5 tenants
    # Beside it, read-only ones: the stamps', and one per statement read at once (two
    # clients' requests, the indexer, a graph's building thread), none per tenant.
    assert 1 <= metrics["db_read_connections_max"][group] <= 5
    assert metrics["server_rss_mib_max"][group] > 0
    # Where the CPU went in the window: the machine, the server, the client processes.
    assert metrics["cpu_machine_cores"][group] > 0
    assert 0 < metrics["cpu_server_main_cores"][group] <= metrics["cpu_server_cores"][group]
    assert metrics["cpu_clients_cores"][group] > 0
    assert metrics["requests_per_core_s"][group] > 0


def test_the_one_client_window_gives_the_ceilings_and_each_speed_up():
    results = run(
        clients=(1, 2), backends=("sqlite",), tenants=2, seconds=1.0, progress=lambda _: None
    )
    metrics = results.systems["memlane"]
    assert metrics["ceiling_x"]["sqlite"] > 0
    assert metrics["interpreter_ceiling_x"]["sqlite"] > 0
    assert metrics["speedup_x"]["sqlite 2 clients"] > 0


@pytest.mark.parametrize(
    "arguments",
    [{"clients": (0,)}, {"backends": ("mysql",)}, {"tenants": 0}, {"seconds": 0}],
)
def test_bad_parameters_are_refused(arguments):
    with pytest.raises(InvalidInput):
        run(progress=lambda _: None, **arguments)
