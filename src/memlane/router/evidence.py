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

from memlane.lang.changes import speaks_for_self, takes_back
from memlane.lang.words import shares_term, term_keys, term_probe
from memlane.pacing import pause
from memlane.router.claims import claims
from memlane.router.refilling import RECENT_FILINGS, RefillWalk, clause_digest
from memlane.router.slots import clauses, slot_keys, slot_opening
from memlane.router.statements import (
    Refills,
    Since,
    Statement,
    first_later,
    said_when,
    statement,
)
from memlane.summaries.key_kinds import (
    CITES,
    CLAIM,
    DIGITS,
    NOTE,
    OWN,
    PAIRS,
    RETRACTS,
    SLOT,
    TERM,
    WORD,
)
from memlane.summaries.linedata import LineData
from memlane.summaries.model import Note
from memlane.summaries.sources import line_words
from memlane.summaries.text import is_question

__all__ = [
    "RECENT_FILINGS",
    "Evidence",
    "ListedEvidence",
    "Refills",
    "Since",
    "Statement",
    "StoredEvidence",
    "clause_digest",
    "first_later",
    "note_keys",
    "origins",
    "said_when",
    "statement",
    "turns_of",
]

SPECIFIC_SHARE = 0.05
MIN_SPECIFIC_COUNT = 3
"""A retracted value's word ties it to earlier statements only if at most this share (or
count) of the subject's statements say it: a value is specific, a common word is not."""

Meaning = Callable[[int], Sequence[tuple[int, float]]]
"""``meaning(note_id)``: the subject's notes nearest in meaning to a note, as ``(note id,
cosine)``, nearest first; none when the embedder cannot tell (see
:meth:`memlane.summaries.lane.SummariesLane.near_in_meaning`)."""

T = TypeVar("T")
_ORIGIN = re.compile(r"#\d+$|^note:\d+$")
_PROBE_KINDS = {"word": TERM, "pairs": PAIRS}
_AtPoint = tuple[int, tuple[int | None, int | None]]
"""A note and a read point (``visible``): a statement kept per stamp (``StoredEvidence``)."""


NOTE_REF = "note:"
"""How a provenance names a note (``note:<id>``) rather than a turn."""


def origins(provenance: Iterable[str], note_id: int | None = None) -> frozenset[str]:
    """The turn ids and ``note:<id>`` references in a provenance, plus the note itself.

    Sources such as ``"remember"`` or ``"crm-import"`` are shared by unrelated statements,
    so they never tie two statements together.
    """
    found = {ref for ref in provenance if _ORIGIN.search(ref)}
    if note_id is not None:
        found.add(f"{NOTE_REF}{note_id}")
    return frozenset(found)


def turns_of(refs: Iterable[str]) -> set[str]:
    """The turn ids among ``refs``: its ``note:<id>`` references left out."""
    return {ref for ref in refs if not ref.startswith(NOTE_REF)}


def claim_key(key: tuple[str, str]) -> str:
    """A claim's ``(holder, relation)`` as one stored key."""
    return f"{key[0]}|{key[1]}"


def note_keys(subject: str, text: str, provenance: Sequence[str]) -> list[tuple[str, str]]:
    """What recall needs of a note, as ``(kind, key)`` pairs to store beside it.

    >>> sorted(k for k in note_keys("U-1", "U-1 moved to Lyon", ["s1#4"]) if k[0] in "cnpr")
    [('c', '|location'), ('n', ''), ('p', 's1#4')]
    """
    # A long note is milliseconds of pure Python per step: each step (and each clause) is a
    # point where a write lets the requests in progress go first (memlane.pacing).
    keys = [(NOTE, "")]
    keys += [(WORD, word) for word in sorted(line_words(text))]
    pause()
    keys += [(CLAIM, claim_key(found.key)) for found in claims(text, subject)]
    pause()
    if not is_question(text):
        for clause in clauses(text, subject):
            keys += [(SLOT + key, clause_digest(clause)) for key in slot_keys(clause)]
            pause()
    if takes_back(text, (subject,)):
        keys.append((RETRACTS, ""))
    pause()
    if not is_question(text) and speaks_for_self(text, (subject,)):
        keys.append((OWN, ""))
    pause()
    keys += [(CITES, ref) for ref in sorted(origins(provenance))]
    words, digits, pairs = term_keys(text)
    keys += [(TERM, word) for word in sorted(words)] + [(PAIRS, pair) for pair in sorted(pairs)]
    if digits:
        keys.append((DIGITS, digits))
    return keys


def no_meaning(note_id: int) -> Sequence[tuple[int, float]]:
    """:data:`Meaning` of an embedder that cannot tell: no note is near another."""
    return ()


def _first_before(said: Statement, nearest: Iterable[Statement | None]) -> Statement | None:
    """The first of ``nearest`` said before ``said``, and not in its turns."""
    for found in nearest:
        if found is None or found.turns & said.turns:
            continue
        if said_when(found) < said_when(said):
            return found
    return None


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

    def refilling(self, clause: str, since: Since, refills: Refills) -> Statement | None:
        """The latest statement ``since`` with a clause that ``refills`` a slot of ``clause``.

        The first :func:`first_later` finds of the statements (not questions). ``refills`` is
        asked of every clause that :func:`memlane.router.slots.restates` may pair with
        ``clause``, and is a function of the clause alone; whether it is ``None`` (restates
        no slot of ``clause``) does not depend on the question either.
        """
        ...

    def retracting(self) -> Iterator[Statement]:
        """The statements that retract a value or switch an arrangement."""
        ...

    def prepare(self, clauses: Iterable[str], turns: Iterable[str] = ()) -> None:
        """Read ahead, in one go, what :meth:`refilling` will need for these clauses.

        And what :meth:`citing` will need for these turns (or ``note:<id>`` references).
        """
        ...

    def specific(self, term: str) -> bool:
        """Whether few enough statements share ``term`` for it to name a value."""
        ...

    def nearest_before(self, said: Statement) -> Statement | None:
        """Of the statements said before ``said``, the one nearest to it in meaning, if any.

        Only a stored note has a vector, and only one the embedder could tie (see
        :data:`Meaning`): ``None`` for the window's turns, for a note not embedded yet, and
        for an embedder whose similarity tells nothing of meaning.
        """
        ...

    @property
    def tells_meaning(self) -> bool:
        """Whether the embedder's similarity follows meaning (see :meth:`nearest_before`)."""
        ...

    def sharing(self, term: str) -> int:
        """How many of the subject's statements hold ``term``."""
        ...

    def latest_own_before(self, said: Statement) -> Statement | None:
        """The latest statement said before ``said`` telling how things stand for the speaker.

        Not a question, not from ``said``'s turns (see
        :func:`memlane.lang.changes.speaks_for_self`).
        """
        ...


def specific_limit(size: int) -> float:
    """How many of ``size`` statements may share a term that still names a value."""
    return max(MIN_SPECIFIC_COUNT, SPECIFIC_SHARE * size)


def _own(said: Statement) -> bool:
    """Whether ``said`` tells how things stand for its speaker (the ``OWN`` key of a note)."""
    return not is_question(said.text) and speaks_for_self(said.text, (said.subject,))


def _latest_first(statements: Iterable[Statement]) -> list[Statement]:
    return sorted(statements, key=said_when, reverse=True)  # stable: ties stay as said


class ListedEvidence:
    """:class:`Evidence` from a list of statements held in memory.

    Args:
        statements: the subject's statements, in the order said.
        size: how many statements the subject has in all, when these are only some of them
            (the window beside stored notes); by default these.
        sharing: how many other statements share a term (stored notes), added to the count.
        meaning: which notes are near a note in meaning (see :data:`Meaning`).
        tells_meaning: whether the embedder's similarity follows meaning.
    """

    def __init__(
        self,
        statements: Sequence[Statement],
        size: Callable[[], int] | None = None,
        sharing: Callable[[str], int] | None = None,
        meaning: Meaning = no_meaning,
        tells_meaning: bool = False,
    ) -> None:
        self.statements = statements
        self._size = size
        self._sharing = sharing
        self._meaning = meaning
        self._tells_meaning = tells_meaning
        self._specific: dict[str, bool] = {}
        self._counts: dict[str, int] = {}

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

    def refilling(self, clause: str, since: Since, refills: Refills) -> Statement | None:
        """The latest statement ``since`` re-filling ``clause``."""
        found = first_later(
            self.restating(clause), *since, lambda pair: bool(refills(pair[1])), _said_by
        )
        return None if found is None else found[0]

    def prepare(self, clauses: Iterable[str], turns: Iterable[str] = ()) -> None:
        """Nothing to read: the statements are in memory."""

    def retracting(self) -> Iterator[Statement]:
        """The statements that retract a value."""
        return iter(
            _latest_first(
                said for said in self.statements if takes_back(said.text, (said.subject,))
            )
        )

    def specific(self, term: str) -> bool:
        """Whether at most :func:`specific_limit` of the statements share ``term``."""
        if term not in self._specific:
            self._specific[term] = self.sharing(term) <= specific_limit(self._count)
        return self._specific[term]

    def sharing(self, term: str) -> int:
        """How many statements hold ``term`` (with the stored notes that do, if given)."""
        if term not in self._counts:
            count = sum(shares_term(frozenset((term,)), said.text) for said in self.statements)
            self._counts[term] = count + (self._sharing(term) if self._sharing else 0)
        return self._counts[term]

    @property
    def tells_meaning(self) -> bool:
        """Whether the embedder's similarity follows meaning."""
        return self._tells_meaning

    def latest_own_before(self, said: Statement) -> Statement | None:
        """The latest statement before ``said`` telling how things stand for the speaker."""
        return _first_before(said, _latest_first(self.own))

    @cached_property
    def own(self) -> list[Statement]:
        """The statements telling how things stand for the speaker."""
        return [found for found in self.statements if _own(found)]

    def nearest_before(self, said: Statement) -> Statement | None:
        """The note said before ``said`` nearest to it in meaning (see :data:`Meaning`)."""
        if said.note is None:
            return None
        notes = {found.note.id: found for found in self.statements if found.note is not None}
        return _first_before(said, (notes.get(i) for i, _ in self._meaning(said.note.id)))


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


def _said_by(pair: tuple[Statement, str]) -> Statement:
    return pair[0]


@dataclass
class StoredEvidence:
    """:class:`Evidence` of a subject's stored notes (by their keys) and its window's turns.

    Args:
        data: the subject's stored note keys.
        as_statements: the notes visible at the read point, as statements (the others
            dropped), in the order given: a function of each note and ``visible`` alone.
        visible: ``(said until, known at)`` in microseconds, for counts of notes.
        window: the subject's statements that are not stored notes (user turns of the window).
        meaning: which notes are near a note in meaning (see :data:`Meaning`).
    """

    data: LineData
    as_statements: Callable[[Sequence[Note]], list[Statement]]
    visible: tuple[int | None, int | None]
    window: Sequence[Statement] = ()
    meaning: Meaning = no_meaning
    tells_meaning: bool = False
    _listed: ListedEvidence = field(init=False)
    _said: dict[int, Statement | None] = field(init=False, default_factory=dict)
    _read: dict[tuple[str, ...], _Replay[Any]] = field(init=False, default_factory=dict)
    _walk: RefillWalk = field(init=False)
    _nearest: dict[int, Statement | None] = field(init=False, default_factory=dict)
    _own_before: dict[str, Statement | None] = field(init=False, default_factory=dict)
    _citing: dict[frozenset[str], list[Statement]] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        self._listed = ListedEvidence(self.window, self._size, self._sharing)
        self._walk = RefillWalk(self.data, self.visible, self._latest)

    def citing(self, turns: frozenset[str]) -> list[Statement]:
        """The statements that came from one of ``turns`` (turn ids or ``note:<id>``).

        Each set of turns is looked up once per recall (the evidence lives for one).
        """
        found = self._citing.get(turns)
        if found is None:
            notes = {note.id: note for note in self.data.citing(turns)}
            named = [int(ref[5:]) for ref in turns if ref.startswith("note:") and ref[5:].isdigit()]
            notes.update(self.data.by_id(named))
            ordered = sorted(notes.values(), key=lambda note: (note.at, note.id))
            found = self._citing[turns] = self._statements(ordered) + self._listed.citing(turns)
        return list(found)

    def claiming(self, key: tuple[str, str]) -> Iterator[Statement]:
        """The statements with a claim on ``key``."""
        return self._replay(("claim", *key), lambda: self._claiming(key))

    def refilling(self, clause: str, since: Since, refills: Refills) -> Statement | None:
        """The latest statement ``since`` re-filling ``clause``.

        Of the stored notes, by the refilling walk (:class:`RefillWalk`): only the latest
        clauses filed under the keys ``clause`` probes are read, so the cost stays bounded
        however often the subject said something in the shape of ``clause``.
        """
        stored = self._walk.refilling(clause, since, refills)
        window = self._listed.refilling(clause, since, refills)
        if stored is None or window is None:
            return stored or window
        return stored if said_when(stored) >= said_when(window) else window  # stored on ties

    def prepare(self, clauses: Iterable[str], turns: Iterable[str] = ()) -> None:
        """Read the latest clauses of every slot key these clauses probe in one store call.

        On PostgreSQL each read is a round trip; a recall judging a few dozen candidates
        probes a hundred or more slot keys, and asks for the statements citing the turns of
        each candidate: those are read at once too (two more calls).
        """
        self._walk.prepare(clauses)
        self.data.prefetch_citing(turns)

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

    def sharing(self, term: str) -> int:
        """How many of the subject's statements (notes and window turns) hold ``term``."""
        return self._listed.sharing(term)

    def latest_own_before(self, said: Statement) -> Statement | None:
        """The latest statement before ``said`` telling how things stand for the speaker.

        Stored notes by their ``OWN`` key, latest first, merged with the window's turns.
        """
        if said.ref not in self._own_before:
            own = self._replay(("own",), self._owning)
            self._own_before[said.ref] = _first_before(said, own)
        return self._own_before[said.ref]

    def _owning(self) -> Iterator[Statement]:
        window = iter(_latest_first(self._listed.own))
        return self._with_window(self._latest(OWN, [""]), window, said_when)

    def nearest_before(self, said: Statement) -> Statement | None:
        """The note said before ``said`` nearest to it in meaning, read once per recall.

        The notes visible at the read point only, in the order :data:`Meaning` ranks them.
        """
        if said.note is None:
            return None
        if said.note.id not in self._nearest:
            ranked = [note_id for note_id, _ in self.meaning(said.note.id)]
            notes = self.data.by_id(ranked)
            nearest = self.as_statements([notes[i] for i in ranked if i in notes])
            self._nearest[said.note.id] = _first_before(said, nearest)
        return self._nearest[said.note.id]

    def _latest(self, kind: str, keys: Sequence[str]) -> Iterator[Statement]:
        for note in self.data.latest(kind, keys):
            yield from self._statements([note])

    def _statements(self, notes: Sequence[Note]) -> list[Statement]:
        """The visible ones of ``notes`` as statements, in order, each built once per recall.

        The lines a recall judges cite overlapping turns: a note citing one turn is read
        for each line citing it. And the subject's live notes are kept as statements with its
        reads (:meth:`LineData.kept_reads`, per stamp: forgetting one begins them anew): the
        next recalls judge the same lines, against the statements they cite.
        """
        missing = [note for note in notes if note.id not in self._said]
        if not missing:
            return [said for note in notes if (said := self._said[note.id]) is not None]
        reads, subject = self.data.kept_reads(), self.data.subject
        wanted = {(note.id, self.visible): note for note in missing}

        def build(keys: list[_AtPoint]) -> dict[_AtPoint, Statement | None]:
            built = self.as_statements([wanted[key] for key in keys])
            by_id = {said.note.id: said for said in built if said.note is not None}
            return {key: by_id.get(key[0]) for key in keys}

        def live(key: _AtPoint, _: Statement | None) -> int | None:
            note = wanted[key]  # another subject's note, or one forgotten: not kept
            return 1 if note.subject == subject and not note.deleted_at else None

        found = reads.read_through(reads.statements, wanted, build, live)
        self._said.update((note_id, said) for (note_id, _), said in found.items())
        return [said for note in notes if (said := self._said[note.id]) is not None]

    def _size(self) -> int:
        return self.data.count(NOTE, [""], self.visible) + len(self.window)

    def _sharing(self, term: str) -> int:
        how, keys = term_probe(term)
        if how == "digits":
            return self.data.containing(DIGITS, term, self.visible)
        return self.data.count(_PROBE_KINDS[how], keys, self.visible)
