"""The rolling per-subject storyline: each closed session's summary merged into the last one."""

from __future__ import annotations

import re

from memlane.summaries.model import SECTIONS, SummaryContent
from memlane.summaries.text import normalize_for_dedupe

LIMITS = {"topic": 12, "facts": 40, "open_items": 12, "entities": 30, "mood": 6}
"""How many lines each storyline section keeps (lines with digits are kept beyond it)."""

_DIGITS = re.compile(r"\d")


def merge_storyline(previous: SummaryContent | None, session: SummaryContent) -> SummaryContent:
    """Newer session lines first, then older storyline lines not repeated, bounded per section.

    Lines that carry digits (identifiers, dates, amounts) are never dropped by the bound: the
    storyline must not lose what the exact lane is keyed on.
    """
    if previous is None:
        return session
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
