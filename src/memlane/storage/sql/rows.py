"""Rows to model objects and back, for the SQL stores (both databases share column names).

Pure functions, so SQLite and PostgreSQL write identical texts (``memlane export`` moves them
unchanged) and rewrite them identically when ``forget`` scrubs a value.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Any, cast

from memlane.access import ApiKey, Role
from memlane.facts.model import AttributeDef, Fact
from memlane.facts.normalize import canonical_json
from memlane.facts.temporal import FOREVER, Insert, Payload, Span
from memlane.summaries.model import SECTIONS, Note, Summary, SummaryContent
from memlane.timeutil import EPOCH, from_micros, to_micros
from memlane.window.model import Turn
from memlane.workflows.model import Action, Trajectory, Workflow

FACT_COLUMNS = (
    "id, subject, attribute, value, valid_from, valid_to, tx_from, tx_to, "
    "source, reason, confidence, provenance, deleted_at"
)
"""The columns :func:`fact` reads, in order."""

SUMMARY_COLUMNS = (
    "id, subject, session_id, version, content, period_from, period_to, tx_from, provenance, "
    "deleted_at, line_facts"
)
"""The columns :func:`summary` reads, in order."""

NOTE_COLUMNS = "id, subject, text, said_at, tx_from, session_id, source, provenance, deleted_at"
"""The columns :func:`note` reads, in order."""

SPAN_COLUMN_NAMES = (
    *("id", "value_key", "valid_from", "valid_to", "value", "source", "reason", "confidence"),
    *("provenance", "tx_from", "stated_tx"),
)
"""The columns :func:`span` reads, in order (a ``stated_tx`` of ``NULL`` is ``tx_from``)."""
SPAN_COLUMNS = ", ".join(SPAN_COLUMN_NAMES)
"""The columns :func:`span` reads, as a select list."""

TURN_COLUMNS = "id, session_id, subject, role, content, said_at, speaker"
"""The columns :func:`turn` reads, in order."""


def definition(row: Sequence[Any]) -> AttributeDef:
    """``name, cardinality, identifier, normalizer`` as a definition."""
    return AttributeDef(name=row[0], cardinality=row[1], identifier=bool(row[2]), normalizer=row[3])


def provenance(text: str) -> tuple[str, ...]:
    """A stored JSON list of provenance ids."""
    return () if text == "[]" else tuple(json.loads(text))


def fact(row: Sequence[Any]) -> Fact:
    """A row of :data:`FACT_COLUMNS` as a fact version."""
    valid_to, tx_to, deleted_at = row[5], row[7], row[12]
    return Fact(
        id=row[0],
        subject=row[1],
        attribute=row[2],
        value=json.loads(row[3]),
        valid_from=from_micros(row[4]),
        valid_to=None if valid_to == FOREVER else from_micros(valid_to),
        tx_from=from_micros(row[6]),
        tx_to=None if tx_to is None else from_micros(tx_to),
        source=row[8],
        reason=row[9],
        confidence=float(row[10]),
        provenance=provenance(row[11]),
        deleted_at=None if deleted_at is None else from_micros(deleted_at),
    )


def span(row: Sequence[Any]) -> Span:
    """A row of :data:`SPAN_COLUMNS` as a believed span, for write planning."""
    stated = row[9] if row[10] is None else row[10]
    payload = Payload(json.loads(row[4]), row[5], row[6], row[7], provenance(row[8]), stated)
    return Span(row[0], row[1], row[2], row[3], payload, row[9])


class Instants(dict[int, datetime]):
    """:func:`~memlane.timeutil.from_micros`, remembered: the instants of a batch repeat."""

    def __missing__(self, micros: int) -> datetime:
        self[micros] = found = from_micros(micros)
        return found


class Ticks:
    """:func:`~memlane.timeutil.from_micros` of instants that mostly follow one another.

    A batch's versions carry consecutive transaction times: each instant is the one before
    plus the microseconds between them, which is exact and costs a fraction of building
    it from the epoch; an earlier instant is built from the epoch.

    >>> tick = Ticks()
    >>> [tick(m) for m in (10**15, 10**15 + 1, 10**15 + 1, 10**15 + 7, 5)] == [
    ...     from_micros(m) for m in (10**15, 10**15 + 1, 10**15 + 1, 10**15 + 7, 5)]
    True
    """

    __slots__ = ("instant", "micros")

    def __init__(self) -> None:
        self.micros = -1
        self.instant = EPOCH

    def __call__(self, micros: int) -> datetime:
        """The instant ``micros`` microseconds after the epoch."""
        last = self.micros
        if micros != last:
            if micros == last + 1:
                self.instant += _MICROSECOND
            elif micros > last >= 0:
                self.instant += timedelta(microseconds=micros - last)
            else:
                self.instant = from_micros(micros)
            self.micros = micros
        return self.instant


_MICROSECOND = timedelta(microseconds=1)


def inserted(
    fact_id: int,
    subject: str,
    attribute: str,
    item: Insert,
    tx: int,
    instants: Instants | None = None,
) -> Fact:
    """The version a backend just inserted for ``item`` at ``tx``, as a fact."""
    payload = item.payload
    instant = from_micros if instants is None else instants.__getitem__
    return Fact(
        id=fact_id,
        subject=subject,
        attribute=attribute,
        value=payload.value,
        valid_from=instant(item.start),
        valid_to=None if item.end == FOREVER else instant(item.end),
        tx_from=from_micros(tx),
        tx_to=None,
        source=payload.source,
        reason=payload.reason,
        confidence=payload.confidence,
        provenance=payload.provenance,
    )


def turn(row: Sequence[Any]) -> Turn:
    """A row of :data:`TURN_COLUMNS` as a turn."""
    return Turn(row[0], row[1], row[2], row[3], row[4], from_micros(row[5]), row[6])


def turn_values(tenant: str, kept: Turn) -> tuple[Any, ...]:
    """``id, tenant, subject, session_id, role, speaker, content, said_at`` of a turn to keep."""
    return (
        kept.id,
        tenant,
        kept.subject,
        kept.session_id,
        kept.role,
        kept.speaker,
        kept.content,
        to_micros(kept.at),
    )


def summary(row: Sequence[Any]) -> Summary:
    """A row of :data:`SUMMARY_COLUMNS` as a summary version."""
    sections = json.loads(row[4])
    return Summary(
        id=row[0],
        subject=row[1],
        session_id=row[2] or None,
        version=row[3],
        content=SummaryContent(**{name: tuple(sections.get(name, ())) for name in SECTIONS}),
        period_from=from_micros(row[5]),
        period_to=from_micros(row[6]),
        tx_from=from_micros(row[7]),
        provenance=tuple(json.loads(row[8])),
        deleted_at=None if row[9] is None else from_micros(row[9]),
        line_facts=row[10],
    )


def note(row: Sequence[Any]) -> Note:
    """A row of :data:`NOTE_COLUMNS` as a note."""
    return Note(
        id=row[0],
        subject=row[1],
        text=row[2],
        at=from_micros(row[3]),
        tx_from=from_micros(row[4]),
        session_id=row[5],
        source=row[6],
        provenance=tuple(json.loads(row[7])),
        deleted_at=None if row[8] is None else from_micros(row[8]),
    )


# -- API keys ----------------------------------------------------------------------------

KEY_COLUMNS = "id, tenant, role, secret_hash, created_at, revoked_at, label"
"""The ``api_keys`` columns, in the order :func:`key_row` writes and :func:`key` reads."""


def key_row(key: ApiKey) -> tuple[Any, ...]:
    """The values of :data:`KEY_COLUMNS` for a key."""
    return (
        key.id,
        key.tenant,
        key.role,
        key.secret_hash,
        to_micros(key.created_at),
        None if key.revoked_at is None else to_micros(key.revoked_at),
        key.label,
    )


def key(row: Sequence[Any]) -> ApiKey:
    """A key from a row of :data:`KEY_COLUMNS`."""
    key_id, tenant, role, secret_hash, created_at, revoked_at, label = row
    return ApiKey(
        id=key_id,
        tenant=tenant,
        role=cast(Role, role),
        secret_hash=secret_hash,
        created_at=from_micros(created_at),
        revoked_at=None if revoked_at is None else from_micros(revoked_at),
        label=label,
    )


# -- the workflow lane ---------------------------------------------------------------------

RUN_COLUMNS = "id, task, task_type, steps, success, reason, recorded_at"
"""The ``workflow_runs`` columns :func:`run` decodes, in order."""


def steps_json(steps: Sequence[Action]) -> str:
    """The ``steps`` column of a run."""
    return canonical_json([step.as_dict() for step in steps])


def body_json(workflow: Workflow) -> str:
    """The ``body`` column of a workflow revision."""
    return canonical_json(workflow.as_dict())


def workflow(body: str, tx_from: int) -> Workflow:
    """A workflow revision from its ``body`` and ``tx_from`` columns."""
    return Workflow.from_dict(json.loads(body), from_micros(tx_from))


def run(row: Sequence[Any]) -> Trajectory:
    """A recorded run from a row of :data:`RUN_COLUMNS`."""
    steps = tuple(
        Action(s["action"], s.get("args") or {}, s.get("note", "")) for s in json.loads(row[3])
    )
    return Trajectory(
        id=row[0],
        task=row[1],
        task_type=row[2],
        steps=steps,
        success=bool(row[4]),
        reason=row[5],
        recorded_at=from_micros(row[6]),
    )


def edit_json(text: str, edit: Callable[[str], str]) -> str:
    """Apply ``edit`` to every string inside a JSON text (keys stay); canonical JSON back."""
    return canonical_json(walk(json.loads(text), edit))


def walk(value: Any, edit: Callable[[str], str]) -> Any:
    """``value`` with ``edit`` applied to every string in it, however deeply nested."""
    if isinstance(value, str):
        return edit(value)
    if isinstance(value, list):
        return [walk(item, edit) for item in value]
    if isinstance(value, dict):
        return {key: walk(item, edit) for key, item in value.items()}
    return value
