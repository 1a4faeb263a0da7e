"""A long note's text work in a child process, so that it never holds the server's interpreter.

CPython runs the Python of one thread at a time. Reading a note of ``MAX_NOTE_CHARS``
characters for its facts (extraction) and for what recall needs of it (its keys: words,
claims, slots, terms) is some 200–300 ms of pure Python. Paced (:mod:`memlane.pacing`), it
still takes the interpreter from every other request of the process a few milliseconds at
a time, and each time a request's thread comes back from the database it waits for the
writer to hand the interpreter over: a recall beside such a write took 50–100 ms longer.

With ``indexing="process"`` (what ``memlane serve`` runs), a note of :data:`LONG_NOTE_CHARS`
or more is read by :class:`TextProcess`: one child interpreter that runs the same pure
functions (the rule extractor and ``note_keys``) on the text and sends back what they
return. The request's thread waits for the answer without holding the interpreter or any
lock, then stores the note, its keys and its facts as before: ``remember`` still returns
after the note is readable. Only the text, its time and the results cross the pipe.

A session's long user turn (up to ``MAX_TURN_CHARS``, 100,000 characters: some 2 s of
extraction, atomic notes and their keys) is read there too (:meth:`TextProcess.read_turn`),
and so are folds of long rounds into a session's summary with the offline summarizer
(:meth:`TextProcess.fold`, about 1 s for such a turn): the session stores what comes back,
in the same order and under the same locks as before, so the turn is recallable when
``add`` returns and the summary is there when ``close`` returns.

What the child cannot do is done in the caller, as without it: an extractor other than the
rule extractor (a model's calls are I/O, and its client stays in the parent), a child that
failed to start or died (the next long note starts another). An extractor's
``InvalidInput`` is raised in the caller as the same error.

The child is a fresh interpreter (``subprocess``) at niceness :data:`TEXT_NICE`; like the
embedding child it imports no ``__main__``, inherits no lock, and exits when its pipe closes.
"""

from __future__ import annotations

import contextlib
import logging
import os
import subprocess
import threading
from collections.abc import Sequence
from datetime import datetime, tzinfo
from multiprocessing.connection import Connection
from multiprocessing.reduction import ForkingPickler
from typing import Any

from memlane.embed.process import start_child, supported
from memlane.errors import InvalidInput
from memlane.extract.model import Extractor
from memlane.extract.rules import RuleExtractor
from memlane.ingest import ReadNote, ReadTurn
from memlane.router.evidence import note_keys
from memlane.summaries.model import SummaryContent
from memlane.summaries.notes import extract_notes
from memlane.summaries.offline import OfflineSummarizer
from memlane.summaries.summarizer import Summarizer
from memlane.window.model import Turn

log = logging.getLogger(__name__)

LONG_NOTE_CHARS = 2_000
"""Notes at least this long are read in the child: below it the work is a few milliseconds
(about 12 ms per 1,000 characters), less than the round trip is worth."""
TEXT_NICE = 10
"""The child's niceness. Where a core is free it makes no difference; on a busy machine the
server's own threads (niceness 0) go first, so the note waits rather than the requests."""
ANSWER_SECONDS = 60.0
"""How long a call waits for the child's answer; then the child is killed and the request
reads the note itself (a 20,000-character note takes the child 0.2–0.3 s at load 19)."""
STOP_SECONDS = 2.0
"""How long :meth:`TextProcess.close` lets the child end before killing it."""
_READ, _INVALID, _FAILED = range(3)
"""What the child answers: the work's result, the extractor's ``InvalidInput``, another error."""
_NOTE, _TURN, _FOLD = range(3)
"""What a job asks of the child: :func:`read_note`, :func:`read_turn`, :func:`fold`."""
_CHILD = """
import sys
from memlane.textwork import main
main(sys.argv[1:])
"""


def read_note(
    extractor: Extractor | None,
    subject: str,
    text: str,
    stored: str,
    at: datetime,
    timezone: tzinfo,
    provenance: Sequence[str],
) -> ReadNote:
    """The pure text work of ``remember``: the facts of ``text``, the keys of ``stored``.

    ``extractor`` ``None``: no extraction (the caller's extractor does it).

    >>> from datetime import UTC, datetime
    >>> read = read_note(RuleExtractor(), "U-1", "I live in Lyon", "I live in Lyon",
    ...                  datetime(2026, 5, 1, tzinfo=UTC), UTC, ("remember",))
    >>> [(op.attribute, op.value) for op in read.extraction.ops], ("c", "|location") in read.keys
    ([('location', 'Lyon')], True)
    """
    extraction = None if extractor is None else extractor.extract(text, at=at, timezone=timezone)
    return ReadNote(extraction, note_keys(subject, stored, provenance))


def read_turn(extractor: Extractor | None, turn: Turn, timezone: tzinfo) -> ReadTurn:
    """The facts of a user turn, its atomic notes and each note's keys.

    ``extractor`` ``None``: no extraction (the caller's extractor does it).
    """
    extraction = (
        None
        if extractor is None
        else extractor.extract(turn.content, at=turn.at, timezone=timezone)
    )
    drafts = extract_notes(turn, timezone=timezone, speaker_name=turn.speaker)
    provenance = (turn.id,)
    return ReadTurn(
        extraction, [(d.text, note_keys(turn.subject, d.text, provenance)) for d in drafts]
    )


def fold(
    summarizer: Summarizer, previous: SummaryContent | None, turns: Sequence[Turn]
) -> SummaryContent:
    """``summarizer.update(previous, turns)``: the rounds folded into a session's summary."""
    return summarizer.update(previous, list(turns))


class TextProcess:
    """One child process that reads long notes (:func:`read_note`); started on first use.

    Calls are served one at a time. It is a :class:`~memlane.ingest.NoteReader`: a call
    answers ``None`` (the caller reads the note itself) for a short note, where there are no
    POSIX pipes, or when the child could not start or died during the call.

    Example:
        >>> worker = TextProcess()  # doctest: +SKIP
        >>> worker(RuleExtractor(), "U-1", long_text, long_text, at=now, timezone=UTC,
        ...        provenance=("remember",)).keys[:1]  # doctest: +SKIP
        [('n', '')]
        >>> worker.close()  # doctest: +SKIP
    """

    def __init__(
        self,
        *,
        min_chars: int = LONG_NOTE_CHARS,
        nice: int = TEXT_NICE,
        answer_seconds: float = ANSWER_SECONDS,
    ) -> None:
        self.min_chars = min_chars
        self.nice = nice
        self.answer_seconds = answer_seconds
        self._calls = threading.Lock()  # one call at a time; held while the child starts
        self._state = threading.Lock()  # guards the child's handles (close may race a call)
        self._child: subprocess.Popen[bytes] | None = None
        self._requests: Connection | None = None
        self._answers: Connection | None = None
        self._closed = not supported()
        self.starts = 0
        """How many children were started (more than 1: some died or were killed)."""
        self.reads = 0
        """How many notes the child read."""
        self.turns = 0
        """How many user turns the child read."""
        self.folds = 0
        """How many folds of rounds into a session summary the child made."""
        self.pid: int | None = None
        """The running child's process id, ``None`` before the first call and after close."""

    def __call__(
        self,
        extractor: Extractor,
        subject: str,
        text: str,
        stored: str,
        *,
        at: datetime,
        timezone: tzinfo,
        provenance: Sequence[str],
    ) -> ReadNote | None:
        """The note read in the child, or ``None`` (read it in the caller; see the class).

        Raises:
            InvalidInput: the extractor refused the input (as it would in the caller).
        """
        if len(text) < self.min_chars or self._closed:
            return None
        # Only the rule extractor is pure and cheap to send; another runs in the caller.
        sent = extractor if type(extractor) is RuleExtractor else None
        answer = self._ask((_NOTE, sent, subject, text, stored, at, timezone, tuple(provenance)))
        if answer is None:
            return None
        self.reads += 1
        read: ReadNote = answer
        return read

    def read_turn(self, extractor: Extractor, turn: Turn, *, timezone: tzinfo) -> ReadTurn | None:
        """A long user turn read in the child (:func:`read_turn`), or ``None`` (read it here).

        The same rules as a note's: a short turn, no pipes, a child that could not start or
        died, an extractor other than the rule extractor (then only the notes are read
        there and ``extraction`` is ``None``).

        Raises:
            InvalidInput: the extractor refused the turn (as it would in the caller).
        """
        if len(turn.content) < self.min_chars or self._closed:
            return None
        sent = extractor if type(extractor) is RuleExtractor else None
        answer = self._ask((_TURN, sent, turn, timezone))
        if answer is None:
            return None
        self.turns += 1
        read: ReadTurn = answer
        return read

    def fold(
        self, summarizer: Summarizer, previous: SummaryContent | None, turns: Sequence[Turn]
    ) -> SummaryContent | None:
        """Rounds of at least ``min_chars`` folded in the child (:func:`fold`), or ``None``.

        Only the offline summarizer is sent (a model's summarizer calls out: it stays in the
        caller, which then folds as before).
        """
        if sum(len(turn.content) for turn in turns) < self.min_chars or self._closed:
            return None
        if type(summarizer) is not OfflineSummarizer:
            return None
        answer = self._ask((_FOLD, summarizer, previous, tuple(turns)))
        if answer is None:
            return None
        self.folds += 1
        content: SummaryContent = answer
        return content

    def _ask(self, job: tuple[Any, ...]) -> Any:
        """Send ``job`` to the child and return its result; ``None``: do the work here.

        Raises:
            InvalidInput: the child's work raised it.
        """
        try:  # a time zone of the caller's own class may not cross: then it is read here
            sent = ForkingPickler.dumps(job)
        except Exception:  # whatever pickling raises, it cannot be sent
            return None
        with self._calls:
            connections = self._started()
            if connections is None:
                return None
            requests, answers = connections
            try:
                requests.send_bytes(sent)
                if not answers.poll(self.answer_seconds):
                    log.warning("the text process did not answer in time: stopped, read here")
                    self._reap(kill=True)
                    return None
                kind, *payload = answers.recv()
            except (EOFError, OSError, ValueError) as error:
                log.warning("the text process ended during a call (%s): read here", error)
                self._reap()
                return None
        if kind == _INVALID:
            raise InvalidInput(payload[0], payload[1])
        if kind != _READ:
            log.warning("the text process failed (%s): read here", payload[0])
            return None
        return payload[0]

    def start(self) -> None:
        """Start the child now (in the calling thread), not with the first long note."""
        with self._calls:
            self._started()

    def close(self) -> None:
        """Stop the child; later calls answer ``None``. Idempotent."""
        with self._state:
            self._closed = True
        self._reap()

    def _started(self) -> tuple[Connection, Connection] | None:
        """The running child's pipes, a new child's if none runs; ``None`` if it cannot."""
        with self._state:
            if self._closed:
                return None
            if self._child is not None and self._requests and self._answers:
                return self._requests, self._answers
        try:
            child, requests, answers = start_child(_CHILD, str(self.nice))
        except OSError as error:
            log.warning("no text process (%s): long notes are read in the request", error)
            with self._state:
                self._closed = True
            return None
        with self._state:
            self._child, self._requests, self._answers = child, requests, answers
            self.pid = child.pid
            self.starts += 1
            closed = self._closed
        if closed:  # closed while it started (the memory closed before its first long note)
            self._reap()
            return None
        return requests, answers

    def _reap(self, *, kill: bool = False) -> None:
        """End the child, if any (politely, or at once with ``kill``), and forget it."""
        with self._state:
            child, requests, answers = self._child, self._requests, self._answers
            self._child = self._requests = self._answers = None
            self.pid = None
        if child is None:
            return
        if requests is not None:
            requests.close()  # the child reads end of file and exits
        if kill:
            child.kill()
        try:
            child.wait(timeout=STOP_SECONDS)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
        if answers is not None:
            answers.close()


# -- the child ------------------------------------------------------------------------------


def main(arguments: Sequence[str]) -> None:
    """The child: read jobs from the first pipe, answer on the second, until end of file."""
    requests = Connection(int(arguments[0]), writable=False)
    answers = Connection(int(arguments[1]), readable=False)
    with contextlib.suppress(OSError):  # refused (a sandbox): the child runs as it is
        os.nice(max(0, int(arguments[2]) - os.nice(0)))
    with contextlib.suppress(EOFError, BrokenPipeError, KeyboardInterrupt):
        while True:
            answers.send(_answer(requests.recv()))


def _answer(job: tuple[Any, ...]) -> tuple[Any, ...]:
    work, *arguments = job
    try:
        if work == _TURN:
            return (_READ, read_turn(*arguments))
        if work == _FOLD:
            return (_READ, fold(*arguments))
        return (_READ, read_note(*arguments))
    except InvalidInput as error:
        return (_INVALID, error.field, str(error).removeprefix(f"{error.field}: "))
    except Exception as error:  # the parent reads the note itself, and sees the error there
        return (_FAILED, f"{type(error).__name__}: {error}")
