"""Rendering a recall as a compact, labelled block for a prompt, within a token budget.

Sections, in this order, each only when it has items: current facts, this conversation
(the window, oldest turn first), workflows, summaries and notes, history (facts no longer
valid), outdated (stale statements, flagged, with what replaced them). Items are admitted
in rank order while they fit; one that does not fit is shortened at clause boundaries
(identifiers and dates kept whole) or left out. Sizes are estimated with
:func:`memlane.summaries.text.estimate_tokens`, which counts each CJK character as a token.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import tzinfo

from memlane.router.model import RecallItem
from memlane.summaries.text import clip_line, estimate_tokens

SECTIONS: dict[str, str] = {
    "facts": "Facts (current):",
    "window": "This conversation (latest turns):",
    "workflow": "Workflows:",
    "summary": "From memory (summaries and notes):",
    "history": "History (no longer valid):",
    "stale": "Outdated (superseded, do not rely on):",
}
MIN_CLIP_TOKENS = 8
"""A line is shortened only if at least this many tokens are left for it."""


@dataclass(frozen=True, slots=True)
class Rendered:
    """The block, its estimated size, and the items with ``rendered`` set."""

    text: str
    tokens: int
    items: list[RecallItem]


def section_of(item: RecallItem) -> str:
    """The section an item is shown in."""
    if item.status == "stale":
        return "stale"
    if item.lane == "exact":
        return "facts" if item.status == "current" else "history"
    return item.lane


def line_of(item: RecallItem, zone: tzinfo) -> str:
    """One line for an item: facts as they are, statements with their date, stale flagged."""
    text = item.text
    when = item.at or item.valid_from
    if item.kind in ("note", "turn") and when is not None:
        local = when.astimezone(zone)
        stamp = local.strftime("%Y-%m-%d %H:%M") if item.kind == "turn" else local.date()
        text = f"[{stamp}] {text}"
    if item.status == "stale":
        text = f"(outdated) {text}"
        if item.superseded_by:
            text += f" — {item.superseded_by}"
    return f"- {text}"


def render(
    items: Sequence[RecallItem], *, budget_tokens: int, subjects: Sequence[str], zone: tzinfo
) -> Rendered:
    """Render ``items`` (best first) into at most ``budget_tokens`` estimated tokens.

    Returns an empty block when nothing is admitted.
    """
    header = f"Memory of {', '.join(subjects)}:" if subjects else "Memory:"
    used = estimate_tokens(header)
    chosen: dict[str, list[tuple[int, str]]] = {}
    for index, item in enumerate(items):
        section = section_of(item)
        opening = 0 if section in chosen else estimate_tokens(SECTIONS[section])
        fit = _fit(line_of(item, zone), budget_tokens - used - opening)
        if fit is None:
            continue
        line, cost = fit
        used += opening + cost
        chosen.setdefault(section, []).append((index, line))
    if not chosen or used > budget_tokens:
        return Rendered("", 0, [replace(item, rendered=False) for item in items])
    blocks = [header]
    for section, title in SECTIONS.items():
        lines = chosen.get(section)
        if not lines:
            continue
        if section == "window":  # a conversation reads oldest first (newer turns score higher)
            lines = sorted(lines, key=lambda pair: (_when(items[pair[0]]), items[pair[0]].score))
        blocks.append(title)
        blocks.extend(line for _, line in lines)
    text = "\n".join(blocks)
    shown = {index for lines in chosen.values() for index, _ in lines}
    marked = [replace(item, rendered=index in shown) for index, item in enumerate(items)]
    return Rendered(text, estimate_tokens(text), marked)


def _fit(line: str, room: int) -> tuple[str, int] | None:
    """``line`` (shortened if need be) and its estimated tokens, if it fits in ``room``."""
    cost = estimate_tokens(line)
    if cost <= room:
        return line, cost
    if room < MIN_CLIP_TOKENS:
        return None
    clipped = clip_line(line, room)
    cost = estimate_tokens(clipped)
    return (clipped, cost) if cost <= room else None


def _when(item: RecallItem) -> float:
    instant = item.at or item.valid_from
    return 0.0 if instant is None else instant.timestamp()
