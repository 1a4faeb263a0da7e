"""Labels memlane writes into summaries, in both languages: moods and intents.

A summary's mood and intent lines are written in the language of the conversation
("mood: frustrated", "情绪：烦躁"); the words for them are here.
"""

from __future__ import annotations

MOODS: dict[str, tuple[str, int]] = {
    "frustrated": ("烦躁", -1),
    "sad": ("难过", -1),
    "worried": ("担心", -1),
    "confused": ("困惑", 0),
    "urgent": ("着急", 0),
    "happy": ("开心", 1),
    "excited": ("兴奋", 1),
    "grateful": ("感激", 0),  # thanks close a request; they do not cancel a complaint
}
"""canonical mood: (Chinese label, polarity: +1 pleasant, -1 unpleasant, 0 neither)"""

INTENTS: dict[str, tuple[str, str]] = {
    "asking": ("intent: asking", "意图：询问"),
    "requesting": ("intent: requesting", "意图：请求"),
    "complaining": ("intent: complaining", "意图：抱怨"),
    "planning": ("intent: planning", "意图：计划"),
    "sharing": ("intent: sharing", "意图：分享"),
}
"""Intent lines, by intent: (English line, Chinese line)."""

MOOD_LINE = ("mood: ", "情绪：")
"""What opens a mood line, in English and in Chinese ("mood: sad", "情绪：难过")."""
