"""The ranked sections of a summary, merged across updates: topic, entities, mood and intent.

Previous items keep a bonus by their old rank, so an item nobody mentions any more gives way
to one repeated in the new turns; a fresh mood displaces a previous one of the opposite
polarity. Mood and intent lines are written in the language they were expressed in.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from memlane.lang.labels import INTENTS as _INTENTS
from memlane.lang.labels import MOOD_LINE
from memlane.lang.labels import MOODS as _MOOD_LABELS
from memlane.summaries.text import normalize_for_dedupe


def merge_ranked(previous: Sequence[str], fresh: dict[str, float], limit: int) -> tuple[str, ...]:
    """Rank previous items (kept with a bonus by their old rank) and fresh candidates.

    A previous item scores 0.5-1.5 by its old rank plus its fresh score when repeated, so a
    candidate seen twice in the new turns outranks an old item nobody mentions any more.
    """
    scores: dict[str, list[float | str]] = {}
    order: dict[str, int] = {}
    for rank, item in enumerate(previous):
        key = normalize_for_dedupe(item)
        if key and key not in scores:
            scores[key] = [0.5 + (len(previous) - rank) / len(previous), item]
            order[key] = rank
    for item, score in fresh.items():
        key = normalize_for_dedupe(item)
        if not key:
            continue
        entry = scores.setdefault(key, [0.0, item])
        entry[0] = float(entry[0]) + score
        entry[1] = item  # the newest surface form wins
        order.setdefault(key, len(order))
    chosen: list[str] = []
    for key in sorted(scores, key=lambda key: (-float(scores[key][0]), order[key])):
        # "studio" adds nothing next to "dance studio"; "ORD-1" is not part of "ORD-12"
        covered = not _has_digit(key) and any(key in longer for longer in chosen)
        if len(chosen) < limit and not covered:
            chosen.append(key)
    return tuple(str(scores[key][1]) for key in chosen)


def _has_digit(text: str) -> bool:
    return any(char.isdigit() for char in text)


def _label(canonical: str, chinese: bool) -> str:
    if canonical.startswith("intent:"):
        english, zh = _INTENTS[canonical.split(":", 1)[1]]
        return zh if chinese else english
    english, zh = MOOD_LINE
    return f"{zh}{_MOOD_LABELS[canonical][0]}" if chinese else f"{english}{canonical}"


def _canonical(line: str) -> str | None:
    for name in _MOOD_LABELS:
        if line in (_label(name, False), _label(name, True)):
            return name
    for name in _INTENTS:
        if line in _INTENTS[name]:
            return f"intent:{name}"
    return None


def merge_mood(
    previous: Sequence[str], counts: Counter[tuple[str, bool]], limit: int
) -> tuple[str, ...]:
    """The newest moods and intents first (by count), then previous ones not contradicted.

    At most half the slots (rounded up) go to intents so moods are not crowded out.
    """
    totals: Counter[str] = Counter()
    chinese_votes: Counter[str] = Counter()
    for (name, chinese), count in counts.items():
        totals[name] += count
        chinese_votes[name] += count if chinese else -count
    if len([name for name in totals if name.startswith("intent:")]) > 1:
        totals.pop("intent:sharing", None)  # the weakest intent, only shown alone
    fresh = sorted(totals, key=lambda name: (-totals[name], name.startswith("intent:"), name))
    polarities = {_MOOD_LABELS[name][1] for name in fresh if name in _MOOD_LABELS} - {0}
    lines = [(name, _label(name, chinese_votes[name] > 0)) for name in fresh]
    for line in previous:
        name = _canonical(line) or line
        polarity = _MOOD_LABELS[name][1] if name in _MOOD_LABELS else 0
        if name in totals or (polarity and -polarity in polarities):
            continue
        lines.append((name, line))
    intent_slots = (limit + 1) // 2
    chosen: list[str] = []
    intent_count = 0
    for name, line in lines:
        is_intent = name.startswith("intent:")
        if len(chosen) >= limit or (is_intent and intent_count >= intent_slots):
            continue
        intent_count += is_intent
        chosen.append(line)
    return tuple(dict.fromkeys(chosen))
