"""A relation stated for others but never for the one asked about: nothing is known of it.

"Who coaches the Yelford Comets?", when the stream said who captains the Yelford Comets and
who coaches the Wendridge Falcons, but never who coaches the Comets: the best statement
about the Comets gives another relation's value (the captain), and a statement with the
relation gives another holder's (the Falcons' coach). Neither answers.

Told by structure, with no list of relations: the question's terms split into those the
best statement carries (the one asked about: "yelford", "comet") and the rest (the
relation: "coach"). When a statement of the subject about someone else names a relation
whose head the rest holds ("the head *coach* of the Wendridge Falcons":
:func:`memlane.lang.frames.relation_heads`), the relation asked is one memory states; when
no statement carries both the one asked about and the rest, it was never stated for them,
and what was said answers nothing: the summary lane's items are left out. The head, not
any shared word: "Who *heads* Orrby Primary School?" holds no relation's head ("head
coach" is a coach) and may ask for the principal in other words. A question whose rest
names no relation stated ("Who trains the … squad?" when "trains" is said nowhere) is
answered as before.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from memlane.lang import salient_terms
from memlane.lang.frames import relation_heads
from memlane.lang.words import carried_terms, holds_head
from memlane.router.analysis import asks_several
from memlane.router.candidates import Candidate
from memlane.router.model import QueryAnalysis

Holding = Callable[[str, str], Iterable[str]]
"""``(subject, term) -> `` the texts of some of the subject's statements holding ``term``."""

_STATUS_ORDER = {"current": 0, "historical": 1, "stale": 2}


def without_unstated(
    candidates: list[Candidate], analysis: QueryAnalysis, holding: Holding
) -> list[Candidate]:
    """``candidates`` without the summary lane's items when the relation asked was never stated.

    See the module docstring. Questions about an identifier, one of the subject's people or
    an attribute the exact lane answers are judged by their own rules, not this one; nor
    is a question that joins several asks (its rest is another ask, not a relation).
    """
    if analysis.identifiers or analysis.roles or analysis.attributes:
        return candidates
    if asks_several(analysis.query):
        return candidates  # "favourite colour and 爱好": the rest is another ask, not a relation
    said = [c for c in candidates if c.item.lane == "summary" and c.item.fact is None]
    asked = salient_terms(analysis.query)
    if not said or len(asked) < 2:
        return candidates
    best = min(said, key=_rank_key)
    about = max((_holder_terms(asked, unit) for unit in _units(best)), key=len)
    rest = asked - about
    if not about or not rest or best.item.subject is None:
        return candidates
    recalled = [unit for c in said for unit in _units(c)]
    if any(about <= carried_terms(asked, unit) and _names(unit, asked, rest) for unit in recalled):
        return candidates  # stated for the one asked about
    probe = sorted(rest, key=len, reverse=True)[0]
    stream = [*recalled, *holding(best.item.subject, probe)]
    named = [unit for unit in stream if _names(unit, asked, rest)]
    if any(about <= carried_terms(asked, unit) for unit in named):
        return candidates
    if not any(_relation(unit, rest) for unit in named):
        return candidates  # no relation asked is said of others: perhaps in other words
    return [c for c in candidates if c.item.lane != "summary" or c.item.fact is not None]


def _holder_terms(asked: frozenset[str], unit: str) -> frozenset[str]:
    """The terms of the question a statement carries, less its relation's head: its holder.

    "The main *export* of Braeholt Province" carries "exporting" of "Which product is
    Braeholt Province best known for exporting?", as the relation, not as whom it is about.
    """
    heads = relation_heads(unit)
    carried = carried_terms(asked, unit)
    return frozenset(t for t in carried if not any(holds_head(frozenset((t,)), h) for h in heads))


def _names(unit: str, asked: frozenset[str], rest: frozenset[str]) -> bool:
    """Whether a statement names the relation asked: it holds the rest, or its head is in it."""
    return rest <= carried_terms(asked, unit) or _relation(unit, rest)


def _relation(unit: str, rest: frozenset[str]) -> bool:
    """Whether the head of a relation the statement names is among the rest of the question."""
    return any(holds_head(rest, head) for head in relation_heads(unit))


def _rank_key(candidate: Candidate) -> tuple[bool, int, int, float]:
    """The order :func:`memlane.router.ranking.rank` gives, without recency."""
    status = candidate.item.status
    return (status == "stale", candidate.tier, _STATUS_ORDER[status], -candidate.item.score)


def _units(candidate: Candidate) -> Sequence[str]:
    """The statements a candidate holds: a summary's lines, else its one statement."""
    return candidate.lines or (candidate.statement,)
