"""Where judged candidates stand against one another, before they are ranked.

Adjudication (:mod:`memlane.router.adjudicate`) marks what is stale; here a recalled note
that replaced a stale one takes its place in the order (:func:`in_place`), and a
summary-lane statement that claims an asked attribute is raised (:func:`boost`). The order
itself is :func:`memlane.router.ranking.rank`'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from memlane.lang.changes import only_retracts, retractions, takes_back
from memlane.lang.speaker import SPEAKER_PREFIX as _SPEAKER
from memlane.lang.words import shares_term
from memlane.router.candidates import ON_TOPIC_BONUS, Candidate
from memlane.router.claims import SELF, Claim
from memlane.router.evidence import turns_of


def boost(candidate: Candidate, found: Sequence[Claim], wanted: frozenset[str]) -> Candidate:
    """Raise a summary-lane statement that claims an asked attribute ("住在…" for location).

    Only claims about the subject itself count: "my brother's favourite team is …" claims
    the asked relation, but of someone else, so it is not an answer about the subject.
    """
    if candidate.item.lane != "summary" or not wanted:
        return candidate
    if not any(
        claim.holder == SELF and (claim.attribute in wanted or claim.relation in wanted)
        for claim in found
    ):
        return candidate
    score = min(1.0, candidate.item.score + ON_TOPIC_BONUS)
    return replace(candidate, item=replace(candidate.item, score=score))


def in_place(judged: list[Candidate], query: str, found_twice: bool) -> list[Candidate]:
    """A recalled note that made another stale scores at least as the one it replaced.

    Asked "how does the user get to work?", "I drive to work most days" is found first by
    its words and "I used to drive but now I take the train" after a complaint that shares
    none; once the first is stale, what replaced it is the answer in its place.

    With ``found_twice`` (an embedder that cannot tell meaning: the search ranks what shares
    no word with the query by chance), a speaker's retraction and what it took back were
    found once each for the same slot, and the retraction scores as the two together, as a
    fusion of rankings counts an item found by two: "SMS only please" and "Change of plan:
    please call me rather than text" are both recalled for "How does the customer want to
    be contacted?", and outrank "The discount code isn't working", found once and by
    chance. Only a retraction that gives what holds now (:func:`~memlane.lang.changes.takes_back`,
    not :func:`_only_back`): a statement restated for a slot many times ("The mayor of X
    is …" × 3) is not found more for it, and "Monday is out, sorry" tells no new time.
    """
    replaced = [c for c in judged if c.item.status == "stale" and c.replaced_by]
    withdrawn = [c for c in judged if c.note is not None and c.item.status == "historical"]
    if not replaced and not withdrawn:
        return judged
    only_back = {c.note.id for c in judged if c.note is not None and _only_back(c, query)}
    out = []
    for candidate in judged:
        if candidate.note is not None and candidate.item.status != "stale":
            olds = [old.item.score for old in replaced if _replaced(old, candidate)]
            olds += [back.item.score for back in withdrawn if _beside(back, candidate)]
            retracts = candidate.note.id not in only_back and takes_back(
                candidate.statement, (candidate.item.subject or "",)
            )
            score = candidate.item.score
            if olds and found_twice and retracts:
                score = min(1.0, score + max(olds))
            elif olds:
                score = max(score, *olds)
            if score > candidate.item.score:
                candidate = replace(candidate, item=replace(candidate.item, score=score))
        out.append(candidate)
    return out


def _beside(withdrawal: Candidate, note: Candidate) -> bool:
    """Whether ``note`` was said in the turn of a ``withdrawal`` that only takes a value back.

    "Please stop using a@x.com" is found for "where do I send the receipt?" by the old
    address; the sentence after it in the same turn ("Use b@y.org") says what holds now and
    answers in its place.
    """
    assert withdrawal.note is not None and note.note is not None
    return note.note.id != withdrawal.note.id and bool(
        turns_of(withdrawal.turns) & turns_of(note.turns)
    )


def _only_back(candidate: Candidate, query: str) -> bool:
    """Whether a note only takes back a value the query does not name ("Monday is out").

    Asked about the value itself ("what happened with the office chair?"), "Can you cancel
    the office chair?" is the answer, not the sentence beside it ("Changed my mind").
    """
    said = _SPEAKER.sub("", candidate.statement).strip()
    if not only_retracts(said, (candidate.item.subject or "",)):
        return False
    return not any(shares_term(found.terms, query) for found in retractions(said))


def _replaced(old: Candidate, note: Candidate) -> bool:
    """Whether the recalled ``note`` is the statement that made ``old`` stale.

    That note itself when the replacement is a stored note: a turn of several sentences
    is noted sentence by sentence, and the other notes of the replacing turn ("Gina does
    remember those dance classes!" beside "Gina used to love the studio") replaced
    nothing. Any note of its turns when the replacement is a window turn, which is no note.
    """
    assert note.note is not None
    if old.replaced_by_note is not None:
        return note.note.id == old.replaced_by_note
    return bool(old.replaced_by & note.turns)
