"""Plain-text rendering for the CLI: tables that stay aligned with Chinese text, and times."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, time, tzinfo
from typing import Any

from memlane.facts.model import Fact
from memlane.tables import display_width as display_width  # re-exported for the CLI
from memlane.tables import pad as pad
from memlane.tables import table as table


def when(instant: datetime | None, zone: tzinfo, *, open_end: str = "∞") -> str:
    """A compact local time: the date alone at midnight, else minutes or finer."""
    if instant is None:
        return open_end
    local = instant.astimezone(zone)
    if local.time() == time(0):
        return local.date().isoformat()
    if local.second == 0 and local.microsecond == 0:
        return local.strftime("%Y-%m-%d %H:%M")
    return local.isoformat(sep=" ", timespec="microseconds").split("+")[0]


def value_text(value: Any) -> str:
    """A fact's value for people: strings bare, everything else as JSON."""
    if isinstance(value, str):
        return value
    import json

    return json.dumps(value, ensure_ascii=False)


def fact_table(facts: Sequence[Fact], zone: tzinfo, *, with_attribute: bool = False) -> str:
    """Versions as a table with both time axes, reason and source."""
    headers = ["attribute"] if with_attribute else []
    headers += ["value", "valid from", "valid to", "known from", "known to", "reason", "source"]
    rows = []
    for fact in facts:
        row = [fact.attribute] if with_attribute else []
        row += [
            value_text(fact.value),
            when(fact.valid_from, zone),
            when(fact.valid_to, zone),
            when(fact.tx_from, zone),
            when(fact.tx_to, zone, open_end="now" if fact.deleted_at is None else "deleted"),
            fact.reason or "",
            fact.source or "",
        ]
        rows.append(row)
    return table(headers, rows)
