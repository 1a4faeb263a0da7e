"""Notes that tell rank before notes that only ask, or only report that something fails.

A user's question to an assistant ("why is shipping so slow this week", "When will my
invoice be ready?", "上次那个优惠券怎么用不了") tells nothing about the user: it asks. Nor does
a report that something of the service fails and names nothing ("The discount code from last
week isn't working"). Found by similarity (with a hashing embedder, nearly at random) either
can outrank the statement that answers a question ("We have two kids, 4 and 7" for "how many
children does the user have?") by a hair. Under a question asking for a value, such notes
(:func:`memlane.lang.sentences.only_asks`,
:func:`~memlane.lang.sentences.only_reports_trouble`) rank after the notes that tell, still
before summaries — unless the question asks what was asked, complained about or went wrong,
or names an identifier (a question naming it is then about the thing asked).
"""

from __future__ import annotations

from dataclasses import replace

from memlane.lang.sentences import (
    asks_about_asking,
    asks_about_trouble,
    asks_for_information,
    only_asks,
    only_reports_trouble,
)
from memlane.lang.speaker import SPEAKER_PREFIX
from memlane.router.candidates import TIER_ASIDE, TIER_NOTE, Candidate
from memlane.router.model import QueryAnalysis


def telling_first(candidates: list[Candidate], analysis: QueryAnalysis) -> list[Candidate]:
    """``candidates`` with the notes that tell nothing moved after the notes that tell.

    Nothing changes when no note tells, when every note tells, or when the question does
    not ask for a value.
    """
    query = analysis.query
    if analysis.identifiers or not asks_for_information(query) or asks_about_asking(query):
        return candidates
    trouble_asked = asks_about_trouble(query)
    notes = [c for c in candidates if c.tier == TIER_NOTE and c.item.kind == "note"]
    idle = {
        id(c)
        for c in notes
        if only_asks(said(c)) or (not trouble_asked and only_reports_trouble(said(c)))
    }
    if not idle or len(idle) == len(notes):
        return candidates
    return [replace(c, tier=TIER_ASIDE) if id(c) in idle else c for c in candidates]


def said(candidate: Candidate) -> str:
    """What a note says, without its speaker ("U-7 said: …")."""
    note = candidate.note
    text = note.text if note is not None else candidate.statement
    return SPEAKER_PREFIX.sub("", text, count=1).strip()
