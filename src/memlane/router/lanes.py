"""Reading each lane into candidates: subjects, exact facts, the window, summaries, workflows.

Every reader here only reads; judging and ranking happen in :mod:`memlane.router.adjudicate`.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from typing import Any, Protocol

from memlane.errors import InvalidInput
from memlane.extract import find_identifiers, resolve_times, time_interval
from memlane.facts.lane import FactsLane
from memlane.facts.model import Fact
from memlane.router.adjudicate import (
    TIER_ANSWER,
    TIER_PROFILE,
    TIER_SUMMARY,
    TIER_WINDOW,
    TIER_WORKFLOW,
    Candidate,
    Statement,
    SubjectFacts,
    note_candidate,
    origins,
    statement,
)
from memlane.router.analysis import IDENTIFIER_ATTRIBUTES, identifier_keys, literal_attributes
from memlane.router.model import IdentifierRef, QueryAnalysis, RecallItem, Status
from memlane.summaries.lane import SummariesLane
from memlane.summaries.model import Note, Summary
from memlane.window.model import Turn

MAX_SUBJECTS = 5
"""At most this many subjects are read for one query (an identifier shared by many)."""


class WorkflowMatcher(Protocol):
    """What the router needs from a workflow lane: ``match(task, k)`` → hits with a score."""

    def match(self, query: str, k: int = 3) -> Sequence[Any]:
        """Workflows matching a task description, best first."""
        ...


# -- subjects -------------------------------------------------------------------------------


@dataclass(slots=True)
class Resolution:
    """Whose memory a query reads, and which identifiers of the query matched whom."""

    subjects: list[str]
    matched: dict[str, list[IdentifierRef]] = field(default_factory=dict)
    unmatched: list[IdentifierRef] = field(default_factory=list)


def resolve(
    facts: FactsLane,
    analysis: QueryAnalysis,
    subject: str | None,
    valid_at: datetime | None,
    known_at: datetime | None,
) -> Resolution:
    """Resolve identifiers by exact lookup; a given subject only ever matches itself."""
    resolution = Resolution([] if subject is None else [subject])
    for ref in analysis.identifiers:
        owners = _owners(facts, ref, valid_at, known_at)
        if subject is not None:
            owners = [owner for owner in owners if owner == subject]
        if not owners:
            resolution.unmatched.append(ref)
        for owner in owners:
            if owner not in resolution.subjects and len(resolution.subjects) < MAX_SUBJECTS:
                resolution.subjects.append(owner)
            if owner in resolution.subjects:
                resolution.matched.setdefault(owner, []).append(ref)
    return resolution


def _owners(
    facts: FactsLane, ref: IdentifierRef, valid_at: datetime | None, known_at: datetime | None
) -> list[str]:
    owners: list[str] = []
    for value in ref.values:
        try:
            found = facts.lookup(ref.attribute, value, valid_at, known_at)
        except InvalidInput:  # a value the attribute's normalizer refuses matches nothing
            continue
        owners.extend(owner for owner in found if owner not in owners)
    if not owners and ref.attribute == "user_id":
        try:  # a user id that is itself a subject ("U-001 住在哪里")
            if facts.profile(ref.text, valid_at, known_at):
                owners.append(ref.text)
        except InvalidInput:
            pass
    return sorted(owners)


# -- exact lane -----------------------------------------------------------------------------


@dataclass(slots=True)
class ExactRead:
    """What the exact lane gave: answers, the profile supplement, and the facts held.

    ``literal_spans`` are where the query names a held attribute outright ("favourite team").
    """

    answers: list[Candidate] = field(default_factory=list)
    supplement: list[Candidate] = field(default_factory=list)
    asked: list[str] = field(default_factory=list)
    answered: bool = False
    facts: dict[str, SubjectFacts] = field(default_factory=dict)
    literal_spans: list[tuple[int, int]] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class ExactQuery:
    """The read point and display settings of an exact read."""

    valid_at: datetime | None
    known_at: datetime | None
    read_at: datetime
    timezone: tzinfo
    show_subject: bool


def subject_facts(
    facts: FactsLane, subject: str, valid_at: datetime | None, known_at: datetime | None
) -> SubjectFacts:
    """The subject's profile at the read point, with history read on demand."""
    profile = facts.profile(subject, valid_at, known_at)
    current = {
        name: value if isinstance(value, list) else [value] for name, value in profile.items()
    }
    many = {name for name, value in profile.items() if isinstance(value, list)}
    return SubjectFacts(
        subject, current, many, lambda attribute: facts.history(subject, attribute, known_at)
    )


def read_exact(
    facts: FactsLane, analysis: QueryAnalysis, resolution: Resolution, query: ExactQuery
) -> ExactRead:
    """Answer the asked attributes and matched identifiers of every resolved subject."""
    read = ExactRead()
    for subject in resolution.subjects:
        held = subject_facts(facts, subject, query.valid_at, query.known_at)
        read.facts[subject] = held
        if resolution.unmatched and not resolution.matched.get(subject):
            continue  # the query is about an identifier this subject does not hold
        literal = literal_attributes(analysis.query, held.current)
        read.literal_spans.extend(span for spans in literal.values() for span in spans)
        asked = list(dict.fromkeys([*analysis.attributes, *literal]))
        read.asked.extend(name for name in asked if name not in read.asked)
        chosen: dict[int, Candidate] = {}
        for ref in resolution.matched.get(subject, []):
            for fact in _holding(held.current.get(ref.attribute, []), ref):
                chosen[fact.id] = fact_candidate(fact, "current", 0.95, TIER_ANSWER, query)
        answered = _answer(held, asked, analysis, query, chosen)
        if not asked and resolution.matched.get(subject):
            answered = True  # "138-0000-1234 是谁": the profile is the answer
            _profile(held, chosen, 0.9, TIER_ANSWER, query)
        read.answered = read.answered or answered
        read.answers.extend(chosen.values())
        if not answered:
            extra: dict[int, Candidate] = {}
            _profile(held, extra, 0.5, TIER_PROFILE, query, skip=set(chosen))
            read.supplement.extend(extra.values())
    return read


def _answer(
    held: SubjectFacts,
    asked: list[str],
    analysis: QueryAnalysis,
    query: ExactQuery,
    chosen: dict[int, Candidate],
) -> bool:
    current_ids = {fact.id for facts in held.current.values() for fact in facts}
    period = analysis.period
    answered = False
    for attribute in asked:
        if period is not None:
            for fact in held.history(attribute):
                if _overlaps(fact, period):
                    status: Status = "current" if fact.id in current_ids else "historical"
                    chosen[fact.id] = fact_candidate(fact, status, 1.0, TIER_ANSWER, query)
                    answered = True
            continue
        current = held.current.get(attribute, [])
        for fact in current:
            chosen[fact.id] = fact_candidate(fact, "current", 1.0, TIER_ANSWER, query)
        answered = answered or bool(current)
        if analysis.history or not current:
            older = [
                fact
                for fact in held.history(attribute)
                if fact.id not in current_ids and fact.valid_from <= query.read_at
            ]
            for fact in older if analysis.history else older[-1:]:
                chosen[fact.id] = fact_candidate(fact, "historical", 0.7, TIER_ANSWER, query)
    return answered


def _overlaps(fact: Fact, period: tuple[datetime, datetime]) -> bool:
    return fact.valid_from < period[1] and (fact.valid_to is None or period[0] < fact.valid_to)


def _profile(
    held: SubjectFacts,
    chosen: dict[int, Candidate],
    score: float,
    tier: int,
    query: ExactQuery,
    skip: set[int] | None = None,
) -> None:
    for facts in held.current.values():
        for fact in facts:
            if fact.id not in chosen and (skip is None or fact.id not in skip):
                chosen[fact.id] = fact_candidate(fact, "current", score, tier, query)


def _holding(facts: list[Fact], ref: IdentifierRef) -> list[Fact]:
    keys = {_loose(value) for value in ref.values}
    return [fact for fact in facts if _loose(str(fact.value)) in keys]


def _loose(value: str) -> str:
    folded = unicodedata.normalize("NFKC", value).casefold()
    return "".join(ch for ch in folded if ch.isalnum() or ch in "@.")


def fact_candidate(
    fact: Fact, status: Status, score: float, tier: int, query: ExactQuery
) -> Candidate:
    """An exact-lane candidate for one fact version."""
    provenance = list(fact.provenance) or ([fact.source] if fact.source else [])
    item = RecallItem(
        lane="exact",
        text=fact_text(fact, query.timezone, query.show_subject),
        score=score * fact.confidence,
        status=status,
        fact=fact,
        valid_from=fact.valid_from,
        valid_to=fact.valid_to,
        provenance=provenance,
        subject=fact.subject,
        kind="fact",
        ref=f"fact:{fact.id}",
        at=fact.tx_from,
    )
    return Candidate(item, tier)


def fact_text(fact: Fact, zone: tzinfo, show_subject: bool) -> str:
    """One line for a fact: ``location: 北京 (since 2026-06-22)``."""
    start = day(fact.valid_from, zone)
    span = f"since {start}" if fact.valid_to is None else f"{start} → {day(fact.valid_to, zone)}"
    if fact.confidence < 1.0:
        span += f", confidence {fact.confidence:.1f}"
    who = f"{fact.subject} " if show_subject else ""
    value = fact.value if isinstance(fact.value, str) else str(fact.value)
    return f"{who}{fact.attribute}: {value} ({span})"


def day(instant: datetime, zone: tzinfo) -> str:
    """The local date of an instant, ISO-formatted."""
    return instant.astimezone(zone).date().isoformat()


# -- window lane ----------------------------------------------------------------------------


def read_window(turns: Sequence[Turn], until: datetime | None) -> list[Candidate]:
    """The running session's turns, newest scored highest; user turns are judged."""
    kept = [turn for turn in turns if until is None or turn.at <= until]
    candidates = []
    for index, turn in enumerate(kept):
        item = RecallItem(
            lane="window",
            text=f"{turn.speaker or turn.role}: {turn.content}",
            score=0.6 + 0.3 * (index + 1) / len(kept),
            valid_from=turn.at,
            provenance=[turn.id],
            subject=turn.subject,
            kind="turn",
            ref=turn.id,
            at=turn.at,
        )
        candidates.append(
            Candidate(
                item,
                TIER_WINDOW,
                said=turn.at,
                learned=turn.at,
                turns=frozenset({turn.id}),
                judge=turn.role == "user",
                body=turn.content,
            )
        )
    return candidates


def turn_statements(turns: Sequence[Turn], until: datetime | None) -> list[Statement]:
    """The user turns of the window, as evidence for adjudication."""
    return [
        statement(
            turn.subject, turn.content, said=turn.at, learned=turn.at, turns=[turn.id], ref=turn.id
        )
        for turn in turns
        if turn.role == "user" and (until is None or turn.at <= until)
    ]


# -- summary lane ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SummaryFilters:
    """What summary-lane items must satisfy, beyond matching the query.

    ``known_at`` hides what was stored (or said) after it; ``said_before`` (an explicit
    ``valid_at``) hides what was said after it; ``period`` keeps items said in it or naming
    a date in it; ``identifiers`` keeps items naming one of them exactly.
    """

    known_at: datetime | None
    said_before: datetime | None
    period: tuple[datetime, datetime] | None
    identifiers: tuple[IdentifierRef, ...]
    timezone: tzinfo

    @property
    def narrowing(self) -> bool:
        """True when filters may drop hits, so search should dig deeper."""
        return self.period is not None or bool(self.identifiers)

    def visible(self, said: datetime, stored: datetime) -> bool:
        """Not hidden by ``known_at`` or ``said_before``."""
        limit = min((t for t in (self.known_at, self.said_before) if t is not None), default=None)
        if self.known_at is not None and stored > self.known_at:
            return False
        return limit is None or said <= limit

    def keeps(self, text: str, said: datetime, until: datetime) -> bool:
        """Within ``period`` (by when said or by a date named) and naming the identifiers."""
        if self.identifiers and not names_identifier(text, self.identifiers):
            return False
        if self.period is None:
            return True
        start, end = self.period
        if said < end and start <= until:
            return True
        for mention in resolve_times(text, said, self.timezone):
            try:
                first, last = time_interval(mention.value, self.timezone)
            except InvalidInput:
                continue
            if first < end and start < last:
                return True
        return False


@dataclass(slots=True)
class SummaryRead:
    """Candidates of the summary lane and how many hits the filters dropped."""

    candidates: list[Candidate] = field(default_factory=list)
    hits: int = 0
    dropped: int = 0


def read_summaries(
    lane: SummariesLane,
    query: str,
    scopes: Sequence[str | None],
    k: int,
    filters: SummaryFilters,
    window_turns: frozenset[str],
) -> SummaryRead:
    """Search summaries and notes in each scope (a subject, or ``None`` for the tenant)."""
    read = SummaryRead()
    depth = min(3 * k, 200) if filters.narrowing else k
    seen_lines: set[str] = set()
    for scope in scopes:
        note_hits = lane.search_notes(scope, query, depth)
        summary_hits = lane.search(scope, query, depth)
        read.hits += len(note_hits) + len(summary_hits)
        best = max((hit.score for hit in note_hits), default=1.0) or 1.0
        for note_hit in note_hits:
            note = note_hit.note
            if _keeps_note(note, filters, window_turns):
                score = 0.8 * note_hit.score / best
                read.candidates.append(note_candidate(note, note.subject, score, filters.timezone))
            else:
                read.dropped += 1
        best = max((hit.score for hit in summary_hits), default=1.0) or 1.0
        for summary_hit in summary_hits:
            summary = _as_known(lane, summary_hit.summary, filters.known_at)
            if summary is None or not _keeps_summary(summary, filters):
                read.dropped += 1
                continue
            found = summary_candidate(summary, 0.7 * summary_hit.score / best, filters, seen_lines)
            if found is not None:
                read.candidates.append(found)
    return read


def _keeps_note(note: Note, filters: SummaryFilters, window_turns: frozenset[str]) -> bool:
    if note.provenance and set(note.provenance) <= window_turns:
        return False  # the window holds the turn itself, verbatim
    return filters.visible(note.at, note.tx_from) and filters.keeps(note.text, note.at, note.at)


def _keeps_summary(summary: Summary, filters: SummaryFilters) -> bool:
    return filters.visible(summary.period_from, summary.tx_from) and filters.keeps(
        summary.content.as_text(), summary.period_from, summary.period_to
    )


def _as_known(lane: SummariesLane, summary: Summary, known_at: datetime | None) -> Summary | None:
    """The version of a summary believed at ``known_at`` (search only sees the latest)."""
    if known_at is None or summary.tx_from <= known_at:
        return summary
    versions = lane.versions(summary.subject, summary.session_id)
    believed = [version for version in versions if version.tx_from <= known_at]
    return believed[-1] if believed else None


def summary_candidate(
    summary: Summary, score: float, filters: SummaryFilters, seen_lines: set[str]
) -> Candidate | None:
    """A candidate for a summary's lines not already shown by a better summary."""
    lines = []
    mood = ("mood: " + ", ".join(summary.mood),) if summary.mood else ()
    for line in summary_lines(summary):
        key = unicodedata.normalize("NFKC", line).casefold().strip()
        if key not in seen_lines:
            seen_lines.add(key)
            lines.append(line)
    if not lines:
        return None
    zone = filters.timezone
    period = f"{day(summary.period_from, zone)} → {day(summary.period_to, zone)}"
    name = "storyline" if summary.session_id is None else f"session {summary.session_id}"
    label = f"{name} ({period})"
    item = RecallItem(
        lane="summary",
        text=f"{label}: " + "; ".join([*lines, *mood]),
        score=score,
        valid_from=summary.period_from,
        provenance=list(summary.provenance),
        subject=summary.subject,
        kind="summary",
        ref=f"summary:{summary.id}",
        at=summary.period_to,
    )
    return Candidate(
        item,
        TIER_SUMMARY,
        said=summary.period_from,
        learned=summary.tx_from,
        said_late=summary.period_to,
        turns=origins(summary.provenance),
        judge=True,
        lines=tuple(lines),
        label=label,
        extras=mood,
    )


def summary_lines(summary: Summary) -> list[str]:
    """The statements of a summary worth a prompt: facts and open items, else its topics."""
    lines = [*summary.facts, *(f"to do: {item}" for item in summary.open_items)]
    if not lines and summary.topic:
        lines.append("about: " + ", ".join(summary.topic))
    return lines


def note_statements(notes: Sequence[Note], filters: SummaryFilters) -> list[Statement]:
    """A subject's notes visible at the read point, as evidence for adjudication."""
    return [
        statement(
            note.subject,
            note.text,
            said=note.at,
            learned=note.tx_from,
            turns=origins(note.provenance, note.id),
            ref=f"note:{note.id}",
            note=note,
        )
        for note in notes
        if filters.visible(note.at, note.tx_from)
    ]


def names_identifier(text: str, refs: Sequence[IdentifierRef]) -> bool:
    """True if ``text`` names one of the identifiers exactly (after normalization)."""
    wanted = {(ref.attribute, value.casefold()) for ref in refs for value in ref.values}
    for mention in find_identifiers(text):
        attribute = IDENTIFIER_ATTRIBUTES.get(mention.kind)
        if attribute is None:
            continue
        keys = identifier_keys(attribute, str(mention.value))
        if any((attribute, key.casefold()) in wanted for key in keys):
            return True
    return False


# -- workflow lane --------------------------------------------------------------------------


def read_workflows(matcher: WorkflowMatcher, query: str, k: int) -> list[Candidate]:
    """Workflows matching the task, as candidates (read defensively: any hit shape)."""
    candidates = []
    for hit in matcher.match(query, k=min(k, 5)):
        workflow = getattr(hit, "workflow", hit)
        name = str(getattr(workflow, "task_type", None) or "workflow")
        description = str(getattr(workflow, "description", "") or "")
        actions = [_action(step) for step in getattr(workflow, "steps", ()) or ()]
        steps = " → ".join(action for action in actions if action)
        text = name + (f": {description}" if description else "")
        text += f" (steps: {steps})" if steps else ""
        score = float(getattr(hit, "score", 0.5))
        version = getattr(workflow, "version", "")
        item = RecallItem(
            lane="workflow",
            text=text,
            score=min(max(score, 0.0), 1.0),
            provenance=[f"workflow:{name}"],
            kind="workflow",
            ref=f"workflow:{name}:{version}",
        )
        candidates.append(Candidate(item, TIER_WORKFLOW))
    return candidates


def _action(step: object) -> str:
    if isinstance(step, dict):
        return str(step.get("action", ""))
    return str(getattr(step, "action", ""))
