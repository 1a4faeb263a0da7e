"""What the offline extractor sets from one text: ``stated("I moved to Leeds")``."""

from __future__ import annotations

from datetime import UTC, datetime

from memlane.extract import RuleExtractor

AT = datetime(2026, 5, 20, 9, 0, tzinfo=UTC)


def stated(text: str) -> list[tuple[str, object]]:
    """The (attribute, value) pairs the rules set from ``text``, said at :data:`AT` in UTC."""
    ops = RuleExtractor().extract(text, at=AT, timezone=UTC).ops
    return [(op.attribute, op.value) for op in ops if op.kind == "set"]
