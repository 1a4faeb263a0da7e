"""A relation stated for others but never for the one asked about: nothing is known of it.

"Who coaches the Yelford Comets?", when a knowledge base told as statements said who
captains the Yelford Comets and who coaches the Wendridge Falcons, but never who coaches the
Comets: the best statement about the Comets gives another relation's value (the captain),
and a statement with the relation gives another holder's (the Falcons' coach). Neither
answers, so the summary lane's items are left out.

Narrow on purpose: it judges only a stream in the shape of a knowledge base, where whole
statements fill one frame — a relation, its holder, a value (:mod:`memlane.lang.frames`) —
again and again. All of these must hold:

* the question names whole a holder some statement fills the frame for (the longest such);
* what it asks besides holds the head of a relation the frame is filled with ("coaches" of
  "the head coach of …") for at least :data:`MIN_OTHER_HOLDERS` others;
* the holder asked about fills the frame too, for another relation;
* no statement of the subject (in any words) names both the holder and that relation.

Chat turns ("I went to the support group yesterday") fill no frame, so a conversation is
answered as before. A relation asked in words no frame uses ("Who trains the … squad?") is
the relation it means (:mod:`memlane.lang.meanings`), and the statements holding that
relation's own word ("coach") are read too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from memlane.lang import salient_terms
from memlane.lang.frames import Frame, asks_relation, names_holder, relation_frame, without_holder
from memlane.lang.meanings import closeness, headwords, senses, shares_sense
from memlane.router.analysis import asks_several
from memlane.router.candidates import Candidate
from memlane.router.model import QueryAnalysis
from memlane.router.slots import clauses

Holding = Callable[[str, str], Iterable[str]]
"""``(subject, term) ->`` the texts of some of the subject's statements holding ``term``."""

MIN_OTHER_HOLDERS = 1
"""The relation asked must be stated (in the frame) for at least this many other holders."""


def without_unstated(
    candidates: list[Candidate], analysis: QueryAnalysis, holding: Holding
) -> list[Candidate]:
    """``candidates`` without the summary lane's items when the relation asked was never stated.

    See the module docstring. Questions about an identifier, one of the subject's people or
    an attribute the exact lane answers, and questions joining several asks, are judged by
    their own rules, not this one.
    """
    query = analysis.query
    if analysis.identifiers or analysis.roles or analysis.attributes or asks_several(query):
        return candidates
    said = [c for c in candidates if c.item.lane == "summary" and c.item.fact is None]
    subjects = {c.item.subject for c in said}
    if len(subjects) != 1:
        return candidates
    (subject,) = subjects
    if subject is None:
        return candidates
    recalled = [text for c in said for text in (c.lines or (c.statement,))]
    framed = _frames(recalled, subject)
    named = [f.holder for f in framed if names_holder(query, f.holder)]
    if not named:
        return candidates
    holder = max(named, key=len)
    rest = without_holder(query, holder)
    terms = dict.fromkeys((*salient_terms(rest), *headwords(rest)))
    probed = [text for term in terms for text in holding(subject, term)]
    framed += _frames(probed, subject)
    asked, by_meaning = _asked(rest, framed)
    if not asked or any(f.holder == holder for f in framed if f.relation in asked):
        return candidates
    others = {f.holder for f in framed if f.relation in asked}
    own = {f.relation for f in framed if f.holder == holder}
    if len(others) < MIN_OTHER_HOLDERS or not own:
        return candidates
    if by_meaning and not all(senses(relation) for relation in own):
        return candidates  # the holder has a relation of unknown meaning: it may be the one
    if any(_names_both(text, holder, asked) for text in [*recalled, *probed]):
        return candidates  # stated in other words
    return [c for c in candidates if c.item.lane != "summary" or c.item.fact is not None]


def _asked(rest: str, framed: list[Frame]) -> tuple[set[str], bool]:
    """The relations ``rest`` asks, and whether only by meaning.

    By their head word if it names any ("coaches"); else those sharing the most senses with
    it (:func:`memlane.lang.meanings.closeness`: "leads … on the field" the captain).
    """
    relations = {f.relation for f in framed}
    named = {relation for relation in relations if asks_relation(rest, relation)}
    if named:
        return named, False
    close = {relation: closeness(rest, relation) for relation in relations}
    best = max(close.values(), default=0)
    return {relation for relation, shared in close.items() if shared and shared == best}, True


def _frames(texts: Iterable[str], subject: str) -> list[Frame]:
    found = (relation_frame(clause) for text in texts for clause in clauses(text, subject))
    return [frame for frame in found if frame is not None]


def _names_both(text: str, holder: str, relations: set[str]) -> bool:
    """Whether one clause of ``text`` names the holder and the head of a relation asked."""
    return any(
        names_holder(clause, holder)
        and any(
            asks_relation(without_holder(clause, holder), r)
            or shares_sense(without_holder(clause, holder), r)
            for r in relations
        )
        for clause in clauses(text)
    )
