"""Verdicts: why a recalled statement no longer holds, and the checks against the exact lane.

A verdict names why a statement is stale and since when, and the statement that replaced it
(if any). The checks here judge a statement against the exact lane's view of its subject
(:class:`~memlane.router.candidates.SubjectFacts`); the adjudicator
(:mod:`memlane.router.adjudicate`) asks them before it weighs later statements.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, tzinfo

from memlane.extract import find_identifiers
from memlane.extract.rules import IDENTIFIER_ATTRIBUTES
from memlane.facts.model import Fact
from memlane.lang.changes import takes_back
from memlane.router.candidates import TIER_OTHERS, Candidate, SubjectFacts
from memlane.router.claims import Claim, mentions
from memlane.router.evidence import Statement, origins

_IDENTIFIED = frozenset(IDENTIFIER_ATTRIBUTES.values())
"""The attributes whose values an identifier in a text names (phones, e-mails, orders …)."""

# "在上海工作" reads as an employer claim but usually names a work place: no timing rule.
NO_TIMING_RULE = frozenset({"employer"})


@dataclass(frozen=True, slots=True)
class Verdict:
    """Why a statement is stale, since when, and the statement that replaced it (if any)."""

    reason: str
    since: datetime | None
    replacement: Statement | None = None


def against_superseded(
    held: SubjectFacts, text: str, candidate: Candidate, zone: tzinfo
) -> Verdict | None:
    """A statement naming a value the exact lane has since replaced, whatever its wording.

    "I'm in Seoul, if that matters" claims no relation memlane reads, but it names Seoul,
    an earlier ``location`` whose successor began (or was learned) after it was said.
    """
    assert candidate.said and candidate.learned
    for attribute, current in held.current.items():
        if attribute in held.many or not current:
            continue
        fact = current[0]
        if fact.valid_from <= candidate.said and fact.tx_from <= candidate.learned:
            continue  # the statement is newer than the current value
        if origins(fact.provenance) & candidate.turns or mentions(text, fact.value):
            continue
        old = [
            found
            for found in held.history(attribute)
            if _value_key(found.value) != _value_key(fact.value) and mentions(text, found.value)
        ]
        if old:
            reason = now_reason(zone, attribute, current, old[-1])
            return Verdict(reason, fact.valid_from)
    return None


def against_ended(
    held: SubjectFacts, text: str, candidate: Candidate, subject: str, zone: tzinfo
) -> Verdict | None:
    """A statement naming an identifier whose exact-lane value ended after it was said.

    Of a many-valued attribute (phones, e-mails, orders), where another value does not
    end the old one by itself: "You can reach me at a@x.com" after "New email: b@y.org
    — the old one is closed" retired a@x.com, though no word of the two is shared. Not a
    statement that takes a value back itself: "cancel ORD-1" is what ended ORD-1.
    """
    assert candidate.said
    if held.many.isdisjoint(_IDENTIFIED) or not may_name_identifier(text):
        return None  # no identifier the text could name is held many-valued: none ended
    if takes_back(text, (subject,)):
        return None
    for mention in find_identifiers(text):
        attribute = IDENTIFIER_ATTRIBUTES.get(mention.kind)
        if attribute is None or attribute not in held.many:
            continue
        if any(mentions(mention.text, fact.value) for fact in held.current.get(attribute, [])):
            continue
        ended = [
            fact
            for fact in held.history(attribute)
            if fact.valid_to is not None
            and candidate.said < fact.valid_to
            and mentions(mention.text, fact.value)
        ]
        if ended:
            return Verdict(now_reason(zone, attribute, [], ended[-1]), ended[-1].valid_to)
    return None


def against_facts(
    held: SubjectFacts, claim: Claim, candidate: Candidate, zone: tzinfo
) -> Verdict | None:
    """A claim on an attribute the exact lane holds, judged against that attribute's values.

    Stale when it names a superseded value and not a current one, or names none and the
    current one-valued fact is newer than it and was not read from it.
    """
    assert claim.attribute is not None and candidate.said and candidate.learned
    current = held.current.get(claim.attribute, [])
    if any(mentions(claim.clause, fact.value) for fact in current):
        return None
    values = {_value_key(fact.value) for fact in current}
    superseded = [
        fact
        for fact in held.history(claim.attribute)
        if _value_key(fact.value) not in values and mentions(claim.clause, fact.value)
    ]
    if superseded:
        old = superseded[-1]
        since = current[0].valid_from if current else old.valid_to
        reason = now_reason(zone, claim.attribute, current, old)
        return Verdict(reason, since)
    if not current or claim.attribute in held.many or claim.attribute in NO_TIMING_RULE:
        return None
    fact = current[0]
    if origins(fact.provenance) & candidate.turns:
        return None  # the fact was read from this very statement
    if fact.valid_from > candidate.said or fact.tx_from > candidate.learned:
        reason = now_reason(zone, claim.attribute, current, None)
        return Verdict(reason, fact.valid_from)
    return None


def now_reason(zone: tzinfo, attribute: str, current: list[Fact], old: Fact | None) -> str:
    """Why a statement is stale, in the exact lane's words: what holds now, and since when."""
    if not current:
        assert old is not None
        ended = "" if old.valid_to is None else f" (ended {_day(old.valid_to, zone)})"
        return f"{attribute} {_show(old.value)} no longer holds{ended}"
    values = ", ".join(_show(fact.value) for fact in current)
    return f"{attribute} is now {values} (since {_day(current[0].valid_from, zone)})"


def may_name_identifier(text: str) -> bool:
    """Whether ``text`` may hold a phone, an e-mail or an id: a digit or an ``@``."""
    return "@" in text or any(map(str.isdigit, text))


def since_key(verdict: Verdict | None) -> float:
    """A verdict's ``since`` as a sort key (``0.0`` when it has none)."""
    return 0.0 if verdict is None or verdict.since is None else verdict.since.timestamp()


def always(_: object) -> bool:
    """Any later statement counts (:func:`~memlane.router.evidence.first_later`'s test)."""
    return True


def latest_verdict(later: Sequence[Statement]) -> Verdict | None:
    """The verdict naming the latest of the statements that supersede a candidate, if any."""
    if not later:
        return None
    latest = max(later, key=lambda found: (found.said, found.learned))
    return Verdict(f"later: {latest.text}", latest.said, latest)


def stale(candidate: Candidate, verdict: Verdict) -> Candidate:
    """``candidate`` marked stale by ``verdict``, with what replaced it."""
    item = replace(
        candidate.item,
        status="stale",
        superseded_by=verdict.reason,
        valid_to=verdict.since,
    )
    replacement = verdict.replacement
    replaced_by = replacement.turns if replacement else frozenset()
    note = replacement.note.id if replacement and replacement.note else None
    return replace(candidate, item=item, replaced_by=replaced_by, replaced_by_note=note)


def _value_key(value: object) -> str:
    """A value as compared with another: its text, casefolded."""
    return str(value).casefold()


def _show(value: object) -> str:
    """A value as a reason writes it."""
    return value if isinstance(value, str) else str(value)


def _day(instant: datetime, zone: tzinfo) -> str:
    """The day of ``instant`` in ``zone``, as a reason writes it."""
    return instant.astimezone(zone).date().isoformat()


def historical(candidate: Candidate) -> Candidate:
    """A statement that only takes a value back: ``historical``, after what holds now.

    "Not Bex anymore" is true, but what it names is the value that held before; the
    statement that gives the new one ("could you update my name to Rebecca?") answers.
    """
    item = replace(candidate.item, status="historical")
    return replace(candidate, item=item, tier=max(candidate.tier, TIER_OTHERS))
