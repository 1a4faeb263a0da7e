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

A write of this process that only *added* notes (the store tells what moved the stamp:
:class:`~memlane.storage.base.KeysMoved`) does not begin the subject anew: what was kept at
the stamp before is carried to the new one (:func:`carried`), less what the added notes' keys
can change. What a note is (its text, when it was said, the words it holds) stays; what
counts or lists the holders of a key the added notes hold goes, and so does whatever was
derived from many notes at once. An agent that writes and recalls at every turn so reads
again only what its writes touched.

What a recall costs here is what it reads, not what is kept: it reads through its own small
tables to the subject's kept ones (:class:`Kept`), which are shared and never copied; an
offer proved by the next recall is added to them in place.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

from memlane.storage.base import KeysMoved
from memlane.summaries.key_kinds import WORD
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
CARRIED_MOST = 32
"""Stamps a subject's kept reads are carried over (:func:`carried`) before it begins anew.
A carried shelf keeps its weight (what it dropped is not weighed again): begun anew now and
then, its weight stays near what it holds."""
CHANGES_KEPT = 8
"""Changes told (:meth:`KeptLines.moved`) kept per subject, the oldest dropped first: a shelf
more stamps behind than this begins anew."""

K = TypeVar("K")
V = TypeVar("V")
_ABSENT: Any = object()


class Kept(Mapping[K, V]):
    """One table of a recall's reads: its own entries over those kept for the subject.

    Looked up in order: what this recall read (``mine``), then what is kept for the subject
    at its stamp. The recall writes only its own dicts: ``mine``, and ``own`` (what it read
    since it last offered: what its next offer carries). The kept entries are shared by
    every recall begun at that stamp, and :class:`KeptLines` adds proved offers to them in
    place (under its lock, while recalls read): so a recall only looks them up by key, one
    dict operation at a time (whole under CPython's lock: an entry is there or not), and
    never iterates them. Every entry, wherever it is, was read at the same stamp, so any of
    them answers alike.
    """

    __slots__ = ("_kept", "mine", "own")

    def __init__(self, kept: dict[K, V], mine: dict[K, V] | None = None) -> None:
        self._kept = kept
        self.mine: dict[K, V] = {} if mine is None else mine
        self.own: dict[K, V] = {}

    def get(self, key: K, default: Any = None) -> Any:
        """The entry of ``key``, this recall's first; else ``default``."""
        found = self.mine.get(key, _ABSENT)
        return self._kept.get(key, default) if found is _ABSENT else found

    def __getitem__(self, key: K) -> V:
        found = self.get(key, _ABSENT)
        if found is _ABSENT:
            raise KeyError(key)
        return found  # type: ignore[no-any-return]

    def __contains__(self, key: object) -> bool:
        return key in self.mine or key in self._kept

    def __setitem__(self, key: K, value: V) -> None:
        self.mine[key] = value
        self.own[key] = value

    def update(self, entries: Mapping[K, V]) -> None:
        """Write ``entries`` as this recall's."""
        self.mine.update(entries)
        self.own.update(entries)

    def found(self, keys: Iterable[K]) -> dict[K, V]:
        """The entries of those of ``keys`` found (in order)."""
        mine, kept = self.mine, self._kept
        return {
            key: value
            for key in keys
            if (value := mine.get(key, _ABSENT)) is not _ABSENT
            or (value := kept.get(key, _ABSENT)) is not _ABSENT
        }

    def __iter__(self) -> Iterator[K]:
        """The keys of one snapshot of both layers (to inspect: a recall never iterates)."""
        return iter(self._snapshot())

    def __len__(self) -> int:
        return len(self._snapshot())

    def _snapshot(self) -> dict[K, V]:
        return {**self._kept, **self.mine}  # each copy is one C call

    def then(self) -> Kept[K, V]:
        """The same table once ``own`` is offered (written no more): a new own, nothing copied."""
        return Kept(self._kept, self.mine)


def _one(_key: object, _value: object) -> int | None:
    return 1


def sized(_key: object, value: Sequence[object] | frozenset[object]) -> int | None:
    """The weight of an entry holding ``value``'s ids: one more than their number."""
    return 1 + len(value)


_TABLES = 14
"""The tables of :class:`LineReads`, in :meth:`LineReads.tables`' order."""


class _Shelf:
    """What is kept of one subject at one stamp: one dict per table, and their weight.

    Written only by :class:`KeptLines` under its lock, and only added to (an entry replaced
    by one read at the same stamp); never written once another stamp's shelf replaces it
    (the recalls begun on it keep reading it).
    """

    __slots__ = ("carries", "stamp", "tables", "weight")

    def __init__(self, stamp: int | None, tables: tuple[dict[Any, Any], ...] | None = None) -> None:
        self.stamp = stamp
        self.tables: tuple[dict[Any, Any], ...] = (
            tuple({} for _ in range(_TABLES)) if tables is None else tables
        )
        self.weight = 0
        self.carries = 0  # stamps its tables were carried over (:func:`carried`)


class LineReads:
    """What line weighing and the line data read of one subject's keys in one recall.

    Each table is a :class:`Kept`: read through to what is kept of the subject
    (:class:`memlane.summaries.sources.StoredNoteIndex`, :class:`memlane.summaries.linedata.
    LineData`).

    ``stamp``: the subject's stamp read before any of it (``None``: not kept across recalls).
    ``weight`` counts the ids of this recall's own entries (an upper bound).
    """

    __slots__ = (
        "_shelf",
        "asked",
        "cited",
        "clauses",
        "counts",
        "filings",
        "holder_sets",
        "holders",
        "read_whole",
        "said",
        "sourced",
        "stamp",
        "statements",
        "tallies",
        "texts",
        "unfilled",
        "weight",
    )

    def __init__(
        self,
        stamp: int | None = None,
        shelf: _Shelf | None = None,
        offered: Sequence[Kept[Any, Any]] | None = None,
    ) -> None:
        """``offered``: the tables of this recall's offered reads, to go on with (:meth:`then`)."""
        self.stamp = stamp
        self.weight = 0
        self._shelf = _Shelf(stamp) if shelf is None else shelf
        kept = self._shelf.tables
        tables = [Kept(table) for table in kept] if offered is None else [k.then() for k in offered]
        self.counts: Kept[str, int] = tables[0]
        """Per word, how many notes hold it;"""
        self.holders: Kept[tuple[str, str], list[int]] = tables[1]
        """per ``(kind, key)`` read by its holders, their ids in id order;"""
        self.holder_sets: Kept[str, frozenset[int]] = tables[2]
        """the same of words, as sets;"""
        self.asked: Kept[int, tuple[frozenset[str], frozenset[str]]] = tables[3]
        """per note, the words asked whether it holds and the ones it holds (one entry: they
        come from one read, so they always agree);"""
        self.said: Kept[int, Said] = tables[4]
        """when a note was said and the turns it cites;"""
        self.cited: Kept[frozenset[str], list[int]] = tables[5]
        """per set of turns, the notes citing one of them;"""
        self.sourced: Kept[tuple[str, frozenset[str] | None], tuple[str, ...]] = tables[6]
        """per line and the turns of its summary, the turns it restates (all of the above);"""
        self.filings: Kept[Filings, tuple[Sequence[Any], bool]] = tables[7]
        """per slot kind the refilling walk read, its latest filings' heads (never changed in
        place) and whether they reached the limit (there may be older ones);"""
        self.read_whole: Kept[int, Note] = tables[8]
        """the subject's live notes read whole, by id;"""
        self.texts: Kept[int, tuple[str, str]] = tables[9]
        """the subject and text of its notes the refilling walk read;"""
        self.unfilled: Kept[Walked, bool] = tables[10]
        """the clauses whose walk met no clause restating them (so none re-fills them);"""
        self.statements: Kept[tuple[int, tuple[int | None, int | None]], Any] = tables[11]
        """per live note and read point (``visible``), the note as judging's evidence
        (:class:`memlane.router.statements.Statement`; ``None``: not visible there);"""
        self.tallies: Kept[tuple[object, ...], int] = tables[12]
        """how many of its notes visible at a read point hold a key (the evidence's counts);"""
        self.clauses: Kept[str, str] = tables[13]
        """per slot filing's clause digest, the clause (split out of its note's text once)."""

    def tables(self) -> tuple[Kept[Any, Any], ...]:
        """Every table, in the order of the kept shelf's."""
        return (
            self.counts,
            self.holders,
            self.holder_sets,
            self.asked,
            self.said,
            self.cited,
            self.sourced,
            self.filings,
            self.read_whole,
            self.texts,
            self.unfilled,
            self.statements,
            self.tallies,
            self.clauses,
        )

    def then(self) -> LineReads:
        """The reads to add to once these are offered (whose ``own`` are written no more).

        Nothing is copied: the same tables of this recall's, each with a new ``own``.
        """
        return LineReads(self.stamp, self._shelf, self.tables())

    def read_through(
        self,
        table: Kept[K, V],
        keys: Collection[K],
        read: Callable[[list[K]], Mapping[K, V]],
        weigh: Callable[[K, V], int | None] = _one,
    ) -> dict[K, V]:
        """Per key of ``keys`` (distinct, in order), its entry in ``table``, else as read.

        ``read`` is called once, with the keys found nowhere (in order), if any; each entry
        it gives is written to the table with ``weigh``'s weight, unless ``weigh`` gives
        ``None`` (not to keep: what the stamp does not cover). The one rule of every table:
        what is kept is read no more while the stamp stands.
        """
        found = table.found(keys)
        if len(found) == len(keys):
            return found
        missing = [key for key in keys if key not in found]
        fresh, mine, own, added = read(missing), table.mine, table.own, 0
        for key, value in fresh.items():
            weight = weigh(key, value)
            if weight is not None:
                mine[key] = own[key] = value
                added += weight
        self.weight += added
        if not found:
            return dict(fresh)
        return {
            key: value
            for key in keys
            if (value := found.get(key, _ABSENT)) is not _ABSENT
            or (value := fresh.get(key, _ABSENT)) is not _ABSENT
        }

    def _merge_into(self, shelf: _Shelf) -> None:
        for kept, table in zip(shelf.tables, self.tables(), strict=True):
            kept.update(table.own)


@dataclass(slots=True)
class _Subject:
    shelf: _Shelf
    offers: list[LineReads] = field(default_factory=list)
    changes: dict[int, KeysMoved] = field(default_factory=dict)  # by the stamp each made


def carried(
    shelf: _Shelf, changes: Sequence[KeysMoved], offers: Sequence[LineReads] = ()
) -> _Shelf:
    """What ``shelf`` and ``offers`` hold that still holds once ``changes`` (additions) are made.

    ``offers``: made at the shelf's stamp and taken before the stamp after ``changes`` was
    read, so each of their reads saw the keys at some point of ``changes``: what holds
    across all of them held at each.

    Per table, by what its entries depend on: a note's own text, time, words and statement
    stay (but those of a note given keys now: it may have been read as not live), as does the
    clause a digest names; counts and holders of a key an added note holds go, as do the
    latest filings of its slot kinds and every tally but those of keys none of them holds;
    what was derived from many notes at once (the notes citing turns, a line's sources, the
    walks that found no re-fill) goes.
    """
    notes = set().union(*(change.notes for change in changes))
    keys = set().union(*(change.keys for change in changes))
    kinds = {kind for kind, _ in keys}
    words = [key for kind, key in keys if kind == WORD]
    offered = [offer.tables() for offer in offers]

    def merged(index: int) -> dict[Any, Any]:
        table = dict(shelf.tables[index])  # copied in C: most of it stays
        for reads in offered:
            table.update(reads[index].own)
        return table

    def less(index: int, gone: Iterable[Any]) -> dict[Any, Any]:
        table = merged(index)
        for key in gone:
            table.pop(key, None)
        return table

    def tally_stays(wanted: tuple[object, ...]) -> bool:
        if len(wanted) != 3 or not isinstance(wanted[1], tuple):
            return False  # the number of notes, or a count of keys containing a text
        kind = wanted[0]
        return kind not in kinds or not any((kind, key) in keys for key in wanted[1])

    tables: tuple[dict[Any, Any], ...] = (  # in the order of LineReads.tables()
        less(0, words),  # counts: per word
        less(1, keys),  # holders: per (kind, key)
        less(2, words),  # holder_sets: per word
        less(3, notes),  # asked: per note
        less(4, notes),  # said: per note
        {},  # cited: of many notes
        {},  # sourced: of many notes
        {k: v for k, v in merged(7).items() if k[0] not in kinds},  # filings: per slot kind
        less(8, notes),  # read_whole: per note
        less(9, notes),  # texts: per note
        {},  # unfilled: of many notes
        {k: v for k, v in merged(11).items() if k[0] not in notes},  # statements: per note
        {k: v for k, v in merged(12).items() if tally_stays(k)},  # tallies
        merged(13),  # clauses: per digest, what a text holds
    )
    assert len(tables) == _TABLES
    new = _Shelf(changes[-1].stamp, tables)
    new.weight = shelf.weight + sum(offer.weight for offer in offers)
    new.carries = shelf.carries + 1
    return new


class KeptLines:
    """Line weighing's reads of each subject, kept per stamp; shared by a memory's recalls.

    Thread-safe: a recall reads through to the subject's kept shelf and writes only its own
    tables (:meth:`begin`), and offers them back when done (:meth:`offer`); a proved offer
    is added to the shelf in place under the lock, and a new stamp begins a new shelf (the
    recalls begun on the old one keep reading it; nothing is written to it any more).

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
        """A recall's reads of the subject, through what is kept at its stamp (``stamp_of``).

        The offers made before the stamp is read are kept if it is still theirs, each whole
        or not at all (within the subject's bound), added to the kept shelf in place. A
        stamp this process moved only by adding notes (:meth:`moved`) carries the shelf and
        those offers over (:func:`carried`); any other begins a new shelf.
        """
        with self._lock:
            found = self._subjects.get((tenant, subject))
            offers = found.offers if found is not None else []
            if found is not None:
                found.offers = []
        stamp = stamp_of()
        with self._lock:
            found = self._subjects.get((tenant, subject))
            if found is None or found.shelf.stamp != stamp:
                self._weight -= found.shelf.weight if found is not None else 0
                shelf = _Shelf(stamp) if found is None else self._carried(found, stamp, offers)
                found = self._subjects[tenant, subject] = _Subject(
                    shelf, changes=({} if found is None else found.changes)
                )
                self._weight += shelf.weight
            shelf = found.shelf
            for offer in offers:
                if offer.stamp == stamp and 0 < offer.weight <= self._subject_ids - shelf.weight:
                    offer._merge_into(shelf)
                    shelf.weight += offer.weight
                    self._weight += offer.weight
            self._subjects.move_to_end((tenant, subject))
            while self._weight > self._kept_ids and len(self._subjects) > 1:
                _, dropped = self._subjects.popitem(last=False)
                self._weight -= dropped.shelf.weight
        return LineReads(stamp, shelf)

    def moved(self, change: KeysMoved) -> None:
        """A write of this process committed ``change``: kept for the subject's next begin.

        (The store calls it: :meth:`~memlane.storage.base.SummaryStore.watch_keys`.)
        """
        with self._lock:
            found = self._subjects.get((change.tenant, change.subject))
            if found is None:
                return  # nothing kept to carry
            found.changes[change.stamp] = change
            while len(found.changes) > CHANGES_KEPT:
                del found.changes[min(found.changes)]

    def _carried(self, found: _Subject, stamp: int, offers: Sequence[LineReads]) -> _Shelf:
        """The subject's shelf and offers carried to ``stamp``, if only additions came between.

        Else a new shelf. Holding the lock; ``offers`` were taken before ``stamp`` was read.
        """
        shelf, changes = found.shelf, found.changes
        if (
            shelf.stamp is None
            or not 0 < stamp - shelf.stamp <= CHANGES_KEPT
            or shelf.carries >= CARRIED_MOST
        ):
            return _Shelf(stamp)
        between = [changes.get(moved) for moved in range(shelf.stamp + 1, stamp + 1)]
        if not all(change is not None and change.only_added for change in between):
            return _Shelf(stamp)  # another process wrote, or a note was forgotten or re-keyed
        for moved in [moved for moved in changes if moved <= stamp]:
            del changes[moved]
        room, taken = self._subject_ids - shelf.weight, []
        for offer in offers:
            if offer.stamp == shelf.stamp and 0 < offer.weight <= room:
                taken.append(offer)
                room -= offer.weight
        return carried(shelf, cast(list[KeysMoved], between), taken)

    def drop(self, tenant: str, subject: str | None = None) -> None:
        """Let go of what is kept of ``subject`` (of every subject of ``tenant`` if ``None``).

        After a forget or a purge: its shelves hold the notes' texts and statements, which
        must not stay in the process once deleted (a recall begun on one reads it to its end).
        """
        with self._lock:
            for key in [key for key in self._subjects if key[0] == tenant]:
                if subject is None or key[1] == subject:
                    self._weight -= self._subjects.pop(key).shelf.weight

    def offer(self, tenant: str, subject: str, reads: LineReads) -> None:
        """Offer what a recall read (it writes ``reads`` no more) to the subject's next recall."""
        if reads.stamp is None or reads.weight == 0:
            return
        with self._lock:
            found = self._subjects.get((tenant, subject))
            if found is not None and found.shelf.stamp == reads.stamp:
                found.offers = [*found.offers[-(OFFERS - 1) :], reads]
