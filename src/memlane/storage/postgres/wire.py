"""A single write's two simple queries, sent and read on libpq itself (psycopg's ``pq``).

A single ``set`` is two round trips of a few short statements (``BEGIN``, its lock, its
time and what it plans from; the close-and-insert and ``COMMIT``). Through a psycopg cursor
each costs ~58 µs of client CPU (the cursor, its result sets, the loaders of each value)
and binding its parameters ~45 µs more (``ClientCursor.mogrify``: an adapter per value);
sent on the connection's ``PGconn`` and read column by column here, ~25 µs and ~5 µs:
together about a quarter of a ``set``'s client CPU.

It is the same connection, in the same state, that psycopg holds: psycopg reads the
transaction status from libpq, and its notice handler stays installed. Errors are psycopg's
own (:func:`psycopg.errors.error_from_result`: ``ExclusionViolation``, ``LockNotAvailable``
and the rest, as a cursor raises them). Waiting releases the GIL (``poll``), so other
threads run meanwhile; a Ctrl-C while a query runs leaves the connection busy, and the pool
closes it when it comes back (psycopg would send a cancel first).

Literals are written here only where that is exact: text in single quotes with quotes
doubled needs ``standard_conforming_strings`` on (backslashes are then plain characters,
the default since PostgreSQL 9.1) and a UTF-8 connection; otherwise, and for any value that
is not text, a number, a boolean or ``None``, the statement is bound by psycopg
(``ClientCursor.mogrify``) and sent through a cursor as before.
"""

from __future__ import annotations

import select
from collections.abc import Callable, Sequence
from typing import Any

import psycopg
from psycopg import ClientCursor
from psycopg.pq import ExecStatus

_OK = (ExecStatus.COMMAND_OK, ExecStatus.TUPLES_OK, ExecStatus.EMPTY_QUERY)
_LOADERS: dict[int, Callable[[bytes], Any]] = {
    **dict.fromkeys((25, 1043, 1042, 19), bytes.decode),  # text, varchar, bpchar, name (UTF-8)
    **dict.fromkeys((20, 21, 23, 26), int),  # int8, int2, int4, oid
    **dict.fromkeys((700, 701), float),  # float4, float8 (NaN and Infinity as float reads)
    16: lambda raw: raw == b"t",  # bool
}
"""How the usual types' text form is decoded here: as psycopg's loaders decode them."""


def direct(connection: Any) -> bool:
    """Whether literals written here read back exact on ``connection`` (see the module)."""
    status = connection.pgconn.parameter_status
    return bool(
        status(b"standard_conforming_strings") == b"on" and status(b"client_encoding") == b"UTF8"
    )


def bound(connection: Any, sql: str, parameters: Sequence[Any] | dict[str, Any]) -> str:
    """``sql`` with its parameters written in as literals (``%s`` or ``%(name)s``, ``%%``).

    For a statement sent with others in one simple query, which takes no parameters.
    """
    if direct(connection):
        try:
            if isinstance(parameters, dict):
                return sql % {name: literal(value) for name, value in parameters.items()}
            return sql % tuple(map(literal, parameters))
        except _NotPlain:
            pass
    return ClientCursor(connection).mogrify(sql, parameters)


class _NotPlain(Exception):
    """A value :func:`literal` leaves to psycopg."""


def literal(value: Any) -> str:
    """A SQL literal of ``value`` on a connection :func:`direct` approves.

    Text: single quotes, each quote doubled (with ``standard_conforming_strings`` on,
    nothing else is special; a NUL, which no text may hold, and a lone surrogate, which
    UTF-8 cannot encode, are left to psycopg, which refuses them). ``bool`` before ``int``
    (it is one); a negative integer in parentheses (``x-%s`` must not become the comment
    ``x--1``, and ``%s::bigint`` of -2**63 must not read as ``-(2**63::bigint)``, which
    overflows: psycopg writes `` -1`` and has that overflow); ``None`` as ``NULL``.
    Anything else (floats, lists, dates) is psycopg's to write.
    """
    if isinstance(value, str):
        if "\x00" in value or not _encodable(value):
            raise _NotPlain
        return "'" + value.replace("'", "''") + "'"
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if type(value) is int:
        return str(value) if value >= 0 else f"({value})"
    raise _NotPlain


def _encodable(text: str) -> bool:
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def simple_query(connection: Any, query: str) -> list[list[tuple[Any, ...]]]:
    """Run ``query`` (statements separated by ``;``): the rows of each statement's result.

    As psycopg would: if a statement fails, the rest do not run and its error is raised
    (psycopg's exception of its SQLSTATE), once every result has been read.
    """
    if not direct(connection):
        return _through_cursor(connection, query)
    pgconn = connection.pgconn
    pgconn.send_query(query.encode("utf-8"))
    while pgconn.flush():  # 1: the rest of the query waits for the socket
        _wait(pgconn.socket, select.POLLOUT | select.POLLIN)
        pgconn.consume_input()
    found: list[list[tuple[Any, ...]]] = []
    failed = None
    while True:
        while pgconn.is_busy():
            _wait(pgconn.socket, select.POLLIN)
            pgconn.consume_input()
        result = pgconn.get_result()
        if result is None:
            break
        if result.status not in _OK:
            failed = result if failed is None else failed
            continue
        found.append(_rows(connection, result))
    if failed is not None:
        raise psycopg.errors.error_from_result(failed, encoding="utf-8")
    return found


def _wait(fileno: int, events: int) -> None:
    """Until ``fileno`` is ready for ``events`` (``poll``: any descriptor number, GIL released)."""
    poller = select.poll()
    poller.register(fileno, events)
    poller.poll()


def _rows(connection: Any, result: Any) -> list[tuple[Any, ...]]:
    """A result's rows, each value as psycopg's loader of its type gives it."""
    count = result.ntuples
    if not count:
        return []
    columns = range(result.nfields)
    loads = [_LOADERS.get(result.ftype(column)) or _loader(connection, result.ftype(column))
             for column in columns]  # fmt: skip
    value = result.get_value
    rows = []
    for row in range(count):
        raws = [value(row, column) for column in columns]
        rows.append(
            tuple(
                [None if raw is None else load(raw) for load, raw in zip(loads, raws, strict=True)]
            )
        )
    return rows


def _loader(connection: Any, oid: int) -> Callable[[bytes], Any]:
    """The decoding psycopg gives a text-format value of type ``oid`` (else the text)."""
    loader = connection.adapters.get_loader(oid, psycopg.pq.Format.TEXT)
    if loader is None:
        return bytes.decode
    return loader(oid, connection).load  # type: ignore[no-any-return]


def _through_cursor(connection: Any, query: str) -> list[list[tuple[Any, ...]]]:
    """:func:`simple_query` through a psycopg cursor (a connection :func:`direct` refuses)."""
    cursor = connection.execute(query)
    found: list[list[tuple[Any, ...]]] = []
    while True:
        found.append(
            list(cursor.fetchall()) if cursor.pgresult.status == ExecStatus.TUPLES_OK else []
        )
        if not cursor.nextset():
            return found
