"""The rolling per-subject storyline: each closed session's summary merged into the last one."""

from __future__ import annotations

import re
from dataclasses import replace

from memlane.lang.changes import retractions
from memlane.lang.words import shares_term
from memlane.summaries.lines import split_label
from memlane.summaries.model import SECTIONS, SummaryContent
from memlane.summaries.text import has_protected, normalize_for_dedupe

LIMITS = {"topic": 12, "facts": 40, "open_items": 12, "entities": 30, "mood": 6}
"""How many lines each storyline section keeps (lines with digits are kept beyond it)."""

_DIGITS = re.compile(r"\d")


def merge_storyline(previous: SummaryContent | None, session: SummaryContent) -> SummaryContent:
    """Newer session lines first, then older storyline lines not repeated, bounded per section.

    Lines that carry digits (identifiers, dates, amounts) are never dropped by the bound: the
    storyline must not lose what the exact lane is keyed on. An older open item its asker
    has since withdrawn is open no more (:func:`_without_withdrawn`).
    """
    if previous is None:
        return session
    previous = _without_withdrawn(previous, session)
    sections: dict[str, tuple[str, ...]] = {}
    for name in SECTIONS:
        newer: tuple[str, ...] = getattr(session, name)
        older: tuple[str, ...] = getattr(previous, name)
        seen: set[str] = set()
        merged: list[str] = []
        for line in (*newer, *older):
            key = normalize_for_dedupe(line)
            if key and key not in seen:
                seen.add(key)
                merged.append(line)
        limit = LIMITS[name]
        kept = merged[:limit] + [line for line in merged[limit:] if _DIGITS.search(line)]
        sections[name] = tuple(kept)
    return SummaryContent(**sections)


def _without_withdrawn(previous: SummaryContent, session: SummaryContent) -> SummaryContent:
    """``previous`` with the open items the ``session`` withdraws closed.

    "Can all the paperwork be in Spanish?" is no longer open once its asker says, in a later
    session, "no need for Spanish anymore": a line of the same speaker takes back a value
    the item names. A closed item that carries an identifier, a date or a sum moves to the
    facts, as a session's closed items do; any other is dropped.
    """
    taken_back = [
        (split_label(line)[0], found.terms)
        for line in (*session.facts, *session.open_items)
        for found in retractions(split_label(line)[1])
    ]
    if not taken_back:
        return previous
    still_open: list[str] = []
    closed: list[str] = []
    for item in previous.open_items:
        label, body = split_label(item)
        if any(who == label and shares_term(terms, body) for who, terms in taken_back):
            if has_protected(item):
                closed.append(item)
        else:
            still_open.append(item)
    if len(still_open) == len(previous.open_items):
        return previous
    return replace(previous, facts=(*previous.facts, *closed), open_items=tuple(still_open))
