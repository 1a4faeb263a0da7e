"""Plain-text tables that stay aligned with Chinese text (wide characters take two columns).

Shared by the CLI and the benchmark reports, so neither imports the other.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence


def display_width(text: str) -> int:
    """Columns ``text`` takes in a terminal: wide (CJK) characters take two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def pad(text: str, width: int) -> str:
    """Left-align ``text`` in ``width`` terminal columns."""
    return text + " " * max(0, width - display_width(text))


def table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A left-aligned table with a rule under the header.

    >>> print(table(["id", "城市"], [["1", "上海"]]))
    id  城市
    --  ----
    1   上海
    """
    widths = [display_width(h) for h in headers]
    for row in rows:
        widths = [max(w, display_width(cell)) for w, cell in zip(widths, row, strict=True)]
    lines = ["  ".join(pad(h, w) for h, w in zip(headers, widths, strict=True)).rstrip()]
    lines.append("  ".join("-" * w for w in widths))
    lines.extend(
        "  ".join(pad(cell, w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in rows
    )
    return "\n".join(lines)
