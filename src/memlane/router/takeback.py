"""What a later statement takes back: the ties between a retraction and what it retracts.

A retraction names an old value by a specific word (:func:`names_retracted`), or switches an
arrangement sharing one (:func:`switched_from`), or picks the other of two values the
question offers (:func:`chosen_over`), or gives another value of a kind told by shape, a
street or e-mail address or a phone number (:func:`readdressed`), or, sharing no word, is
nearest in meaning to what it replaced (:func:`replaced_in_meaning`), or, when the embedder
cannot tell meaning, follows the speaker's own latest statement (:func:`replaced_in_frame`);
a statement that only takes a value back tells nothing of the present
(:func:`only_takes_back`). The adjudicator (:mod:`memlane.router.adjudicate`) asks these.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from memlane.extract import find_identifiers
from memlane.lang.changes import (
    Offer,
    Retraction,
    as_said,
    only_retracts,
    picks_other,
    replaces_in_kind,
    retractions,
    street_addresses,
    switched_parts,
    taken_back_by_kind,
)
from memlane.lang.words import salient_terms, shares_term, tells_episode
from memlane.memo import per_recall
from memlane.router.evidence import Evidence, Statement, turns_of
from memlane.router.slots import clauses


def only_takes_back(text: str, subject: str, query: str) -> bool:
    """Whether a statement only says a value no longer holds, one the query does not name.

    "Not Bex anymore" tells nothing of what holds now, only of a value that held before
    (see :func:`_historical`). Asked about the value itself ("what happened with the
    blender?"), "cancel the blender" is the answer: what became of it.
    """
    return names_none(retracted_terms(text, subject), query)


def retracted_terms(text: str, subject: str) -> tuple[frozenset[str], ...] | None:
    """The terms of each value ``text`` takes back when that is all it says, else ``None``."""
    if not only_retracts(" ; ".join(clauses(text, subject)), (subject,)):
        return None
    return tuple(found.terms for found in retractions(text))


def names_none(retracted: tuple[frozenset[str], ...] | None, query: str) -> bool:
    """Whether a statement that only takes back ``retracted`` says nothing ``query`` names."""
    return retracted is not None and not any(shares_term(terms, query) for terms in retracted)


def names_retracted(evidence: Evidence, retraction: Retraction, text: str) -> bool:
    """Whether ``text`` names the retracted value by a term specific enough to be a value.

    A word said in many of the subject's statements ("time", "love", a friend's name) is not
    the value a retraction takes back; only rarer words tie it to what it retracts.
    """
    return any(
        shares_term(frozenset((term,)), text) and evidence.specific(term)
        for term in retraction.terms
    )


def retracted_in(evidence: Evidence, later: str, text: str, subject: str) -> bool:
    """Whether a ``later`` retraction names a value ``text`` holds (see :func:`names_retracted`).

    Not by the subject's own name: notes write it for "I" ("Pls stop using M6137730's work
    adress"), so every statement of the subject says it, and a subject with few statements
    would find it specific enough to be a value.
    """
    own = salient_terms(subject)
    return any(
        names_retracted(evidence, Retraction(old.old, old.terms - own), text)
        for old in retractions(later) or retractions(as_said(later, subject))
    )


def switched_from(evidence: Evidence, switch: str, text: str, subject: str) -> bool:
    """Whether ``text`` is what a later ``switch`` replaced: they share a specific word.

    "Always give me an aisle seat" and, later, "a window seat from now on" share "seat";
    "一般发圆通就行" and "快递换成韵达，圆通太慢了" share 圆通. A word many of the subject's
    statements say ties nothing (see :func:`names_retracted`), nor does the subject's own name,
    which notes write for "I".
    """
    parts = switched_parts(switch, (subject,))
    if not parts:
        return False
    said = " ".join(parts)
    terms = salient_terms(said) - salient_terms(subject)
    return bool(terms) and names_retracted(evidence, Retraction(said, terms), text)


def readdressed(
    change: str, text: str, beside: str = "", given: Mapping[str, frozenset[str]] | None = None
) -> bool:
    """Whether a later ``change`` gives a value of a kind in place of the one ``text`` gives.

    The kinds are told by shape: a street address, an e-mail address, a phone number. "Send
    to 9 Mill Lane from now on" replaces "Deliver everything to my office: 12 Harbour Rd",
    and "New email: a@x.org — the old one is closed" replaces "You can reach me at
    b@y.com", though they share no word: both give a value of one kind, and the later says
    it replaces. What was said ``beside`` the change in its turn gives the new value as
    well: "The office one is no longer valid" names none, and the sentence before it in the
    same turn ("New delivery address please — 389 Hawthorn Close") gives it. ``given``:
    :func:`values_by_kind` of ``text``, when known (a summary line's, stored with it).
    """
    if not replaces_in_kind(change):
        return False
    old = values_by_kind(text) if given is None else given
    if not old:
        return False  # ``text`` gives no value of a kind: nothing to give in its place
    new = values_by_kind(f"{change}\n{beside}")
    return any(values and old.get(kind) and not values & old[kind] for kind, values in new.items())


_REPLACED_KINDS = frozenset({"email", "phone"})


@per_recall
def values_by_kind(text: str) -> Mapping[str, frozenset[str]]:
    """The street addresses, e-mail addresses and phone numbers ``text`` gives, by kind.

    Kept for the recall: each candidate is held against each later change, so the same
    texts are scanned for identifiers again and again.
    """
    found: dict[str, set[str]] = {"address": set(street_addresses(text))}
    for mention in find_identifiers(text):
        if mention.kind in _REPLACED_KINDS:
            found.setdefault(mention.kind, set()).add(str(mention.value).casefold())
    return MappingProxyType({kind: frozenset(values) for kind, values in found.items() if values})


def readdressed_by(
    evidence: Evidence,
    later: Statement,
    text: str,
    given: Mapping[str, frozenset[str]] | None = None,
) -> Statement | None:
    """The statement that gives the value a later retraction puts in place of ``text``'s.

    ``later`` itself when it gives it (see :func:`readdressed`), else the statement of its
    turn that does ("New delivery address please — 389 Hawthorn Close" beside "The office
    one is no longer valid"): that one answers in place of what it replaced. ``given``:
    :func:`values_by_kind` of ``text``, when known.
    """
    if not replaces_in_kind(later.text):
        return None
    old = values_by_kind(text) if given is None else given
    if not old:
        return None  # ``text`` gives no value of a kind: nothing replaces it in kind
    if readdressed(later.text, text, given=old):
        return later
    turns = frozenset(turns_of(later.turns))
    beside = [found for found in evidence.citing(turns) if found.ref != later.ref] if turns else []
    for found in beside:
        if readdressed(later.text, text, found.text, old):
            return found
    return None


def chosen_over(change: str, text: str, subject: str, offers: tuple[Offer, ...]) -> bool:
    """Whether a later ``change`` picks the other of two values the question offers.

    Asked "monthly or yearly?", "switched to paying yearly" takes back "I'm on monthly
    billing" though they share no word: the question names both values.
    """
    if not offers or not (retractions(change) or switched_parts(change, (subject,))):
        return False
    return picks_other(change, text, offers)


def replaced_in_meaning(evidence: Evidence, later: Statement, turns: frozenset[str]) -> bool:
    """Whether a later retraction replaces what was said in ``turns``, by meaning alone.

    "No car anymore — I take the train in every day" shares no word with "I drive to work",
    nor "I eat fish and dairy these days" with "I'm vegan": of everything the speaker said
    before, the statement a retraction is nearest to in meaning is the one it takes back
    (:meth:`~memlane.router.evidence.Evidence.nearest_before`), when the embedder can tell
    (its :func:`~memlane.embed.base.meaning_floor`; never the hash embedder). Only a state is
    taken back so, and only by a statement of how things are: neither may tell an episode
    ("Instead of giving up, I trained harder", "we painted a lake":
    :func:`~memlane.lang.words.tells_episode`); in a long chat an episode's nearest
    statement is just another episode told near it.
    """
    if tells_episode(later.text):
        return False
    found = evidence.nearest_before(later)
    return found is not None and bool(found.turns & turns) and not tells_episode(found.text)


def replaced_in_frame(evidence: Evidence, later: Statement, turns: frozenset[str]) -> bool:
    """Whether a later retraction replaces what was said in ``turns``, by where it stands.

    With an embedder that cannot tell meaning (the hash embedder), "No car anymore — I take
    the train in every day" is tied to nothing by :func:`replaced_in_meaning`. It still
    takes something back: what the speaker said of themself last before it ("I drive to
    work most days"), when all of these hold:

    - it says what holds now besides what it takes back ("I take the train"): one that
      only takes a value back ("Not vegan anymore") names all it retracts;
    - the speaker takes back a kind of thing, not a name or a number, in English
      (:func:`~memlane.lang.changes.taken_back_by_kind`): a name said for the first time
      ("I left Acme") is a value of its own;
    - no other statement of the subject names what it takes back (else the words tie it:
      :func:`names_retracted`, :func:`switched_from`);
    - that last statement tells how things stand for the speaker (not a question, not an
      episode, not about something else: :func:`~memlane.lang.changes.speaks_for_self`) and
      shares no word with the retraction: one that does ("I train new staff", then "I take
      the train") is left to the words, which did not tie it.
    """
    if evidence.tells_meaning or tells_episode(later.text):
        return False
    if only_retracts(later.text, (later.subject,)):
        return False  # "not vegan anymore" names all it takes back: nothing else
    terms = taken_back_by_kind(later.text, (later.subject,))
    if not terms:
        return False
    itself = evidence.citing(later.turns)  # its note and its turn in the window, if both
    for term in terms:
        if evidence.sharing(term) > sum(shares_term(frozenset((term,)), s.text) for s in itself):
            return False  # another statement names it: the words decide
    found = evidence.latest_own_before(later)
    if found is None or not found.turns & turns:
        return False
    said = salient_terms(later.text) - salient_terms(later.subject)
    return not shares_term(said, found.text)
