"""What a later statement takes back: the ties between a retraction and what it retracts.

A retraction (:class:`Retracting`) names an old value by a specific word, or switches an
arrangement sharing one (:meth:`Retracting.names`), or gives another value of a kind told by
shape, a street or e-mail address or a phone number (:meth:`Retracting.giver`), or, sharing
no word, is nearest in meaning to what it replaced, or, when the embedder cannot tell
meaning, follows the speaker's own latest statement (:meth:`Retracting.replaces`); or it
picks the other of two values the question offers (:func:`chosen_over`). A statement that
only takes a value back tells nothing of the present (:func:`only_takes_back`). The
adjudicator (:mod:`memlane.router.adjudicate`) asks these.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property
from types import MappingProxyType

from memlane.extract import find_identifiers
from memlane.lang.changes import (
    Offer,
    as_said,
    only_retracts,
    picks_other,
    replaces_in_kind,
    retractions,
    street_addresses,
    switched_parts,
    taken_back_by_kind,
)
from memlane.lang.script import fold
from memlane.lang.words import salient_terms, shares_term, tells_episode
from memlane.memo import per_process
from memlane.router.evidence import Evidence, Statement, turns_of
from memlane.router.slots import clauses


def only_takes_back(text: str, subject: str, query: str) -> bool:
    """Whether a statement only says a value no longer holds, one the query does not name.

    "Not Bex anymore" tells nothing of what holds now, only of a value that held before
    (see :func:`_historical`). Asked about the value itself ("what happened with the
    blender?"), "cancel the blender" is the answer: what became of it.
    """
    return names_none(retracted_terms(text, subject), query)


@per_process
def retracted_terms(text: str, subject: str) -> tuple[frozenset[str], ...] | None:
    """The terms of each value ``text`` takes back when that is all it says, else ``None``.

    Kept for the process, as a statement's claims are: a function of the text and the
    subject alone, asked of every note recalled, in recall after recall.
    """
    if not only_retracts(" ; ".join(clauses(text, subject)), (subject,)):
        return None
    return tuple(found.terms for found in retractions(text))


def names_none(retracted: tuple[frozenset[str], ...] | None, query: str) -> bool:
    """Whether a statement that only takes back ``retracted`` says nothing ``query`` names."""
    return retracted is not None and not any(shares_term(terms, query) for terms in retracted)


_REPLACED_KINDS = frozenset({"email", "phone"})
_NO_VALUES: Mapping[str, frozenset[str]] = MappingProxyType({})


@per_process
def values_by_kind(text: str) -> Mapping[str, frozenset[str]]:
    """The street addresses, e-mail addresses and phone numbers ``text`` gives, by kind.

    Kept for the process (a function of the text alone, read-only values): each candidate
    is held against each later change, so the same texts are scanned for identifiers again
    and again, recall after recall.
    """
    folded = fold(text)
    if "@" not in folded and not any(map(str.isdigit, folded)):
        return _NO_VALUES  # every kind is written with a digit (numbers) or an "@" (e-mail)
    found: dict[str, set[str]] = {"address": set(street_addresses(text))}
    for mention in find_identifiers(text):
        if mention.kind in _REPLACED_KINDS:
            found.setdefault(mention.kind, set()).add(str(mention.value).casefold())
    return MappingProxyType({kind: frozenset(values) for kind, values in found.items() if values})


class Retracting:
    """A later statement that takes something back, as every recalled text is held against it.

    What it takes back does not depend on the text held against it: the terms of the values
    it retracts and of what it switches, whether it gives a value of a kind in place of
    another, the statement it replaces in meaning or by where it stands. Each is read once
    per recall, when first asked for, and each text is then tied by its own words and turns
    alone: a LoCoMo recall holds ~80 texts against the few retractions said after each (~230
    pairs), all of them against the same few dozen retractions.

    Args:
        evidence: the subject's statements.
        later: the statement that takes back.
        subject: whose statements they are.
    """

    def __init__(self, evidence: Evidence, later: Statement, subject: str) -> None:
        self._evidence = evidence
        self.later = later
        self._subject = subject

    def names(self, text: str) -> bool:
        """Whether it retracts or switches away from a value ``text`` names.

        Retracted: "我离开华为了" names a value "在华为上班" holds. By a term specific enough
        to be a value: a word said in many of the subject's statements ("time", "love", a
        friend's name) is not the value a retraction takes back (``Evidence.specific``); nor
        by the subject's own name, which notes
        write for "I" ("Pls stop using M6137730's work adress"), so every statement of the
        subject says it, and a subject with few statements would find it specific enough to
        be a value. Switched: "Always give me an aisle seat" and, later, "a window seat from
        now on" share "seat"; "一般发圆通就行" and "快递换成韵达，圆通太慢了" share 圆通.
        """
        return any(
            shares_term(term, text) and self._evidence.specific(word)
            for terms in (self._retracted, self._switched)
            for word, term in terms
        )

    @cached_property
    def _retracted(self) -> tuple[tuple[str, frozenset[str]], ...]:
        """The terms of the values it retracts, but the subject's own, each once, in order."""
        own = salient_terms(self._subject)
        later = self.later.text
        olds = retractions(later) or retractions(as_said(later, self._subject))
        words = dict.fromkeys(word for old in olds for word in old.terms - own)
        return tuple((word, frozenset((word,))) for word in words)

    @cached_property
    def _switched(self) -> tuple[tuple[str, frozenset[str]], ...]:
        """The terms of what it switches, but the subject's own."""
        parts = switched_parts(self.later.text, (self._subject,))
        if not parts:
            return ()
        words = salient_terms(" ".join(parts)) - salient_terms(self._subject)
        return tuple((word, frozenset((word,))) for word in words)

    def giver(
        self, text: str, given: Mapping[str, frozenset[str]] | None = None
    ) -> Statement | None:
        """The statement that gives the value it puts in place of ``text``'s, if it does.

        The kinds are told by shape: a street address, an e-mail address, a phone number.
        "Send to 9 Mill Lane from now on" replaces "Deliver everything to my office: 12
        Harbour Rd", and "New email: a@x.org — the old one is closed" replaces "You can reach
        me at b@y.com", though they share no word: both give a value of one kind, and the
        later says it replaces. It gives the new value itself, or a statement of its turn
        does: "The office one is no longer valid" names none, and the sentence before it
        ("New delivery address please — 389 Hawthorn Close") gives it; that one answers in
        place of what it replaced. ``given``: :func:`values_by_kind` of ``text``, when known
        (a summary line's, stored with it).
        """
        if not self._in_kind:
            return None
        old = values_by_kind(text) if given is None else given
        if not old:
            return None  # ``text`` gives no value of a kind: nothing replaces it in kind
        if _gives_other(self._values, old):
            return self.later
        for found in self._beside:
            if _gives_other(values_by_kind(f"{self.later.text}\n{found.text}"), old):
                return found
        return None

    @cached_property
    def _in_kind(self) -> bool:
        """Whether it says a value replaces another of its kind."""
        return replaces_in_kind(self.later.text)

    @cached_property
    def _values(self) -> Mapping[str, frozenset[str]]:
        """The values of a kind it gives itself."""
        return values_by_kind(f"{self.later.text}\n")

    @cached_property
    def _beside(self) -> list[Statement]:
        """The other statements of its turn (what it says beside them gives values with them)."""
        later = self.later
        turns = frozenset(turns_of(later.turns))
        if not turns:
            return []
        return [found for found in self._evidence.citing(turns) if found.ref != later.ref]

    def replaces(self, turns: frozenset[str]) -> bool:
        """Whether it replaces what was said in ``turns``, in meaning or by where it stands.

        See :attr:`_in_meaning` (an embedder that tells meaning) and :attr:`_in_frame` (one
        that cannot).
        """
        return bool(self._in_meaning & turns) or bool(self._in_frame & turns)

    @cached_property
    def _in_meaning(self) -> frozenset[str]:
        """The turns of the statement it replaces by meaning alone (none: empty).

        "No car anymore — I take the train in every day" shares no word with "I drive to
        work", nor "I eat fish and dairy these days" with "I'm vegan": of everything the
        speaker said before, the statement a retraction is nearest to in meaning is the one
        it takes back (:meth:`~memlane.router.evidence.Evidence.nearest_before`), when the
        embedder can tell (its :func:`~memlane.embed.base.meaning_floor`; never the hash
        embedder). Only a state is taken back so, and only by a statement of how things are:
        neither may tell an episode ("Instead of giving up, I trained harder", "we painted a
        lake": :func:`~memlane.lang.words.tells_episode`); in a long chat an episode's
        nearest statement is just another episode told near it.
        """
        if tells_episode(self.later.text):
            return frozenset()
        found = self._evidence.nearest_before(self.later)
        if found is None or tells_episode(found.text):
            return frozenset()
        return found.turns

    @cached_property
    def _in_frame(self) -> frozenset[str]:
        """The turns of the statement it replaces by where it stands (none: empty).

        With an embedder that cannot tell meaning (the hash embedder), "No car anymore — I
        take the train in every day" is tied to nothing by :attr:`_in_meaning`. It still
        takes something back: what the speaker said of themself last before it ("I drive to
        work most days"), when all of these hold:

        - it says what holds now besides what it takes back ("I take the train"): one that
          only takes a value back ("Not vegan anymore") names all it retracts;
        - the speaker takes back a kind of thing, not a name or a number, in English
          (:func:`~memlane.lang.changes.taken_back_by_kind`): a name said for the first time
          ("I left Acme") is a value of its own;
        - no other statement of the subject names what it takes back (else the words tie it:
          :meth:`names`);
        - that last statement tells how things stand for the speaker (not a question, not an
          episode, not about something else: :func:`~memlane.lang.changes.speaks_for_self`)
          and shares no word with the retraction: one that does ("I train new staff", then
          "I take the train") is left to the words, which did not tie it.
        """
        evidence, later = self._evidence, self.later
        if evidence.tells_meaning or tells_episode(later.text):
            return frozenset()
        if only_retracts(later.text, (later.subject,)):
            return frozenset()  # "not vegan anymore" names all it takes back: nothing else
        terms = taken_back_by_kind(later.text, (later.subject,))
        if not terms:
            return frozenset()
        itself = evidence.citing(later.turns)  # its note and its turn in the window, if both
        for term in terms:
            if evidence.sharing(term) > sum(
                shares_term(frozenset((term,)), s.text) for s in itself
            ):
                return frozenset()  # another statement names it: the words decide
        found = evidence.latest_own_before(later)
        if found is None:
            return frozenset()
        said = salient_terms(later.text) - salient_terms(later.subject)
        return frozenset() if shares_term(said, found.text) else found.turns


def _gives_other(new: Mapping[str, frozenset[str]], old: Mapping[str, frozenset[str]]) -> bool:
    """Whether ``new`` gives a value of a kind ``old`` gives, and not the same one."""
    return any(values and old.get(kind) and not values & old[kind] for kind, values in new.items())


def chosen_over(change: str, text: str, subject: str, offers: tuple[Offer, ...]) -> bool:
    """Whether a later ``change`` picks the other of two values the question offers.

    Asked "monthly or yearly?", "switched to paying yearly" takes back "I'm on monthly
    billing" though they share no word: the question names both values.
    """
    if not offers or not (retractions(change) or switched_parts(change, (subject,))):
        return False
    return picks_other(change, text, offers)
