"""What judging a summary's line needs of its text alone, derived when the summary is written.

Adjudication (:mod:`memlane.router.adjudicate`) asks the same questions of every summary
line at every recall: the line's dedupe keys as said and with "I" written as the subject
(to find the statement it repeats word for word), the street, e-mail and phone values it
gives (to tie it to a later change of address), and whether it only takes values back (and
which terms those are, to see whether the query names one). The answers depend on the
line's text and the summary's subject and on nothing written after it, so the summaries
lane derives them once, when it records a summary version (its ``liner``,
:func:`memlane.router.summary_lane.derive_line_facts`), and stores them in the same row
(``summaries.line_facts``): a fold writes a new version with its own; forget and purge
take them with the row. A row without them
(written before schema 14/16, or imported from an archive) is judged as before, each line
derived at recall.

Everything that depends on later writes (the statements that date a line, a later
retraction, a newer slot value, the exact lane's facts) is still judged at recall.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from memlane.memo import per_process
from memlane.router.takeback import names_none, retracted_terms, values_by_kind
from memlane.summaries.notes import resolve_first_person
from memlane.summaries.text import normalize_for_dedupe

__all__ = [
    "LineFacts",
    "line_facts",
    "read_line_facts",
    "said_keys",
    "statement_key",
    "stored_line_facts",
]


@dataclass(frozen=True, slots=True)
class LineFacts:
    """What a summary's line says, as judging it asks.

    ``said``: its dedupe keys as written and with first-person pronouns written as the
    subject; ``kinds``: the street addresses, e-mail addresses and phone numbers it gives, by
    kind; ``retracted``: the terms of each value it takes back when all it says is that values
    no longer hold, else ``None``.
    """

    said: frozenset[str]
    kinds: Mapping[str, frozenset[str]]
    retracted: tuple[frozenset[str], ...] | None

    def only_takes_back(self, query: str) -> bool:
        """:func:`memlane.router.takeback.only_takes_back` of the line, for ``query`` (folded)."""
        return names_none(self.retracted, query)


def line_facts(line: str, subject: str) -> LineFacts:
    """What judging ``line`` of a summary of ``subject`` asks of its text.

    >>> facts = line_facts("Send everything to 12 Harbour Rd", "U-1")
    >>> dict(facts.kinds), facts.retracted
    ({'address': frozenset({'12 harbour rd'})}, None)
    """
    return LineFacts(said_keys(line, subject), values_by_kind(line), retracted_terms(line, subject))


def said_keys(line: str, subject: str) -> frozenset[str]:
    """``line``'s dedupe keys as written and with "I" written as ``subject``."""
    return frozenset(
        (normalize_for_dedupe(line), normalize_for_dedupe(resolve_first_person(line, subject)))
    )


@per_process
def statement_key(text: str) -> str:
    """The dedupe key of a statement a line cites, which holds the line's when it repeats it.

    Kept for the process, not only the recall (:func:`normalize_for_dedupe` is a function of
    the text alone): every recall dates each of ~80 summary lines by the notes it cites, and
    the same notes are cited in recall after recall.

    >>> statement_key("Email for receipts: H@example.com!")
    'email for receipts h example com'
    """
    return normalize_for_dedupe(text)


def stored_line_facts(lines: Iterable[str], subject: str) -> str:
    """The line facts of ``lines`` of a summary of ``subject``, as stored with it (JSON)."""
    stored = {}
    for line in dict.fromkeys(lines):
        facts = line_facts(line, subject)
        stored[line] = [
            sorted(facts.said),
            {kind: sorted(values) for kind, values in sorted(facts.kinds.items())},
            None if facts.retracted is None else [sorted(terms) for terms in facts.retracted],
        ]
    return json.dumps(stored, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


_NONE: Mapping[str, LineFacts] = MappingProxyType({})
CACHED_SUMMARIES = 4_096
"""Summaries whose stored line facts are kept parsed (:func:`read_line_facts`)."""


@per_process(most=CACHED_SUMMARIES)
def read_line_facts(stored: str | None) -> Mapping[str, LineFacts]:
    """The line facts stored with a summary, by line (empty when none were stored).

    Kept for the process by the stored text (a function of it alone, read-only values): the
    same summaries are recalled again and again, and each read parsed the JSON anew.
    """
    if not stored:
        return _NONE
    found: dict[str, LineFacts] = {}
    for line, (said, kinds, retracted) in json.loads(stored).items():
        found[line] = LineFacts(
            frozenset(said),
            MappingProxyType({kind: frozenset(values) for kind, values in kinds.items()}),
            None if retracted is None else tuple(frozenset(terms) for terms in retracted),
        )
    return MappingProxyType(found)
