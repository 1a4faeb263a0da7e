"""``memlane export`` / ``memlane import``: a whole memory (every tenant) as JSON Lines.

The file is backend-neutral, so it moves a memory between backends (a SQLite file to
PostgreSQL and back) without loss. Line 1 is a header::

    {"format": "memlane-export", "version": 1, "schema": {table: [columns]},
     "rows": {table: count}, "exported_at": "..."}

then one ``{"table": ..., "row": {...}}`` per stored row, tables in :data:`TABLES` order:
exact copies with their ids and both time axes; a vector as base64 float32 bytes. Derived data
(search tokens, full-text rows) is not exported; loading computes it.

An import commits every :data:`CHUNK` rows, so a failed or interrupted import keeps what it
loaded and running it again resumes: rows already stored, identical, are skipped. Into a
memory that is not empty it first checks, writing nothing, that everything stored there is
part of this export; a different memory is refused.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TextIO

from memlane.errors import InvalidInput
from memlane.storage.archiving import ArchiveRow, ArchiveStore, ArchiveValue
from memlane.storage.base import Backend
from memlane.storage.vectors import as_vector, unstorable
from memlane.timeutil import Clock, system_clock

FORMAT = "memlane-export"
VERSION = 1
"""The format version this memlane writes and the newest it reads."""
CHUNK = 1_000
"""Rows per read, per transaction and per progress report."""
_INT_RANGE = (-(2**63), 2**63)

Kind = Literal["int", "float", "str", "bytes"]
Key = tuple[ArchiveValue, ...]
Progress = Callable[[str, int, int], None]
"""Called after each chunk with ``(table, rows done, rows in all)``; an import's keying of
its notes then reports ``(KEYING, subjects done, subjects)``."""
KEYING = "note keys"


@dataclass(frozen=True, slots=True)
class Column:
    """One exported column: its JSON type, whether it may be null, its allowed values."""

    name: str
    kind: Kind = "str"
    nullable: bool = False
    choices: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Table:
    """One logical table, the same on every backend."""

    name: str
    key: tuple[str, ...]
    columns: tuple[Column, ...]

    @property
    def names(self) -> tuple[str, ...]:
        """The column names, in export order."""
        return tuple(column.name for column in self.columns)

    def column(self, name: str) -> Column:
        """The column called ``name``."""
        return next(column for column in self.columns if column.name == name)

    def key_of(self, row: Mapping[str, ArchiveValue]) -> Key:
        """The primary key of ``row``."""
        return tuple(row[name] for name in self.key)

    def describe(self, key: Key) -> str:
        """A key as a message names it: ``id 17``, ``tenant 'acme', name 'city'``."""
        if self.key == ("id",):
            return f"id {key[0]!r}" if isinstance(key[0], str) else f"id {key[0]!s}"
        return ", ".join(f"{name} {value!r}" for name, value in zip(self.key, key, strict=True))


_KINDS: dict[str, Kind] = {"": "str", "int": "int", "float": "float", "bytes": "bytes"}


def _table(name: str, key: str, columns: str) -> Table:
    """A table from a compact spec: per column ``name[:kind][=a|b][?]``.

    The kind is ``str`` unless given; ``=a|b`` lists the allowed values; ``?`` allows null.
    """
    parsed = []
    for token in columns.split():
        nullable = token.endswith("?")
        head, _, choices = token.rstrip("?").partition("=")
        column, _, kind = head.partition(":")
        parsed.append(
            Column(column, _KINDS[kind], nullable, tuple(filter(None, choices.split("|"))))
        )
    return Table(name, tuple(key.split()), tuple(parsed))


TABLES: tuple[Table, ...] = (
    _table(
        "attributes",
        "tenant name",
        "tenant name cardinality=one|many identifier:int normalizer defined_at:int",
    ),
    _table(
        "facts",
        "id",
        "id:int tenant subject attribute value value_key valid_from:int valid_to:int tx_from:int "
        "tx_to:int? source? reason? confidence:float provenance deleted_at:int? stated_tx:int?",
    ),
    _table(
        "summaries",
        "id",
        "id:int tenant subject session_id version:int content period_from:int period_to:int "
        "tx_from:int tx_to:int? provenance deleted_at:int?",
    ),
    _table(
        "notes",
        "id",
        "id:int tenant subject text said_at:int tx_from:int session_id? source? provenance "
        "deleted_at:int?",
    ),
    _table(
        "search_docs",
        "id",
        "id:int tenant subject kind=summary|note owner_id:int text model? vector:bytes? "
        "deleted_at:int?",
    ),
    # Exported (and loaded) in insertion order, which orders turns said at the same instant.
    _table(
        "turns",
        "tenant id",
        "id tenant subject session_id role speaker? content said_at:int deleted_at:int?",
    ),
    _table(
        "deletions",
        "id",
        "id:int tenant subject scope requested_at:int requested_by? reason? purge_due:int "
        "purged_at:int? counts",
    ),
    _table(
        "api_keys",
        "id",
        "id tenant role=agent|auditor|compliance|admin secret_hash created_at:int "
        "revoked_at:int? label?",
    ),
    _table(
        "workflow_runs",
        "id",
        "id:int tenant task_type task steps success:int reason? recorded_at:int deleted_at:int?",
    ),
    _table(
        "workflows",
        "id",
        "id:int tenant task_type version:int body tx_from:int tx_to:int? deleted_at:int?",
    ),
    # Last: loading it (raising the clock) is the only change that is not a new row.
    _table("tx_clock", "id", "id:int last_tx:int"),
)
"""Every logical table, in dependency order (the order of an export)."""

BY_NAME: dict[str, Table] = {table.name: table for table in TABLES}
CLOCK = "tx_clock"


def table_named(name: str) -> Table:
    """The table called ``name``.

    Raises:
        InvalidInput: no such table (so a name is safe to write into SQL once found).
    """
    table = BY_NAME.get(name)
    if table is None:
        raise InvalidInput("table", f"unknown table {name!r}")
    return table


class ArchiveConflict(InvalidInput):
    """A row's key is already stored with different data.

    Args:
        table: the table.
        key: the row's primary key.
        index: the row's position in the batch given to the store.
    """

    def __init__(self, table: Table, key: Key, index: int) -> None:
        self.table = table.name
        self.index = index
        self.detail = (
            f"the target already holds different {table.name} data with "
            f"{table.describe(key)}; import into an empty memory"
        )
        super().__init__("row", self.detail)


def partition(
    table: Table, rows: Sequence[ArchiveRow], stored: Mapping[Key, ArchiveRow]
) -> tuple[list[ArchiveRow], int]:
    """Split a batch into the rows to insert and the count of rows stored identically.

    ``stored`` holds the stored rows with the batch's keys. A row repeated within the batch
    counts as stored after its first occurrence.

    Raises:
        ArchiveConflict: a key is stored (or repeated) with different data.
    """
    seen = dict(stored)
    fresh: list[ArchiveRow] = []
    matched = 0
    for index, row in enumerate(rows):
        key = table.key_of(row)
        held = seen.get(key)
        if held is None:
            fresh.append(row)
            seen[key] = row
        elif held == row:
            matched += 1
        else:
            raise ArchiveConflict(table, key, index)
    return fresh, matched


# -- reports ------------------------------------------------------------------------------


@dataclass(slots=True)
class ExportReport:
    """What an export wrote: rows per table."""

    rows: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"rows": dict(self.rows), "total": sum(self.rows.values())}


@dataclass(slots=True)
class ImportReport:
    """What an import read and did, per table: rows read, inserted, already stored."""

    rows: dict[str, int] = field(default_factory=dict)
    inserted: dict[str, int] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "rows": dict(self.rows),
            "inserted": dict(self.inserted),
            "skipped": dict(self.skipped),
            "total": sum(self.rows.values()),
        }


# -- export -------------------------------------------------------------------------------


def export_memory(
    backend: Backend,
    stream: TextIO,
    progress: Progress | None = None,
    *,
    clock: Clock = system_clock,
) -> ExportReport:
    """Write every row of every tenant to ``stream`` as JSON Lines, from one snapshot.

    Raises:
        InvalidInput: ``stream`` has no ``write`` (checked before anything is read).
    """
    if not callable(getattr(stream, "write", None)):
        raise InvalidInput(
            "stream", f"must be a text stream open for writing, got {type(stream).__name__}"
        )
    report = ExportReport()
    with backend.archive.snapshot() as reader:
        counts = {table.name: reader.count(table.name) for table in TABLES}
        total = sum(counts.values())
        header = {
            "format": FORMAT,
            "version": VERSION,
            "schema": {table.name: list(table.names) for table in TABLES},
            "rows": counts,
            "exported_at": clock().isoformat(),
        }
        stream.write(_dumps(header))
        done = 0
        for table in TABLES:
            report.rows[table.name] = 0
            for chunk in reader.rows(table.name, CHUNK):
                stream.write("".join(_dumps(_record(table, row)) for row in chunk))
                report.rows[table.name] += len(chunk)
                done += len(chunk)
                if progress is not None:
                    progress(table.name, done, total)
    return report


def _record(table: Table, row: ArchiveRow) -> dict[str, Any]:
    encoded = {
        name: base64.b64encode(value).decode("ascii") if isinstance(value, bytes) else value
        for name, value in ((name, row[name]) for name in table.names)
    }
    return {"table": table.name, "row": encoded}


def _dumps(payload: Mapping[str, Any]) -> str:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":")) + "\n"


# -- import -------------------------------------------------------------------------------

Lines = Callable[[], Iterable[str]]
"""Opens the export afresh: called once, or twice when the target is not empty."""


def import_memory(backend: Backend, lines: Lines, progress: Progress | None = None) -> ImportReport:
    """Load an export into ``backend``: one transaction per chunk, resumable.

    Raises:
        InvalidInput: the input is not a memlane export this version reads, a line is
            malformed (the message names it), the export is truncated, or the target holds
            data that is not part of this export. Chunks committed before a bad line stay;
            running the import again (with the whole file) completes it.
    """
    if not callable(lines):
        raise InvalidInput(
            "lines", "must open the export when called, e.g. lambda: open(path, encoding='utf-8')"
        )
    store = backend.archive
    with store.snapshot() as reader:
        stored = {t.name: reader.count(t.name) for t in TABLES if t.name != CLOCK}
    if any(stored.values()):
        _check_target(store, lines, stored)
    report = ImportReport()
    batches = _Batches(_opened(lines))
    for table, batch in batches:
        try:
            inserted = store.load(table.name, [row for _, row in batch])
        except ArchiveConflict as conflict:
            raise InvalidInput(f"line {batch[conflict.index][0]}", conflict.detail) from conflict
        report.rows[table.name] = report.rows.get(table.name, 0) + len(batch)
        report.inserted[table.name] = report.inserted.get(table.name, 0) + inserted
        report.skipped[table.name] = report.skipped.get(table.name, 0) + len(batch) - inserted
        if progress is not None:
            progress(table.name, batches.done, batches.total)
    store.finish()
    return report


def _check_target(store: ArchiveStore, lines: Lines, stored: Mapping[str, int]) -> None:
    """Refuse, before writing anything, a target holding data that this export does not."""
    matched = dict.fromkeys(stored, 0)
    for table, batch in _Batches(_opened(lines)):
        if all(matched[name] >= count for name, count in stored.items()):
            return  # every stored row is accounted for: the rest of the file is new
        if table.name == CLOCK:
            continue
        try:
            matched[table.name] += store.match(table.name, [row for _, row in batch])
        except ArchiveConflict as conflict:
            raise InvalidInput(f"line {batch[conflict.index][0]}", conflict.detail) from conflict
    extra = {name: count - matched[name] for name, count in stored.items() if count > matched[name]}
    if extra:
        listed = ", ".join(f"{count} {name}" for name, count in extra.items())
        raise InvalidInput(
            "target",
            f"the target memory holds rows this export does not ({listed}); "
            "import into an empty memory",
        )


def _opened(lines: Lines) -> Iterator[str]:
    source = lines()
    if not isinstance(source, Iterable):
        raise InvalidInput("lines", f"must return the export's lines, got {type(source).__name__}")
    number = 0
    try:
        for number, line in enumerate(source, start=1):
            if not isinstance(line, str | bytes):
                raise InvalidInput(f"line {number}", f"must be text, got {type(line).__name__}")
            yield line
    except UnicodeDecodeError as error:
        # Text is decoded a block at a time: the bad byte is at or soon after this line.
        raise InvalidInput(f"line {number + 1}", f"not UTF-8 text ({error.reason})") from error
    finally:
        close = getattr(source, "close", None)
        if callable(close):
            close()


class _Batches:
    """The validated rows of an export, grouped by table into chunks, with line numbers."""

    def __init__(self, lines: Iterator[str]) -> None:
        self._lines = lines
        self.total = 0
        self.done = 0

    def __iter__(self) -> Iterator[tuple[Table, list[tuple[int, ArchiveRow]]]]:
        numbered = enumerate(self._lines, start=1)
        expected = _header(next(numbered, (1, "")))
        self.total = sum(expected.values())
        seen = dict.fromkeys(expected, 0)
        position, table = 0, TABLES[0]
        batch: list[tuple[int, ArchiveRow]] = []
        number = 1
        for number, text in numbered:
            if not text.strip():
                continue
            current, row = _parse(number, text)
            index = TABLES.index(current)
            if index < position:
                raise InvalidInput(
                    f"line {number}",
                    f"{current.name} rows after {TABLES[position].name} rows; an export lists "
                    "tables in a fixed order",
                )
            if batch and (current is not table or len(batch) >= CHUNK):
                self.done += len(batch)
                yield table, batch
                batch = []
            position, table = index, current
            seen[current.name] += 1
            batch.append((number, row))
        if batch:
            self.done += len(batch)
            yield table, batch
        _check_counts(number, expected, seen)


def _header(first: tuple[int, str]) -> dict[str, int]:
    """Check line 1; return the row counts it announces."""
    try:
        header = json.loads(first[1])
    except json.JSONDecodeError:
        header = None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise InvalidInput("line 1", "not a memlane export (no memlane-export header)")
    version = header.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise InvalidInput("line 1", f"bad format version {version!r}")
    if version > VERSION:
        raise InvalidInput(
            "line 1",
            f"format version {version} is newer than this memlane reads ({VERSION}); "
            "upgrade memlane",
        )
    schema = header.get("schema")
    if not isinstance(schema, dict):
        raise InvalidInput("line 1", "the header has no schema")
    for name, columns in schema.items():
        table = BY_NAME.get(name)
        if table is None:
            raise InvalidInput("line 1", f"unknown table {name!r}")
        if columns != list(table.names):
            raise InvalidInput("line 1", f"table {name} has columns this memlane does not know")
    rows = header.get("rows")
    if not isinstance(rows, dict) or set(rows) != set(BY_NAME):
        raise InvalidInput("line 1", "the header does not count the rows of every table")
    if not all(type(count) is int and count >= 0 for count in rows.values()):
        raise InvalidInput("line 1", "row counts must be integers")
    return {name: int(count) for name, count in rows.items()}


def _check_counts(last: int, expected: Mapping[str, int], seen: Mapping[str, int]) -> None:
    short = [
        f"{seen[name]} of {count} {name}" for name, count in expected.items() if seen[name] != count
    ]
    if short:
        raise InvalidInput(
            f"line {last}",
            f"the export ends early or does not match its header ({', '.join(short)} rows); "
            "was it cut off? Rows loaded so far stay; import the complete file to finish",
        )


def _parse(number: int, text: str) -> tuple[Table, ArchiveRow]:
    """One row line, checked against the table's columns and types."""
    where = f"line {number}"
    try:
        record = json.loads(text)
    except json.JSONDecodeError as error:
        raise InvalidInput(where, f"not valid JSON ({error.msg})") from error
    if not isinstance(record, dict) or set(record) != {"table", "row"}:
        raise InvalidInput(where, 'expected {"table": ..., "row": {...}}')
    table = BY_NAME.get(record["table"]) if isinstance(record["table"], str) else None
    if table is None:
        raise InvalidInput(where, f"unknown table {record['table']!r}")
    row = record["row"]
    if not isinstance(row, dict):
        raise InvalidInput(where, "row must be an object")
    unknown = sorted(set(row) - set(table.names))
    if unknown:
        raise InvalidInput(where, f"unknown column {table.name}.{unknown[0]}")
    return table, {column.name: _value(where, table, column, row) for column in table.columns}


def _value(where: str, table: Table, column: Column, row: Mapping[str, Any]) -> ArchiveValue:
    name = f"{table.name}.{column.name}"
    if column.name not in row:
        raise InvalidInput(where, f"missing column {name}")
    value = row[column.name]
    if value is None:
        if column.nullable:
            return None
        raise InvalidInput(where, f"{name} may not be null")
    if column.kind == "int":
        if type(value) is not int or not _INT_RANGE[0] <= value < _INT_RANGE[1]:
            raise InvalidInput(where, f"{name} must be a 64-bit integer, got {value!r}")
        return value
    if column.kind == "float":
        if type(value) not in (int, float) or not math.isfinite(value):
            raise InvalidInput(where, f"{name} must be a number, got {value!r}")
        return float(value)
    if not isinstance(value, str):
        raise InvalidInput(where, f"{name} must be a string, got {value!r}")
    if column.kind == "bytes":
        return _vector(where, name, value)
    if column.choices and value not in column.choices:
        raise InvalidInput(where, f"{name} must be one of {', '.join(column.choices)}")
    return value


def _vector(where: str, name: str, text: str) -> bytes:
    try:
        blob = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError) as error:
        raise InvalidInput(where, f"{name} is not base64") from error
    if not blob or len(blob) % 4:
        raise InvalidInput(where, f"{name} is not a float32 vector ({len(blob)} bytes)")
    reason = unstorable(as_vector(blob))
    if reason is not None:
        raise InvalidInput(where, f"{name} holds {reason}")
    return blob
