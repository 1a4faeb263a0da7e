"""A running conversation: window, extraction and summary folding for one session.

``Memory.session(subject, session_id, window=N)`` returns a :class:`Session`. Each turn is
added to the window; user turns are also run through the extractor (facts go to the exact
lane) and the note extractor (notes go to the summary lane), with the turn as provenance.
Rounds pushed out of the window — and, at :meth:`Session.close`, the rest — are folded into
the session summary, so nothing is lost before it is summarized.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from datetime import datetime, timedelta, tzinfo
from typing import get_args

from memlane import validation
from memlane.errors import InvalidInput, MemlaneError
from memlane.extract.model import Extractor
from memlane.ingest import FactIngester, TurnReader
from memlane.storage.base import SummaryStore
from memlane.summaries.lane import SummariesLane
from memlane.summaries.model import Summary
from memlane.summaries.notes import extract_notes
from memlane.summaries.storyline import merge_storyline
from memlane.summaries.summarizer import Summarizer
from memlane.timeutil import Clock, TimeInput, checked_now, parse_instant
from memlane.validation import MAX_TURN_CHARS as MAX_TURN_CHARS  # re-exported for importers
from memlane.window.base import SharedWindow, Window
from memlane.window.buffer import WindowBuffer
from memlane.window.model import Role, Turn

log = logging.getLogger("memlane.session")

_TURN_NUMBER = re.compile(r"#(\d+)$")


class SessionClosed(InvalidInput):
    """A turn came to a closed session; it was not added."""

    def __init__(self, session_id: str) -> None:
        super().__init__("session", f"session {session_id!r} is closed")


@dataclass(frozen=True, slots=True)
class SessionServices:
    """What a session needs from its memory: lanes, models, time."""

    summaries: SummariesLane
    ingester: FactIngester
    extractor: Extractor
    summarizer: Summarizer
    clock: Clock
    timezone: tzinfo
    on_close: Callable[[Session], None]
    retain: SummaryStore | None
    tenant: str
    # (subject, session_id, rounds) -> window; None keeps windows in process memory.
    window_factory: Callable[[str, str, int], Window] | None = None
    # subject -> a lock held while its storyline is read, merged and written (no model call).
    storyline_lock: Callable[[str], AbstractContextManager[None]] = lambda _: nullcontext()
    # Around reading a turn and folding rounds: long work there lets other requests go
    # first at each step (memlane.pacing).
    pace: Callable[[], AbstractContextManager[None]] = nullcontext
    # Where long turns and long folds are read (memlane.textwork); None: in this interpreter.
    text: TurnReader | None = None


class Session:
    """One conversation of one subject. Create it with ``Memory.session``.

    Safe to share between threads. Turns are numbered in the order they arrive and enter the
    window in that order; extraction (which may call a model) runs outside every lock, so
    turns of one session are extracted in parallel. Rounds leaving the window are folded by
    one thread at a time, also outside the lock, while the others go on; :meth:`close` waits
    for the turns in flight and the folds under way, then folds the rest.
    """

    def __init__(
        self,
        services: SessionServices,
        subject: str,
        session_id: str,
        window: int,
        *,
        provisional: bool = False,
    ) -> None:
        self._services = services
        self.subject = subject
        self.session_id = session_id
        factory = services.window_factory
        self._window: Window = (
            WindowBuffer(window) if factory is None else factory(subject, session_id, window)
        )
        # A shared window (Redis) numbers turns and orders folds across worker processes.
        self._shared = self._window if isinstance(self._window, SharedWindow) else None
        self._summary = services.summaries.for_session(session_id, subject)
        self._turns_seen = _last_turn_number(self._summary)
        self.last_active = checked_now(services.clock)
        self._closed = False
        # Opened by a first turn, dropped again if no turn gets in (see abandon).
        self._provisional = provisional
        self._abandoned = False
        # A shared session closed by any worker is closed for this handle too.
        self._close_mark = None if self._shared is None else self._shared.close_mark()
        # Guards the fields below and the window; never held while a model runs.
        self._changed = threading.Condition(threading.Lock())
        self._issued = 0  # turns numbered so far in this handle
        self._placed = 0  # of those, turns that entered the window (or failed)
        self._failed = 0  # of those, turns that failed
        self._unfolded: list[Turn] = []  # rounds out of the window, not folded yet
        self._folding = False  # a thread is folding
        self._closing = False

    @property
    def closed(self) -> bool:
        """True once this session was closed, here or (shared windows) on another worker."""
        if not self._closed and self._shared is not None:
            self._closed = self._shared.close_mark() != self._close_mark
        return self._closed

    def add(
        self, role: Role, content: str, at: TimeInput | None = None, *, speaker: str | None = None
    ) -> Turn:
        """Add a turn; user turns are extracted into facts and notes at once.

        >>> s.add("user", "我上周搬到北京了，新手机号 139-1111-2222")  # doctest: +SKIP
        Turn(id='s-42#1', role='user', ...)

        Raises:
            InvalidInput: unknown role, empty or huge content, bad time.
            SessionClosed: the session is closed (an ``InvalidInput``).
        """
        with self._changed:
            self._check_open()
            turn = self._turn(role, content, at, speaker)
            ticket = self._issued
            self._issued += 1
        placed = False
        try:
            if self._services.retain is not None:
                self._services.retain.put_turn(self._services.tenant, turn)
            if role == "user":
                with self._services.pace():
                    self._extract(turn)
            placed = True
        finally:
            evicted = self._place(turn if placed else None, ticket)
        if evicted:
            self._fold(evicted)
        return turn

    def window(self) -> list[Turn]:
        """The turns kept verbatim, oldest first: the last ``window`` rounds."""
        with self._changed:
            return self._window.turns()

    @property
    def summary(self) -> Summary | None:
        """The latest version of this session's summary."""
        return self._summary

    def close(self) -> Summary | None:
        """Fold what is left into the summary, update the storyline, drop the window.

        Turns in flight are let in first; a second ``close`` meanwhile waits for the first.
        """
        with self._changed:
            while self._closing:
                self._changed.wait()
            if self.closed:
                return self._summary
            self._closing = True
            while self._placed < self._issued:
                self._changed.wait()
            rest = self._window.drain()
        try:
            self._fold(rest)
            self._await_folds()
            self._fold([])  # what a failed fold of another thread left behind, if anything
            if self._shared is not None:  # other workers may have folded rounds of the session
                self._summary = self._services.summaries.for_session(self.session_id, self.subject)
                self._shared.mark_closed()
            self._closed = True
        finally:
            with self._changed:
                self._closing = False
                self._changed.notify_all()
        if self._summary is not None:
            with self._services.storyline_lock(self.subject), self._services.pace():
                self._extend_storyline(self._summary)
        self._services.on_close(self)
        return self._summary

    @property
    def abandoned(self) -> bool:
        """True once :meth:`abandon` dropped this session (its first turns all failed)."""
        return self._abandoned

    def keep(self) -> bool:
        """Keep this session open even if the turn that opened it fails (it was asked for).

        Returns ``False`` if it was abandoned already: open the session again.
        """
        with self._changed:
            self._provisional = False
            return not self._abandoned

    def abandon(self) -> bool:
        """Drop this session if a first turn opened it and no turn got in; return whether it did.

        "Got in" counts a turn still on its way (extracted while this runs): it keeps the
        session. Atomic with :meth:`add`: a turn either gets in first, or finds the session
        closed and :attr:`abandoned` set, and opens a new one.
        """
        with self._changed:
            unused = self._issued == self._failed and not self._window.turns()
            if not self._provisional or not unused or self._closing or self.closed:
                return False
            self._closed = self._abandoned = True
        self._services.on_close(self)
        return True

    def discard(self) -> None:
        """Drop the window without folding it (the subject was forgotten)."""
        with self._changed:
            self._window.drain()
            self._unfolded.clear()
            self._closed = True
        self._services.on_close(self)

    def scrub(self, mentions: Callable[[str], bool]) -> int:
        """Remove every turn whose text ``mentions`` forgotten values (window and fold queue)."""
        with self._changed:
            kept = [turn for turn in self._unfolded if not mentions(turn.content)]
            dropped = len(self._unfolded) - len(kept)
            self._unfolded[:] = kept
            return dropped + self._window.remove(lambda turn: mentions(turn.content))

    # -- internals ----------------------------------------------------------------------

    def _check_open(self) -> None:
        if self._closing or self.closed:
            raise SessionClosed(self.session_id)

    def _turn(self, role: Role, content: str, at: TimeInput | None, speaker: str | None) -> Turn:
        if role not in get_args(Role):
            raise InvalidInput("role", f"must be one of {', '.join(get_args(Role))}, got {role!r}")
        validation.text("content", content, MAX_TURN_CHARS)
        validation.optional_name("speaker", speaker)
        services = self._services
        when = (
            checked_now(services.clock)
            if at is None
            else parse_instant(at, services.timezone, "at")
        )
        if self._shared is not None:
            self._turns_seen = self._shared.next_turn_number(self._turns_seen)
        else:
            self._turns_seen += 1
        turn_id = f"{self.session_id}#{self._turns_seen}"
        return Turn(turn_id, self.session_id, self.subject, role, content, when, speaker)

    def _extract(self, turn: Turn) -> None:
        services = self._services
        try:
            read = (
                None
                if services.text is None
                else services.text.read_turn(services.extractor, turn, timezone=services.timezone)
            )
            extraction = None if read is None else read.extraction
            if extraction is None:
                extraction = services.extractor.extract(
                    turn.content, at=turn.at, timezone=services.timezone
                )
        except MemlaneError as error:  # an extractor must not break the conversation
            log.warning("extraction failed on %s: %s", turn.id, type(error).__name__)
            return
        services.ingester.apply(
            self.subject, extraction, at=turn.at, provenance=(turn.id,), source=f"chat:{turn.id}"
        )
        # Each note with its keys when they were made elsewhere (None: the lane makes them).
        notes: list[tuple[str, list[tuple[str, str]] | None]] = (
            [
                (draft.text, None)
                for draft in extract_notes(
                    turn, timezone=services.timezone, speaker_name=turn.speaker
                )
            ]
            if read is None
            else list(read.notes)
        )
        drafted = {text for text, _ in notes}
        notes += [(note, None) for note in extraction.notes if note not in drafted]
        services.summaries.add_turn_notes(
            self.subject,
            notes,
            at=turn.at,
            session_id=self.session_id,
            source=f"chat:{turn.id}",
            provenance=(turn.id,),
        )

    def _place(self, turn: Turn | None, ticket: int) -> list[Turn]:
        """Put ``turn`` (``None``: it failed) in the window after the turns before it."""
        with self._changed:
            while self._placed != ticket:
                self._changed.wait()
            try:
                if turn is None:
                    self._failed += 1
                    return []
                evicted = self._window.append(turn)
                self.last_active = checked_now(self._services.clock)
                if self._shared is not None:  # so other workers do not take it for idle
                    self._shared.mark_active(self.last_active)
                return evicted
            finally:
                self._placed += 1
                self._changed.notify_all()

    def _fold(self, turns: Sequence[Turn]) -> None:
        """Queue ``turns`` for folding; fold the queue unless another thread is doing so."""
        with self._changed:
            self._unfolded.extend(turns)
            if self._folding or not self._unfolded:
                return
            self._folding = True
        try:
            while batch := self._next_batch():
                try:
                    with self._fold_lock(), self._services.pace():
                        self._fold_locked(batch)
                except BaseException:
                    with self._changed:  # kept for the next fold or the close
                        self._unfolded[:0] = batch
                    raise
        finally:
            with self._changed:
                self._folding = False
                self._changed.notify_all()

    def _next_batch(self) -> list[Turn]:
        with self._changed:
            batch, self._unfolded = self._unfolded, []
            return batch

    def _await_folds(self) -> None:
        with self._changed:
            while self._folding:
                self._changed.wait()

    def _extend_storyline(self, summary: Summary) -> None:
        """Merge ``summary`` into the subject's storyline (a new version of it)."""
        summaries = self._services.summaries
        storyline = summaries.storyline(self.subject)
        merged = merge_storyline(None if storyline is None else storyline.content, summary.content)
        period_from = summary.period_from
        if storyline is not None:
            period_from = min(period_from, storyline.period_from)
        provenance = (*(() if storyline is None else storyline.provenance), *summary.provenance)
        summaries.record(
            self.subject,
            None,
            merged,
            (period_from, summary.period_to),
            tuple(dict.fromkeys(provenance)),
        )

    def _fold_lock(self) -> AbstractContextManager[None]:
        return nullcontext() if self._shared is None else self._shared.fold_lock()

    def _fold_locked(self, turns: Sequence[Turn]) -> None:
        services = self._services
        if self._shared is not None:  # extend the latest version, whichever worker wrote it
            self._summary = services.summaries.for_session(self.session_id, self.subject)
        previous = self._summary
        before = None if previous is None else previous.content
        content = (
            None
            if services.text is None
            else services.text.fold(services.summarizer, before, turns)
        )
        if content is None:
            content = services.summarizer.update(before, turns)
        period_from = turns[0].at if previous is None else min(previous.period_from, turns[0].at)
        period_to = turns[-1].at if previous is None else max(previous.period_to, turns[-1].at)
        provenance = (*(() if previous is None else previous.provenance), *(t.id for t in turns))
        self._summary = services.summaries.record(
            self.subject, self.session_id, content, (period_from, period_to), provenance
        )


def _last_turn_number(summary: Summary | None) -> int:
    """Continue turn numbering after the turns an earlier run of the session folded."""
    if summary is None:
        return 0
    numbers = [int(m.group(1)) for t in summary.provenance if (m := _TURN_NUMBER.search(t))]
    return max(numbers, default=0)


def idle_for(session: Session, now: datetime) -> timedelta:
    """How long a session has had no turn (from any worker, when its window is shared)."""
    last = session.last_active
    shared = session._shared.last_active() if session._shared is not None else None
    return now - (last if shared is None else max(last, shared))
