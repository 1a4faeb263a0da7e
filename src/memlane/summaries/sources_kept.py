"""What line weighing read of a subject's stored keys, kept across recalls while it stands.

:class:`memlane.summaries.sources.StoredNoteIndex` reads, per recall, how many notes hold
each word of the query and the lines, which notes hold the rarest, which of the lines' words
the compared notes hold, and when those were said. All of it depends only on the subject's
stored note keys, and every write of those moves the subject's stamp
(:meth:`memlane.storage.base.SummaryStore.note_stamp`). So what one recall read is kept for
the next ones, per (tenant, subject), as long as the stamp is the one it was read at.

A recall's reads are kept only once a later stamp read proves them: a recall reads the
stamp (``s``) before it reads anything, and offers what it read when it is done; the next
recall takes the offers, then reads the stamp, and keeps an offer only if the stamp is still
``s``. The stamp never goes back, so no write committed between the first recall's stamp
read and the second's: every read of the first saw the keys as they were at ``s``. A writer
in another process or connection is seen the same way: its commit moves the stamp.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from memlane.summaries.model import Note

Said = tuple[tuple[int, int], tuple[str, ...]] | None
"""When a note was said (microseconds, id) and the turns it cites; ``None``: not a live note."""
Filings = tuple[str, tuple[int | None, int | None], int]
"""A slot kind the refilling walk reads, with the ``(said until, known at)`` bounds of the read
and how many of its latest rows (:meth:`memlane.summaries.linedata.LineData.recent`)."""
Walked = tuple[str, tuple[int, int], tuple[int | None, int | None]]
"""A clause the refilling walk judged, with minus when the judged statement was said and
stored (microseconds) and the walk's bounds (see :meth:`memlane.router.refilling.RefillWalk.
refilling`)."""

SUBJECT_IDS = 200_000
"""Most ids kept for one subject (holders, notes asked, notes timed): past it, what a subject
has kept stays and recalls read the rest themselves. At ~50 bytes an id (an int in a set or
list, a dict slot), about 10 MB."""
KEPT_IDS = 600_000
"""Most ids kept over all subjects (about 30 MB): the least recently recalled go first."""
OFFERS = 4
"""Offers a subject holds for its next recall (more concurrent recalls: the rest are dropped)."""


@dataclass(slots=True)
class LineReads:
    """What :class:`memlane.summaries.sources.StoredNoteIndex` read of one subject's keys.

    ``stamp``: the subject's stamp read before any of it (``None``: not kept across recalls).
    ``weight`` counts the ids held (an upper bound), ``start`` what it was when copied.
    """

    stamp: int | None = None
    notes: int | None = None
    """How many notes hold keys."""
    counts: dict[str, int] = field(default_factory=dict)
    """Per word, how many notes hold it;"""
    holders: dict[tuple[str, str], list[int]] = field(default_factory=dict)
    """per ``(kind, key)`` read by its holders, their ids in id order;"""
    holder_sets: dict[str, frozenset[int]] = field(default_factory=dict)
    """the same of words, as sets;"""
    asked: dict[int, frozenset[str]] = field(default_factory=dict)
    """per note, the words asked whether it holds;"""
    holds: dict[int, frozenset[str]] = field(default_factory=dict)
    """of those, the ones it holds (set with ``asked``, from the same read);"""
    said: dict[int, Said] = field(default_factory=dict)
    """when a note was said and the turns it cites;"""
    cited: dict[frozenset[str], list[int]] = field(default_factory=dict)
    """per set of turns, the notes citing one of them;"""
    sourced: dict[tuple[str, frozenset[str] | None], tuple[str, ...]] = field(default_factory=dict)
    """per line and the turns of its summary, the turns it restates (all of the above);"""
    filings: dict[Filings, tuple[Sequence[Any], bool]] = field(default_factory=dict)
    """per slot kind the refilling walk read, its latest filings' heads (never changed in
    place) and whether they reached the limit (there may be older ones);"""
    read_whole: dict[int, Note] = field(default_factory=dict)
    """the subject's live notes read whole, by id;"""
    texts: dict[int, tuple[str, str]] = field(default_factory=dict)
    """the subject and text of its notes the refilling walk read;"""
    unfilled: set[Walked] = field(default_factory=set)
    """the clauses whose walk met no clause restating them (so none re-fills them);"""
    statements: dict[tuple[int, tuple[int | None, int | None]], Any] = field(default_factory=dict)
    """per live note and read point (``visible``), the note as judging's evidence
    (:class:`memlane.router.statements.Statement`; ``None``: not visible there);"""
    tallies: dict[tuple[object, ...], int] = field(default_factory=dict)
    """how many of its notes visible at a read point hold a key (the evidence's counts)."""
    weight: int = 0
    start: int = 0

    def copy(self) -> LineReads:
        """A copy whose dicts may be written (the values are never changed in place)."""
        return LineReads(
            stamp=self.stamp,
            notes=self.notes,
            counts=dict(self.counts),
            holders=dict(self.holders),
            holder_sets=dict(self.holder_sets),
            asked=dict(self.asked),
            holds=dict(self.holds),
            said=dict(self.said),
            cited=dict(self.cited),
            sourced=dict(self.sourced),
            filings=dict(self.filings),
            read_whole=dict(self.read_whole),
            texts=dict(self.texts),
            unfilled=set(self.unfilled),
            statements=dict(self.statements),
            tallies=dict(self.tallies),
            weight=self.weight,
            start=self.weight,
        )

    def joined(self, other: LineReads) -> LineReads:
        """These reads and ``other``'s (read at the same stamp), ``other``'s first.

        A note's ``asked`` and ``holds`` come from one side, so they always agree.
        """
        return LineReads(
            stamp=self.stamp,
            notes=other.notes if other.notes is not None else self.notes,
            counts=self.counts | other.counts,
            holders=self.holders | other.holders,
            holder_sets=self.holder_sets | other.holder_sets,
            asked=self.asked | other.asked,
            holds=self.holds | other.holds,
            said=self.said | other.said,
            cited=self.cited | other.cited,
            sourced=self.sourced | other.sourced,
            filings=self.filings | other.filings,
            read_whole=self.read_whole | other.read_whole,
            texts=self.texts | other.texts,
            unfilled=self.unfilled | other.unfilled,
            statements=self.statements | other.statements,
            tallies=self.tallies | other.tallies,
            weight=self.weight + other.weight - other.start,
        )


@dataclass(slots=True)
class _Subject:
    reads: LineReads
    offers: list[LineReads] = field(default_factory=list)


class KeptLines:
    """Line weighing's reads of each subject, kept per stamp; shared by a memory's recalls.

    Thread-safe: kept reads are never written after they are kept; a recall writes its own
    copy (:meth:`begin`) and offers it back when done (:meth:`offer`).

    Args:
        subject_ids: most ids kept for one subject (:data:`SUBJECT_IDS`).
        kept_ids: most ids kept in all (:data:`KEPT_IDS`).
    """

    def __init__(self, subject_ids: int = SUBJECT_IDS, kept_ids: int = KEPT_IDS) -> None:
        self._subject_ids = subject_ids
        self._kept_ids = kept_ids
        self._lock = threading.Lock()
        self._subjects: OrderedDict[tuple[str, str], _Subject] = OrderedDict()
        self._weight = 0

    def begin(self, tenant: str, subject: str, stamp_of: Callable[[], int]) -> LineReads:
        """A recall's copy of what is kept of the subject at its stamp (read by ``stamp_of``).

        The offers made before the stamp is read are kept if it is still theirs.
        """
        with self._lock:
            found = self._subjects.get((tenant, subject))
            offers = found.offers if found is not None else []
            if found is not None:
                found.offers = []
        stamp = stamp_of()
        with self._lock:
            found = self._subjects.get((tenant, subject))
            if found is None or found.reads.stamp != stamp:
                self._weight -= found.reads.weight if found is not None else 0
                found = self._subjects[tenant, subject] = _Subject(LineReads(stamp))
            for offer in offers:
                if offer.stamp == stamp and offer.weight > offer.start:
                    joined = found.reads.joined(offer)
                    if joined.weight <= self._subject_ids:
                        self._weight += joined.weight - found.reads.weight
                        found.reads = joined
            self._subjects.move_to_end((tenant, subject))
            while self._weight > self._kept_ids and len(self._subjects) > 1:
                _, dropped = self._subjects.popitem(last=False)
                self._weight -= dropped.reads.weight
            kept = found.reads
        return kept.copy()

    def offer(self, tenant: str, subject: str, reads: LineReads) -> None:
        """Offer what a recall read (it writes ``reads`` no more) to the subject's next recall."""
        if reads.stamp is None or reads.weight == reads.start:
            return
        with self._lock:
            found = self._subjects.get((tenant, subject))
            if found is not None and found.reads.stamp == reads.stamp:
                found.offers = [*found.offers[-(OFFERS - 1) :], reads]
