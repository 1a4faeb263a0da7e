"""What recall needs of one subject's notes, read by key from what was stored with them.

Each note is stored with ``(kind, key)`` pairs derived from it when it is written (the router
decides which: :func:`memlane.router.evidence.note_keys`). :class:`LineData` reads them for
one subject: the notes holding a key, how many do. Notes stored without keys (before keys
existed, or loaded by an import that was stopped before it keyed them: :func:`key_waiting`)
are keyed first, once, by :meth:`LineData.open`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from heapq import merge
from typing import NamedTuple

from memlane.storage.base import ANY, SummaryStore, Visible
from memlane.summaries.key_kinds import CITES
from memlane.summaries.model import Note
from memlane.summaries.sources_kept import Filings, KeptLines, LineReads, sized
from memlane.timeutil import to_micros

NoteKeyer = Callable[[str, str, Sequence[str]], list[tuple[str, str]]]
"""``(subject, text, provenance) -> (kind, key) pairs`` of one note."""

BACKFILL_BATCH = 500
FIRST_PAGE = 8
"""Notes read by the first page of :meth:`LineData.latest`; each next page is 4 times larger."""


def key_subject(store: SummaryStore, tenant: str, subject: str, keyer: NoteKeyer) -> int:
    """Key a subject's live notes stored without keys; how many there were."""
    done = 0
    while pending := store.unkeyed_notes(tenant, subject, BACKFILL_BATCH):
        keyed = [(note, keyer(subject, note.text, note.provenance)) for note in pending]
        store.put_note_keys(tenant, subject, keyed)
        done += len(pending)
        if len(pending) < BACKFILL_BATCH:
            break  # that was all of them: no need to ask again
    return done


def key_waiting(
    store: SummaryStore, keyer: NoteKeyer, progress: Callable[[int, int], None] | None = None
) -> int:
    """Key every live note of every tenant stored without keys (an import's); how many.

    Done by an import, so that the first recall of each subject costs what a later one does
    instead of keying the subject's history; ``progress(subjects done, subjects)``.
    """
    subjects = store.unkeyed_subjects()
    done = 0
    for number, (tenant, subject) in enumerate(subjects, 1):
        done += key_subject(store, tenant, subject, keyer)
        if progress is not None:
            progress(number, len(subjects))
    return done


class Head(NamedTuple):
    """A key's latest holder, in the order of :meth:`LineData.latest` when sorted.

    ``before`` and ``stored_before`` are minus when it was said and stored (microseconds).
    """

    before: int
    stored_before: int
    note_id: int
    key: str


def _latest_first(note: Note) -> tuple[float, float, int]:
    return -note.at.timestamp(), -note.tx_from.timestamp(), note.id


class LineData:
    """The stored keys of one subject's live notes, with the notes and counts read cached.

    Each key, note and count is read once per recall, and what is asked at once (a list of
    keys, of ids) is read in one store call: on PostgreSQL each call is a round trip.

    Args:
        store: the summary store.
        tenant: the tenant.
        subject: the subject.
    """

    def __init__(
        self, store: SummaryStore, tenant: str, subject: str, kept: KeptLines | None = None
    ) -> None:
        self._store = store
        self._tenant = tenant
        self._subject = subject
        self._kept = kept
        self._counts: dict[tuple[object, ...], int] = {}
        self._pages: dict[tuple[str, str], list[list[Note]]] = {}
        self._heads: dict[tuple[str, Visible, int], list[Head]] = {}
        self._filled: set[tuple[str, Visible, int]] = set()
        self._by_id: dict[int, Note | None] = {}
        self._texts: dict[int, tuple[str, str] | None] = {}
        self._holders: dict[tuple[str, str], list[int]] = {}
        self._held: dict[tuple[str, str], int] = {}
        self._reads: LineReads | None = None

    @classmethod
    def open(
        cls,
        store: SummaryStore,
        tenant: str,
        subject: str,
        keyer: NoteKeyer,
        kept: KeptLines | None = None,
    ) -> LineData:
        """The subject's line data, after keying the notes stored without keys.

        ``kept``: where line weighing keeps what it read across recalls (:meth:`kept_reads`).
        """
        key_subject(store, tenant, subject, keyer)
        return cls(store, tenant, subject, kept)

    @property
    def subject(self) -> str:
        """Whose notes these are."""
        return self._subject

    def kept_reads(self) -> LineReads:
        """What recalls read of these keys before, while they stay as they were.

        Line weighing's reads, the refilling walk's latest filings and the notes read whole:
        begun once (the subject's stamp read before anything kept is read), then added to by
        this line data and its line weighing, and offered to the next recalls by
        :meth:`offer`. Empty and not kept without a :class:`KeptLines`, or inside a write
        transaction (its own writes are not committed: the stamp it would read may yet go
        back).
        """
        if self._reads is None:
            if self._kept is None or self._store.in_transaction:
                self._reads = LineReads()
            else:
                store, tenant, subject = self._store, self._tenant, self._subject
                stamp = lambda: store.note_stamp(tenant, subject)  # noqa: E731
                self._reads = self._kept.begin(tenant, subject, stamp)
        return self._reads

    def offer(self, reads: LineReads | None = None) -> LineReads:
        """Offer what was read (:meth:`kept_reads`) to the next recalls; the reads to add to.

        Called by line weighing once it has read, and by the recall when it is done.
        """
        reads = self._reads if reads is None else reads
        if reads is None:
            return LineReads()
        if self._kept is None or reads.stamp is None or reads.weight == 0:
            return reads
        self._kept.offer(self._tenant, self._subject, reads)
        self._reads = reads.then()
        return self._reads

    def citing(self, turns: Iterable[str]) -> list[Note]:
        """The live notes citing one of ``turns`` (their ``CITES`` keys), in the order said."""
        held = self.holders(CITES, sorted(set(turns)))
        ids = sorted({note_id for found in held.values() for note_id in found})
        notes = [note for note in self.by_id(ids).values() if note.deleted_at is None]
        return sorted(notes, key=lambda note: (note.at, note.id))

    def prefetch_citing(self, refs: Iterable[str]) -> None:
        """Read the notes citing these turns and those named ``note:<id>``: two store calls."""
        wanted = set(refs)
        held = self.holders(CITES, sorted(wanted))
        ids = {note_id for found in held.values() for note_id in found}
        ids.update(int(ref[5:]) for ref in wanted if ref.startswith("note:") and ref[5:].isdigit())
        self.by_id(sorted(ids))

    def latest(self, kind: str, keys: Sequence[str]) -> Iterator[Note]:
        """The live notes holding one of ``keys`` of ``kind``, latest first, read in pages.

        Latest: said last, then stored last, then the lower id. A reader that stops at the
        first note it wants reads one small page per key.
        """
        unique = list(dict.fromkeys(keys))
        if len(unique) == 1:
            yield from self._latest(kind, unique[0])
            return
        seen: set[int] = set()
        for note in merge(*(self._latest(kind, key) for key in unique), key=_latest_first):
            if note.id not in seen:
                seen.add(note.id)
                yield note

    def _latest(self, kind: str, key: str) -> Iterator[Note]:
        pages = self._pages.setdefault((kind, key), [])
        offset, size, number = 0, FIRST_PAGE, 0
        while True:
            if number == len(pages):
                page = (offset, size)
                pages.append(self._store.latest_keyed(self._tenant, self._subject, kind, key, page))
            yield from pages[number]
            if len(pages[number]) < size:
                return
            offset, size, number = offset + size, size * 4, number + 1

    def recent(self, kind: str, visible: Visible, limit: int) -> list[Head]:
        """The ``limit`` latest rows of ``kind`` visible at ``visible``, latest first.

        Each key once, with its latest holder among them (see :class:`Head`): a clause said
        again and again takes one place, but its rows count towards ``limit``.
        """
        if (kind, visible, limit) not in self._heads:
            self.read_recent([kind], visible, limit)
        return self._heads[kind, visible, limit]

    def read_recent(self, kinds: Iterable[str], visible: Visible, limit: int) -> None:
        """Read :meth:`recent` of every kind of ``kinds`` not read yet, in one store call."""
        wanted = [(k, visible, limit) for k in dict.fromkeys(kinds)]
        missing = [filings for filings in wanted if filings not in self._heads]
        if not missing:
            return
        tenant, subject, reads = self._tenant, self._subject, self.kept_reads()

        def read(missing: list[Filings]) -> dict[Filings, tuple[tuple[Head, ...], bool]]:
            kinds = [kind for kind, _, _ in missing]
            found = self._store.recent_keyed(tenant, subject, kinds, visible, limit)
            filings: dict[Filings, tuple[tuple[Head, ...], bool]] = {}
            for kind, rows in found.items():
                heads: dict[str, Head] = {}
                for key, note_id, said, stored in rows:  # latest first: a key's first is its head
                    heads.setdefault(key, Head(-said, -stored, note_id, key))
                filings[kind, visible, limit] = (tuple(sorted(heads.values())), len(rows) >= limit)
            return filings

        def weigh(_: Filings, filings: tuple[Sequence[Head], bool]) -> int:
            return 1 + len(filings[0])  # the slot kind and its heads

        for filings, (heads, filled) in reads.read_through(
            reads.filings, missing, read, weigh
        ).items():
            self._heads[filings] = list(heads)
            if filled:
                self._filled.add(filings)

    def filled(self, kind: str, visible: Visible, limit: int) -> bool:
        """Whether :meth:`recent` of ``kind`` read ``limit`` rows: there may be older ones.

        Otherwise they are every row of ``kind`` visible at ``visible``.
        """
        if (kind, visible, limit) not in self._heads:
            self.read_recent([kind], visible, limit)
        return (kind, visible, limit) in self._filled

    def holders(self, kind: str, keys: Sequence[str]) -> dict[str, list[int]]:
        """Per key of ``kind`` held by a live note, the ids of the notes holding it.

        Each read once per recall, and kept with the subject's reads (:meth:`kept_reads`,
        per stamp): judging reads the notes citing its candidates' turns again each recall.
        """
        missing = [(kind, key) for key in dict.fromkeys(keys) if (kind, key) not in self._holders]
        if missing:
            tenant, subject, reads = self._tenant, self._subject, self.kept_reads()

            def read(missing: list[tuple[str, str]]) -> dict[tuple[str, str], list[int]]:
                found = self._store.keyed_ids(tenant, subject, kind, [key for _, key in missing])
                return {(kind, key): found.get(key, []) for _, key in missing}

            self._holders.update(reads.read_through(reads.holders, missing, read, sized))
        return {key: self._holders[kind, key] for key in keys if self._holders[kind, key]}

    def keys_among(
        self, ids: Sequence[int], kind: str, keys: Sequence[str]
    ) -> dict[int, list[str]]:
        """Which of ``keys`` of ``kind`` each of the given notes holds (none: left out).

        Only the pairs asked for are read, never a note's other keys; not kept (the caller
        keeps what it asked).
        """
        return self._store.keys_of(self._tenant, list(dict.fromkeys(ids)), kind, list(keys))

    def by_id(self, ids: Sequence[int]) -> dict[int, Note]:
        """Notes by id, each read once (the summary lane and adjudication ask for the same)."""
        missing = [note_id for note_id in dict.fromkeys(ids) if note_id not in self._by_id]
        if not missing:
            return {i: note for i in ids if (note := self._by_id[i]) is not None}
        tenant, subject, reads = self._tenant, self._subject, self.kept_reads()

        def live(_: int, note: Note) -> int | None:  # forgetting one moves the stamp
            return 1 if note.subject == subject and note.deleted_at is None else None

        found = reads.read_through(
            reads.read_whole, missing, lambda ids: self._store.notes_by_id(tenant, ids), live
        )
        self._by_id.update((note_id, found.get(note_id)) for note_id in missing)
        return {i: note for i in ids if (note := self._by_id[i]) is not None}

    def texts(self, ids: Sequence[int]) -> dict[int, tuple[str, str]]:
        """Per note, its subject and its text, each read once (of notes read whole, from them).

        What the refilling walk reads of the hundreds of notes it may examine: no note is
        built of them.
        """
        missing = [i for i in dict.fromkeys(ids) if i not in self._texts and i not in self._by_id]
        if missing:
            self._read_texts(missing)
        texts: dict[int, tuple[str, str]] = {}
        for note_id in ids:
            note = self._by_id.get(note_id)
            text = (note.subject, note.text) if note is not None else self._texts.get(note_id)
            if text is not None:
                texts[note_id] = text
        return texts

    def _read_texts(self, missing: list[int]) -> None:
        tenant, subject, reads = self._tenant, self._subject, self.kept_reads()

        def own(_: int, said: tuple[str, str]) -> int | None:  # a text never changes
            return 1 if said[0] == subject else None

        found = reads.read_through(
            reads.texts, missing, lambda ids: self._store.note_texts(tenant, ids), own
        )
        self._texts.update((note_id, found.get(note_id)) for note_id in missing)

    def said(self, ids: Sequence[int]) -> dict[int, tuple[int, tuple[str, ...]]]:
        """Per note, when it was said (microseconds) and its provenance (not kept: ask once).

        Of the notes already read whole, from them; of the others, only those two columns.
        """
        found = {
            i: (to_micros(note.at), note.provenance)
            for i in ids
            if (note := self._by_id.get(i)) is not None
        }
        rest = [i for i in dict.fromkeys(ids) if i not in self._by_id]
        if rest:
            found.update(self._store.notes_said(self._tenant, rest))
        return found

    def counts(self, kind: str, keys: Sequence[str]) -> dict[str, int]:
        """Per key of ``kind``, how many live notes hold it."""
        missing = [key for key in dict.fromkeys(keys) if (kind, key) not in self._held]
        if missing:
            found = self._store.key_counts(self._tenant, self._subject, kind, missing)
            self._held.update(((kind, key), found[key]) for key in missing)
        return {key: self._held[kind, key] for key in keys}

    def count(self, kind: str, keys: Sequence[str], visible: Visible = ANY) -> int:
        """How many live notes said and stored by ``visible`` hold one of ``keys``."""
        wanted = (kind, tuple(keys), visible)
        if wanted not in self._counts:
            self._counts[wanted] = self._tally(
                wanted,
                lambda: self._store.count_keyed(self._tenant, self._subject, kind, keys, visible),
            )
        return self._counts[wanted]

    def containing(self, kind: str, text: str, visible: Visible = ANY) -> int:
        """How many live notes said and stored by ``visible`` hold a key containing ``text``."""
        wanted = (kind, text, visible, "containing")
        if wanted not in self._counts:
            self._counts[wanted] = self._tally(
                wanted,
                lambda: self._store.count_containing(
                    self._tenant, self._subject, kind, text, visible
                ),
            )
        return self._counts[wanted]

    def _tally(self, wanted: tuple[object, ...], read: Callable[[], int]) -> int:
        """A count kept by an earlier recall while the keys stay as they were, else ``read()``."""
        reads = self.kept_reads()
        return reads.read_through(reads.tallies, [wanted], lambda _: {wanted: read()})[wanted]
