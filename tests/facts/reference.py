"""A slow, obviously-correct, in-memory model of the exact lane, written from BITEMPORAL.md.

It shares no code with ``memlane.facts``: the model-based test drives both side by side and
asks them to agree. Everything is a list of versions scanned linearly. Instants are integer
microseconds; an open end (``valid_to`` or ``tx_to``) is ``None``.

The write rules, in the order BITEMPORAL.md "Writes" states them:

1. no-op if a believed version of the same value covers the whole interval;
2. every believed version of the group that overlaps the interval gets ``tx_to = tx``;
3. their parts outside the interval are inserted again (same payload, ``tx_from = tx``);
4. the new version is inserted (``set``/``add`` only);
5. believed versions of one value that touch (overlap or meet) are coalesced: repeatedly,
   until none touch. The coalesced version keeps the union of provenance and the newest
   reason (the reason stated by the most recent write that stated one).

The "group" is one ``(subject, attribute)`` for a one-valued attribute, and one normalized
value of it for a many-valued attribute (or all values, for ``retract`` without a value).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

Row = tuple[Any, ...]


def canonical(value: Any) -> str:
    """The JSON text two values are compared by (key order does not matter)."""
    return json.dumps(value, sort_keys=True)


PHONE_REGION = "CN"
"""The region the suites open their memories with, so every phone has one E.164 key."""


def phone_key(value: Any) -> str:
    """A phone number compares by its E.164 form; here every number is a Chinese mobile."""
    digits = "".join(ch for ch in str(value) if ch in "0123456789")
    if str(value).startswith("+"):
        return "+" + digits
    return "+86" + digits if len(digits) == 11 and digits.startswith("1") else digits


def email_key(value: Any) -> str:
    """An e-mail address compares trimmed and lower-cased."""
    return str(value).strip().lower()


@dataclass
class Attr:
    """How the model treats one attribute."""

    many: bool = False
    declared: bool = False
    normalize: Callable[[Any], str] | None = None  # identifiers only


@dataclass
class Version:
    """One stored version.

    ``asserted_at`` is the tx of the write whose value and source this version carries (kept
    by remainders and merges); ``reason_at`` the tx at which its reason was stated.
    """

    rid: int
    subject: str
    attribute: str
    value: Any
    key: str
    valid_from: int
    valid_to: int | None
    tx_from: int
    tx_to: int | None
    source: str | None
    reason: str | None
    asserted_at: int
    reason_at: int
    provenance: frozenset[str]

    def row(self) -> Row:
        """What must agree with the implementation (ids and ``reason_at`` are the model's)."""
        return (
            self.subject,
            self.attribute,
            canonical(self.value),
            self.valid_from,
            self.valid_to,
            self.tx_from,
            self.tx_to,
            self.source,
            self.reason,
            self.provenance,
        )

    def holds(self, instant: int) -> bool:
        """True if ``instant`` lies in ``[valid_from, valid_to)``."""
        return self.valid_from <= instant and (self.valid_to is None or instant < self.valid_to)

    def known(self, known_at: int | None) -> bool:
        """True if believed now (``None``) or at transaction time ``known_at``."""
        if known_at is None:
            return self.tx_to is None
        return self.tx_from <= known_at and (self.tx_to is None or known_at < self.tx_to)


def _lt(a: int | None, b: int | None) -> bool:
    """``a < b`` where ``None`` is +infinity."""
    if a is None:
        return False
    return b is None or a < b


def _le(a: int | None, b: int | None) -> bool:
    """``a <= b`` where ``None`` is +infinity."""
    return not _lt(b, a)


def _overlap(v: Version, start: int, end: int | None) -> bool:
    return _lt(v.valid_from, end) and _lt(start, v.valid_to)


def _touch(a: Version, b: Version) -> bool:
    return _le(a.valid_from, b.valid_to) and _le(b.valid_from, a.valid_to)


def _max_end(a: int | None, b: int | None) -> int | None:
    return None if a is None or b is None else max(a, b)


@dataclass
class Reference:
    """The model: every version ever stored, plus attribute definitions."""

    versions: list[Version] = field(default_factory=list)
    attrs: dict[str, Attr] = field(default_factory=dict)
    next_rid: int = 1

    # -- definitions and values ---------------------------------------------------------

    def define(self, name: str, *, many: bool, normalize: Callable[[Any], str] | None) -> None:
        """Declare an attribute (a normalizer makes it an identifier)."""
        self.attrs[name] = Attr(many=many, declared=True, normalize=normalize)

    def attr(self, name: str) -> Attr:
        """The attribute's behaviour; undeclared ones are one-valued plain attributes."""
        return self.attrs.get(name, Attr())

    def key(self, attribute: str, value: Any) -> tuple[str, Any]:
        """Comparison key and stored value (identifiers are stored as written)."""
        normalize = self.attr(attribute).normalize
        if normalize is None:
            return canonical(value), value
        return normalize(value), value

    def snapshot(self) -> Reference:
        """A deep copy, to restore after a rolled-back batch."""
        return copy.deepcopy(self)

    # -- writes -------------------------------------------------------------------------

    def covering(
        self, subject: str, attribute: str, value: Any, start: int, end: int | None
    ) -> Version | None:
        """The believed version of this value covering ``[start, end)``, if any (no-op rule)."""
        key, _ = self.key(attribute, value)
        for v in self._group(subject, attribute, key):
            if v.key == key and v.valid_from <= start and _le(end, v.valid_to):
                return v
        return None

    def overlapping(
        self, subject: str, attribute: str, start: int, end: int | None, value: Any = None
    ) -> list[Version]:
        """Believed versions a retract of ``[start, end)`` would end."""
        key = None if value is None else self.key(attribute, value)[0]
        return [v for v in self._group(subject, attribute, key) if _overlap(v, start, end)]

    def assert_value(
        self,
        subject: str,
        attribute: str,
        value: Any,
        start: int,
        end: int | None,
        tx: int,
        *,
        source: str | None = None,
        reason: str | None = None,
        provenance: frozenset[str] = frozenset(),
    ) -> tuple[Version, bool]:
        """``set``/``add``: return the version now saying so, and whether anything was written."""
        existing = self.covering(subject, attribute, value, start, end)
        if existing is not None:
            return existing, False
        key, stored = self.key(attribute, value)
        group_key = key if self.attr(attribute).many else None
        overlapped = self.overlapping(subject, attribute, start, end, value)
        created = self._supersede(subject, attribute, group_key, start, end, tx)
        new = self._insert(subject, attribute, stored, key, start, end, tx)
        new.source, new.reason, new.reason_at, new.provenance = source, reason, tx, provenance
        for old in overlapped:
            # An overlapped version of the same value is coalesced into the new one; its
            # parts outside the interval come back as remainders and are merged below.
            self._absorb(new, old)
        created.append(new)
        result = self._coalesce(subject, attribute, key, tx, created, new)
        return result, True

    def retract(
        self, subject: str, attribute: str, start: int, end: int | None, tx: int, value: Any = None
    ) -> list[Version]:
        """End what holds on ``[start, end)``; return the superseded versions."""
        key = None if value is None else self.key(attribute, value)[0]
        before = {v.rid for v in self.versions if v.tx_to is None}
        self._supersede(subject, attribute, key, start, end, tx)
        return [v for v in self.versions if v.rid in before and v.tx_to == tx]

    # -- reads --------------------------------------------------------------------------

    def believed(self, subject: str, attribute: str, known_at: int | None) -> list[Version]:
        """Versions of one ``(subject, attribute)`` believed at ``known_at`` (None: now)."""
        return [
            v
            for v in self.versions
            if v.subject == subject and v.attribute == attribute and v.known(known_at)
        ]

    def get_all(
        self, subject: str, attribute: str, valid_at: int, known_at: int | None
    ) -> list[Version]:
        """Versions holding at ``valid_at``, ordered by value then start."""
        found = [v for v in self.believed(subject, attribute, known_at) if v.holds(valid_at)]
        return sorted(found, key=lambda v: (canonical(v.value), v.valid_from))

    def get(
        self, subject: str, attribute: str, valid_at: int, known_at: int | None
    ) -> Version | None:
        """The single version holding at ``valid_at`` (one-valued attributes)."""
        found = self.get_all(subject, attribute, valid_at, known_at)
        assert len(found) <= 1, f"model broke invariant 1: {found}"
        return found[0] if found else None

    def history(self, subject: str, attribute: str, known_at: int | None) -> list[Version]:
        """The timeline believed at ``known_at``, by start (then value)."""
        found = self.believed(subject, attribute, known_at)
        return sorted(found, key=lambda v: (v.valid_from, v.key))

    def audit(self, subject: str, attribute: str | None = None) -> list[Version]:
        """Every version of a subject ever stored, by transaction time."""
        found = [
            v
            for v in self.versions
            if v.subject == subject and (attribute is None or v.attribute == attribute)
        ]
        return sorted(found, key=lambda v: (v.tx_from, v.rid))

    def lookup(self, attribute: str, value: Any, valid_at: int, known_at: int | None) -> list[str]:
        """Subjects whose attribute held exactly this normalized value; undeclared: none."""
        if not self.attr(attribute).declared:
            return []
        key, _ = self.key(attribute, value)
        return sorted(
            {
                v.subject
                for v in self.versions
                if v.attribute == attribute and v.key == key
                and v.known(known_at) and v.holds(valid_at)
            }
        )  # fmt: skip

    # -- internals ----------------------------------------------------------------------

    def _group(self, subject: str, attribute: str, key: str | None) -> list[Version]:
        return [
            v
            for v in self.believed(subject, attribute, None)
            if key is None or v.key == key
        ]  # fmt: skip

    def _insert(
        self,
        subject: str,
        attribute: str,
        value: Any,
        key: str,
        start: int,
        end: int | None,
        tx: int,
        like: Version | None = None,
    ) -> Version:
        version = Version(
            rid=self.next_rid,
            subject=subject,
            attribute=attribute,
            value=value,
            key=key,
            valid_from=start,
            valid_to=end,
            tx_from=tx,
            tx_to=None,
            source=None if like is None else like.source,
            reason=None if like is None else like.reason,
            asserted_at=tx if like is None else like.asserted_at,
            reason_at=tx if like is None else like.reason_at,
            provenance=frozenset() if like is None else like.provenance,
        )
        self.next_rid += 1
        self.versions.append(version)
        return version

    def _supersede(
        self, subject: str, attribute: str, key: str | None, start: int, end: int | None, tx: int
    ) -> list[Version]:
        """Steps 2 and 3: close the overlapped versions, re-insert their outside parts."""
        created: list[Version] = []
        for old in self._group(subject, attribute, key):
            if not _overlap(old, start, end):
                continue
            old.tx_to = tx
            if old.valid_from < start:
                created.append(
                    self._insert(subject, attribute, old.value, old.key,
                                 old.valid_from, start, tx, like=old)
                )  # fmt: skip
            if end is not None and _lt(end, old.valid_to):
                created.append(
                    self._insert(subject, attribute, old.value, old.key,
                                 end, old.valid_to, tx, like=old)
                )  # fmt: skip
        return created

    def _coalesce(
        self,
        subject: str,
        attribute: str,
        key: str,
        tx: int,
        created: list[Version],
        new: Version,
    ) -> Version:
        """Step 5: merge touching believed versions of one value; return what ``new`` became."""
        while True:
            same = [v for v in self._group(subject, attribute, key)]
            pair = next(
                ((a, b) for i, a in enumerate(same) for b in same[i + 1 :] if _touch(a, b)),
                None,
            )
            if pair is None:
                return new
            a, b = pair
            merged = self._merge(a, b, tx)
            for part in (a, b):
                if part in created:
                    # Inserted by this very write: it never becomes visible, so it vanishes.
                    self.versions.remove(part)
                    created.remove(part)
                else:
                    part.tx_to = tx
            created.append(merged)
            if new in (a, b):
                new = merged

    def _merge(self, a: Version, b: Version, tx: int) -> Version:
        # The asserted write's payload wins (value, source); provenance and reason merge.
        lead, other = (a, b) if a.asserted_at >= b.asserted_at else (b, a)
        merged = self._insert(
            a.subject, a.attribute, lead.value, a.key,
            min(a.valid_from, b.valid_from), _max_end(a.valid_to, b.valid_to), tx, like=lead,
        )  # fmt: skip
        self._absorb(merged, other)
        return merged

    @staticmethod
    def _absorb(target: Version, piece: Version) -> None:
        """Fold ``piece``'s provenance and, if stated more recently, its reason into ``target``."""
        target.provenance = target.provenance | piece.provenance
        if piece.reason is not None and (
            target.reason is None or piece.reason_at > target.reason_at
        ):
            target.reason, target.reason_at = piece.reason, piece.reason_at
