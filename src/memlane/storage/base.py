"""The storage protocol: what the lanes need from a backend, and nothing about which one.

The exact lane's part is :mod:`memlane.storage.fact_stores`. Instants cross this boundary as
integer microseconds since the epoch; an open end is ``FOREVER``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Literal, NamedTuple, Protocol, Self

import numpy as np
import numpy.typing as npt

from memlane.access import ApiKey
from memlane.privacy.model import Deletion, PurgeReport
from memlane.storage.archiving import ArchiveStore
from memlane.storage.fact_stores import FactStore
from memlane.summaries.model import Note, Summary, SummaryContent
from memlane.window.model import Turn
from memlane.workflows.model import Action, Trajectory, Workflow


def iter_chunks(items: Sequence[int], size: int = 500) -> Iterator[Sequence[int]]:
    """Split ids into chunks small enough for one parameterized statement."""
    for offset in range(0, len(items), size):
        yield items[offset : offset + size]


DocKind = Literal["summary", "note"]


class Coverage(NamedTuple):
    """How far one model's vectors cover a search scope (:meth:`SummaryStore.coverage`)."""

    embedded: bool
    """Some item of the scope has a vector from the model."""
    waiting: bool
    """Some item of the scope has none from it (yet)."""


@dataclass(frozen=True, slots=True)
class VectorClaim:
    """What a worker of the background indexer asks the store for, and for how long.

    Times are wall-clock microseconds (``time.time()``), shared by every process.
    """

    model: str
    """The embedder's name: items without a vector from it are pending."""
    limit: int
    """Most items in one claim."""
    chars: int
    """Most characters in one claim, but for its first item."""
    now: int
    """Claims that ended before this instant are void."""
    until: int
    """The new claim ends then, if no vector was stored."""
    subject: str | None = None
    """Only this subject's items (``None``: every subject of the tenant)."""

    def parameters(self, tenant: str | None) -> dict[str, object]:
        """The named parameters of a claim statement."""
        return {
            "tenant": tenant,
            "subject": self.subject,
            "model": self.model,
            "limit": self.limit,
            "chars": self.chars,
            "now": self.now,
            "until": self.until,
        }


WriteKey = tuple[str, str, str]
"""What a keyed write locks: ``(tenant, subject, attribute)`` of facts, or :func:`scope_key`."""
KeyedScope = Literal["facts", "notes", "summaries", "turns"]


def scope_key(tenant: str, subject: str, scope: KeyedScope) -> WriteKey:
    r"""The write key of a subject's notes, summaries, turns or batches of facts.

    A write of only these (``transaction([scope_key(...)])``) locks just them on a backend
    that can, as a fact write locks its keys: writers of other subjects run at once. The
    third part is never an attribute's name (names hold no control characters).

    >>> scope_key("acme", "U-1", "notes")
    ('acme', 'U-1', '\x00notes')
    """
    return (tenant, subject, f"\x00{scope}")


class Transactional(Protocol):
    """A store whose writes go in transactions it opens, timed by the shared clock."""

    def transaction(self, keys: Sequence[WriteKey] | None = None) -> AbstractContextManager[Self]:
        """A write transaction; nested calls join the outer one.

        ``keys``: what it writes, and nothing else (see :func:`scope_key`); a backend may
        then lock only them. ``None`` locks every write out.
        """
        ...

    def next_tx(self, now: int) -> int:
        """The next transaction time (shared by every lane); only in a transaction."""
        ...

    @property
    def in_transaction(self) -> bool:
        """True inside :meth:`transaction`."""
        ...


Visible = tuple[int | None, int | None]
"""``(said until, known at)`` in microseconds: only notes said and stored by then count."""
ANY: Visible = (None, None)
"""No bound: every live note counts."""
TIMED_KINDS = "s"
"""Note key kinds that start with this are also indexed by when their note was said, so that
:meth:`SummaryStore.recent_keyed` reads a kind's latest rows without reading its others."""


@dataclass(slots=True)
class KeysMoved:
    """What one committed transaction did to a subject's note keys: its stamp is now ``stamp``.

    ``notes``: the notes given keys (new ones, or ones that waited for them) and ``keys``
    the ``(kind, key)`` pairs they were given; ``only_added`` is false when keys were also
    replaced or removed (a note forgotten, purged or keyed again), which no list of
    additions tells.
    """

    tenant: str
    subject: str
    stamp: int
    notes: set[int]
    keys: set[tuple[str, str]]
    only_added: bool = True


class SummaryStore(Transactional, Protocol):
    """Persistence of the summary lane: summary versions, notes, turns and search."""

    def put_summary(
        self,
        tenant: str,
        subject: str,
        session_id: str | None,
        content: SummaryContent,
        period: tuple[int, int],
        provenance: Sequence[str],
        tx: int,
        line_facts: str | None = None,
    ) -> Summary:
        """Store a new version (``session_id=None``: the storyline); only it is searchable.

        ``line_facts``: what recall asks of its lines' text (derived by the summaries lane's
        ``liner``), kept in the same row: it goes wherever the version goes.
        """
        ...

    def current_summary(
        self, tenant: str, session_id: str | None, subject: str | None
    ) -> Summary | None:
        """The latest version of a session summary (or storyline), or ``None``."""
        ...

    def summary_versions(self, tenant: str, subject: str, session_id: str | None) -> list[Summary]:
        """Every version of one summary, oldest first."""
        ...

    def summaries(self, tenant: str, ids: Sequence[int]) -> dict[int, Summary]:
        """Summaries by id."""
        ...

    def put_note(
        self,
        tenant: str,
        subject: str,
        text: str,
        *,
        said_at: int,
        session_id: str | None,
        source: str | None,
        provenance: Sequence[str],
        tx: int,
        keys: Sequence[tuple[str, str]] | None = None,
    ) -> Note:
        """Store a note and index it, with what recall needs of it (``None``: pending)."""
        ...

    def put_note_keys(
        self, tenant: str, subject: str, keyed: Sequence[tuple[Note, Sequence[tuple[str, str]]]]
    ) -> None:
        """Store (or replace) what recall needs of notes: ``(note, (kind, key) pairs)``."""
        ...

    @property
    def key_rows_per_write(self) -> int | None:
        """Most key rows :meth:`put_note` writes with a note (``None``: no limit).

        A note with more is stored waiting for its keys, which :meth:`add_note_keys` adds a
        part of at most this many rows per write.
        """
        ...

    def add_note_keys(
        self,
        tenant: str,
        subject: str,
        note: Note,
        keys: Sequence[tuple[str, str]],
        *,
        last: bool,
    ) -> bool:
        """Add a part of the keys of a note stored without them; ``last``: it waits no more.

        False, and nothing written, if the note no longer waits for keys (keyed by another
        caller meanwhile, or forgotten).
        """
        ...

    def note_stamp(self, tenant: str, subject: str) -> int:
        """A number that moves with every write of the subject's note keys, never back.

        Two reads finding the same stamp saw the same keys between them: what is read of the
        keys may be kept while it stays.
        """
        ...

    def watch_keys(self, watcher: Callable[[KeysMoved], None]) -> None:
        """Tell ``watcher`` what moved a note stamp, after each commit of this store moving one.

        In the committing thread; writes of other processes are not told.
        """
        ...

    def unkeyed_notes(self, tenant: str, subject: str, limit: int) -> list[Note]:
        """Live notes of a subject whose keys are not stored yet."""
        ...

    def waiting_notes(
        self, tenant: str | None, subject: str | None, limit: int
    ) -> list[tuple[str, str, Note]]:
        """Up to ``limit`` notes waiting for keys, ``(tenant, subject, note)``, oldest first."""
        ...

    def unkeyed_count(self, tenant: str | None, subject: str | None = None) -> int:
        """How many live notes of ``tenant`` (``None``: any; or of ``subject``) wait for keys."""
        ...

    def unkeyed_subjects(self) -> list[tuple[str, str]]:
        """Every ``(tenant, subject)`` with live notes whose keys are not stored yet."""
        ...

    def keyed_notes(self, tenant: str, subject: str, kind: str, keys: Sequence[str]) -> list[Note]:
        """Live notes of a subject holding one of ``keys`` of ``kind``, in the order said."""
        ...

    def latest_keyed(
        self, tenant: str, subject: str, kind: str, key: str, page: tuple[int, int]
    ) -> list[Note]:
        """A page ``(offset, limit)`` of the live notes holding ``key``, latest first."""
        ...

    def recent_keyed(
        self, tenant: str, subject: str, kinds: Sequence[str], visible: Visible, limit: int
    ) -> dict[str, list[tuple[str, int, int, int]]]:
        """Per kind (each of :data:`TIMED_KINDS`), its ``limit`` latest live rows.

        ``(key, note id, said, stored)``, latest first, of notes said and stored by ``visible``.
        """
        ...

    def keyed_ids(
        self, tenant: str, subject: str, kind: str, keys: Sequence[str]
    ) -> dict[str, list[int]]:
        """Per key of ``kind``, the ids of the live notes holding it."""
        ...

    def keys_of(
        self, tenant: str, ids: Sequence[int], kind: str, among: Sequence[str] | None = None
    ) -> dict[int, list[str]]:
        """The keys of ``kind`` of the given notes (``among``: only these keys)."""
        ...

    def key_counts(
        self, tenant: str, subject: str, kind: str, keys: Sequence[str]
    ) -> dict[str, int]:
        """Per key of ``kind``, how many live notes of the subject hold it."""
        ...

    def count_keyed(
        self, tenant: str, subject: str, kind: str, keys: Sequence[str], visible: Visible = ANY
    ) -> int:
        """How many live notes said and stored by ``visible`` hold one of ``keys`` of ``kind``."""
        ...

    def count_containing(
        self, tenant: str, subject: str, kind: str, text: str, visible: Visible = ANY
    ) -> int:
        """How many live notes said and stored by ``visible`` hold a key that contains ``text``."""
        ...

    def notes(self, tenant: str, subject: str) -> list[Note]:
        """A subject's notes in the order they were said."""
        ...

    def notes_by_id(self, tenant: str, ids: Sequence[int]) -> dict[int, Note]:
        """Notes by id."""
        ...

    def notes_said(self, tenant: str, ids: Sequence[int]) -> dict[int, tuple[int, tuple[str, ...]]]:
        """Per note id, when it was said (microseconds) and its provenance: no text, no note."""
        ...

    def note_texts(self, tenant: str, ids: Sequence[int]) -> dict[int, tuple[str, str]]:
        """Per note id, its subject and its text: no note."""
        ...

    def put_turn(self, tenant: str, turn: Turn) -> None:
        """Keep a raw turn (memories that retain transcripts)."""
        ...

    def turns(self, tenant: str, session_id: str) -> list[Turn]:
        """Retained turns of a session, in order."""
        ...

    def claim_vectors(self, tenant: str | None, claim: VectorClaim) -> list[tuple[int, str]]:
        """Claim ``(doc id, text)`` of items with no vector from ``claim.model``, in id order.

        ``tenant=None`` claims the items of every tenant.

        A claimed item is not claimed again before ``claim.until`` (by any worker of any
        process) unless it is released; it stays pending until its vector is stored.
        """
        ...

    def release_vectors(self, doc_ids: Sequence[int]) -> None:
        """End the claims on items that were not embedded."""
        ...

    def put_vectors(self, model: str, vectors: Sequence[tuple[int, bytes]]) -> None:
        """Attach float32 vectors to search items (ending their claims).

        ``InvalidInput`` (nothing stored) if one holds a value no vector index keeps
        (:func:`memlane.storage.vectors.unstorable`).
        """
        ...

    def pending_count(self, tenant: str | None, subject: str | None, model: str) -> int:
        """How many undeleted items have no vector from ``model`` (``tenant=None``: any)."""
        ...

    def graphs_pending(self, tenant: str | None, model: str) -> int:
        """Vectors of ``model`` in ``tenant``'s scopes whose search graph is being built.

        0 where the database keeps no graphs of its own making (PostgreSQL's are its indexes).
        """
        ...

    def graphs_follow(self, model: str, doc_ids: Sequence[int]) -> None:
        """The background indexer stored these items' vectors: graphs follow in the background.

        Nothing where the database keeps no graphs of its own making.
        """
        ...

    def graphs_pace(self, wait_for_requests: Callable[[], object]) -> None:
        """Between its steps, the work of building graphs calls ``wait_for_requests()``.

        So the requests in progress go first (:mod:`memlane.pacing`). Nothing where the
        database keeps no graphs of its own making.
        """
        ...

    def graphs_ready(self, tenant: str | None, model: str, timeout: float | None) -> bool:
        """Have every large subject's search graph of ``tenant`` loaded or built; wait for it.

        False if ``timeout`` seconds passed first (the graphs are still built, and searches
        scan exactly meanwhile).
        """
        ...

    def unembedded(
        self, tenant: str, kind: DocKind, owner_ids: Sequence[int], model: str
    ) -> set[int]:
        """The owners among ``owner_ids`` whose items have no vector from ``model``."""
        ...

    def after_commit(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` when the current thread's write transaction commits (or now)."""
        ...

    def vectors(
        self, tenant: str, kind: DocKind, owner_ids: Sequence[int], model: str
    ) -> dict[int, npt.NDArray[np.float32]]:
        """The vectors ``model`` gave these owners' undeleted items, by owner id.

        Items not embedded by ``model`` (yet, or at all) are left out.
        """
        ...

    def vector_state(
        self, tenant: str, subject: str | None, kind: DocKind, model: str
    ) -> tuple[int, int, int]:
        """``(items in scope, items embedded by model, highest item id)``."""
        ...

    def coverage(self, tenant: str, subject: str | None, kind: DocKind, model: str) -> Coverage:
        """Whether some items of the scope have a vector from ``model``, and some none.

        Two index lookups, however many items the scope holds (a search asks it each time;
        :meth:`vector_state` counts them).
        """
        ...

    def nearest(
        self,
        tenant: str,
        subject: str | None,
        kind: DocKind,
        model: str,
        query: Sequence[float] | npt.NDArray[np.float32],
        limit: int,
    ) -> list[int]:
        """Owner ids of the undeleted items in scope embedded by ``model``, nearest first.

        Nearest is the largest inner product with ``query`` (ties by doc id); at most
        ``limit`` ids. Items embedded by another model, or not yet, are not searched.
        """
        ...

    def lexical(
        self, tenant: str, subject: str | None, kind: DocKind, text: str, limit: int
    ) -> list[int]:
        """Owner ids of the undeleted items in scope matching ``text``, best first."""
        ...

    def audit(self, tenant: str, subject: str) -> tuple[list[Summary], list[Note]]:
        """Every summary version and note of a subject, deleted ones included."""
        ...


class SubjectPage(NamedTuple):
    """One page of a tenant's subjects, and how many match in all."""

    subjects: list[str]
    total: int


class SubjectStore(Protocol):
    """The directory of subjects: who a tenant holds live (undeleted) data about."""

    def subjects(
        self, tenant: str, *, prefix: str | None, contains: str | None, limit: int, offset: int
    ) -> SubjectPage:
        """Subjects with an undeleted fact, summary or note, in byte order; one page of them.

        ``prefix`` must start the subject exactly; ``contains`` may occur anywhere in it,
        ASCII letters matched without regard to case.
        """
        ...


class MentionRule(Protocol):
    """Which texts mention a forgotten value (the rule lives in :mod:`memlane.privacy`)."""

    def needles(self, values: Iterable[object]) -> list[str]:
        """The texts by which ``values`` (and their stored keys) may appear."""
        ...

    def mentions(self, text: str, needles: Sequence[str]) -> bool:
        """True if ``text`` mentions one of ``needles``."""
        ...


class PrivacyStore(Protocol):
    """Logical deletion across every lane, the deletion log, and physical purge."""

    def forget(
        self,
        tenant: str,
        subject: str,
        attribute: str | None,
        *,
        now: int,
        purge_due: int,
        reason: str | None,
        requested_by: str | None,
        rule: MentionRule | None = None,
    ) -> Deletion:
        """Mark the subject's data (or an attribute and every text mentioning its values).

        ``rule`` decides which texts mention a value; it is needed to forget an attribute.
        """
        ...

    def deletions(self, tenant: str) -> list[Deletion]:
        """The deletion log of a tenant, oldest first."""
        ...

    def purge(
        self, tenant: str, subject: str | None, *, now: int, immediately: bool
    ) -> PurgeReport:
        """Physically remove deleted data that is due (or all, ``immediately``)."""
        ...


class KeyStore(Protocol):
    """API keys of every tenant: stored by public id, the secret only as its hash."""

    def put_key(self, key: ApiKey) -> None:
        """Store a new key."""
        ...

    def key(self, key_id: str) -> ApiKey | None:
        """The key with this public id, revoked or not."""
        ...

    def keys(self, tenant: str | None) -> list[ApiKey]:
        """Every key of ``tenant`` (``None``: of every tenant), oldest first."""
        ...

    def revoke(self, key_id: str, tenant: str | None, *, now: int) -> ApiKey | None:
        """Revoke a key (of ``tenant``, if given); ``None`` if there is no such key."""
        ...


class WorkflowStore(Transactional, Protocol):
    """Persistence of the workflow lane: recorded runs and every workflow revision."""

    def put_run(
        self,
        tenant: str,
        task: str,
        task_type: str,
        steps: Sequence[Action],
        success: bool,
        reason: str | None,
        tx: int,
    ) -> Trajectory:
        """Store one recorded run."""
        ...

    def runs(self, tenant: str, task_type: str | None) -> list[Trajectory]:
        """Recorded runs (of one type, or all), oldest first."""
        ...

    def put_workflow(self, tenant: str, workflow: Workflow, tx: int) -> Workflow:
        """Store a new revision; the previous one stays, closed at ``tx``."""
        ...

    def current(self, tenant: str, task_type: str | None) -> list[Workflow]:
        """The current revision of one workflow (or of each), by task type."""
        ...

    def revisions(self, tenant: str, task_type: str) -> list[Workflow]:
        """Every stored revision of one workflow, oldest first."""
        ...

    def rewrite(self, tenant: str, edit: Callable[[str], str]) -> int:
        """Apply ``edit`` to every text of the tenant's runs and revisions; rows changed."""
        ...


@dataclass(frozen=True, slots=True)
class Backend:
    """The stores of one database, as handed to the lanes."""

    url: str
    facts: FactStore
    summaries: SummaryStore
    privacy: PrivacyStore
    close: Callable[[], None]
    keys: KeyStore
    workflows: WorkflowStore
    archive: ArchiveStore
    subjects: SubjectStore
