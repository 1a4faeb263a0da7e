"""What the agent-level adapters (MCP tools, CLI commands) do the same way, written once.

Each function is a thin rule over the :class:`~memlane.Memory` facade that more than one
adapter needs, so the MCP server and the ``memlane`` command cannot drift apart:

* :func:`fact_values` reads one value or every value of an attribute, by its cardinality;
* :func:`attribute_hint` warns about an attribute never defined and never used before,
  naming the closest known one (a likely typo: ``locaton`` for ``location``);
* :func:`require_subject` refuses a subject the tenant holds nothing about, as the HTTP
  API answers 404, so ``forget NOBODY`` logs no deletion.

Example:
    >>> import memlane
    >>> with memlane.Memory(":memory:") as mem:
    ...     _ = mem.facts.set("U-1", "location", "Oslo")
    ...     attribute_hint(mem, "locaton", "U-1")
    "attribute 'locaton' was never defined or used; did you mean 'location'?"
"""

from __future__ import annotations

import difflib

from memlane.errors import InvalidInput
from memlane.facts.model import Fact
from memlane.memory import Memory
from memlane.timeutil import TimeInput

HINT_CUTOFF = 0.75
"""How alike two attribute names must be (difflib's ratio) for one to be suggested."""


def fact_values(
    memory: Memory,
    subject: str,
    attribute: str,
    valid_at: TimeInput | None = None,
    known_at: TimeInput | None = None,
) -> list[Fact]:
    """The value(s) of ``attribute`` at that point: all of them if it is many-valued."""
    facts = memory.facts
    if facts.definition(attribute).cardinality == "many":
        return facts.get_all(subject, attribute, valid_at, known_at)
    one = facts.get(subject, attribute, valid_at, known_at)
    return [] if one is None else [one]


def attribute_hint(memory: Memory, attribute: str, subject: str | None = None) -> str | None:
    """A warning if ``attribute`` is new to the tenant and close to a known attribute.

    Known attributes are those defined in the tenant, those memlane's extractor writes and
    those ``subject`` holds. A known attribute, one used before (by any subject) and a new
    one that resembles none of them get no warning.
    """
    facts = memory.facts
    defined = {definition.name for definition in facts.defined()}
    if attribute in defined:
        return None
    known = defined | {spec.name for spec in memory.extractor.attributes()}
    if subject is not None:
        known |= {fact.attribute for fact in facts.audit(subject)}
    if attribute in known:
        return None
    closest = difflib.get_close_matches(attribute, sorted(known), n=1, cutoff=HINT_CUTOFF)
    if not closest or facts.in_use(attribute):
        return None
    return f"attribute {attribute!r} was never defined or used; did you mean {closest[0]!r}?"


def subject_known(memory: Memory, subject: str) -> bool:
    """True if the tenant holds anything about ``subject`` in any lane (deleted data too)."""
    audit = memory.views.audit(subject)
    return bool(audit.facts or audit.summaries or audit.notes)


def require_subject(memory: Memory, subject: str) -> None:
    """Raise :class:`InvalidInput` unless the tenant holds something about ``subject``.

    Raises:
        InvalidInput: nothing is known about ``subject`` in this tenant.
    """
    if not subject_known(memory, subject):
        raise InvalidInput("subject", f"nothing is known about {subject!r} in this tenant")
