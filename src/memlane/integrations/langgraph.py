"""memlane as a LangGraph store: ``MemlaneStore(memory)`` is a ``BaseStore``.

Needs the ``langgraph`` extra (``pip install 'memlane[langgraph]'``).

>>> from memlane.integrations.langgraph import MemlaneStore  # doctest: +SKIP
>>> store = MemlaneStore(mem)  # doctest: +SKIP
>>> graph = builder.compile(store=store)  # doctest: +SKIP

It answers like LangGraph's own ``InMemoryStore`` (the same filters, prefixes, limits,
offsets and namespace listings; items in the order they were created), and adds:

- **Subjects.** Label ``subject`` (default ``0``) of a namespace names the memlane subject
  the item is about — ``("u-1", "memories")`` belongs to ``"u-1"``, as LangGraph's docs lay
  namespaces out; pass another index, or a callable from namespace to subject. An item is a
  fact of that subject, so ``mem.forget("u-1")`` hides it at once and ``mem.purge`` removes
  its bytes.
- **History.** Every ``put`` and ``delete`` is a bi-temporal version in the exact lane:
  ``store.get(namespace, key, known_at=T)`` returns the item as the store held it at ``T``.
- **Search.** ``query`` runs memlane's hybrid search (embeddings + BM25) over a note kept
  for each indexed text of an item (``index``: LangGraph's ``fields`` paths, default the
  whole value); hits come first, by score, then the other matches in store order. The
  notes are the summary lane's, so ``mem.recall`` finds what an agent stored too.
- **TTL.** ``put(..., ttl=minutes)`` makes the version valid until it expires; expired
  items vanish from every read at once (``omit_expired`` is always on) and reads refresh
  them as ``ttl={"refresh_on_read": ...}`` says.

The store keeps the list of subjects it wrote to under the reserved subject ``"langgraph"``
(a root label LangGraph itself forbids), so searches across subjects can find them.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Literal

from memlane.errors import InvalidInput
from memlane.facts.model import Fact
from memlane.facts.normalize import canonical_json
from memlane.integrations._filters import list_namespaces, matches
from memlane.integrations._records import Records, address
from memlane.summaries.lane import MAX_K
from memlane.timeutil import TimeInput

try:
    from langgraph.store.base import (
        BaseStore,
        GetOp,
        Item,
        ListNamespacesOp,
        Op,
        PutOp,
        Result,
        SearchItem,
        SearchOp,
        TTLConfig,
        get_text_at_path,
        tokenize_path,
        validate_op_namespace,
    )
except ImportError as error:  # pragma: no cover - exercised by a test with the package hidden
    raise ImportError(
        "memlane.integrations.langgraph needs LangGraph: pip install 'memlane[langgraph]'"
    ) from error

if TYPE_CHECKING:
    from memlane.memory import Memory

__all__ = ["CATALOG_SUBJECT", "MemlaneStore"]

CATALOG_SUBJECT = "langgraph"
CATALOG_ATTRIBUTE = "langgraph.subjects"
KIND = "langgraph"
MAX_TTL_MINUTES = 100 * 366 * 24 * 60  # a century: later expiries are no expiry at all

SubjectRule = int | Callable[[tuple[str, ...]], str]
Namespace = tuple[str, ...]


@dataclass(frozen=True, slots=True)
class _Entry:
    """One stored item, as its current version holds it.

    ``updated_at`` is when the value took effect (the version's ``valid_from``, which is the
    transaction time of the ``put``), so ``get(..., known_at=item.updated_at)`` finds it;
    ``created_at`` is the first put's, carried over by later ones.
    """

    subject: str
    namespace: Namespace
    key: str
    value: dict[str, Any]
    created_at: datetime
    updated_at: datetime
    ttl: float | None
    notes: tuple[int, ...]
    indexed: str | None
    stored: dict[str, Any]

    @classmethod
    def of(cls, fact: Fact) -> _Entry:
        payload = fact.value
        created = payload.get("created_at")
        return cls(
            subject=fact.subject,
            namespace=tuple(payload["namespace"]),
            key=payload["key"],
            value=dict(payload["value"]),
            created_at=fact.valid_from if created is None else datetime.fromisoformat(created),
            updated_at=fact.valid_from,
            ttl=payload.get("ttl"),
            notes=tuple(payload.get("notes", ())),
            indexed=payload.get("indexed"),
            stored=payload,
        )

    def item(self) -> Item:
        return Item(
            value=dict(self.value),
            key=self.key,
            namespace=self.namespace,
            created_at=self.created_at,
            updated_at=self.updated_at,
        )

    def search_item(self, score: float | None) -> SearchItem:
        return SearchItem(
            self.namespace, self.key, dict(self.value), self.created_at, self.updated_at, score
        )


class MemlaneStore(BaseStore):
    """A LangGraph ``BaseStore`` over a memlane memory (see the module docstring).

    Args:
        memory: the memory that keeps the items (its tenant scopes them).
        subject: which namespace label names the memlane subject (an index), or a callable
            from namespace to subject.
        index: LangGraph-style index configuration; only ``fields`` is read (memlane embeds
            with the memory's own embedder). ``None`` indexes the whole value; ``False``
            keeps no notes, and ``query`` then only filters, as an unindexed LangGraph store.
        ttl: LangGraph's ``TTLConfig`` (``default_ttl`` minutes, ``refresh_on_read``).

    Raises:
        InvalidInput: a bad ``subject`` rule or ``index`` configuration.
    """

    supports_ttl = True

    def __init__(
        self,
        memory: Memory,
        *,
        subject: SubjectRule = 0,
        index: Mapping[str, Any] | Literal[False] | None = None,
        ttl: TTLConfig | None = None,
    ) -> None:
        if not callable(subject) and (
            isinstance(subject, bool) or not isinstance(subject, int) or subject < 0
        ):
            raise InvalidInput("subject", "must be a label index (0, 1, ...) or a callable")
        self.memory = memory
        self.ttl_config = ttl
        self._subject_rule = subject
        self._fields = _index_fields(index)
        self._records = Records(memory, KIND)
        self._lock = threading.RLock()
        self._enrolled: set[str] = set()

    # -- the BaseStore protocol -----------------------------------------------------------

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run operations in order; writes apply after the reads, last write per key wins.

        This is ``InMemoryStore``'s batch semantics: every read in a batch sees the store
        as it was before the batch.
        """
        ops = list(ops)
        for op in ops:
            validate_op_namespace(op)
        with self._lock:
            results: list[Result] = []
            writes: dict[tuple[Namespace, str], PutOp] = {}
            for op in ops:
                if isinstance(op, PutOp):
                    writes[op.namespace, op.key] = op
                    results.append(None)
                else:
                    results.append(self._read(op))
            for write in writes.values():
                self._write(write)
            return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """:meth:`batch` in a worker thread (memlane's storage calls block)."""
        return await asyncio.to_thread(self.batch, list(ops))

    def get(
        self,
        namespace: tuple[str, ...],
        key: str,
        *,
        refresh_ttl: bool | None = None,
        known_at: TimeInput | None = None,
    ) -> Item | None:
        """The item, or ``None``; with ``known_at``, the item as the store held it then.

        >>> store.get(("u-1", "memories"), "m1", known_at="2026-03-01T12:00:00Z")
        ... # doctest: +SKIP

        An as-of read never refreshes a TTL.
        """
        if known_at is None:
            return super().get(namespace, key, refresh_ttl=refresh_ttl)
        validate_op_namespace(GetOp(namespace, str(key)))
        subject = self._subject_of(namespace)
        if subject is None:
            return None
        with self._lock:
            fact = self._records.read(subject, address(*namespace, str(key)), known_at=known_at)
        return None if fact is None else _Entry.of(fact).item()

    async def aget(
        self,
        namespace: tuple[str, ...],
        key: str,
        *,
        refresh_ttl: bool | None = None,
        known_at: TimeInput | None = None,
    ) -> Item | None:
        """Async :meth:`get`, ``known_at`` included."""
        if known_at is None:
            return await super().aget(namespace, key, refresh_ttl=refresh_ttl)
        return await asyncio.to_thread(self.get, namespace, key, known_at=known_at)

    # -- reads ----------------------------------------------------------------------------

    def _read(self, op: Op) -> Result:
        if isinstance(op, GetOp):
            return self._get(op)
        if isinstance(op, SearchOp):
            return self._search(op)
        if isinstance(op, ListNamespacesOp):
            conditions = [(c.match_type, c.path) for c in op.match_conditions or ()]
            namespaces = {entry.namespace for entry in self._entries(())}
            return list_namespaces(namespaces, conditions, op.max_depth, op.limit, op.offset)
        raise InvalidInput("ops", f"unknown operation {type(op).__name__}")

    def _get(self, op: GetOp) -> Item | None:
        subject = self._subject_of(op.namespace)
        if subject is None:
            return None
        fact = self._records.read(subject, address(*op.namespace, op.key))
        if fact is None or fact.value.get("type") != "item":
            return None
        entry = _Entry.of(fact)
        if op.refresh_ttl:
            self._refresh(entry)
        return entry.item()

    def _search(self, op: SearchOp) -> list[SearchItem]:
        found = [e for e in self._entries(op.namespace_prefix) if matches(e.value, op.filter)]
        scored: list[tuple[_Entry, float | None]] = (
            self._rank(found, op.query)
            if op.query and self._fields is not None
            else [(entry, None) for entry in found]
        )
        page = scored[op.offset : op.offset + op.limit]
        if op.refresh_ttl:
            for entry, _ in page:
                self._refresh(entry)
        return [entry.search_item(score) for entry, score in page]

    def _rank(self, found: list[_Entry], query: str) -> list[tuple[_Entry, float | None]]:
        """Hits of memlane's hybrid search first, by score; the rest in store order."""
        if not found:
            return []
        subjects = {entry.subject for entry in found}
        scope = next(iter(subjects)) if len(subjects) == 1 else None
        hits = self.memory.summaries.search_notes(scope, query, k=MAX_K)
        note_scores = {hit.note.id: hit.score for hit in hits}
        scored = [
            (entry, max((note_scores[n] for n in entry.notes if n in note_scores), default=None))
            for entry in found
        ]
        hit = sorted(
            ((e, s) for e, s in scored if s is not None), key=lambda pair: -(pair[1] or 0.0)
        )
        return [*hit, *((e, s) for e, s in scored if s is None)]

    def _entries(self, prefix: Namespace) -> list[_Entry]:
        """Current items under ``prefix``, in creation order (namespace first)."""
        subject = self._subject_under(prefix)
        facts = self._records.scan_many([subject] if subject is not None else self._subjects())
        since: dict[Namespace, datetime] = {}
        entries: list[_Entry] = []
        for fact in facts:
            payload = fact.value
            if not isinstance(payload, dict):
                continue
            namespace = tuple(payload.get("namespace", ()))
            if payload.get("type") == "namespace":
                since[namespace] = fact.tx_from
            elif payload.get("type") == "item" and namespace[: len(prefix)] == prefix:
                entries.append(_Entry.of(fact))
        oldest: dict[Namespace, datetime] = {}  # ranks a namespace whose marker was lost
        for entry in entries:
            oldest[entry.namespace] = min(
                oldest.get(entry.namespace, entry.created_at), entry.created_at
            )
        since = {**oldest, **since}
        return sorted(entries, key=lambda e: (since[e.namespace], e.created_at, e.key))

    def _subjects(self) -> list[str]:
        listed = self.memory.facts.get_all(CATALOG_SUBJECT, CATALOG_ATTRIBUTE)
        return sorted({str(fact.value) for fact in listed} | self._enrolled)

    # -- writes ---------------------------------------------------------------------------

    def _write(self, op: PutOp) -> None:
        subject = self._subject_for_write(op.namespace)
        name = address(*op.namespace, op.key)
        if op.value is None:
            self._records.remove(subject, name)
            return
        if not isinstance(op.value, Mapping):
            raise InvalidInput("value", f"must be a mapping, got {type(op.value).__name__}")
        value = json.loads(canonical_json(dict(op.value)))
        ttl = _checked_ttl(op.ttl)
        fact = self._records.read(subject, name)
        current = _Entry.of(fact) if fact is not None else None
        now = self._records.now()
        notes, indexed = self._index(subject, name, value, op.index, current, now)
        payload = {
            "type": "item",
            "namespace": list(op.namespace),
            "key": op.key,
            "value": value,
            # A new item's creation is its first version's valid_from: known once written.
            "created_at": None if current is None else current.created_at.isoformat(),
            "ttl": ttl,
            "notes": list(notes),
            "indexed": indexed,
        }
        self._enroll(subject, op.namespace)
        self._records.write(subject, name, payload, valid_to=_expiry(now, ttl))

    def _refresh(self, entry: _Entry) -> None:
        """Restart an item's TTL: the same version, valid longer (the versions coalesce)."""
        if entry.ttl is None:
            return
        name = address(*entry.namespace, entry.key)
        expiry = _expiry(self._records.now(), entry.ttl)
        self._records.write(entry.subject, name, entry.stored, valid_to=expiry)

    def _index(
        self,
        subject: str,
        name: str,
        value: dict[str, Any],
        index: Literal[False] | list[str] | None,
        current: _Entry | None,
        now: datetime,
    ) -> tuple[tuple[int, ...], str | None]:
        """Notes for the item's indexed texts: kept when the texts did not change."""
        texts = self._texts(value, index)
        if not texts:
            return (), None
        indexed = hashlib.sha256(canonical_json(texts).encode("utf-8")).hexdigest()[:16]
        if current is not None and current.indexed == indexed:
            return current.notes, indexed
        summaries = self.memory.summaries
        notes = tuple(
            summaries.add_note(
                subject, text, at=now, source=KIND, provenance=(f"{KIND}:{name}",)
            ).id
            for text in texts
        )
        return notes, indexed

    def _texts(self, value: dict[str, Any], index: Literal[False] | list[str] | None) -> list[str]:
        if self._fields is None or index is False:
            return []
        paths: list[str | list[str]] = (
            self._fields if index is None else [tokenize_path(path) for path in index]
        )
        texts = [text for path in paths for text in get_text_at_path(value, path)]
        return list(dict.fromkeys(text for text in texts if text.strip()))

    def _enroll(self, subject: str, namespace: Namespace) -> None:
        """List the subject in the catalog, and mark when the namespace first held an item."""
        if subject not in self._enrolled:
            facts = self.memory.facts
            facts.define(CATALOG_ATTRIBUTE, cardinality="many")
            facts.add(CATALOG_SUBJECT, CATALOG_ATTRIBUTE, subject, source=KIND)
            self._enrolled.add(subject)
        marker = "namespace" + address(*namespace)
        if self._records.read(subject, marker) is None:
            self._records.write(subject, marker, {"type": "namespace", "namespace": namespace})

    # -- subjects -------------------------------------------------------------------------

    def _subject_under(self, prefix: Namespace) -> str | None:
        """The subject every item under ``prefix`` belongs to, if the labels name it."""
        rule = self._subject_rule
        if isinstance(rule, int):
            return prefix[rule] if len(prefix) > rule else None
        return None  # a callable needs the whole namespace: every subject is a candidate

    def _subject_of(self, namespace: Namespace) -> str | None:
        """The subject of an item in ``namespace``; ``None`` if it cannot hold items."""
        try:
            return self._subject_for_write(namespace)
        except InvalidInput:
            return None

    def _subject_for_write(self, namespace: Namespace) -> str:
        rule = self._subject_rule
        if isinstance(rule, int):
            if len(namespace) <= rule:
                raise InvalidInput(
                    "namespace",
                    f"{namespace!r} needs at least {rule + 1} labels: label {rule} names the "
                    "memlane subject",
                )
            subject = namespace[rule]
        else:
            subject = rule(namespace)
        if subject == CATALOG_SUBJECT:
            raise InvalidInput("namespace", f"subject {CATALOG_SUBJECT!r} is reserved")
        return subject


def _index_fields(
    index: Mapping[str, Any] | Literal[False] | None,
) -> list[str | list[str]] | None:
    if index is False:
        return None
    config = dict(index or {})
    unknown = set(config) - {"fields", "dims", "embed"}
    if unknown or "embed" in config:
        raise InvalidInput(
            "index", "takes only 'fields': memlane embeds with the memory's own embedder"
        )
    fields: Sequence[str] = config.get("fields") or ["$"]
    if isinstance(fields, str) or not all(isinstance(f, str) for f in fields):
        raise InvalidInput("index", "'fields' must be a list of paths such as 'text'")
    return [tokenize_path(field) if field != "$" else field for field in fields]


def _checked_ttl(ttl: float | None) -> float | None:
    if ttl is None:
        return None
    if isinstance(ttl, bool) or not isinstance(ttl, int | float) or not 0 < ttl <= MAX_TTL_MINUTES:
        raise InvalidInput(
            "ttl", f"must be minutes above 0, at most {MAX_TTL_MINUTES}, or None; got {ttl!r}"
        )
    return float(ttl)


def _expiry(now: datetime, ttl: float | None) -> datetime | None:
    return None if ttl is None else now + timedelta(minutes=ttl)
