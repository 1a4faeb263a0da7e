"""The exact lane on a SQL database: executes the plans of :mod:`memlane.facts.temporal`."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from memlane.errors import StorageError
from memlane.facts.model import AttributeDef, Fact
from memlane.facts.normalize import canonical_json
from memlane.facts.temporal import FOREVER, Insert, Span
from memlane.storage.fact_stores import Applied, KeyWrite, NewVersion, Scope
from memlane.storage.sql import rows as decode
from memlane.storage.sql.dialect import Database, KeyRange, SQLStore, Statement

_COLUMNS = decode.FACT_COLUMNS
_DEFINITION = "SELECT name, cardinality, identifier, normalizer FROM attributes WHERE tenant = %s"
_BELIEVED = "tx_to IS NULL AND deleted_at IS NULL"
_KNOWN_AT = "tx_from <= %(known)s AND (tx_to IS NULL OR tx_to > %(known)s) AND deleted_at IS NULL"
_WRITE_VIEW = (  # a definition (or NULLs) on every row, then one believed version's columns
    "SELECT d.cardinality, d.identifier, d.normalizer, "
    f"{', '.join('f.' + column for column in decode.SPAN_COLUMN_NAMES)} "
    "FROM (SELECT 1 AS one) AS k "
    "LEFT JOIN attributes AS d ON d.tenant = %(tenant)s AND d.name = %(attribute)s "
    "LEFT JOIN facts AS f ON f.tenant = %(tenant)s AND f.subject = %(subject)s "
    "AND f.attribute = %(attribute)s AND f.tx_to IS NULL AND f.deleted_at IS NULL "
    "AND f.valid_from <= %(high)s AND f.valid_to >= %(low)s"
)
_VIEW_ARGUMENTS = "%(tenant)s, %(subject)s, %(attribute)s, %(high)s, %(low)s"
"""The arguments of a dialect's ``write_view_function``: the parameters of the query."""
_APPLY_ARGUMENTS = (
    "%s, %s, %s, %s, %s::bigint[], %s::text[], %s::text[], %s::bigint[], %s::bigint[], "
    "%s::text[], %s::text[], %s::float8[], %s::text[], %s::bigint[]"
)
"""The ``apply_function``'s arguments: tenant, subject, attribute, tx, the superseded ids, then
the columns of :func:`_payload_columns` but ``tx_from``, each an array (``Dialect.array``)."""
_INSERTED = (  # and in this order the dialects' insert_versions take them, after id, tx_to
    "tenant, subject, attribute, value, value_key, valid_from, valid_to, tx_from, source, "
    "reason, confidence, provenance, stated_tx"
)


class SQLFactStore(SQLStore):
    """:class:`memlane.storage.base.FactStore` and its writer on one SQL database."""

    def __init__(self, database: Database) -> None:
        super().__init__(database)
        # Definitions read inside the current write transaction: nobody else can change
        # them while it holds the write lock. Keyed by the transaction they were read in.
        self._tx_definitions: dict[tuple[str, str], AttributeDef | None] = {}
        self._definitions_of = -1

    # -- attribute definitions ----------------------------------------------------------

    def attribute(self, tenant: str, name: str) -> AttributeDef | None:
        """A tenant's definition of ``name``, or ``None``."""
        cache = self._definitions() if self.db.in_transaction else None
        if cache is not None and (tenant, name) in cache:
            return cache[tenant, name]
        row = self.db.fetchone(f"{_DEFINITION} AND name = %s", (tenant, name))
        definition = decode.definition(row) if row else None
        if cache is not None:
            cache[tenant, name] = definition
        return definition

    def attributes(self, tenant: str) -> list[AttributeDef]:
        """Every definition of a tenant."""
        order = self.dialect.bytewise("name")
        rows = self.db.fetchall(f"{_DEFINITION} ORDER BY {order}", (tenant,))
        return [decode.definition(row) for row in rows]

    def put_attribute(self, tenant: str, definition: AttributeDef, now: int) -> None:
        """Store a definition, replacing an earlier one."""
        self.db.wrote()
        self._definitions()[tenant, definition.name] = definition
        self.db.execute(
            "INSERT INTO attributes (tenant, name, cardinality, identifier, normalizer, "
            "defined_at) VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (tenant, name) DO UPDATE "
            "SET cardinality = excluded.cardinality, identifier = excluded.identifier, "
            "normalizer = excluded.normalizer, defined_at = excluded.defined_at",
            (
                tenant,
                definition.name,
                definition.cardinality,
                int(definition.identifier),
                definition.normalizer,
                now,
            ),
        )

    def attribute_in_use(self, tenant: str, name: str) -> bool:
        """True if any version of ``name`` exists in the tenant."""
        sql = "SELECT 1 FROM facts WHERE tenant = %s AND attribute = %s LIMIT 1"
        return self.db.fetchone(sql, (tenant, name)) is not None

    def _definitions(self) -> dict[tuple[str, str], AttributeDef | None]:
        """The definitions cached in the current write transaction (emptied for a new one)."""
        if self._definitions_of != self.db.transactions:
            self._tx_definitions.clear()
            self._definitions_of = self.db.transactions
        return self._tx_definitions

    # -- writes -------------------------------------------------------------------------

    def believed_near(
        self, tenant: str, subject: str, attribute: str, key: str | None, start: int, end: int
    ) -> list[Span]:
        """Believed versions touching ``[start, end)``, of the value ``key`` if given."""
        sql = (
            f"SELECT {decode.SPAN_COLUMNS} FROM facts "
            "WHERE tenant = %s AND subject = %s AND attribute = %s "
            f"AND {_BELIEVED} AND valid_from <= %s AND valid_to >= %s"
        )
        parameters: tuple[Any, ...] = (tenant, subject, attribute, end, start)
        if key is not None:
            sql += " AND value_key = %s"
            parameters += (key,)
        return [decode.span(row) for row in self.db.fetchall(sql, parameters)]

    @contextmanager
    def write_key(
        self,
        tenant: str,
        subject: str,
        attribute: str,
        *,
        now: int,
        start: int | None,
        end: int | None,
    ) -> Iterator[KeyWrite]:
        """A write transaction of one key, opened with its definition and believed versions.

        The definition and the believed versions are one query, sent with ``BEGIN``, the
        key's lock and the transaction time in one round trip on PostgreSQL (a ``set`` makes
        few, and each costs as much client and server CPU as the write's own work). The
        time is not known when the query is written, so a defaulted ``start`` reads from
        ``now`` (the time is at least that), and the versions ending before the time are
        dropped here: the same versions as reading from the time itself.
        """
        low, high = now if start is None else start, FOREVER if end is None else end
        function = self.dialect.write_view_function  # the same rows as the query
        sql = f"SELECT * FROM {function}({_VIEW_ARGUMENTS})" if function else _WRITE_VIEW
        arguments = {"tenant": tenant, "subject": subject, "attribute": attribute}
        view: Statement = (sql, arguments | {"high": high, "low": low})
        with self.db.write([(tenant, subject, attribute)], issue_at=now, opening=view) as rows:
            tx = self.next_tx(now)
            assert rows is not None  # an opening query always has its row
            first = rows[0]
            definition = None if first[0] is None else decode.definition((attribute, *first[:3]))
            self._definitions()[tenant, attribute] = definition
            believed = [decode.span(row[3:]) for row in rows if row[3] is not None]
            if start is None:
                believed = [span for span in believed if span.end >= tx]
            yield KeyWrite(self, tx, definition, believed)

    def apply(
        self,
        tenant: str,
        subject: str,
        attribute: str,
        supersede: Sequence[int],
        insert: Sequence[Insert],
        tx: int,
        *,
        last: bool = False,
    ) -> Applied:
        """Close ``supersede`` at ``tx``; insert ``insert``; return what changed.

        ``last``: nothing follows in the transaction, which may then commit with it.
        """
        self.db.wrote()
        if self.dialect.apply_function:  # one round trip: a server-side function
            arguments = [_payload_columns(item, tx) for item in insert]
            # It takes the columns but tx_from (one for all), as arrays.
            columns = list(zip(*(row[:4] + row[5:] for row in arguments), strict=True))
            array = self.dialect.array
            run = self.db.fetchall_last if last else self.db.fetchall
            rows = run(
                f"SELECT {_COLUMNS} FROM {self.dialect.apply_function}({_APPLY_ARGUMENTS})",
                (tenant, subject, attribute, tx, array(list(dict.fromkeys(supersede))),
                 *(array(column) for column in columns or [()] * 9)),
            )  # fmt: skip
            changed = [decode.fact(row) for row in rows]
            closed = [fact for fact in changed if fact.tx_to is not None]
            inserted = sorted((fact for fact in changed if fact.tx_to is None), key=lambda f: f.id)
            return Applied(sorted(closed, key=lambda fact: fact.id), inserted)
        superseded: list[Fact] = []
        if supersede:
            rows = self.db.fetchall(
                f"UPDATE facts SET tx_to = %s WHERE {self.dialect.any_of('id')} "
                f"AND tx_to IS NULL RETURNING {_COLUMNS}",
                (tx, self.dialect.ids(supersede)),
            )
            if len(rows) != len(set(supersede)):
                raise StorageError("a version to supersede was no longer believed")
            superseded = [decode.fact(row) for row in rows]
        inserted = [self._insert(tenant, subject, attribute, item, tx) for item in insert]
        return Applied(sorted(superseded, key=lambda fact: fact.id), inserted)

    def _insert(self, tenant: str, subject: str, attribute: str, item: Insert, tx: int) -> Fact:
        slot = self.dialect.fact_slot
        fact_id = self.db.insert(
            f"INSERT INTO facts ({_INSERTED}{', slot' if slot else ''}) VALUES (%s, %s, %s, "
            f"%s, %s, %s, %s, %s, %s, %s, %s, %s, %s{', ' + slot if slot else ''})",
            (
                tenant,
                subject,
                attribute,
                *_payload_columns(item, tx),
                *((item.key, tenant, attribute) if slot else ()),
            ),
        )
        return decode.inserted(fact_id, subject, attribute, item, tx)

    # -- bulk writes --------------------------------------------------------------------

    def believed_of(
        self, tenant: str, ranges: Sequence[KeyRange]
    ) -> dict[tuple[str, str], list[Span]]:
        """Believed versions of several keys, each touching its ``[lo, hi]``: one query."""
        found: dict[tuple[str, str], list[Span]] = {}
        if not ranges:
            return found
        source, parameters = self.dialect.key_ranges(ranges)
        rows = self.db.fetchall(
            # CROSS JOIN: the keys drive (SQLite keeps that order), each an index seek.
            f"SELECT k.subject, k.attribute, {decode.SPAN_COLUMNS} FROM {source} "
            "CROSS JOIN facts WHERE facts.tenant = %s AND facts.subject = k.subject "
            f"AND facts.attribute = k.attribute AND {_BELIEVED} "
            "AND facts.valid_from <= k.hi AND facts.valid_to >= k.lo",
            (*parameters, tenant),
        )
        for row in rows:
            found.setdefault((row[0], row[1]), []).append(decode.span(row[2:]))
        return found

    def write_versions(
        self,
        tenant: str,
        closes: Sequence[tuple[int, int]],
        versions: Sequence[NewVersion],
        *,
        returning: bool = True,
    ) -> list[Fact]:
        """Close each stored ``(id, tx)``, then insert ``versions``: one statement each.

        Without ``returning`` the inserted facts are neither built nor returned, and the
        database numbers the rows itself (no statement to reserve their ids first).
        """
        self.db.wrote()
        if closes and self.dialect.close_versions(closes) != len(closes):
            raise StorageError("a version to supersede was no longer believed")
        if not returning:
            self.dialect.insert_versions(
                tenant,
                [
                    (None, v.tx_to, tenant, v.subject, v.attribute, v.text, v.key, v.start,
                     v.end, v.tx, v.source, v.reason, v.confidence,
                     canonical_json(list(v.provenance)) if v.provenance else "[]", v.stated)
                    for v in versions
                ],
            )  # fmt: skip
            return []
        ids = self.dialect.new_ids("facts", len(versions))
        instant = decode.Instants().__getitem__  # a batch's versions share most instants
        tx_instant = decode.Ticks()  # and their transaction times are consecutive
        rows: list[tuple[Any, ...]] = []
        facts: list[Fact] = []
        for fact_id, v in zip(ids, versions, strict=True):
            provenance = canonical_json(list(v.provenance)) if v.provenance else "[]"
            rows.append(
                (fact_id, v.tx_to, tenant, v.subject, v.attribute, v.text, v.key, v.start,
                 v.end, v.tx, v.source, v.reason, v.confidence, provenance, v.stated)
            )  # fmt: skip
            facts.append(
                Fact(fact_id, v.subject, v.attribute, v.value, instant(v.start),
                     None if v.end == FOREVER else instant(v.end), tx_instant(v.tx), None,
                     v.source, v.reason, v.confidence, v.provenance)
            )  # fmt: skip
        self.dialect.insert_versions(tenant, rows)
        return facts

    # -- reads --------------------------------------------------------------------------

    def fact(self, tenant: str, fact_id: int) -> Fact | None:
        """One version by id, or ``None``."""
        row = self.db.fetchone(
            f"SELECT {_COLUMNS} FROM facts WHERE tenant = %s AND id = %s", (tenant, fact_id)
        )
        return decode.fact(row) if row else None

    def valid_at(
        self, tenant: str, subject: str, attribute: str, scope: Scope, limit: int | None
    ) -> list[Fact]:
        """Versions of one key valid at ``scope.valid_at``, latest start first."""
        parameters = {
            "tenant": tenant,
            "subject": subject,
            "attribute": attribute,
            "valid": scope.valid_at,
            "known": scope.known_at,
        }
        condition = self._condition(scope.known_at)
        sql = (
            f"SELECT {_COLUMNS} FROM facts WHERE tenant = %(tenant)s AND subject = %(subject)s "
            f"AND attribute = %(attribute)s AND {condition} AND valid_to > %(valid)s "
        )
        if limit == 1 and scope.known_at is None:
            # Believed versions of a one-valued attribute never overlap, so the first to end
            # after the instant is the only candidate: one seek of facts_believed, no scan.
            rows = self.db.fetchall(sql + "ORDER BY valid_to LIMIT 1", parameters)
            return [decode.fact(row) for row in rows if row[4] <= scope.valid_at]
        sql += "AND valid_from <= %(valid)s "
        sql += f"ORDER BY valid_from DESC, {self.dialect.bytewise('value_key')}"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        return [decode.fact(row) for row in self.db.fetchall(sql, parameters)]

    def timeline(
        self, tenant: str, subject: str, attribute: str, known_at: int | None
    ) -> list[Fact]:
        """Every version of one key believed at ``known_at``, by valid time."""
        condition = self._condition(known_at)
        rows = self.db.fetchall(
            f"SELECT {_COLUMNS} FROM facts WHERE tenant = %(tenant)s AND subject = %(subject)s "
            f"AND attribute = %(attribute)s AND {condition} "
            f"ORDER BY valid_from, {self.dialect.bytewise('value_key')}, id",
            {"tenant": tenant, "subject": subject, "attribute": attribute, "known": known_at},
        )
        return [decode.fact(row) for row in rows]

    def versions(self, tenant: str, subject: str, attribute: str | None) -> list[Fact]:
        """Every version ever stored, by transaction time."""
        sql = f"SELECT {_COLUMNS} FROM facts WHERE tenant = %s AND subject = %s"
        parameters: tuple[str, ...] = (tenant, subject)
        if attribute is not None:
            sql += " AND attribute = %s"
            parameters += (attribute,)
        rows = self.db.fetchall(sql + " ORDER BY tx_from, id", parameters)
        return [decode.fact(row) for row in rows]

    def subjects_with(
        self, tenant: str, attribute: str, keys: Sequence[str], scope: Scope
    ) -> list[str]:
        """Subjects whose ``attribute`` holds a value under one of ``keys``, each once, sorted."""
        condition = self._condition(scope.known_at)
        subject = self.dialect.bytewise("subject")
        named = {f"key{number}": key for number, key in enumerate(keys)}
        rows = self.db.fetchall(
            f"SELECT DISTINCT {subject} FROM facts {self.dialect.index_hint('facts_by_value')} "
            "WHERE tenant = %(tenant)s AND attribute = %(attribute)s "
            f"AND value_key IN ({', '.join(f'%({name})s' for name in named)}) "
            f"AND {condition} AND valid_from <= %(valid)s AND valid_to > %(valid)s "
            f"ORDER BY {subject}",
            {
                "tenant": tenant,
                "attribute": attribute,
                "valid": scope.valid_at,
                "known": scope.known_at,
                **named,
            },
        )
        return [row[0] for row in rows]

    def profile(self, tenant: str, subject: str, scope: Scope) -> list[Fact]:
        """Every version of a subject valid at ``scope.valid_at``."""
        condition = self._condition(scope.known_at)
        bytewise = self.dialect.bytewise
        rows = self.db.fetchall(
            f"SELECT {_COLUMNS} FROM facts WHERE tenant = %(tenant)s AND subject = %(subject)s "
            f"AND {condition} AND valid_from <= %(valid)s AND valid_to > %(valid)s "
            f"ORDER BY {bytewise('attribute')}, valid_from, {bytewise('value_key')}",
            {
                "tenant": tenant,
                "subject": subject,
                "valid": scope.valid_at,
                "known": scope.known_at,
            },
        )
        return [decode.fact(row) for row in rows]

    def _condition(self, known_at: int | None) -> str:
        """The versions a read sees; as of ``known_at``, once no write can still add to it."""
        if known_at is None:
            return _BELIEVED
        self.db.settle(known_at)
        return _KNOWN_AT

    def close(self) -> None:
        """Close the underlying database."""
        self.db.close()


def _payload_columns(item: Insert, tx: int) -> tuple[Any, ...]:
    """``value .. stated_tx`` of :data:`_INSERTED` for one new version written at ``tx``."""
    payload = item.payload
    return (
        canonical_json(payload.value),
        item.key,
        item.start,
        item.end,
        tx,
        payload.source,
        payload.reason,
        payload.confidence,
        canonical_json(list(payload.provenance)) if payload.provenance else "[]",
        payload.stated or tx,
    )
