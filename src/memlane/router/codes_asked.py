"""The **which** rule: under a question for a code, what gives one, and what only resembles it.

A question that narrows a code with qualifiers ("my *work* email", the tracking number *for
my keyboard*) is not answered by a fact of that attribute, or a statement holding some code,
unless what was said carries every qualifier (:func:`near_miss`, :func:`giving`). A note that
only gives a code answers no question that does not ask for it (:func:`without_bare_codes`),
nor one that already names that code (:func:`without_restatements`). Asked by
:func:`memlane.router.answers.answering`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime

from memlane.extract import find_identifiers, resolve_times
from memlane.extract._codes import CUES
from memlane.extract.rules import IDENTIFIER_ATTRIBUTES
from memlane.facts.normalize import match_keys
from memlane.lang import salient_terms
from memlane.lang.codewords import code_nouns, names_code
from memlane.lang.kinds import NUMBER, PERSON, TIME, asked_kind
from memlane.lang.qualifiers import Qualifier, carries, numbers
from memlane.lang.script import fold, is_cjk
from memlane.lang.speaker import EN_NAME_INSIDE as _NAME
from memlane.lang.speaker import SPEAKER_PREFIX as _SPEAKER
from memlane.router.analysis import CODES, EVENT
from memlane.router.candidates import Candidate
from memlane.router.evidence import turns_of
from memlane.router.model import AttributeIntent, QueryAnalysis

_CLAUSES = re.compile(r"[;；]")
"""What splits a summary's lines: each holds a code, or carries what narrows it, alone."""

_ANY_TIME = datetime(2000, 1, 1, tzinfo=UTC)
"""Whether a clause tells a time does not depend on when it is read."""

Mentions = Callable[[str], list[AttributeIntent]]
"""The attribute phrases a text names (spans in its folded form)."""

Evidence = Callable[[Candidate], str]
"""What was said that a candidate stands for (a fact's cited statements; else its text)."""


def without_bare_codes(
    candidates: list[Candidate], analysis: QueryAnalysis, mentions: Mentions
) -> list[Candidate]:
    """A note that only gives a code does not answer a question whose code word is not asked.

    "What *number* of kids does the customer have?": the number belongs to the kids, and
    "number's +1-303-555-0188" (nothing said beside the phone) is a near miss; what was said
    of the kids answers, unless nothing else was recalled. Under a question for a count that
    names no code at all ("how many children…?": :func:`_counts`), so is a note whose every
    digit belongs to a code ("Usr-7's cell is +1-404-555-0125").
    """
    asked = {*analysis.attributes, *dict(analysis.qualified)}
    named = {i.attribute for i in analysis.intents if i.attribute in CODES}
    hijacked = named - asked
    counted = _counts(analysis) and not named
    if (not hijacked and not counted) or analysis.identifiers:
        return candidates
    bare = [
        c for c in candidates if _bare_code(c, hijacked, mentions) or (counted and _only_codes(c))
    ]
    rest = [c for c in candidates if c not in bare]
    return rest if any(c.item.lane != "exact" for c in rest) else candidates


def _counts(analysis: QueryAnalysis) -> bool:
    """Whether the question asks for a count or an amount, and names no code.

    "How many children does the user have?", "落东西的那间房是几号？": a phone number holds
    digits, but it is no count, and the question writes no code noun ("号码", "number",
    "护照号": :func:`memlane.lang.codewords.code_nouns`) that would ask for one.
    """
    query = fold(analysis.query)
    return asked_kind(query) == NUMBER and not code_nouns(query)


def _only_codes(candidate: Candidate) -> bool:
    """Whether a note's every digit belongs to a code: it holds no count ("cell is +1-404…")."""
    if candidate.item.kind != "note":
        return False
    text = fold(candidate.statement).replace(fold(candidate.item.subject or "\0"), " ")
    codes = [m.span for m in find_identifiers(text) if m.kind in IDENTIFIER_ATTRIBUTES]
    return bool(codes) and not any(ch.isdigit() for ch in _blank(text, codes))


def _bare_code(candidate: Candidate, kinds: set[str], mentions: Mentions) -> bool:
    """Whether a note gives codes of ``kinds`` and says nothing else."""
    if candidate.item.kind != "note":
        return False
    text = fold(candidate.statement)
    codes = [m for m in find_identifiers(text) if IDENTIFIER_ATTRIBUTES.get(m.kind) in kinds]
    if not codes:
        return False
    return _nothing_beside(candidate, text, [m.span for m in codes], mentions)


def replacing(candidate: Candidate, taken: frozenset[str]) -> bool:
    """Whether ``candidate`` is the statement that replaced one about the thing asked.

    "Cancel order ORD-1 please" names no Fitbit, but it took back "order the Fitbit": asked
    for the status of the Fitbit order, it answers. ``taken`` holds only what replaced a
    statement naming the thing asked: a statement that took back an unrelated request
    ("帮我看看有没有满减活动") gives a frequent-flyer number, not the passport's.
    """
    turns = turns_of(candidate.turns)
    return bool(turns) and turns <= taken


def named_in_full(
    qualifiers: tuple[Qualifier, ...], candidates: list[Candidate]
) -> tuple[Qualifier, ...]:
    """The qualifiers without a compound's lone head character when some statement names more.

    "九阳豆浆机的运单号" is carried by "…豆浆机…" in full; then "耳机的快递单号是JT…" (the head
    机 alone) tells another thing's code. With nothing naming more than the head ("付款卡" asked,
    "换成尾号1892的招行卡" said), the head still carries it.
    """
    narrowed = []
    for qualifier in qualifiers:
        whole = tuple(word for word in qualifier if len(word) > 1 or not is_cjk(word))
        named = whole != qualifier and any(carries(c.statement, whole) for c in candidates)
        narrowed.append(whole if named else qualifier)
    return tuple(narrowed)


def near_miss(
    candidate: Candidate, kind: str, qualifiers: tuple[Qualifier, ...], evidence: Evidence
) -> bool:
    """Whether the candidate holds a code without every qualifier of the code asked for.

    A code of another kind is a near miss too: "tracking number" is read as a number. So is
    the time of another booked event (``kind`` :data:`EVENT`): the dentist's for the eye
    doctor's appointment. A clause giving a number the nearest qualifier names is none
    ("room 1830" for "my room number at the hotel": :func:`memlane.lang.qualifiers.numbers`).
    """
    fact = candidate.item.fact
    if fact is not None:
        if fact.attribute not in CODES or kind == EVENT:
            return False
        said = f"{evidence(candidate)}\n{fact.attribute.replace('_', ' ')}"
        return not all(carries(said, q) for q in qualifiers)
    nearest = qualifiers[0] if qualifiers and kind != EVENT else ()
    gives = [c for c in _CLAUSES.split(candidate.statement) if _gives(kind, c, candidate)]
    return bool(gives) and not any(
        all(carries(c, q) for q in qualifiers) or numbers(c, nearest) for c in gives
    )


def _gives(kind: str, clause: str, candidate: Candidate) -> bool:
    """Whether a clause gives what a question of ``kind`` asks for: a time, else a code."""
    if kind == EVENT:
        return bool(resolve_times(clause, _ANY_TIME, UTC))
    if candidate.label:  # "session web-ef6847ba (…)": the session's id is no code said
        clause = clause.replace(candidate.label, " ")
    return holds_code(clause, candidate.item.subject)


def without_restatements(
    candidates: list[Candidate], analysis: QueryAnalysis, mentions: Mentions
) -> list[Candidate]:
    """A statement that only gives the identifier the question names is left out.

    The question already holds the identifier ("which city is ORD-7 going to?"): "Order
    number ORD-7." tells nothing it asks, what was said beside it may (unless nothing was).
    Asked when ("When's the appointment for 07700 900572?"), a statement that tells no time
    beside the identifier ("my number's 07700 900572 if anything changes") restates it too;
    asked who ("Whose number is (617) 555-0108?"), one that names nobody beside it ("Call
    M-47 back on +1 617 555 0108 please").
    """
    keys = {
        key
        for ref in analysis.identifiers
        for value in ref.values
        for key in match_keys(ref.attribute, value)
    }
    if not keys:
        return candidates
    asked = asked_kind(analysis.query)
    restating = [c for c in candidates if _restates(c, keys, mentions, asked)]
    rest = [c for c in candidates if c not in restating]
    if any(c.item.lane != "exact" for c in rest):
        return rest
    return candidates


def _restates(candidate: Candidate, keys: set[str], mentions: Mentions, asked: str | None) -> bool:
    if candidate.item.kind != "note":
        return False
    text = fold(candidate.statement)
    named = [
        m.span
        for m in find_identifiers(text)
        if m.kind in IDENTIFIER_ATTRIBUTES
        and match_keys(IDENTIFIER_ATTRIBUTES[m.kind], m.text) & keys
    ]
    if not named:
        return False
    if asked == TIME:
        return not resolve_times(_blank(text, named), _ANY_TIME, UTC)
    written = candidate.statement
    if asked == PERSON and written.isascii() and len(written) == len(text):
        rest = _blank(written, named).replace(candidate.item.subject or "\0", " ")
        return not _NAME.search(rest)
    return _nothing_beside(candidate, text, named, mentions)


def _nothing_beside(
    candidate: Candidate, text: str, codes: list[tuple[int, int]], mentions: Mentions
) -> bool:
    """Whether folded ``text`` says nothing beside the codes at ``codes``.

    Attribute words, the words for codes, the subject and the speaker's label say nothing.
    """
    spans = codes + [m.span for m in mentions(text)]
    spans += [m.span() for cue in CUES.values() for m in cue.finditer(text)]
    rest = _SPEAKER.sub(" ", _blank(text, spans).replace(fold(candidate.item.subject or "\0"), " "))
    return not salient_terms(rest)


def _blank(text: str, spans: list[tuple[int, int]]) -> str:
    chars = list(text)
    for start, end in spans:
        chars[start:end] = " " * (end - start)
    return "".join(chars)


def giving(candidates: list[Candidate], kind: str, nearest: Qualifier) -> list[Candidate]:
    """Under a question for a code (or a booked event's time), what gives one, if any does.

    Left after the near misses, a statement that gives a code carries what narrows it; one
    that only shares those words ("ordered a Fitbit and a kettle") does not answer. A number
    the nearest qualifier names is the code asked: "room 1830" or "汉庭2839房" for "my room
    number". The statement that took one of them back answers with it ("小米14那单帮我取消吧"
    for "我那个小米14的订单现在什么情况？"): it tells what became of the code, without giving
    it again.
    """
    coded = [
        c
        for c in candidates
        if (c.item.fact is not None and c.item.fact.attribute in CODES and kind != EVENT)
        or (c.item.fact is None and _gives(kind, c.statement, c))
        or (c.item.fact is None and kind != EVENT and numbers(c.statement, nearest))
    ]
    if not coded:
        return candidates
    taken = frozenset().union(*(c.replaced_by for c in coded))
    return [
        c
        for c in candidates
        if c in coded or replacing(c, taken) or c.item.lane not in ("summary", "exact")
    ]


def holds_code(text: str, subject: str | None) -> bool:
    """Whether a statement gives a code; the subject's own id, written for "I", is none."""
    own = fold(subject or "")
    return names_code(text) or any(fold(m.text) != own for m in find_identifiers(text))
