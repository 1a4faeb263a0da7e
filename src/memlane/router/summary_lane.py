"""Reading the summary lane into candidates: notes and the lines of summaries a query is about.

Every reader here only reads; judging and ranking happen in :mod:`memlane.router.adjudicate`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, tzinfo

from memlane.errors import InvalidInput
from memlane.extract import find_identifiers, resolve_times, time_interval
from memlane.extract.rules import IDENTIFIER_ATTRIBUTES
from memlane.facts.normalize import match_keys, written_keys
from memlane.router.candidates import (
    ON_TOPIC_BONUS,
    TIER_CONTEXT,
    TIER_OTHERS,
    TIER_SUMMARY,
    Candidate,
    note_candidate,
)
from memlane.router.evidence import Statement, note_keys, origins, statement
from memlane.router.lanes import day
from memlane.router.line_facts import read_line_facts, stored_line_facts
from memlane.router.model import IdentifierRef, RecallItem
from memlane.summaries.lane import SummariesLane
from memlane.summaries.linedata import LineData
from memlane.summaries.lines import split_label
from memlane.summaries.model import Note, Summary, SummaryContent, SummaryHit
from memlane.summaries.sources import (
    NoteIndex,
    StoredNoteIndex,
    WeightedLines,
    line_words,
    seen_key,
    speakers,
    without_speakers,
)
from memlane.timeutil import to_micros

PERIOD_BONUS = ON_TOPIC_BONUS
"""Added to the score of a statement from the period the query names (as for an asked topic)."""
NEAR_MIN = timedelta(days=1)
NEAR_MAX = timedelta(days=7)
"""How far around the named period itself a statement still counts as from it."""


@dataclass(frozen=True, slots=True)
class SummaryFilters:
    """What summary-lane items must satisfy, beyond matching the query, and what ranks first.

    ``known_at`` hides what was stored (or said) after it; ``said_before`` (an explicit
    ``valid_at``) hides what was said after it; ``identifiers`` keeps items naming one of
    them exactly. ``period`` (a time named in the query) filters nothing: a relative time
    ("4 years ago") is rarely meant to the day, so items said in the period's years, or
    naming a date in them, score higher (see :meth:`in_period`). ``read_at`` is the moment
    the query is read: nothing was said in a period that has not begun by then.
    """

    known_at: datetime | None
    said_before: datetime | None
    period: tuple[datetime, datetime] | None
    identifiers: tuple[IdentifierRef, ...]
    timezone: tzinfo
    read_at: datetime | None = None

    @property
    def narrowing(self) -> bool:
        """True when filters may drop hits (or a period reorders them): search deeper."""
        return self.period is not None or bool(self.identifiers)

    def visible(self, said: datetime, stored: datetime) -> bool:
        """Not hidden by ``known_at`` or ``said_before``."""
        limit = min((t for t in (self.known_at, self.said_before) if t is not None), default=None)
        if self.known_at is not None and stored > self.known_at:
            return False
        return limit is None or said <= limit

    @property
    def visible_until(self) -> tuple[int | None, int | None]:
        """``(said until, known at)`` in microseconds: what :meth:`visible` lets through."""
        bounds = [t for t in (self.known_at, self.said_before) if t is not None]
        said = to_micros(min(bounds)) if bounds else None
        return said, None if self.known_at is None else to_micros(self.known_at)

    def keeps(self, text: str) -> bool:
        """Naming the identifiers, when the query is about identifiers no subject holds."""
        return not self.identifiers or names_identifier(text, self.identifiers)

    def in_period(self, text: str, said: datetime, until: datetime) -> bool:
        """Said in the years of ``period``, or naming a date in them (``False`` if no period).

        A period still to come ("where am I flying *next week*?") is only told of by plans:
        a statement said this year about where one lives is not from it, nor one naming last
        week or this week; one naming a time that was still to come when it was said ("next
        Wednesday") is.
        """
        return self._closeness(text, said, until) > 0

    def period_bonus(self, text: str, said: datetime, until: datetime) -> float:
        """What an item gains for the period the query names: more the closer it is to it.

        ``PERIOD_BONUS`` in the period's years (:meth:`in_period`), twice that within the
        period itself, widened by half its length (a day to a week) on either side: "what
        did she paint in July 2023?" prefers July to the rest of 2023.
        """
        return PERIOD_BONUS * self._closeness(text, said, until)

    def _closeness(self, text: str, said: datetime, until: datetime) -> int:
        """0 outside the period's years, 1 in them, 2 also near the period itself.

        An item is in an interval when said within it or naming a date in it; the dates it
        names are read once, and only when the moment it was said does not settle both.
        """
        if self.period is None:
            return 0
        start, end = self.period
        margin = min(max((end - start) / 2, NEAR_MIN), NEAR_MAX)
        bounds = (_whole_years(self.period, self.timezone), (start - margin, end + margin))
        ahead = self.read_at is not None and start > self.read_at
        inside = [not ahead and said < last and first <= until for first, last in bounds]
        if not all(inside):
            for mention in resolve_times(text, said, self.timezone):
                try:
                    first, last = time_interval(mention.value, self.timezone)
                except InvalidInput:
                    continue
                if ahead and first <= said:
                    continue
                inside = [
                    held or (first < high and low < last)
                    for held, (low, high) in zip(inside, bounds, strict=True)
                ]
        in_years, near = inside
        return 0 if not in_years else 2 if near else 1


def _whole_years(period: tuple[datetime, datetime], zone: tzinfo) -> tuple[datetime, datetime]:
    """The calendar years (local time) that ``period`` touches, as a half-open interval."""
    first = period[0].astimezone(zone)
    last = (period[1] - timedelta(microseconds=1)).astimezone(zone)
    start = first.replace(month=1, day=1, hour=0, minute=0, second=0, microsecond=0)
    end = last.replace(year=last.year + 1, month=1, day=1, hour=0, minute=0, second=0)
    return start, end.replace(microsecond=0)


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
    line_data: Callable[[str], LineData] | None = None,
) -> SummaryRead:
    """Search summaries and notes in each scope (a subject, or ``None`` for the tenant).

    A subject's search leaves out the names of the people its storyline quotes (see
    :func:`~memlane.summaries.sources.without_speakers`); notes that do not name the
    person asked about then rank after those that do, as statements about others.
    ``line_data`` gives a subject's stored note keys (by default read anew).
    """
    read = SummaryRead()
    depth = min(3 * k, 200) if filters.narrowing else k
    seen_lines: set[str] = set()
    for scope in scopes:
        focused, named = query, frozenset[str]()
        if scope is not None:
            people = speakers(lane.storyline(scope))
            focused = without_speakers(query, people)
            named = line_words(query) & people if focused != query else named
        note_hits = lane.search_notes(scope, focused, depth)
        summary_hits = lane.search(scope, focused, depth)
        read.hits += len(note_hits) + len(summary_hits)
        best = max((hit.score for hit in note_hits), default=1.0) or 1.0
        for note_hit in note_hits:
            note = note_hit.note
            if _keeps_note(note, filters, window_turns):
                score = 0.8 * note_hit.score / best
                score += filters.period_bonus(note.text, note.at, note.at)
                candidate = note_candidate(note, note.subject, score, filters.timezone)
                if named and not line_words(note.text) & named:
                    candidate.tier = TIER_OTHERS  # someone else's statement on the topic
                read.candidates.append(candidate)
            else:
                read.dropped += 1
        best = max((hit.score for hit in summary_hits), default=1.0) or 1.0
        index = _note_index(lane, scope, line_data) if summary_hits else NoteIndex(())
        kept = _kept_summaries(lane, summary_hits, filters)
        read.dropped += len(summary_hits) - len(kept)
        index.prepare(query, [(summary_lines(s), frozenset(s.provenance)) for _, s in kept])
        for summary_hit, summary in kept:
            score = 0.7 * summary_hit.score / best
            text = summary.content.as_text()
            score += filters.period_bonus(text, summary.period_from, summary.period_to)
            shown = SummaryShown(query, index, filters, seen_lines)
            found = summary_candidate(summary, score, shown)
            if found is not None:
                read.candidates.append(found)
    return read


def _note_index(
    lane: SummariesLane, scope: str | None, line_data: Callable[[str], LineData] | None
) -> WeightedLines:
    """The scope's notes, to weigh words and cite turns: a subject's read by stored keys."""
    if scope is None:
        return NoteIndex(())
    return StoredNoteIndex(line_data(scope) if line_data else lane.line_data(scope, note_keys))


def _keeps_note(note: Note, filters: SummaryFilters, window_turns: frozenset[str]) -> bool:
    if note.provenance and set(note.provenance) <= window_turns:
        return False  # the window holds the turn itself, verbatim
    return filters.visible(note.at, note.tx_from) and filters.keeps(note.text)


def _kept_summaries(
    lane: SummariesLane, hits: Sequence[SummaryHit], filters: SummaryFilters
) -> list[tuple[SummaryHit, Summary]]:
    """The hits shown, each with its version believed at the read point."""
    kept = []
    for hit in hits:
        summary = _as_known(lane, hit.summary, filters.known_at)
        if summary is not None and _keeps_summary(summary, filters):
            kept.append((hit, summary))
    return kept


def _keeps_summary(summary: Summary, filters: SummaryFilters) -> bool:
    return filters.visible(summary.period_from, summary.tx_from) and filters.keeps(
        summary.content.as_text()
    )


def _as_known(lane: SummariesLane, summary: Summary, known_at: datetime | None) -> Summary | None:
    """The version of a summary believed at ``known_at`` (search only sees the latest)."""
    if known_at is None or summary.tx_from <= known_at:
        return summary
    versions = lane.versions(summary.subject, summary.session_id)
    believed = [version for version in versions if version.tx_from <= known_at]
    return believed[-1] if believed else None


@dataclass(frozen=True, slots=True)
class SummaryShown:
    """How a summary's lines are chosen for a query.

    ``index`` holds the subject's notes (to weigh words and cite each line's turns);
    ``seen_lines`` are the lines better summaries already show, in normalized form.
    """

    query: str
    index: WeightedLines
    filters: SummaryFilters
    seen_lines: set[str]


def summary_candidate(summary: Summary, score: float, shown: SummaryShown) -> Candidate | None:
    """A candidate for the lines of a summary the query is about, each citing its turns.

    Lines a better summary already shows are left out; a summary whose lines about the
    query are all shown already gives no candidate, and one with no line about the query
    ranks as context, after the statements that are. The item's provenance is the turns of
    the lines shown, most relevant line first; when no line can be tied to its turns, it is
    the whole summary's.
    """
    choice = shown.index.choose(summary_lines(summary), shown.query, frozenset(summary.provenance))
    choice = choice.without(shown.seen_lines)
    if not choice.lines:
        return None
    shown.seen_lines.update(seen_key(line) for line in choice.lines)
    lines = choice.lines
    mood = ("mood: " + ", ".join(summary.mood),) if summary.mood else ()
    zone = shown.filters.timezone
    period = f"{day(summary.period_from, zone)} → {day(summary.period_to, zone)}"
    name = "storyline" if summary.session_id is None else f"session {summary.session_id}"
    label = f"{name} ({period})"
    item = RecallItem(
        lane="summary",
        text=f"{label}: " + "; ".join([*lines, *mood]),
        score=score,
        valid_from=summary.period_from,
        provenance=list(choice.provenance or summary.provenance),
        subject=summary.subject,
        kind="summary",
        ref=f"summary:{summary.id}",
        at=summary.period_to,
    )
    return Candidate(
        item,
        TIER_SUMMARY if choice.matched else TIER_CONTEXT,
        said=summary.period_from,
        learned=summary.tx_from,
        said_late=summary.period_to,
        turns=origins(summary.provenance),
        judge=True,
        lines=lines,
        label=label,
        extras=mood,
        line_sources=choice.sources,
        whole=tuple(summary.provenance),
        answered=tuple(_answered(line, summary, shown) for line in lines),
        facts=read_line_facts(summary.line_facts),
    )


_REPLIERS = frozenset({"assistant", "tool"})
_TO_DO = "to do"


def _answered(line: str, summary: Summary, shown: SummaryShown) -> tuple[str, tuple[str, ...]]:
    """What the user said that an assistant's ``line`` answers: a line and the turns it cites.

    An assistant's reply ("Booked: dentist, 11 March at 2:45", "已为您下单…") is tied to no
    note of its own; it stands or falls with what the user said that it answers. In a
    session's summary (lines in the order said) that is the user's line before it, else
    everything the user said in the session: ``("", <the session's turns>)``. A storyline
    merges sessions out of order: there it is the earliest note that names what the reply
    names (``("", <its turns>)``). ``("", ())`` for a line of the user's.
    """
    speaker, body = _spoken_by(line)
    if speaker not in _REPLIERS:
        return "", ()
    within = frozenset(summary.provenance)
    if summary.session_id is None:
        return "", shown.index.first_said(body, within)
    every = summary_lines(summary)
    before = every[: every.index(line)] if line in every else []
    for earlier in reversed(before):
        if _spoken_by(earlier)[0] not in _REPLIERS:
            return earlier, shown.index.sources(earlier, within)
    return "", tuple(summary.provenance)


def _spoken_by(line: str) -> tuple[str, str]:
    """Who said a summary line ("assistant", past a "to do:" label), and what they said."""
    label, body = split_label(line)
    if label == _TO_DO:
        label, body = split_label(body)
    return label, body


def summary_lines(summary: Summary | SummaryContent) -> list[str]:
    """The statements of a summary worth a prompt: facts and open items, else its topics."""
    lines = [*summary.facts, *(f"{_TO_DO}: {item}" for item in summary.open_items)]
    if not lines and summary.topic:
        lines.append(f"{ABOUT}: " + TOPICS.join(summary.topic))
    return lines


def derive_line_facts(subject: str, content: SummaryContent) -> str:
    """What judging a summary version's lines asks of their text, as stored with it.

    The lines are those recall shows (:func:`summary_lines`) and, for an "about:" line
    listing several topics, one "about:" line per topic, as the adjudicator splits them
    (see :mod:`memlane.router.line_facts`).
    """
    lines = summary_lines(content)
    for line in list(lines):
        listed = topics(line)
        if len(listed) > 1:
            lines.extend(f"{ABOUT}: {topic}" for topic in listed)
    return stored_line_facts(lines, subject)


ABOUT = "about"
"""The label of the line that lists a summary's topics (shown when it states nothing else)."""
TOPICS = ", "
"""What separates the topics of an "about:" line."""


def topics(line: str) -> list[str]:
    """The topics an "about:" line lists ("about: 洗牙约, 周四晚上七点"), else ``[]``."""
    label, body = split_label(line)
    return body.split(TOPICS) if label == ABOUT and body else []


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
    """True if ``text`` names one of the identifiers, however it is written there.

    Or however it may be asked: see :func:`~memlane.facts.normalize.written_keys`.
    """
    wanted = {key for ref in refs for text in ref.values for key in match_keys(ref.attribute, text)}
    for mention in find_identifiers(text):
        attribute = IDENTIFIER_ATTRIBUTES.get(mention.kind)
        if attribute is not None and written_keys(attribute, mention.text) & wanted:
            return True
    return False
