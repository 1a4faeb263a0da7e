"""Shortening a long line to its key clauses within a token budget."""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable

from memlane.lang.sentences import CLAUSE_SEPARATOR as _CLAUSE_SEPARATOR
from memlane.summaries.text.spans import SpanKind, TypedSpan, find_spans
from memlane.summaries.text.words import contains_cjk, estimate_tokens, token_total


def clip_line(text: str, max_tokens: int, keep: Callable[[str], bool] | None = None) -> str:
    """Shorten a long sentence to its key clauses, keeping identifiers and dates whole.

    Clauses carrying an identifier, date or amount (or for which ``keep`` is true) are
    always kept; the first clause is kept for context; the clauses after it fill the
    budget in order until one does not fit. A result still too long that carries nothing
    to protect is cut at a word and ends with "…".
    """
    if estimate_tokens(text) <= max_tokens:
        return text
    spans = find_spans(text)
    clauses = _clauses(text, spans)
    must = [
        index == 0 or bool(find_spans(clause, _KEY_KINDS)) or (keep is not None and keep(clause))
        for index, clause in enumerate(clauses)
    ]
    budget = max_tokens - sum(estimate_tokens(c) for c, m in zip(clauses, must, strict=True) if m)
    chosen: list[str] = []
    filling = True  # optional clauses are added only while they follow on without a gap
    for clause, needed in zip(clauses, must, strict=True):
        cost = estimate_tokens(clause)
        filling = filling and (needed or cost <= budget)
        if needed or filling:
            budget -= 0 if needed else cost
            chosen.append(clause)
    clipped = ""
    for clause in chosen:
        glue = "" if not clipped or contains_cjk(clipped[-1]) or clipped[-1] in "，；：、" else " "
        clipped += glue + clause
    clipped = _TRAILING_BREAK.sub("", clipped)
    if estimate_tokens(clipped) > max_tokens and not find_spans(clipped, _KEY_KINDS):
        clipped = _cut_words(clipped, max_tokens)
    return clipped


_KEY_KINDS: frozenset[SpanKind] = frozenset({"identifier", "date", "amount"})
_TRAILING_BREAK = re.compile(r"[,，;；:：、\s–—-]+$")


def _clauses(text: str, spans: list[TypedSpan]) -> list[str]:
    cuts = [
        match.end()
        for match in _CLAUSE_SEPARATOR.finditer(text)
        if not any(span.start < match.end() and match.start() < span.end for span in spans)
    ]
    bounds = [0, *cuts, len(text)]
    pieces = (text[start:end].strip() for start, end in itertools.pairwise(bounds))
    return [piece for piece in pieces if piece]


def _cut_words(text: str, max_tokens: int) -> str:
    if contains_cjk(text):
        return text[: max(1, max_tokens - 1)] + "…"
    kept: list[str] = []
    total = 0.0  # of the words kept, joined by spaces (see token_total)
    for word in text.split():
        grown = token_total(word, total)
        if math.ceil(grown - 1e-9) > max_tokens - 1:
            break
        kept.append(word)
        total = grown
    return " ".join(kept).rstrip(",;:") + "…"
