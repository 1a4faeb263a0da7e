"""Evidence for adjudication: a subject's statements, found by what a judgement needs of them.

Judging a recalled statement asks of the subject's other statements only a few things: which
cite these turns, which claim this relation, which may re-fill this slot, which retract a
value, how many say this word. :class:`ListedEvidence` answers from statements in memory (the
running window's turns); notes answer from keys derived once, when each note is written
(:func:`note_keys`), and stored beside it (:class:`StoredEvidence`), so that a recall reads
the statements its candidates need, not everything the subject has said.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from heapq import merge
from typing import Any, Generic, Protocol, TypeVar

from memlane.lang.changes import takes_back
from memlane.lang.words import shares_term, term_keys, term_probe
from memlane.router.claims import Claim, claims
from memlane.router.slots import clauses, slot_keys, slot_opening, slot_probes
from memlane.summaries.linedata import (
    CITES,
    CLAIM,
    DIGITS,
    NOTE,
    PAIRS,
    RETRACTS,
    SLOT,
    TERM,
    WORD,
    LineData,
)
from memlane.summaries.model import Note
from memlane.summaries.sources import line_words
from memlane.summaries.text import is_question

SPECIFIC_SHARE = 0.05
MIN_SPECIFIC_COUNT = 3
"""A retracted value's word ties it to earlier statements only if at most this share (or
count) of the subject's statements say it: a value is specific, a common word is not."""

T = TypeVar("T")
_ORIGIN = re.compile(r"#\d+$|^note:\d+$")
_PROBE_KINDS = {"word": TERM, "pairs": PAIRS}


@dataclass(frozen=True)
class Statement:
    """Evidence: a note or user turn of a subject; its claims are read when first asked for."""

    subject: str
    text: str
    said: datetime
    learned: datetime
    turns: frozenset[str]
    ref: str
    note: Note | None = None

    @cached_property
    def claims(self) -> tuple[Claim, ...]:
        """What the statement asserts (see :func:`memlane.router.claims.claims`)."""
        return tuple(claims(self.text, self.subject))


def statement(
    subject: str,
    text: str,
    *,
    said: datetime,
    learned: datetime,
    turns: Iterable[str],
    ref: str,
    note: Note | None = None,
) -> Statement:
    """Build a :class:`Statement`."""
    return Statement(subject, text, said, learned, frozenset(turns), ref, note)


def origins(provenance: Iterable[str], note_id: int | None = None) -> frozenset[str]:
    """The turn ids and ``note:<id>`` references in a provenance, plus the note itself.

    Sources such as ``"remember"`` or ``"crm-import"`` are shared by unrelated statements,
    so they never tie two statements together.
    """
    found = {ref for ref in provenance if _ORIGIN.search(ref)}
    if note_id is not None:
        found.add(f"note:{note_id}")
    return frozenset(found)


def claim_key(key: tuple[str, str]) -> str:
    """A claim's ``(holder, relation)`` as one stored key."""
    return f"{key[0]}|{key[1]}"


def note_keys(subject: str, text: str, provenance: Sequence[str]) -> list[tuple[str, str]]:
    """What recall needs of a note, as ``(kind, key)`` pairs to store beside it.

    >>> sorted(k for k in note_keys("U-1", "U-1 moved to Lyon", ["s1#4"]) if k[0] in "cnpr")
    [('c', '|location'), ('n', ''), ('p', 's1#4')]
    """
    keys = [(NOTE, "")]
    keys += [(WORD, word) for word in sorted(line_words(text))]
    keys += [(CLAIM, claim_key(found.key)) for found in claims(text, subject)]
    if not is_question(text):
        keys += [(SLOT, key) for clause in clauses(text, subject) for key in slot_keys(clause)]
    if takes_back(text):
        keys.append((RETRACTS, ""))
    keys += [(CITES, ref) for ref in sorted(origins(provenance))]
    words, digits, pairs = term_keys(text)
    keys += [(TERM, word) for word in sorted(words)] + [(PAIRS, pair) for pair in sorted(pairs)]
    if digits:
        keys.append((DIGITS, digits))
    return keys


def said_when(said: Statement) -> tuple[datetime, datetime]:
    """When a statement was said, then stored: the later one is the newer knowledge."""
    return said.said, said.learned


class Evidence(Protocol):
    """A subject's statements, as adjudication asks for them.

    The iterators give the latest statement first (equal times: in the order said), so that
    a judgement looking for the newest statement that supersedes another stops early.
    """

    def citing(self, turns: frozenset[str]) -> list[Statement]:
        """The statements that came from one of ``turns``, in the order said."""
        ...

    def claiming(self, key: tuple[str, str]) -> Iterator[Statement]:
        """The statements with a claim on ``(holder, relation)``."""
        ...

    def restating(self, clause: str) -> Iterator[tuple[Statement, str]]:
        """Clauses of statements (not questions) that may re-fill a slot of ``clause``.

        At least every clause :func:`memlane.router.slots.restates` would pair with it.
        """
        ...

    def retracting(self) -> Iterator[Statement]:
        """The statements that retract a value or switch an arrangement."""
        ...

    def specific(self, term: str) -> bool:
        """Whether few enough statements share ``term`` for it to name a value."""
        ...


def specific_limit(size: int) -> float:
    """How many of ``size`` statements may share a term that still names a value."""
    return max(MIN_SPECIFIC_COUNT, SPECIFIC_SHARE * size)


def _latest_first(statements: Iterable[Statement]) -> list[Statement]:
    return sorted(statements, key=said_when, reverse=True)  # stable: ties stay as said


class ListedEvidence:
    """:class:`Evidence` from a list of statements held in memory.

    Args:
        statements: the subject's statements, in the order said.
        size: how many statements the subject has in all, when these are only some of them
            (the window beside stored notes); by default these.
        sharing: how many other statements share a term (stored notes), added to the count.
    """

    def __init__(
        self,
        statements: Sequence[Statement],
        size: Callable[[], int] | None = None,
        sharing: Callable[[str], int] | None = None,
    ) -> None:
        self.statements = statements
        self._size = size
        self._sharing = sharing
        self._specific: dict[str, bool] = {}

    @cached_property
    def _count(self) -> int:
        """How many statements the subject has in all."""
        return self._size() if self._size else len(self.statements)

    @cached_property
    def _by_opening(self) -> dict[str, list[tuple[Statement, str]]]:
        found: dict[str, list[tuple[Statement, str]]] = {}
        for said in _latest_first(self.statements):
            if not is_question(said.text):
                for clause in clauses(said.text, said.subject):
                    found.setdefault(slot_opening(clause), []).append((said, clause))
        return found

    def citing(self, turns: frozenset[str]) -> list[Statement]:
        """The statements that came from one of ``turns``."""
        return [said for said in self.statements if said.turns & turns]

    def claiming(self, key: tuple[str, str]) -> Iterator[Statement]:
        """The statements with a claim on ``key``."""
        found = (said for said in self.statements if any(c.key == key for c in said.claims))
        return iter(_latest_first(found))

    def restating(self, clause: str) -> Iterator[tuple[Statement, str]]:
        """Clauses that open as ``clause`` does (only those can share a slot with it)."""
        return iter(self._by_opening.get(slot_opening(clause), []))

    def retracting(self) -> Iterator[Statement]:
        """The statements that retract a value."""
        return iter(_latest_first(said for said in self.statements if takes_back(said.text)))

    def specific(self, term: str) -> bool:
        """Whether at most :func:`specific_limit` of the statements share ``term``."""
        if term not in self._specific:
            count = sum(shares_term(frozenset((term,)), said.text) for said in self.statements)
            count += self._sharing(term) if self._sharing else 0
            self._specific[term] = count <= specific_limit(self._count)
        return self._specific[term]


class _Replay(Generic[T]):
    """An iterator's items, read once, that any number of readers iterate from the start."""

    def __init__(self, source: Iterator[T]) -> None:
        self._source = source
        self._seen: list[T] = []

    def __iter__(self) -> Iterator[T]:
        yield from self._seen
        index = len(self._seen)
        while True:
            while index < len(self._seen):  # read meanwhile by another reader
                yield self._seen[index]
                index += 1
            try:
                item = next(self._source)
            except StopIteration:
                return
            self._seen.append(item)
            index += 1
            yield item


def _said_first(pair: tuple[Statement, str]) -> tuple[datetime, datetime]:
    return said_when(pair[0])


@dataclass
class StoredEvidence:
    """:class:`Evidence` of a subject's stored notes (by their keys) and its window's turns.

    Args:
        data: the subject's stored note keys.
        as_statements: the notes visible at the read point, as statements (the others
            dropped), in the order given.
        visible: ``(said until, known at)`` in microseconds, for counts of notes.
        window: the subject's statements that are not stored notes (user turns of the window).
    """

    data: LineData
    as_statements: Callable[[Sequence[Note]], list[Statement]]
    visible: tuple[int | None, int | None]
    window: Sequence[Statement] = ()
    _listed: ListedEvidence = field(init=False)
    _said: dict[int, Statement | None] = field(init=False, default_factory=dict)
    _read: dict[tuple[str, ...], _Replay[Any]] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        self._listed = ListedEvidence(self.window, self._size, self._sharing)

    def citing(self, turns: frozenset[str]) -> list[Statement]:
        """The statements that came from one of ``turns`` (turn ids or ``note:<id>``)."""
        notes = {note.id: note for note in self.data.notes(CITES, sorted(turns))}
        named = [int(ref[5:]) for ref in turns if ref.startswith("note:") and ref[5:].isdigit()]
        notes.update(self.data.by_id(named))
        ordered = sorted(notes.values(), key=lambda note: (note.at, note.id))
        return self.as_statements(ordered) + self._listed.citing(turns)

    def claiming(self, key: tuple[str, str]) -> Iterator[Statement]:
        """The statements with a claim on ``key``."""
        return self._replay(("claim", *key), lambda: self._claiming(key))

    def restating(self, clause: str) -> Iterator[tuple[Statement, str]]:
        """Clauses of the statements filed under a probe of ``clause``, opening as it does."""
        probes = slot_probes(clause)
        return self._replay(
            ("slot", slot_opening(clause), *probes), lambda: self._restating(clause)
        )

    def retracting(self) -> Iterator[Statement]:
        """The statements that retract a value."""
        return self._replay(("retract",), self._retracting)

    def _claiming(self, key: tuple[str, str]) -> Iterator[Statement]:
        stored = (
            said
            for said in self._latest(CLAIM, [claim_key(key)])
            if any(c.key == key for c in said.claims)
        )
        return self._with_window(stored, self._listed.claiming(key), said_when)

    def _restating(self, clause: str) -> Iterator[tuple[Statement, str]]:
        opening = slot_opening(clause)
        stored = (
            (said, other)
            for said in self._latest(SLOT, slot_probes(clause))
            if not is_question(said.text)
            for other in clauses(said.text, said.subject)
            if slot_opening(other) == opening
        )
        return self._with_window(stored, self._listed.restating(clause), _said_first)

    def _retracting(self) -> Iterator[Statement]:
        stored = self._latest(RETRACTS, [""])
        return self._with_window(stored, self._listed.retracting(), said_when)

    def _with_window(
        self,
        stored: Iterator[T],
        window: Iterator[T],
        when: Callable[[T], tuple[datetime, datetime]],
    ) -> Iterator[T]:
        """Stored statements and the window's, merged latest first (stored first on ties)."""
        if not self.window:
            return stored
        return merge(stored, window, key=when, reverse=True)

    def _replay(self, name: tuple[str, ...], read: Callable[[], Iterator[Any]]) -> Iterator[Any]:
        """``read()``, read once per recall: later readers replay what earlier ones read."""
        if name not in self._read:
            self._read[name] = _Replay(read())
        return iter(self._read[name])

    def specific(self, term: str) -> bool:
        """Whether few enough of the subject's statements share ``term``."""
        return self._listed.specific(term)

    def _latest(self, kind: str, keys: Sequence[str]) -> Iterator[Statement]:
        for note in self.data.latest(kind, keys):
            if note.id not in self._said:
                found = self.as_statements([note])
                self._said[note.id] = found[0] if found else None
            said = self._said[note.id]
            if said is not None:
                yield said

    def _size(self) -> int:
        return self.data.count(NOTE, [""], self.visible) + len(self.window)

    def _sharing(self, term: str) -> int:
        how, keys = term_probe(term)
        if how == "digits":
            return self.data.containing(DIGITS, term, self.visible)
        return self.data.count(_PROBE_KINDS[how], keys, self.visible)
