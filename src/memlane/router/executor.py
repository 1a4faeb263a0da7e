"""The router behind ``Memory.recall``: plan, ask the lanes, adjudicate, rank, render."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from itertools import islice

from memlane.facts.lane import FactsLane
from memlane.lang.kinds import stem as loose_stem
from memlane.lang.words import term_probe
from memlane.memo import recall_scope
from memlane.router.adjudicate import Adjudicator
from memlane.router.analysis import analyze
from memlane.router.answers import answering
from memlane.router.candidates import Candidate, SubjectFacts
from memlane.router.evidence import Evidence, StoredEvidence, note_keys
from memlane.router.fit import fitted, timed_first
from memlane.router.lanes import (
    ExactQuery,
    ExactRead,
    Resolution,
    WorkflowMatcher,
    read_exact,
    read_window,
    read_workflows,
    resolve,
    subject_facts,
    turn_statements,
)
from memlane.router.model import LANES, Lane, LaneStep, QueryAnalysis, Recall
from memlane.router.named_turns import with_named_turns
from memlane.router.plan import (
    Decision,
    exact_decision,
    exact_reason,
    summary_decision,
    window_decision,
    workflow_decision,
)
from memlane.router.ranking import rank
from memlane.router.render import render
from memlane.router.summary_lane import SummaryFilters, note_statements, read_summaries
from memlane.router.synonyms import SynonymRegistry
from memlane.router.told import telling_first
from memlane.router.unstated import without_unstated
from memlane.session import Session
from memlane.summaries.key_kinds import PAIRS, TERM
from memlane.summaries.lane import SummariesLane
from memlane.summaries.linedata import LineData
from memlane.timeutil import Clock, TimeInput, checked_now, parse_instant
from memlane.validation import MAX_BUDGET_TOKENS, MAX_RECALL_ITEMS, integer, optional_name
from memlane.window.model import Turn

MAX_HOLDING = 64
"""At most this many of a subject's statements holding a term are read to tell whether the
relation a question asks is stated at all (:mod:`memlane.router.unstated`)."""

SessionFinder = Callable[[str | None, str], Session | None]
"""``(subject or None, session_id) -> the running session, or None``."""


@dataclass(frozen=True, slots=True)
class _Request:
    subject: str | None
    session_id: str | None
    k: int
    budget_tokens: int
    valid_at: datetime | None
    known_at: datetime | None
    now: datetime
    include_stale: bool

    @property
    def read_at(self) -> datetime:
        return self.valid_at or self.now

    @property
    def until(self) -> datetime | None:
        """Statements said or stored after this are not part of the read."""
        bounds = [t for t in (self.valid_at, self.known_at) if t is not None]
        return min(bounds) if bounds else None


@dataclass(slots=True)
class _Run:
    """The state of one recall as the lanes are asked in turn."""

    request: _Request
    analysis: QueryAnalysis
    resolution: Resolution = field(default_factory=lambda: Resolution([]))
    session: Session | None = None
    exact: ExactRead = field(default_factory=ExactRead)
    window: list[Turn] = field(default_factory=list)
    filters: SummaryFilters | None = None
    candidates: list[Candidate] = field(default_factory=list)
    steps: dict[Lane, LaneStep] = field(default_factory=dict)
    line_data: dict[str, LineData] = field(default_factory=dict)

    def record(self, lane: Lane, asked: bool, reason: str, started: float, found: int) -> None:
        """Add the plan's step for ``lane``, timed from ``started``."""
        elapsed = (time.perf_counter() - started) * 1000
        self.steps[lane] = LaneStep(lane, asked, reason, elapsed, found)


class Router:
    """Plans a recall, asks the lanes, adjudicates and renders. Reached as ``Memory.router``.

    Args:
        facts: the exact lane.
        summaries: the summary lane.
        sessions: finds a running session by subject (or ``None``: any) and id.
        clock: the memory's clock.
        timezone: how dates in queries and rendered text are read and written.
        workflows: a workflow lane (``match(query, k)``), if one is attached.
        synonyms: the attribute registry; a fresh default one if not given.
    """

    def __init__(
        self,
        *,
        facts: FactsLane,
        summaries: SummariesLane,
        sessions: SessionFinder,
        clock: Clock,
        timezone: tzinfo,
        workflows: WorkflowMatcher | None = None,
        synonyms: SynonymRegistry | None = None,
    ) -> None:
        self._facts = facts
        self._summaries = summaries
        self._sessions = sessions
        self._clock = clock
        self._zone = timezone
        self.workflows = workflows
        self.synonyms = synonyms if synonyms is not None else SynonymRegistry()

    def analyze(self, query: str, at: TimeInput | None = None) -> QueryAnalysis:
        """What the router reads in ``query`` (relative times resolved against ``at``/now)."""
        when = checked_now(self._clock) if at is None else parse_instant(at, self._zone, "at")
        return analyze(query, synonyms=self.synonyms, at=when, timezone=self._zone)

    @recall_scope()  # text read again and again is read once per recall (see memlane.memo)
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
        """Recall what memory holds for ``query``; see ``Memory.recall`` and docs/recall.md.

        Raises:
            InvalidInput: a bad query, subject, session id, ``k``, budget or time.
        """
        started = time.perf_counter()
        request = self._request(
            subject, session_id, k, budget_tokens, valid_at, known_at, include_stale
        )
        analysis = analyze(query, synonyms=self.synonyms, at=request.read_at, timezone=self._zone)
        run = _Run(request, analysis)
        self._ask_exact(run)
        self._ask_window(run)
        self._ask_workflow(run)
        self._ask_summary(run)
        adjudicator = self._adjudicator(run)
        asked = [*analysis.attributes, *run.exact.asked]
        judged = adjudicator.judge(run.candidates, asked, query, request.valid_at)
        judged = timed_first(fitted(judged, query), query)
        answers = answering(
            judged,
            analysis,
            self.synonyms.match,
            adjudicator.said,
            at_present=request.valid_at is None,
        )
        answers = telling_first(answers, analysis)
        answers = without_unstated(answers, analysis, lambda s, t: self._holding(run, s, t))
        items = rank(answers, request.k, request.include_stale)
        subjects = list(
            dict.fromkeys([*run.resolution.subjects, *(i.subject for i in items if i.subject)])
        )
        rendered = render(
            items, budget_tokens=request.budget_tokens, subjects=subjects, zone=self._zone
        )
        for data in run.line_data.values():  # what judging read, for the next recalls
            data.offer()
        return Recall(
            query=query,
            items=rendered.items,
            plan=[run.steps[lane] for lane in LANES],
            text=rendered.text,
            subjects=subjects,
            valid_at=request.read_at,
            known_at=request.known_at,
            tokens=rendered.tokens,
            budget_tokens=request.budget_tokens,
            analysis=analysis,
            ms=(time.perf_counter() - started) * 1000,
        )

    # -- the lanes, in the order the plan runs them --------------------------------------

    def _ask_exact(self, run: _Run) -> None:
        """Resolve the subject (exactly) and read the asked attributes and identifiers."""
        started = time.perf_counter()
        request, analysis = run.request, run.analysis
        run.resolution = resolve(
            self._facts, analysis, request.subject, request.valid_at, request.known_at
        )
        run.session = self._session(request, run.resolution)
        decision = exact_decision(run.resolution, analysis, request.subject is not None)
        reason = decision.reason
        if decision.asked:
            run.exact = read_exact(self._facts, analysis, run.resolution, self._exact_query(run))
            run.candidates.extend(run.exact.answers)
            reason = exact_reason(decision, run.exact, run.resolution)
        run.record("exact", decision.asked, reason, started, len(run.exact.answers))

    def _ask_window(self, run: _Run) -> None:
        """Include the running session's window when it belongs to the subject read."""
        started = time.perf_counter()
        session, subjects = run.session, run.resolution.subjects
        running = session is not None and not session.closed
        owner_ok = session is not None and (not subjects or session.subject in subjects)
        decision = window_decision(run.request.session_id, running, owner_ok)
        found: list[Candidate] = []
        if decision.asked and session is not None:
            run.window = session.window()
            found = read_window(run.window, run.request.until)
            run.candidates.extend(found)
        run.record("window", decision.asked, decision.reason, started, len(found))

    def _ask_workflow(self, run: _Run) -> None:
        """Ask an attached workflow lane how a task is done."""
        started = time.perf_counter()
        decision = workflow_decision(run.analysis, self.workflows is not None)
        found: list[Candidate] = []
        if decision.asked and self.workflows is not None:
            found = read_workflows(self.workflows, run.analysis.query, run.request.k)
            run.candidates.extend(found)
        run.record("workflow", decision.asked, decision.reason, started, len(found))

    def _ask_summary(self, run: _Run) -> None:
        """Search summaries and notes unless the exact lane answered a factual query."""
        started = time.perf_counter()
        request, resolution = run.request, run.resolution
        filter_ids = tuple(resolution.unmatched) if not resolution.matched else ()
        run.filters = SummaryFilters(
            request.known_at,
            request.valid_at,
            run.analysis.period,
            filter_ids,
            self._zone,
            request.read_at,
        )
        decision = summary_decision(run.analysis, run.exact, bool(resolution.subjects), filter_ids)
        found: list[Candidate] = []
        if decision.asked:
            scopes: Sequence[str | None] = resolution.subjects or [None]
            turn_ids = frozenset(turn.id for turn in run.window)
            read = read_summaries(
                self._summaries,
                run.analysis.query,
                scopes,
                request.k,
                run.filters,
                turn_ids,
                lambda subject: self._line_data(run, subject),
            )
            if resolution.matched:
                read.candidates = with_named_turns(
                    read.candidates,
                    resolution.matched,
                    run.exact.named_turns,
                    lambda subject: self._line_data(run, subject),
                    run.filters,
                    turn_ids,
                )
            found = read.candidates + run.exact.supplement
            run.candidates.extend(found)
            decision = _filtered(decision, read.hits, read.dropped)
        run.record("summary", decision.asked, decision.reason, started, len(found))

    # -- internals ----------------------------------------------------------------------

    def _request(
        self,
        subject: str | None,
        session_id: str | None,
        k: int,
        budget_tokens: int,
        valid_at: TimeInput | None,
        known_at: TimeInput | None,
        include_stale: bool,
    ) -> _Request:
        optional_name("subject", subject)
        optional_name("session_id", session_id)
        integer("k", k, 1, MAX_RECALL_ITEMS)
        integer("budget_tokens", budget_tokens, 1, MAX_BUDGET_TOKENS)
        return _Request(
            subject=subject,
            session_id=session_id,
            k=k,
            budget_tokens=budget_tokens,
            valid_at=None if valid_at is None else parse_instant(valid_at, self._zone, "valid_at"),
            known_at=None if known_at is None else parse_instant(known_at, self._zone, "known_at"),
            now=checked_now(self._clock),
            include_stale=bool(include_stale),
        )

    def _session(self, request: _Request, resolution: Resolution) -> Session | None:
        if request.session_id is None:
            return None
        session = self._sessions(request.subject, request.session_id)
        if session is not None and not resolution.subjects and not resolution.unmatched:
            resolution.subjects.append(session.subject)  # no subject named: the session's
        return session

    def _exact_query(self, run: _Run) -> ExactQuery:
        request = run.request
        return ExactQuery(
            valid_at=request.valid_at,
            known_at=request.known_at,
            read_at=request.read_at,
            timezone=self._zone,
            show_subject=request.subject is None,
        )

    def _line_data(self, run: _Run, subject: str) -> LineData:
        """A subject's stored note keys, read once per recall by the lane and the judging."""
        if subject not in run.line_data:
            run.line_data[subject] = self._summaries.line_data(subject, note_keys)
        return run.line_data[subject]

    def _holding(self, run: _Run, subject: str, term: str) -> Iterator[str]:
        """Some of the subject's visible statements holding ``term`` (by its stored keys)."""
        filters = run.filters
        assert filters is not None, "the summary step sets the filters"
        kind, keys = term_probe(term)
        if kind == "digits":
            return
        if kind == "word":  # "coache" is stored as "coach"
            keys = tuple(dict.fromkeys((*keys, loose_stem(term))))
        notes = self._line_data(run, subject).latest(TERM if kind == "word" else PAIRS, keys)
        for note in islice(notes, MAX_HOLDING):
            if filters.visible(note.at, note.tx_from):
                yield note.text

    def _adjudicator(self, run: _Run) -> Adjudicator:
        request, filters = run.request, run.filters
        assert filters is not None, "the summary step sets the filters"
        held: dict[str, SubjectFacts] = dict(run.exact.facts)

        def facts_of(subject: str) -> SubjectFacts:
            if subject not in held:
                held[subject] = subject_facts(
                    self._facts, subject, request.valid_at, request.known_at
                )
            return held[subject]

        def evidence_of(subject: str) -> Evidence:
            turns = [turn for turn in run.window if turn.subject == subject]
            return StoredEvidence(
                self._line_data(run, subject),
                lambda notes: note_statements(notes, filters),
                filters.visible_until,
                turn_statements(turns, request.until),
                meaning=lambda note_id: self._summaries.near_in_meaning(subject, note_id),
                tells_meaning=self._summaries.tells_meaning(),
            )

        return Adjudicator(facts_of, evidence_of, self._zone)


def _filtered(decision: Decision, hits: int, dropped: int) -> Decision:
    if not dropped:
        return decision
    return Decision(decision.asked, f"{decision.reason} ({dropped} of {hits} hits filtered out)")
