"""Reading lanes into candidates: subjects, exact facts, the window, workflows.

The summary lane is read in :mod:`memlane.router.summary_lane`. Every reader here only reads;
judging and ranking happen in :mod:`memlane.router.adjudicate`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from typing import Any, Protocol

from memlane.errors import InvalidInput
from memlane.extract.rules import CODE_ATTRIBUTES
from memlane.facts.lane import FactsLane
from memlane.facts.model import Fact, is_document
from memlane.facts.normalize import match_keys
from memlane.router.analysis import literal_attributes, narrowed_code
from memlane.router.candidates import (
    TIER_ANSWER,
    TIER_PROFILE,
    TIER_WINDOW,
    TIER_WORKFLOW,
    Candidate,
    SubjectFacts,
)
from memlane.router.evidence import Statement, statement
from memlane.router.model import IdentifierRef, QueryAnalysis, RecallItem, Status
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
    # An id asked about without its kind ("where is K31560XB?") may be any kind of code.
    for attribute in _family(ref):
        for value in ref.values:
            try:
                found = facts.lookup(attribute, value, valid_at, known_at)
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

    ``literal_spans`` are where the query names a held attribute outright ("favourite team");
    ``named_turns`` the turns that gave each subject's facts holding the identifiers named.
    """

    answers: list[Candidate] = field(default_factory=list)
    supplement: list[Candidate] = field(default_factory=list)
    asked: list[str] = field(default_factory=list)
    answered: bool = False
    facts: dict[str, SubjectFacts] = field(default_factory=dict)
    literal_spans: list[tuple[int, int]] = field(default_factory=list)
    named_turns: dict[str, set[str]] = field(default_factory=dict)


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
    profile = {  # an adapter's documents are kept as facts but are not the subject's profile
        name: value
        for name, value in facts.profile(subject, valid_at, known_at).items()
        if not is_document(name)
    }
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
    lookup_only = _only_identifiers(analysis)
    for subject in resolution.subjects:
        held = subject_facts(facts, subject, query.valid_at, query.known_at)
        read.facts[subject] = held
        if resolution.unmatched and not resolution.matched.get(subject):
            continue  # the query is about an identifier this subject does not hold
        # "order ORD-7" names the order: the word is a label, not a question for its value.
        labels = {name for ref in resolution.matched.get(subject, []) for name in _family(ref)}
        found = literal_attributes(analysis.query, held.current) if analysis.own_value else {}
        literal = {
            name: spans
            for name, spans in found.items()
            if name not in labels and not narrowed_code(analysis.query, name, spans)
        }
        read.literal_spans.extend(span for spans in literal.values() for span in spans)
        asked = list(dict.fromkeys([*analysis.attributes, *literal]))
        read.asked.extend(name for name in asked if name not in read.asked)
        # The identifiers named: part of an answer ("138-0000-1234 的订单号") or of a lookup
        # ("138-0000-1234"), else a supplement to what the summary lane says about them.
        named = [
            fact
            for ref in resolution.matched.get(subject, [])
            for fact in _holding(_held_codes(held, ref), ref)
        ]
        read.named_turns[subject] = {turn for fact in named for turn in fact.provenance}
        chosen: dict[int, Candidate] = {}
        answered = _answer(held, asked, analysis, query, chosen)
        if not answered and not asked and named and lookup_only:
            answered = True  # the identifier and its owner's profile answer
            _profile(held, chosen, 0.9, TIER_ANSWER, query)
        tier = TIER_ANSWER if answered else TIER_PROFILE
        named_ids = {fact.id: fact_candidate(fact, "current", 0.95, tier, query) for fact in named}
        chosen.update(named_ids if answered else {})
        read.answered = read.answered or answered
        read.answers.extend(chosen.values())
        if not answered:
            # "what happened to order X?": what was said about X answers, searched in the
            # summary lane of X's owner; X itself and the owner's profile come after it.
            extra: dict[int, Candidate] = dict(named_ids)
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
            during = [fact for fact in held.history(attribute) if _overlaps(fact, period)]
            _choose(chosen, during, current_ids, 1.0, TIER_ANSWER, query)
            answered = answered or bool(during)
            continue
        current = held.current.get(attribute, [])
        older = [
            fact
            for fact in held.history(attribute)
            if fact.id not in current_ids and fact.valid_from <= query.read_at
        ]
        # The value asked about answers: earlier ones for "以前 / before", else the current
        # one. A question about the past is never answered by the present (nor served it,
        # when an earlier value exists), nor the present by a value that has ended.
        if analysis.history:  # the present does not answer "before", unless nothing did
            answers, others = older, [] if older else current
        else:
            answers, others = current, [] if current else older[-1:]
        _choose(chosen, answers, current_ids, 1.0, TIER_ANSWER, query)
        _choose(chosen, others, current_ids, 0.7, TIER_PROFILE, query)
        answered = answered or bool(answers)
    return answered


def _choose(
    chosen: dict[int, Candidate],
    facts: list[Fact],
    current_ids: set[int],
    score: float,
    tier: int,
    query: ExactQuery,
) -> None:
    for fact in facts:
        status: Status = "current" if fact.id in current_ids else "historical"
        chosen[fact.id] = fact_candidate(fact, status, score, tier, query)


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


def _only_identifiers(analysis: QueryAnalysis) -> bool:
    """True if the query is nothing but identifiers: a lookup, not a question about them."""
    rest = analysis.query
    for ref in analysis.identifiers:
        rest = rest.replace(ref.text, " ")
    return not any(char.isalnum() for char in rest)


def _family(ref: IdentifierRef) -> tuple[str, ...]:
    """The attributes ``ref`` may be held under: its own, or any code attribute for a code."""
    return CODE_ATTRIBUTES if ref.attribute in CODE_ATTRIBUTES else (ref.attribute,)


def _held_codes(held: SubjectFacts, ref: IdentifierRef) -> list[Fact]:
    """The subject's facts ``ref`` may name."""
    return [fact for name in _family(ref) for fact in held.current.get(name, [])]


def _holding(facts: list[Fact], ref: IdentifierRef) -> list[Fact]:
    keys = {key for value in ref.values for key in match_keys(ref.attribute, value)}
    return [fact for fact in facts if match_keys(fact.attribute, fact.value) & keys]


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
