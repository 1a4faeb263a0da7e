"""Applying what an extractor found to the exact lane, without ever breaking a session.

Extraction runs on every user turn and every ``remember`` (the :class:`Remembering` flow);
its operations land in the exact lane with the turn (or the note) as provenance. An
operation the lane refuses (say the user defined ``phone`` as one-valued and the extractor
adds a second number) is logged and counted, and the turn goes on.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from typing import Any, Protocol

from memlane.errors import InvalidInput
from memlane.extract.model import AttributeSpec, Extraction, Extractor, FactOp
from memlane.facts.lane import FactsLane
from memlane.facts.model import Fact
from memlane.lang.words import mentions_value
from memlane.summaries.lane import SummariesLane
from memlane.summaries.model import Note, SummaryContent
from memlane.summaries.summarizer import Summarizer
from memlane.validation import MAX_LABEL_CHARS
from memlane.window.model import Turn

log = logging.getLogger("memlane.ingest")

MAX_REASONS = 100
"""Refusal reasons :class:`IngestStats` keeps (the latest)."""


@dataclass
class IngestStats:
    """Counters a developer can read to see what extraction did."""

    applied: int = 0
    rejected: int = 0
    reasons: list[str] = field(default_factory=list)
    """The latest :data:`MAX_REASONS` refusals."""


class FactIngester:
    """Turns :class:`Extraction` results into exact-lane writes for one memory handle."""

    def __init__(self, facts: FactsLane, specs: Sequence[AttributeSpec]) -> None:
        self._facts = facts
        self._specs = {spec.name: spec for spec in specs}
        self._defined: set[str] = set()
        self.stats = IngestStats()

    def apply(
        self,
        subject: str,
        extraction: Extraction,
        *,
        at: datetime,
        provenance: Sequence[str],
        source: str | None,
    ) -> list[Fact]:
        """Write every operation of ``extraction`` in one transaction; refused ones are skipped.

        The transaction locks the subject's batches and each key it writes, not every write
        (on PostgreSQL); the extractor's attributes are defined before it, in their own.
        """
        written: list[Fact] = []
        if not extraction.ops and not extraction.retracted:
            return written
        self._define_all(extraction.ops)
        with self._facts.batch(subject):
            for op in extraction.ops:
                fact = self._apply_one(subject, op, at, provenance, source)
                if fact is not None:
                    written.append(fact)
            for attribute, value in self._superseded(subject, extraction):
                retract = FactOp(
                    "retract", attribute, value, evidence="; ".join(extraction.retracted)
                )
                self._apply_one(subject, retract, at, provenance, source)
        return written

    def _superseded(self, subject: str, extraction: Extraction) -> list[tuple[str, Any]]:
        """Current values the text says no longer hold, or replaces with one of their kind.

        "我离开华为了" closes ``employer = 华为``; "new number 139…, the old one is out of use"
        closes the other phone numbers. Values the text itself states are kept, unless it
        takes them back ("please stop using a@example.com").
        """
        stated = [op for op in extraction.ops if op.kind != "retract"]
        replaced = (
            {op.attribute for op in stated if op.kind == "add"} if extraction.replaces else set()
        )
        found: list[tuple[str, Any]] = []
        for attribute, held in self._facts.profile(subject).items():
            for fact in held if isinstance(held, list) else [held]:
                named = any(mentions_value(old, fact.value) for old in extraction.retracted)
                if not named and any(
                    op.attribute == attribute and _same(op.value, fact.value) for op in stated
                ):
                    continue  # stated again, not taken back ("stop using X" states X too)
                if named or attribute in replaced:
                    found.append((attribute, fact.value))
        return found

    def _after_current(
        self, subject: str, op: FactOp, valid_from: datetime, at: datetime
    ) -> datetime:
        """When a new value begins: never before the value it replaces was stated.

        "I live in Shanghai" said on 1 March, then "I moved to Beijing last month" on 11 March:
        the move cannot have begun in February, when Shanghai was still said to hold; it is
        known from when it was said.
        """
        held = self._facts.get(subject, op.attribute)
        if held is None or _same(op.value, held.value) or held.valid_from <= valid_from:
            return valid_from
        return max(at, held.valid_from)

    def _apply_one(
        self,
        subject: str,
        op: FactOp,
        at: datetime,
        provenance: Sequence[str],
        source: str | None,
    ) -> Fact | None:
        try:
            self._ensure_defined(op.attribute)
            valid_from = op.valid_from or at
            # The evidence is a span of a turn; a reason is a label (MAX_LABEL_CHARS).
            reason = f"said: {op.evidence}"[:MAX_LABEL_CHARS] if op.evidence else None
            if op.kind == "retract":
                self._facts.retract(subject, op.attribute, valid_from, value=op.value)
                self.stats.applied += 1
                return None
            many = self._facts.definition(op.attribute).cardinality == "many"
            if not many:
                valid_from = self._after_current(subject, op, valid_from, at)
            write = self._facts.add if many else self._facts.set
            fact = write(
                subject,
                op.attribute,
                op.value,
                valid_from,
                source=source,
                reason=reason,
                confidence=op.confidence,
                provenance=provenance,
            )
        except InvalidInput as error:
            self.stats.rejected += 1
            self.stats.reasons.append(str(error))
            del self.stats.reasons[:-MAX_REASONS]  # a long-running server keeps the latest
            # Never the subject (nor the value): logs must not name whom memory is about.
            log.warning("extracted %s refused: %s", op.attribute, error.field)
            return None
        self.stats.applied += 1
        return fact

    def _define_all(self, ops: Sequence[FactOp]) -> None:
        """Define the attributes of ``ops`` first (a refused name is refused with its op)."""
        for op in ops:
            with contextlib.suppress(InvalidInput):
                self._ensure_defined(op.attribute)

    def _ensure_defined(self, attribute: str) -> None:
        """Define an extractor's attribute the first time it is used, unless already defined."""
        if attribute in self._defined:
            return
        spec = self._specs.get(attribute)
        current = self._facts.definition(attribute, fresh=True)
        undeclared = current.normalizer == "json" and current.cardinality == "one"
        if spec is not None and undeclared and (spec.identifier or spec.cardinality == "many"):
            try:
                self._facts.define(
                    attribute, cardinality=spec.cardinality, identifier=spec.identifier
                )
            except InvalidInput:
                # Data already exists under another definition: keep the user's choice.
                log.info("attribute %s keeps its existing definition", attribute)
        self._defined.add(attribute)


@dataclass(frozen=True, slots=True)
class ReadNote:
    """The pure text work of a note, done before it is stored (elsewhere, for a long one)."""

    extraction: Extraction | None
    """What the extractor found in the text; ``None``: left to the caller's extractor."""
    keys: list[tuple[str, str]]
    """What recall needs of the stored text (the summaries lane's keyer's pairs)."""


@dataclass(frozen=True, slots=True)
class ReadTurn:
    """The pure text work of a user turn (:meth:`memlane.session.Session.add`)."""

    extraction: Extraction | None
    """What the extractor found in the turn; ``None``: left to the caller's extractor."""
    notes: list[tuple[str, list[tuple[str, str]]]]
    """The turn's atomic notes (:func:`~memlane.summaries.notes.extract_notes`), each with
    the keys recall needs of it (``note_keys(subject, text, (turn.id,))``), in order. The
    extraction's own notes are not among them: the caller adds those it does not hold."""


class TurnReader(Protocol):
    """Reads a long user turn and folds long rounds outside the caller's interpreter.

    Either answers ``None`` where it declines: the caller does the work itself
    (:class:`memlane.textwork.TextProcess` is one).
    """

    def read_turn(self, extractor: Extractor, turn: Turn, *, timezone: tzinfo) -> ReadTurn | None:
        """The turn's facts, atomic notes and their keys, or ``None``."""
        ...

    def fold(
        self, summarizer: Summarizer, previous: SummaryContent | None, turns: Sequence[Turn]
    ) -> SummaryContent | None:
        """``summarizer.update(previous, turns)``, or ``None``."""
        ...


class NoteReader(Protocol):
    """Reads a note's text outside the caller's interpreter, or declines (``None``).

    ``text`` is what was said (extraction reads it), ``stored`` the note's text (its keys
    are made of it); ``extractor`` is the memory's, run there if it can be.
    """

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
        """The note read, or ``None``: the caller reads it itself."""
        ...


@dataclass(frozen=True, slots=True)
class Remembering:
    """The ``remember`` flow: a free-text statement becomes a note plus the facts it states.

    With a ``reader``, a long note's pure text work (extraction, the keys recall needs) may
    be done by it, in another process: the caller's interpreter only stores the result.
    """

    summaries: SummariesLane
    extractor: Extractor
    ingester: FactIngester
    timezone: tzinfo
    reader: NoteReader | None = None

    def remember(self, subject: str, text: str, *, at: datetime, source: str | None) -> Note:
        """Keep ``text`` (said at ``at``) as a searchable note; its facts cite the note."""
        label = source or "remember"
        stored = text.strip()
        read = None
        if self.reader is not None:
            read = self.reader(
                self.extractor,
                subject,
                text,
                stored,
                at=at,
                timezone=self.timezone,
                provenance=(label,),
            )
        extraction = read.extraction if read is not None else None
        if extraction is None:
            extraction = self.extractor.extract(text, at=at, timezone=self.timezone)
        note = self.summaries.add_note(
            subject,
            stored,
            at=at,
            source=label,
            provenance=(label,),
            keys=None if read is None else read.keys,
        )
        self.ingester.apply(
            subject, extraction, at=at, provenance=(f"note:{note.id}",), source=label
        )
        return note


def _same(written: object, stored: object) -> bool:
    """Whether a value as written is the stored one ("+86 199 5515 5428" is "8619955155428")."""
    return mentions_value(str(written), stored) or mentions_value(str(stored), written)
