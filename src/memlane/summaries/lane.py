"""The summary lane (``mem.summaries``): versioned summaries, storylines and notes, searchable.

Search is hybrid: nearest neighbours over embeddings (exact on SQLite, an HNSW index on
PostgreSQL) and a lexical ranking (FTS5's BM25, or ``ts_rank_cd``), fused by reciprocal rank,
always over the items of one tenant (and subject) that are not deleted — the backend applies
that filter inside each ranking query, never after it. Items are embedded in the background
(:mod:`memlane.summaries.indexer`), so neither a write nor a search waits for the model; an
item not embedded yet is found by its words and ranked with the rest.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import ExitStack
from datetime import datetime
from functools import partial
from typing import Any, NamedTuple

from memlane import collector, memo, validation
from memlane.embed.base import Embedder, meaning_floor
from memlane.errors import InvalidInput
from memlane.pacing import pause
from memlane.storage.base import DocKind, SummaryStore, scope_key
from memlane.summaries.indexer import Index, Indexer
from memlane.summaries.linedata import LineData, NoteKeyer
from memlane.summaries.model import Note, NoteHit, Summary, SummaryContent, SummaryHit
from memlane.summaries.search import fuse, fuse_partial
from memlane.summaries.sources_kept import KeptLines
from memlane.timeutil import Clock, checked_now, to_micros
from memlane.validation import integer, name
from memlane.window.model import Turn

SummaryLiner = Callable[[str, SummaryContent], str]
"""``(subject, content) -> line facts`` of one summary version, stored with it."""

MAX_K = 200
NEAR_NOTES = 8
"""How many notes :meth:`SummariesLane.near_in_meaning` ranks: a retraction is tied to the
nearest said before it, which is among the first few of a subject's notes."""


class SummariesLane:
    """Summaries and notes of one tenant. Reached as ``Memory.summaries``."""

    def __init__(
        self,
        store: SummaryStore,
        *,
        tenant: str,
        clock: Clock,
        embedder: Callable[[], Embedder],
        keyer: NoteKeyer | None = None,
        index: Index | None = None,
        liner: SummaryLiner | None = None,
        kept: KeptLines | None = None,
    ) -> None:
        self._store = store
        self._kept = kept
        self._keyer = keyer
        self._liner = liner
        self._tenant = tenant
        self._clock = clock
        self._embedder = embedder
        self._index = index or Index(Indexer(store, embedder=embedder, indexing="inline"), tenant)
        self._indexer = self._index.indexer

    # -- reads --------------------------------------------------------------------------

    def for_session(self, session_id: str, subject: str | None = None) -> Summary | None:
        """The latest version of a session's summary, or ``None``."""
        return self._store.current_summary(self._tenant, name("session_id", session_id), subject)

    def storyline(self, subject: str) -> Summary | None:
        """The latest version of the subject's rolling, cross-session storyline."""
        return self._store.current_summary(self._tenant, None, name("subject", subject))

    def versions(self, subject: str, session_id: str | None = None) -> list[Summary]:
        """Every version of a session summary (or of the storyline), oldest first."""
        return self._store.summary_versions(self._tenant, name("subject", subject), session_id)

    def notes(self, subject: str) -> list[Note]:
        """A subject's notes, in the order they were said."""
        return self._store.notes(self._tenant, name("subject", subject))

    def line_data(self, subject: str, keyer: NoteKeyer) -> LineData:
        """What recall needs of the subject's notes, read by key (notes without keys keyed)."""
        subject = name("subject", subject)
        return LineData.open(self._store, self._tenant, subject, keyer, self._kept)

    def transcript(self, session_id: str) -> list[Turn]:
        """The raw turns of a session, if the memory retains transcripts (else empty)."""
        return self._store.turns(self._tenant, name("session_id", session_id))

    def search(self, subject: str | None, query: str, k: int = 5) -> list[SummaryHit]:
        """Summaries of ``subject`` (``None``: the whole tenant) that best match ``query``.

        >>> mem.summaries.search("U-001", "居住地", k=5)  # doctest: +SKIP
        [SummaryHit(summary=Summary(...), score=0.0328)]
        """
        ranked = self._rank(subject, query, k, "summary")
        found = self._store.summaries(self._tenant, [owner for owner, _ in ranked])
        return [SummaryHit(found[owner], score) for owner, score in ranked if owner in found]

    def search_notes(self, subject: str | None, query: str, k: int = 5) -> list[NoteHit]:
        """Notes of ``subject`` (``None``: the whole tenant) that best match ``query``."""
        ranked = self._rank(subject, query, k, "note")
        found = self._store.notes_by_id(self._tenant, [owner for owner, _ in ranked])
        return [NoteHit(found[owner], score) for owner, score in ranked if owner in found]

    def tells_meaning(self) -> bool:
        """Whether the embedder's similarity follows meaning: it has a ``meaning_floor``.

        See :func:`~memlane.embed.base.meaning_floor`; the hash embedder's does not.
        """
        return meaning_floor(self._embedder()) is not None

    def near_in_meaning(self, subject: str, note_id: int) -> list[tuple[int, float]]:
        """The subject's notes nearest in meaning to note ``note_id``, as ``(id, cosine)``.

        Nearest first, at most :data:`NEAR_NOTES`, only those at or above the embedder's
        :func:`~memlane.embed.base.meaning_floor`. None when the embedder's similarity tells
        nothing of meaning (the hash embedder), or the note has no vector yet: nothing is
        embedded here and nothing waits for the background indexer. The note's own vector is
        the query, as stored.
        """
        embedder = self._embedder()
        floor = meaning_floor(embedder)
        if floor is None:
            return []
        model = embedder.name
        own = self._store.vectors(self._tenant, "note", [note_id], model).get(note_id)
        if own is None:
            return []
        ids = self._store.nearest(self._tenant, subject, "note", model, own, NEAR_NOTES + 1)
        others = [found for found in ids if found != note_id]
        vectors = self._store.vectors(self._tenant, "note", others, model)
        scored = [(found, float(vectors[found] @ own)) for found in others if found in vectors]
        return [(found, score) for found, score in scored if score >= floor]

    def index(self, subject: str | None = None) -> int:
        """Embed every item not embedded yet, now, in this thread; returns how many.

        The background worker does this on its own (``mem.index``); call it to be sure.
        """
        return self._index.run(None if subject is None else name("subject", subject))

    # -- writes (used by sessions and remember) -----------------------------------------

    def record(
        self,
        subject: str,
        session_id: str | None,
        content: SummaryContent,
        period: tuple[datetime, datetime],
        provenance: Sequence[str],
    ) -> Summary:
        """Store a new version of a session summary (``session_id=None``: the storyline).

        What recall asks of its lines' text is derived here, once, by the lane's ``liner``
        (:func:`memlane.router.summary_lane.derive_line_facts`), and stored with it.
        """
        line_facts = None if self._liner is None else self._liner(subject, content)
        self._make_room()
        with self._store.transaction([scope_key(self._tenant, subject, "summaries")]) as store:
            tx = store.next_tx(to_micros(checked_now(self._clock)))
            summary = store.put_summary(
                self._tenant,
                subject,
                session_id,
                content,
                (to_micros(period[0]), to_micros(period[1])),
                provenance,
                tx,
                line_facts,
            )
            store.after_commit(self._indexer.notify)
        return summary

    def add_note(
        self,
        subject: str,
        text: str,
        *,
        at: datetime,
        session_id: str | None = None,
        source: str | None = None,
        provenance: Sequence[str] = (),
        keys: Sequence[tuple[str, str]] | None = None,
    ) -> Note:
        """Store a note; it is searchable at once (by its words) and embedded in the background.

        What recall needs of it is derived here, once, by the lane's ``keyer`` (without
        one, by the first recall that needs it), unless the caller derived it already:
        ``keys`` are then the keyer's pairs for ``(subject, text, provenance)``, made
        elsewhere (a long note read in another process, :mod:`memlane.textwork`).
        """
        note = _NewNote(subject, text, at, session_id, source, provenance)
        return self._put_notes([note], None if keys is None else [list(keys)])[0]

    def add_turn_notes(
        self,
        subject: str,
        notes: Sequence[tuple[str, Sequence[tuple[str, str]] | None]],
        *,
        at: datetime,
        session_id: str | None,
        source: str | None,
        provenance: Sequence[str],
    ) -> list[Note]:
        """Store the notes of one turn, in order: several to a write transaction.

        Each pair is a note's text and its keys if they were made elsewhere (``None``: the
        lane's keyer makes them here). The same notes as :meth:`add_note` one after another,
        but a turn of thousands of sentences is not thousands of commits: the notes go in
        parts of at most ``key_rows_per_write`` key rows (SQLite, whose every read waits for
        a write: no part holds its lock for long; a note with more keys goes alone and writes
        them in parts itself), all in one where the store takes any number (PostgreSQL).
        Requests go first between parts (:mod:`memlane.pacing`).
        """
        keyer = self._keyer
        keyed = [
            (
                text,
                list(keys)
                if keys is not None
                else None
                if keyer is None
                else keyer(subject, text, tuple(provenance)),
            )
            for text, keys in notes
        ]
        limit = self._store.key_rows_per_write
        parts: list[list[tuple[str, list[tuple[str, str]] | None]]] = []
        rows = 0
        for text, keys in keyed:
            size = 0 if keys is None else len(keys)
            if not parts or (limit is not None and rows + size > limit):
                parts.append([])
                rows = 0
            parts[-1].append((text, keys))
            rows += size
        stored: list[Note] = []
        for part in parts:
            stored += self._put_notes(
                [
                    _NewNote(subject, text, at, session_id, source, tuple(provenance))
                    for text, _ in part
                ],
                [keys for _, keys in part],
            )
        return stored

    def add_notes(self, notes: Iterable[Mapping[str, Any]]) -> list[Note]:
        """Store many notes in one transaction: an import, all or nothing.

        Each mapping holds :meth:`add_note`'s arguments by name; every one is checked before
        any is stored. The same notes as :meth:`add_note` one after another, each keyed for
        recall here and embedded in the background, at a fraction of the cost (one commit).

        >>> mem.summaries.add_notes([{"subject": "U-1", "text": "I moved to Lyon", "at": now}])
        ... # doctest: +SKIP
        """
        # Its objects per note all live until it returns; its text work is not recalls'.
        with collector.paused(), memo.bulk_work():
            return self._put_notes([_new_note(index, note) for index, note in enumerate(notes)])

    def _put_notes(
        self,
        notes: Sequence[_NewNote],
        made: Sequence[list[tuple[str, str]] | None] | None = None,
    ) -> list[Note]:
        """Store ``notes``, keyed by the lane's keyer unless their keys were ``made`` already.

        A ``None`` among ``made``: that note is stored waiting for its keys.
        """
        checked = [note.checked() for note in notes]
        if not checked:
            return []
        keyer = self._keyer
        keyed: list[tuple[_NewNote, list[tuple[str, str]] | None]] = (
            list(zip(checked, made, strict=True))
            if made is not None
            else [
                (note, None if keyer is None else keyer(note.subject, note.text, note.provenance))
                for note in checked
            ]
        )
        scopes = sorted({scope_key(self._tenant, note.subject, "notes") for note in checked})
        self._make_room()
        pause()  # the last point before the write lock (memlane.pacing)
        with ExitStack() as writers:
            with self._store.transaction(scopes) as store:
                stored = []
                for note, keys in keyed:
                    stored.append(
                        store.put_note(
                            self._tenant,
                            note.subject,
                            note.text,
                            said_at=to_micros(note.at),
                            session_id=note.session_id,
                            source=note.source,
                            provenance=note.provenance,
                            tx=store.next_tx(to_micros(checked_now(self._clock))),
                            # A long note waits for its keys, written after it in parts.
                            keys=None if keys is None or self._in_parts(keys) else keys,
                        )
                    )
                    if keys is not None and self._in_parts(keys):
                        # Before the commit shows it waiting: the background worker leaves it.
                        writers.enter_context(self._indexer.keyed_by_writer(stored[-1].id))
                # Every note is an item to embed: the backlog's limit counts them, not commits.
                store.after_commit(partial(self._indexer.notify, len(stored)))
            for written, (_, keys) in zip(stored, keyed, strict=True):
                if keys is not None and self._in_parts(keys):
                    self._key_in_parts(written, keys)
        return stored

    # -- internals ----------------------------------------------------------------------

    def _in_parts(self, keys: Sequence[tuple[str, str]]) -> bool:
        """Whether a note's keys are too many to write with it (:attr:`key_rows_per_write`)."""
        limit = self._store.key_rows_per_write
        return limit is not None and len(keys) > limit

    def _key_in_parts(self, note: Note, keys: Sequence[tuple[str, str]]) -> None:
        """Store a long note's keys a part per write; requests go first between parts.

        Until the last part the note waits for keys, as one stored without them: a recall
        of its subject meanwhile keys it itself, and then no further part is written; the
        background worker leaves it alone (:meth:`Indexer.keyed_by_writer`, taken before the
        note's commit). Where every read waits for a write's lock (SQLite), no write of a long
        note holds it for long.
        """
        unique = list(dict.fromkeys(keys))
        size = self._store.key_rows_per_write or len(unique)
        for start in range(0, len(unique), size):
            pause()
            part = unique[start : start + size]
            last = start + size >= len(unique)
            if not self._store.add_note_keys(self._tenant, note.subject, note, part, last=last):
                return

    def _rank(
        self, subject: str | None, query: str, k: int, kind: DocKind
    ) -> list[tuple[int, float]]:
        if subject is not None:
            subject = name("subject", subject)
        query = validation.text("query", query, validation.MAX_QUERY_CHARS)
        integer("k", k, 1, MAX_K)
        with self._indexer.foreground():
            return self._ranked(subject, query, k, kind)

    def _ranked(
        self, subject: str | None, query: str, k: int, kind: DocKind
    ) -> list[tuple[int, float]]:
        depth = max(4 * k, 20)
        lexical = self._store.lexical(self._tenant, subject, kind, query, depth)
        embedder = self._embedder()
        coverage = self._store.coverage(self._tenant, subject, kind, embedder.name)
        if coverage.waiting and self._index.indexing == "inline":
            self._index.run(subject)
            coverage = self._store.coverage(self._tenant, subject, kind, embedder.name)
        semantic = self._semantic(subject, query, kind, depth, coverage.embedded)
        if semantic is None:  # the model is busy: every hit stands in by its words
            return fuse_partial([], lexical, set(lexical))[:k]
        if not coverage.waiting:
            return fuse([semantic, lexical])[:k]
        self._indexer.notify(0)  # found again from the database; never waited for
        missing = self._store.unembedded(self._tenant, kind, lexical, embedder.name)
        return fuse_partial(semantic, lexical, missing)[:k]

    def _semantic(
        self, subject: str | None, query: str, kind: DocKind, depth: int, embedded: bool
    ) -> list[int] | None:
        """Nearest neighbours of the query among the embedded items (``None``: model busy).

        With none embedded (or none in scope), the embedder is not asked, not even for the
        query's vector.
        """
        if not embedded:
            return []
        embedder = self._embedder()
        query_vector = self._indexer.query_vector(embedder, query)
        if query_vector is None:
            return None
        return self._store.nearest(self._tenant, subject, kind, embedder.name, query_vector, depth)

    def _make_room(self) -> None:
        """Backpressure, but never inside a transaction (the worker needs the database)."""
        if not self._store.in_transaction:
            self._indexer.make_room()


class _NewNote(NamedTuple):
    """A note to store: :meth:`SummariesLane.add_note`'s arguments."""

    subject: str
    text: str
    at: datetime
    session_id: str | None = None
    source: str | None = None
    provenance: Sequence[str] = ()

    def checked(self) -> _NewNote:
        """The note with its subject and text checked (:class:`InvalidInput` if not valid)."""
        if not isinstance(self.at, datetime):
            raise InvalidInput("at", "must be a datetime")
        return self._replace(subject=name("subject", self.subject), text=_note_text(self.text))


def _new_note(index: int, fields: Mapping[str, Any]) -> _NewNote:
    """One mapping of :meth:`SummariesLane.add_notes` as a note to store."""
    if not isinstance(fields, Mapping):
        raise InvalidInput(f"notes[{index}]", "must be a mapping of add_note's arguments")
    unknown = sorted(set(fields) - set(_NewNote._fields))
    missing = sorted({"subject", "text", "at"} - set(fields))
    if unknown or missing:
        problem = f"unknown {unknown}" if unknown else f"missing {missing}"
        raise InvalidInput(f"notes[{index}]", f"{problem}; takes {', '.join(_NewNote._fields)}")
    return _NewNote(**fields)


def _note_text(value: object) -> str:
    """A note's text: any non-blank string (its source, a turn or a call, set the limits)."""
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput("text", "must be a non-empty string")
    return value
