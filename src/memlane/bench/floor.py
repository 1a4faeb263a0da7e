"""What the database itself writes on this machine: the floor memlane's single sets stand on.

Plain single-row ``INSERT``s, each its own committed transaction, into a scratch table of a
fact's columns with an index on its key, as durable as memlane's writes (SQLite: WAL with
``synchronous = NORMAL``; PostgreSQL: the server's ``synchronous_commit``), on the database
memlane's writes were measured on, in the same run. A ``set`` does more than one such insert
(it reads the key's believed versions, plans, may close one and inserts one, in a write
transaction that holds its key's lock), so its rate stays below this one; the ratio of the
two says what memlane costs over the database, and the floor says what the machine allows.
The table is made before and dropped after each measurement.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from typing import Any

from memlane.bench.clients import summed_rate, work
from memlane.locations import is_postgres

TABLE = "memlane_bench_floor"
_COLUMNS = "(tenant TEXT NOT NULL, subject TEXT NOT NULL, attribute TEXT NOT NULL, "
_COLUMNS += "value TEXT NOT NULL, valid_from BIGINT NOT NULL, tx_from BIGINT NOT NULL)"
_INSERT = f"INSERT INTO {TABLE} VALUES (%s, %s, %s, %s, %s, %s)"

Run = Callable[..., Any]
"""``run(sql, parameters=())``: one statement, in psycopg's placeholders."""


def single_inserts(url: str, count: int) -> float:
    """Committed single-row inserts per second, one after another on one connection."""
    with _table(url), _connected(url) as run:
        started = time.perf_counter()
        for number in range(count):
            run(_INSERT, _row(0, number))
        return count / (time.perf_counter() - started)


def client_inserts(url: str, clients: int, seconds: float) -> float:
    """Committed single-row inserts per second of ``clients`` processes, each on its own rows."""
    with _table(url):
        return summed_rate(inserter, url, clients, seconds)


def inserter(url: str, index: int, seconds: float, barrier: Any, queue: Any) -> None:
    """One process of :func:`client_inserts` (a :data:`~memlane.bench.clients.Worker`)."""
    work(_inserting(url, index), index, seconds, barrier, queue)


@contextmanager
def _inserting(url: str, client: int) -> Iterator[Callable[[int], object]]:
    """``insert(n)``: the client's row ``n``, on a connection of its own, warmed by one row."""
    with _connected(url) as run:
        run(_INSERT, _row(client, -1))
        yield lambda number: run(_INSERT, _row(client, number))


def _row(client: int, number: int) -> tuple[Any, ...]:
    return ("floor", f"C{client}-{number % 50}", "status", f"s{number}", number, number)


@contextmanager
def _table(url: str) -> Iterator[None]:
    """The scratch table, with an index on a fact's key, for the block."""
    with _connected(url) as run:
        run(f"DROP TABLE IF EXISTS {TABLE}")
        run(f"CREATE TABLE {TABLE} {_COLUMNS}")
        run(f"CREATE INDEX {TABLE}_key ON {TABLE} (tenant, subject, attribute)")
    try:
        yield
    finally:
        with _connected(url) as run:
            run(f"DROP TABLE IF EXISTS {TABLE}")


@contextmanager
def _connected(url: str) -> Iterator[Run]:
    """A connection in autocommit: every statement ``run`` is its own committed transaction."""
    if is_postgres(url):
        import psycopg

        with psycopg.connect(url, autocommit=True) as connection:
            yield lambda sql, parameters=(): connection.execute(sql, parameters)
        return
    with closing(sqlite3.connect(url, isolation_level=None, timeout=30.0)) as connection:
        connection.execute("PRAGMA journal_mode = WAL")
        connection.execute("PRAGMA synchronous = NORMAL")  # as memlane's own connection
        yield lambda sql, parameters=(): connection.execute(sql.replace("%s", "?"), parameters)
