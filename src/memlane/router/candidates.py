"""The candidates of a recall before judging and ranking, and the tiers that order them.

Every lane read turns what it found into :class:`Candidate` s (:mod:`memlane.router.lanes`,
:mod:`memlane.router.summary_lane`); :mod:`memlane.router.adjudicate` judges them and
:mod:`memlane.router.ranking` orders them, tier first.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from typing import TYPE_CHECKING

from memlane.facts.model import Fact
from memlane.router.evidence import origins, turns_of
from memlane.router.model import RecallItem
from memlane.summaries.model import Note

if TYPE_CHECKING:
    from memlane.router.line_facts import LineFacts

TIER_ANSWER = 0
TIER_WINDOW = 1
TIER_WORKFLOW = 2
TIER_NOTE = 3
TIER_ASIDE = 4  # notes of the subject's own, under a question about a thing or an episode
TIER_SUMMARY = 5
TIER_OTHERS = 6  # statements only about someone else the question does not name
TIER_CONTEXT = 6  # summaries found as a whole, none of whose lines is about the query
TIER_PROFILE = 7
ON_TOPIC_BONUS = 0.15


def _no_facts() -> Mapping[str, LineFacts]:
    return {}


@dataclass(slots=True)
class Candidate:
    """A recalled item before judging and ranking.

    ``said``/``learned`` order statements in time; ``said_late`` is when a summary's period
    ends (statements after it may supersede its lines); ``turns`` are the turn ids and
    ``note:<id>`` references it came from; ``lines`` are a summary's statements, ``label``
    its heading, ``extras`` lines shown with them but not judged (mood); ``body`` the text
    to judge when it differs from the item's text. ``line_sources`` are the turns each of
    ``lines`` cites (empty when unknown) and ``whole`` the summary's own provenance, cited
    when no line can be tied to its turns. ``answered`` holds, for each of ``lines`` an
    assistant said, the user's line it answers and the turns that cites (see
    :meth:`memlane.router.adjudicate.Adjudicator._answer_verdict`). ``replaced_by``: the
    turns of the statement that made a stale candidate stale; ``replaced_by_note`` the id of
    that statement's note, when it is a stored note (a window turn has none). ``facts``:
    what judging a summary's lines asks of their text, by line, as stored with the summary
    (:mod:`memlane.router.line_facts`; lines not in it are derived when judged).
    """

    item: RecallItem
    tier: int
    said: datetime | None = None
    learned: datetime | None = None
    said_late: datetime | None = None
    turns: frozenset[str] = frozenset()
    judge: bool = False
    lines: tuple[str, ...] = ()
    label: str = ""
    note: Note | None = None
    body: str = ""
    extras: tuple[str, ...] = ()
    line_sources: tuple[tuple[str, ...], ...] = ()
    whole: tuple[str, ...] = ()
    answered: tuple[tuple[str, tuple[str, ...]], ...] = ()
    replaced_by: frozenset[str] = frozenset()
    replaced_by_note: int | None = None
    facts: Mapping[str, LineFacts] = field(default_factory=_no_facts)

    def cited(self, indexes: Iterable[int]) -> list[str]:
        """The turns the given lines cite, in order, or the whole summary's if none is known."""
        sources = self.line_sources
        found = [turn for i in indexes if i < len(sources) for turn in sources[i]]
        return list(dict.fromkeys(found)) or list(self.whole or self.item.provenance)

    def said_in(self) -> set[str]:
        """The turns its statements were said in (its lines' if it has lines), no note refs."""
        return turns_of(self.cited(range(len(self.lines))) if self.lines else self.turns)

    @property
    def statement(self) -> str:
        """The text to judge: a turn's content without its speaker label, else the item."""
        return self.body or self.item.text


@dataclass(slots=True)
class SubjectFacts:
    """What the exact lane holds for one subject at the read point, history read lazily."""

    subject: str
    current: dict[str, list[Fact]]
    many: set[str]
    read_history: Callable[[str], list[Fact]]
    _history: dict[str, list[Fact]] = field(default_factory=dict)

    def history(self, attribute: str) -> list[Fact]:
        """Every version of ``attribute`` on the valid-time line, cached."""
        if attribute not in self._history:
            self._history[attribute] = self.read_history(attribute)
        return self._history[attribute]


def note_candidate(note: Note | None, subject: str, score: float, zone: tzinfo) -> Candidate:
    """A summary-lane candidate for a note."""
    assert note is not None
    item = RecallItem(
        lane="summary",
        text=note.text,
        score=score,
        valid_from=note.at,
        provenance=list(note.provenance),
        subject=subject,
        kind="note",
        ref=f"note:{note.id}",
        at=note.at,
    )
    return Candidate(
        item,
        TIER_NOTE,
        said=note.at,
        learned=note.tx_from,
        turns=origins(note.provenance, note.id),
        judge=True,
        note=note,
    )
