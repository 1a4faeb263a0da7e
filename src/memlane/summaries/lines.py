"""The lines of a summary's sections: speaker labels, relation keys, merging and archiving.

A line may carry a speaker label ("Caroline: I moved to Berlin"). Fact lines are merged so a
newer statement of the same relation replaces the older line; lines that carry identifiers
or dates beyond a section's bound fold into "earlier: ..." lines of snippets that keep each
identifier, date and amount verbatim with a few words of context.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from memlane.lang.script import CJK_RANGES
from memlane.summaries.notes import relations
from memlane.summaries.text import (
    PROTECTED_KINDS,
    SpanKind,
    TypedSpan,
    find_spans,
    normalize_for_dedupe,
)

_LABEL = re.compile(
    r"^(?P<label>[^\s:：][^:：\n]{0,39}?)(?:(?<!\d)[:：]|[:：](?!\d))\s?(?P<body>.+)$", re.DOTALL
)
"""A short speaker label and its line; a colon between two digits is a clock time ("at 2:45")."""


def prefixed(label: str, text: str) -> str:
    """``text`` with ``label`` as its speaker prefix (``"Caroline: I moved"``), if any."""
    return f"{label}: {text}" if label else text


def split_label(line: str) -> tuple[str, str]:
    """Split ``"Caroline: I moved"`` into ``("Caroline", "I moved")``; ``("", line)`` if bare.

    A prefix counts as a label only when it is short and has no sentence punctuation, so
    "Note: call at 9" style lines with a long lead-in stay bare.
    """
    match = _LABEL.match(line)
    if match is None or any(mark in match["label"] for mark in ",.!?，。！？"):
        return "", line
    return match["label"].strip(), match["body"].strip()


def relation_keys(line: str) -> frozenset[str]:
    """The ``speaker|relation`` keys of a summary line; empty for assistant/tool lines."""
    return Line.of(line).keys


ARCHIVE = "earlier"
"""The label of the lines that keep the snippets of folded lines (``"earlier: ..."``)."""
_ARCHIVE_SIZE = 8  # snippets per "earlier:" line


@dataclass(frozen=True, slots=True)
class Line:
    """A fact line with what merging needs, computed once per update."""

    text: str
    norm: str
    keys: frozenset[str]
    protected: frozenset[str]  # normalized identifiers and dates it carries
    archive: bool

    @classmethod
    def of(cls, text: str) -> Line:
        """The line ``text`` with its speaker's relation keys and protected spans."""
        label, body = split_label(text)
        keys: frozenset[str] = frozenset()
        if label not in ("assistant", "tool", ARCHIVE):
            keys = frozenset(f"{label}|{name}" for name in relations(body))
        spans = find_spans(text, PROTECTED_KINDS)
        protected = frozenset(normalize_for_dedupe(span.text) for span in spans)
        return cls(text, normalize_for_dedupe(text), keys, protected, label == ARCHIVE)


def merge_facts(previous: list[Line], fresh: list[Line]) -> list[Line]:
    """Previous lines then fresh ones; a fresh line removes duplicates and superseded lines."""
    lines = list(previous)
    for line in fresh:
        if not line.norm or any(line.norm in old.norm for old in lines):
            continue
        lines = [
            old
            for old in lines
            if old.archive or (old.norm not in line.norm and not _supersedes(line, old))
        ]
        lines.append(line)
    return lines


# A line whose only identifier is the old value of one of these may be replaced outright.
_VALUE_RELATIONS = frozenset({"phone", "email", "name"})


def _supersedes(new: Line, old: Line) -> bool:
    shared = new.keys & old.keys
    if not shared:
        return False
    if old.protected <= new.protected:
        return True
    # The old line's one identifier is the old value of the relation being replaced.
    value_relation = any(key.split("|", 1)[1] in _VALUE_RELATIONS for key in shared)
    return value_relation and len(old.protected) == 1 and bool(new.protected)


def fold_overflow(archive: list[Line], overflow: list[Line]) -> list[str]:
    """Fold overflowing lines into "earlier:" lines of identifier/date snippets."""
    snippets = [piece for line in archive for piece in split_label(line.text)[1].split("; ")]
    seen = {normalize_for_dedupe(piece) for piece in snippets}
    for line in overflow:
        for piece in _snippets(line.text):
            if normalize_for_dedupe(piece) not in seen:
                seen.add(normalize_for_dedupe(piece))
                snippets.append(piece)
    return [
        f"{ARCHIVE}: " + "; ".join(snippets[start : start + _ARCHIVE_SIZE])
        for start in range(0, len(snippets), _ARCHIVE_SIZE)
    ]


_SNIPPET_KINDS: frozenset[SpanKind] = frozenset({"identifier", "date", "amount"})
_CLAUSE_END = re.compile(r"[,，;；:：、。！？!?]")


def _snippets(line: str) -> list[str]:
    """The identifiers, dates and amounts of ``line``, with a little context.

    Spans a few words apart form one snippet; each snippet starts with the two words (or
    up to four CJK characters) before it.

    >>> _snippets("我上周搬到北京了，新手机号 139-1111-2222。订单 ORD-1 预计 7月6日 送达")
    ['新手机号 139-1111-2222', '订单 ORD-1 预计 7月6日']
    """
    label, body = split_label(line)
    who = f"{label} " if label not in ("", "assistant", "tool") else ""
    runs: list[list[TypedSpan]] = []
    for span in find_spans(body, _SNIPPET_KINDS):
        gap = body[runs[-1][-1].end : span.start] if runs else ""
        if runs and len(gap) <= 24 and len(gap.split()) <= 4 and not _CLAUSE_END.search(gap):
            runs[-1].append(span)
        else:
            runs.append([span])
    pieces: list[str] = []
    for run in runs:
        before = _CLAUSE_END.split(body[: run[0].start])[-1].rstrip()
        cjk = _CJK_TAIL.search(before)
        context = cjk.group() if cjk else " ".join(before.split()[-2:])
        pieces.append(f"{who}{context} {body[run[0].start : run[-1].end]}".strip())
    return pieces


_CJK_TAIL = re.compile(f"[{CJK_RANGES}]{{1,4}}$")


def merge_lines(previous: Iterable[str], fresh: Iterable[str]) -> list[str]:
    """Previous then fresh lines without normalized duplicates (a repeat moves to the end)."""
    lines: list[str] = []
    for line in [*previous, *fresh]:
        norm = normalize_for_dedupe(line)
        lines = [old for old in lines if normalize_for_dedupe(old) != norm]
        if norm:
            lines.append(line)
    return lines
