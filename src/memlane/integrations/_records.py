"""Records: the JSON documents an adapter keeps in the exact lane, one attribute each.

An adapter's document (a LangGraph item, an Agents SDK conversation item) is a one-valued
fact of the subject it is about. Writing a document again is a new version; removing it
retracts the fact. So every change is bi-temporal (an as-of read is a ``known_at`` read of
the fact) and ``Memory.forget(subject)`` and ``purge`` reach the documents like any fact.

The attribute is ``"<kind>:<name>"`` (``name`` is the adapter's JSON address of the
document), or ``"<kind>:#<sha256 of name>"`` when that would be too long or hold control
characters; the payload always carries the document's full address, so a scan never has to
parse attribute names back.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from memlane.facts.lane import MAX_NAME_LENGTH
from memlane.facts.model import Fact
from memlane.timeutil import TimeInput, checked_now

if TYPE_CHECKING:
    from memlane.memory import Memory


def address(*parts: object) -> str:
    """A stable, readable name for a document: the JSON array of its parts.

    >>> address("users", "u-1", "prefs")
    '["users","u-1","prefs"]'
    """
    return json.dumps(list(parts), ensure_ascii=False, separators=(",", ":"))


class Records:
    """One adapter's documents in a memory's exact lane (see the module docstring).

    Args:
        memory: the memory whose exact lane holds the documents.
        kind: the attribute prefix naming the adapter, e.g. ``"langgraph"``.
    """

    def __init__(self, memory: Memory, kind: str) -> None:
        self.memory = memory
        self.kind = kind
        self._prefix = f"{kind}:"

    def attribute(self, name: str) -> str:
        """The exact-lane attribute that holds document ``name``."""
        candidate = self._prefix + name
        if len(candidate) <= MAX_NAME_LENGTH and not any(
            ord(ch) < 32 or ord(ch) == 127 for ch in candidate
        ):
            return candidate
        return f"{self._prefix}#{hashlib.sha256(name.encode('utf-8')).hexdigest()}"

    def now(self) -> datetime:
        """The memory's current instant (UTC)."""
        return checked_now(self.memory.clock)

    def write(
        self,
        subject: str,
        name: str,
        payload: Mapping[str, Any],
        *,
        valid_to: datetime | None = None,
    ) -> Fact:
        """Make ``payload`` the document's value from now on (until ``valid_to``, if given).

        Raises:
            InvalidInput: a bad subject, or a payload that is not JSON.
        """
        return self.memory.facts.set(
            subject, self.attribute(name), dict(payload), valid_to=valid_to, source=self.kind
        )

    def remove(self, subject: str, name: str) -> bool:
        """Retract the document from now on; ``False`` if it did not exist."""
        return bool(self.memory.facts.retract(subject, self.attribute(name)))

    def read(self, subject: str, name: str, *, known_at: TimeInput | None = None) -> Fact | None:
        """The document's current version, or the one the memory held at ``known_at``."""
        return self.memory.facts.get(
            subject, self.attribute(name), valid_at=known_at, known_at=known_at
        )

    def scan(self, subject: str) -> list[Fact]:
        """Every current document of this kind that ``subject`` holds, by attribute."""
        found = self.memory.facts.profile(subject)
        return [
            fact
            for attribute, fact in sorted(found.items())
            if attribute.startswith(self._prefix) and isinstance(fact, Fact)
        ]

    def scan_many(self, subjects: Sequence[str]) -> list[Fact]:
        """:meth:`scan` over several subjects, in the order given."""
        return [fact for subject in subjects for fact in self.scan(subject)]
