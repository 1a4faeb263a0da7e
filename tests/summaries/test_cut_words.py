"""A line cut at a word within a token budget: each word counted once as the line grows."""

from __future__ import annotations

import random

from memlane.summaries.text.clip import _cut_words
from memlane.summaries.text.words import estimate_tokens, token_total


def _reference(text: str, max_tokens: int) -> str:
    """The cut as written before: every longer prefix estimated again from its start."""
    kept: list[str] = []
    for word in text.split():
        if estimate_tokens(" ".join([*kept, word])) > max_tokens - 1:
            break
        kept.append(word)
    return " ".join(kept).rstrip(",;:") + "…"


WORDS = ["the", "user's", "12345678", "a-b", "(note)", "x", "café", "—", "it’s", "U-1:", "42,"]


def test_cut_words_keeps_what_estimating_every_prefix_kept():
    rng = random.Random(11)
    for _ in range(500):
        text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 40)))
        for budget in (1, 2, 5, 8, 13, 40):
            assert _cut_words(text, budget) == _reference(text, budget)


def test_a_texts_total_is_its_words_totals_added_in_turn():
    words = ["I", "moved", "to", "Beijing.", "12345", "tea,"]
    total = 0.0
    for word in words:
        total = token_total(word, total)
    assert total == token_total(" ".join(words))
