"""The turn that named an identifier answers a question naming it.

"Which item is tracking 1Z… for?", "What's in shipment 1Z…?", "这个工单报修的是啥设备": once
the identifier resolved its owner exactly, the question is about what was said *with* the
identifier, and that is the turn that named it. The turn is stored as several notes ("1Z… has
been stuck for 4 days." / "It's a Instant Pot"), and the note that holds the identifier is
rarely the one that answers: the question already holds the identifier, and asks about
something else said beside it. Searched with the whole question, the identifier makes its
own note the best hit, and another session of the owner ("why is shipping so slow") may
outrank the sibling that answers.

So the turns that named the identifier (cited by the exact fact that holds it, or by a
recalled note naming it) are read back whole: their notes come as one item, its lines
judged one by one like a summary's, ranked first among the owner's statements. A turn of a
single note is that note, ranked first. Turns held by the running window are left to it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace

from memlane.router.candidates import ON_TOPIC_BONUS, TIER_NOTE, Candidate, note_candidate
from memlane.router.evidence import turns_of
from memlane.router.model import IdentifierRef, RecallItem
from memlane.router.summary_lane import SummaryFilters, names_identifier
from memlane.summaries.linedata import LineData
from memlane.summaries.model import Note

NAMED_TURN_SCORE = 0.8 + ON_TOPIC_BONUS
"""What the turn that named the identifier scores: above the best hit of a search (0.8)."""


def with_named_turns(
    candidates: Sequence[Candidate],
    matched: Mapping[str, Sequence[IdentifierRef]],
    fact_turns: Mapping[str, Iterable[str]],
    line_data: Callable[[str], LineData],
    filters: SummaryFilters,
    window_turns: frozenset[str],
) -> list[Candidate]:
    """``candidates`` with each matched owner's naming turns read whole and ranked first.

    Args:
        candidates: what the summary lane found (notes and summaries).
        matched: the identifiers of the question each owner holds.
        fact_turns: per owner, the turns the exact facts holding those identifiers cite.
        line_data: a subject's stored note keys (to read the notes a turn gave).
        filters: what the read may show (``known_at``, an explicit ``valid_at``).
        window_turns: turns the running window holds verbatim.
    """
    out = list(candidates)
    for subject, refs in matched.items():
        turns = set(fact_turns.get(subject, ())) | _naming_turns(out, subject, refs)
        turns -= window_turns
        if not turns:
            continue
        notes = [
            note
            for note in line_data(subject).citing(turns)
            if filters.visible(note.at, note.tx_from) and not set(note.provenance) - turns
        ]
        for turn, said in _by_turn(notes).items():
            refs_said = {f"note:{note.id}" for note in said}
            found = [c for c in out if c.item.ref in refs_said]
            out = [c for c in out if c.item.ref not in refs_said]
            out.append(_turn_candidate(turn, said, found, filters))
    return out


def _naming_turns(
    candidates: Sequence[Candidate], subject: str, refs: Sequence[IdentifierRef]
) -> set[str]:
    """The turns of recalled notes of ``subject`` that name one of ``refs``."""
    return {
        turn
        for c in candidates
        if c.item.kind == "note" and c.item.subject == subject and c.note is not None
        if names_identifier(c.note.text, refs)
        for turn in turns_of(c.note.provenance)
    }


def _by_turn(notes: Sequence[Note]) -> dict[str, list[Note]]:
    """Notes of one turn each (a note citing several turns is not one turn's), in order said."""
    grouped: dict[str, list[Note]] = {}
    for note in notes:
        if len(note.provenance) == 1:
            grouped.setdefault(note.provenance[0], []).append(note)
    return grouped


def _turn_candidate(
    turn: str, notes: list[Note], found: list[Candidate], filters: SummaryFilters
) -> Candidate:
    """One candidate for the notes of ``turn``: the note itself when there is one."""
    first = notes[0]
    zone = filters.timezone
    if len(notes) == 1:
        alone = found[0] if found else note_candidate(first, first.subject, 0.0, zone)
        return replace(alone, item=replace(alone.item, score=NAMED_TURN_SCORE))
    lines = tuple(note.text for note in notes)
    label = f"turn {turn}"
    item = RecallItem(
        lane="summary",
        text=f"{label}: " + "; ".join(lines),
        score=NAMED_TURN_SCORE,
        valid_from=first.at,
        provenance=[turn],
        subject=first.subject,
        kind="note",
        ref=f"note:{first.id}",
        at=notes[-1].at,
    )
    return Candidate(
        item,
        TIER_NOTE,
        said=first.at,
        learned=max(note.tx_from for note in notes),
        said_late=notes[-1].at,
        turns=frozenset({turn, *(f"note:{note.id}" for note in notes)}),
        judge=True,
        lines=lines,
        label=label,
        line_sources=tuple((turn,) for _ in notes),
        whole=(turn,),
        answered=tuple(("", ()) for _ in notes),
    )
