"""A single write's simple queries on libpq (``storage.postgres.wire``): literals and rows.

The literals are written by memlane (not psycopg) where that is exact, and the rows read
column by column from the ``PGresult``: both must give what psycopg gives, for any text,
any integer and ``NULL``, and the errors must be psycopg's own.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import memlane
from memlane.storage.postgres import wire
from tests.support.services import PostgresServer

_TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"))
_TRICKY = [
    *("", "'", "''", "\\", "\\'", "E'\\x27'", "%s", "%(x)s", "%%", "$$", "$1", "--", "/*"),
    *("NULL", "'; DROP TABLE facts; --", "\u00e9", "\u4e2d\u6587", "\U0001f600", "\n\t\r"),
]


@pytest.fixture(scope="module")
def connection(postgres_server: PostgresServer) -> Iterator[psycopg.Connection[Any]]:
    with psycopg.connect(postgres_server.admin_url, autocommit=True) as connection:
        yield connection


def _both(connection: Any, sql: str, parameters: Any) -> tuple[Any, Any]:
    """The rows of ``sql`` bound and run by ``wire``, and by a psycopg cursor."""
    found = wire.simple_query(connection, wire.bound(connection, sql, parameters))
    return found[0], connection.execute(sql, parameters).fetchall()


@settings(max_examples=200)
@given(
    st.one_of(_TEXT, st.sampled_from(_TRICKY)),
    st.integers(-(2**63) + 1, 2**63 - 1),  # psycopg's -2**63::bigint overflows (see below)
    st.one_of(st.none(), st.booleans()),
)
def test_literals_read_back_as_psycopg_binds_them(
    connection: Any, text: str, number: int, flag: bool | None
) -> None:
    assert wire.direct(connection)  # the server's defaults: UTF-8, standard strings
    sql = "SELECT %s::text, %s::bigint, %s::boolean, 1-%s::numeric, %s || '%%'"
    ours, psycopgs = _both(connection, sql, (text, number, flag, number, text))
    assert ours == psycopgs == [(text, number, flag, 1 - number, text + "%")]


def test_named_parameters_and_a_negative_number_after_a_minus(connection: Any) -> None:
    sql = "SELECT %(a)s::text, 1-%(n)s, %(a)s"
    ours, psycopgs = _both(connection, sql, {"a": "it's", "n": -1})
    assert ours == psycopgs == [("it's", 2, "it's")]  # "1--1" would have been a comment


def test_the_smallest_bigint_is_written_so_that_it_reads_back(connection: Any) -> None:
    query = wire.bound(connection, "SELECT %s::bigint, 0-%s", (-(2**63), -(2**63) + 1))
    assert wire.simple_query(connection, query) == [[(-(2**63), 2**63 - 1)]]


def test_rows_decode_as_psycopg_decodes_them(connection: Any) -> None:
    """The usual types here; the rest (numeric, jsonb, dates, arrays) by psycopg's loaders."""
    sql = (
        "SELECT 1::int2, 2::int4, 3::bigint, 4::oid, 0.5::float4, 'NaN'::float8, "
        "'-Infinity'::float8, 'x'::varchar, 'y'::char(2), true, false, NULL::text, "
        "1.25::numeric, '{\"a\": [1]}'::jsonb, '2026-01-02'::date, '{1,NULL}'::int[], "
        "'\u4e2d'::text, 'ab'::name"
    )
    ours = wire.simple_query(connection, sql)[0]
    psycopgs = connection.execute(sql).fetchall()
    assert [repr(value) for value in ours[0]] == [repr(value) for value in psycopgs[0]]
    assert [type(value) for value in ours[0]] == [type(value) for value in psycopgs[0]]


def test_each_statement_gives_its_rows(connection: Any) -> None:
    found = wire.simple_query(connection, "BEGIN; SELECT 1; SELECT 2 WHERE false; COMMIT")
    assert found == [[], [(1,)], [], []]


def test_a_failing_statement_raises_psycopgs_error_and_stops_the_rest(connection: Any) -> None:
    connection.execute("CREATE TEMP TABLE wire_once (n int PRIMARY KEY)")
    with pytest.raises(psycopg.errors.UniqueViolation):
        wire.simple_query(
            connection,
            "BEGIN; INSERT INTO wire_once VALUES (1); INSERT INTO wire_once VALUES (1); COMMIT",
        )
    # The COMMIT never ran: the transaction is aborted until rolled back, nothing stored.
    assert connection.info.transaction_status == psycopg.pq.TransactionStatus.INERROR
    connection.execute("ROLLBACK")
    assert connection.execute("SELECT count(*) FROM wire_once").fetchone() == (0,)
    assert wire.simple_query(connection, "SELECT 3") == [[(3,)]]  # the connection still works


def test_a_nul_is_refused_as_psycopg_refuses_it(connection: Any) -> None:
    with pytest.raises(psycopg.DataError):
        wire.bound(connection, "SELECT %s", ("a\x00b",))


def test_without_standard_strings_psycopg_binds_and_reads(postgres_server: PostgresServer) -> None:
    """With backslashes special in quotes, the module's literals would be wrong: psycopg's."""
    with psycopg.connect(postgres_server.admin_url, autocommit=True) as connection:
        connection.execute("SET standard_conforming_strings = off")
        assert not wire.direct(connection)
        text = "a\\'; SELECT 1; --"
        query = wire.bound(connection, "SELECT %s, %s", (text, -7))
        assert wire.simple_query(connection, f"BEGIN; {query}; COMMIT") == [
            [],
            [(text, -7)],
            [],
        ]


def test_a_single_write_on_a_connection_without_standard_strings(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fallback path end to end: a set and a retract of awkward text."""
    monkeypatch.setattr(wire, "direct", lambda connection: False)
    awkward = "O'Brien \\' %s"
    with memlane.Memory(postgres_url) as mem:
        first = mem.facts.set(awkward, "city", awkward, valid_from="2026-01-01")
        second = mem.facts.set(awkward, "city", "Oslo", valid_from="2026-02-01")
        assert (first.value, second.value) == (awkward, "Oslo")
        assert [f.value for f in mem.facts.retract(awkward, "city", "2026-03-01")] == ["Oslo"]
        assert [f.value for f in mem.facts.history(awkward, "city")] == [awkward, "Oslo"]
