"""Which recalled candidates answer the question, and which only resemble an answer.

Similarity finds near misses as readily as answers: a question about the user's passport
number finds their frequent-flyer number, one about their birthday finds their son's. Three
structural rules set those apart, after adjudication and before ranking:

* **whom** — a question about the subject's people ("我哥的手机号") is answered only by what
  names one of them (:func:`about_whom_asked`);
* **whose** — a question about the subject's own value is not answered by a statement in
  which that attribute belongs to someone else ("my son's birthday");
* **when** — a question about an earlier value ("previous employer", "搬家前") of an
  attribute that never changed is not answered by its present value, nor by the statements
  that value was read from; and when nothing recalled tells of an earlier value (a fact
  that no longer holds, a statement since superseded, one that tells of a change or of
  before: :func:`memlane.lang.changes.tells_past`), the present ("我在成都生活", "I'm at
  Canva these days") does not answer it: memory knows nothing earlier;
* **what kind** — a question about food is not answered by an allergy to a medicine
  (:mod:`memlane.lang.medicines`);
* **which code** — a question naming a code with a character or two changed ("reservation
  hjvyqt") is not answered by what gives the code it resembles ("code HJVYQX":
  :mod:`memlane.router.mistyped`);
* **which** — a question that narrows a code with qualifiers ("my *work* email", the
  tracking number *for my keyboard*) is not answered by a fact of that attribute, or a
  statement holding some code, unless what was said carries every qualifier;
* **where** — a question about where one comes from or went ("Where is she from?", "Where
  did the user go last summer?") is not answered by where one lives, nor one about where one
  lives by a trip (:mod:`memlane.lang.whereabouts`): such notes rank after the rest;
* **about what** — a question that names neither the subject nor anyone else ("Which
  courier delivered it?", "落东西的那间房是几号？") asks about a thing or an episode: notes
  telling of the subject ("I work for USPS", "我手机号…") rank after the other notes
  (:func:`_about_a_thing`).

What is left may be nothing: then memory knows nothing that answers the question.
"""

from __future__ import annotations

import re
from dataclasses import replace
from itertools import pairwise

from memlane.facts.model import Fact
from memlane.lang import (
    asked_terms,
    asks_about_plans,
    en,
    retractions,
    roles_named,
    salient_terms,
    salient_terms_besides,
    shares_term,
    zh,
)
from memlane.lang.changes import asks_earlier, tells_past
from memlane.lang.codewords import code_nouns
from memlane.lang.holders import names_subject, opens_with_role, opens_with_speaker
from memlane.lang.medicines import asks_about_food, names_medicine_only
from memlane.lang.qualifiers import carries
from memlane.lang.roles import asks_owner, owning_role
from memlane.lang.script import fold, is_cjk
from memlane.lang.speaker import (
    AFFILIATION,
    SELF_INTRODUCTION,
    SELF_WORD_EN,
    SELF_WORD_ZH,
)
from memlane.lang.speaker import EN_NAME_INSIDE as _NAME
from memlane.lang.speaker import SPEAKER_PREFIX as _SPEAKER
from memlane.lang.whereabouts import RESIDENCE, TRAVEL, asks_where, whereabouts
from memlane.lang.words import stem
from memlane.router.analysis import CODES
from memlane.router.candidates import TIER_ASIDE, TIER_NOTE, TIER_PROFILE, Candidate
from memlane.router.claims import mentions
from memlane.router.codes_asked import (
    Evidence,
    Mentions,
    giving,
    holds_code,
    named_in_full,
    near_miss,
    replacing,
    without_bare_codes,
    without_restatements,
)
from memlane.router.mistyped import without_other_codes
from memlane.router.model import QueryAnalysis

_STANDING = frozenset({"employer", "work_location"})
"""Attributes of where one works, which no trip tells."""


def answering(
    candidates: list[Candidate],
    analysis: QueryAnalysis,
    mentions: Mentions,
    evidence: Evidence,
    *,
    at_present: bool = True,
) -> list[Candidate]:
    """The candidates that answer the question analysed (see the module docstring).

    ``at_present``: memory is read as it stands now (no ``valid_at``, no time in the
    question); read at another moment, "before" is that moment, answered by its values.
    """
    kept = about_whom_asked(candidates, analysis)
    kept = without_other_codes(kept, analysis.query)
    own = (*analysis.attributes, *(attribute for attribute, _ in analysis.qualified))
    if own and not analysis.roles and not asks_owner(analysis.query):
        kept = [c for c in kept if not _someone_elses(c, own, mentions)]
    for kind, asked_qualifiers in analysis.qualified:
        qualifiers = named_in_full(asked_qualifiers, kept)
        about = [c for c in kept if not near_miss(c, kind, qualifiers, evidence)]
        named = [c for c in about if all(carries(c.statement, q) for q in qualifiers)]
        taken = frozenset().union(*(c.replaced_by for c in named))
        kept = [c for c in kept if any(c is a for a in about) or replacing(c, taken)]
    for kind, qualifiers in analysis.qualified:
        kept = giving(kept, kind, qualifiers[0] if qualifiers else ())
    if asks_about_food(analysis.query):  # "allergic to penicillin" is no food allergy
        kept = [c for c in kept if c.item.fact is not None or not names_medicine_only(c.statement)]
    if analysis.history and at_present and analysis.period is None:
        kept = _about_before(kept, analysis)
    kept = without_bare_codes(kept, analysis, mentions)
    kept = _about_a_thing(kept, analysis)
    kept = _about_a_plan(kept, analysis)
    kept = _about_own_name(kept, analysis)
    kept = _about_where(kept, analysis)
    return without_restatements(kept, analysis, mentions)


def _about_a_thing(candidates: list[Candidate], analysis: QueryAnalysis) -> list[Candidate]:
    """Under a question about a thing, the notes telling of the subject rank after the rest.

    "Which courier delivered it?" and "出问题的那个包裹是哪家快递送的？" name neither the subject
    ("I", "the user", "用户", a pronoun), nor anyone else, nor an identifier: they ask about a
    parcel, not about the subject. "I work for USPS as a driver" tells of the subject (its
    note opens with them: :func:`memlane.lang.holders.opens_with_speaker`), not of the
    parcel: it ranks after the notes that tell of other things, still before summaries
    (the subject may be meant all the same). A note of the subject that shares a word with
    the question stays ("I was in *room* 1914 at the Ibis" for "what number was the hotel
    *room*?", "I've got 3 *kids*" for "number of *kids* in the household?"): it tells of
    the thing asked about, unless another note still current names it too ("and the Bose
    speaker?": its tracking number, not "I ordered a desk lamp and a Bose speaker"; a stale
    one tells nothing now: "I used to prefer aisle seats but now I want a window seat" stays
    for "aisle or window?" beside "Always give me an aisle seat") or tells of what it
    tells ("Stop ordering the oat flat white for me, it's a cortado these days"). A name
    asked where it lives ("where's Tomasz living at the moment?") is a person's, the
    subject's: the rule keeps out.
    """
    query = analysis.query
    if names_subject(query) or analysis.identifiers or analysis.roles:
        return candidates
    if RESIDENCE in whereabouts(query) and _NAME.search(query):
        return candidates  # "where's Tomasz living?": a name that lives somewhere is a person's
    if len({c.item.subject for c in candidates if c.item.kind == "note"}) > 1:
        return candidates  # read across subjects: who "the subject" is, the question says
    asked = _things_named(query)
    own = [_of_the_subject(c) for c in candidates]
    others = [
        c.statement
        for c, mine in zip(candidates, own, strict=True)
        if not mine and c.tier == TIER_NOTE and c.item.kind == "note" and c.item.status != "stale"
    ]
    told = any(shares_term(asked, text) for text in others)
    return [
        replace(c, tier=TIER_ASIDE) if mine and not _names_alone(c, asked, told, others) else c
        for c, mine in zip(candidates, own, strict=True)
    ]


def _names_alone(
    candidate: Candidate, asked: frozenset[str], told: bool, others: list[str]
) -> bool:
    """Whether a note of the subject alone names the thing asked about.

    It shares a word with the question, no other note does, and no other note tells of what
    it tells ("Stop ordering the oat flat white" of "I always order the oat flat white").
    """
    if told or not shares_term(asked, candidate.statement):
        return False
    own = salient_terms(candidate.statement) - salient_terms(candidate.item.subject or "")
    return not any(shares_term(own, text) for text in others)


_ZH_ASKED_KIND = re.compile(zh.ASKED_KIND)
_LETTER_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")
"""A word of letters in any script, with an apostrophe's ending: "driver", "user's"."""


def _things_named(query: str) -> frozenset[str]:
    """The question's salient terms less the noun of the kind it asks for ("which *driver*").

    "Which driver delivered it?" and "那件是哪家快递运的？" ask for a driver, a courier: a note
    that the subject is one tells of the subject, not of the thing; "what number was the
    hotel *room*?" names the room.
    """
    folded = _ZH_ASKED_KIND.sub(" ", fold(query))
    words = _LETTER_WORD.findall(folded)
    kinds = {stem(noun) for ask, noun in pairwise(words) if ask in en.ASKS_KIND}
    return frozenset(term for term in salient_terms(folded) if term not in kinds)


def _about_a_plan(candidates: list[Candidate], analysis: QueryAnalysis) -> list[Candidate]:
    """Under a question about a plan, the notes that tell one rank before those that do not.

    "我打算以后去哪个城市定居？" asks what the subject means to do: "一直想搬去济南" tells it,
    "我在长沙住了十年了" tells how things stand (:func:`memlane.lang.asks_about_plans` reads
    the cues of a plan, in a question or a statement). Nothing changes when no note tells one.
    """
    if analysis.identifiers or not asks_about_plans(analysis.query):
        return candidates
    notes = {id(c) for c in candidates if c.tier == TIER_NOTE and c.item.kind == "note"}
    planned = {id(c) for c in candidates if id(c) in notes and asks_about_plans(c.statement)}
    if not planned:
        return candidates
    aside = notes - planned
    return [replace(c, tier=TIER_ASIDE) if id(c) in aside else c for c in candidates]


def _about_own_name(candidates: list[Candidate], analysis: QueryAnalysis) -> list[Candidate]:
    """Under a question for who the subject is, the notes that say it of them rank first.

    "What's the customer's name?", "客户叫什么名字？": the customer is the subject, and
    "I'm Pablo Lopez" / "我是钟海燕" (a note that only says who the speaker is:
    :data:`memlane.lang.speaker.SELF_INTRODUCTION`) answers; a complaint about a coupon or
    a note about the cat does not. So for the subject's employer ("我现在在哪上班？") does a
    note that says whose the speaker is ("我是美团的，平时加班多":
    :data:`memlane.lang.speaker.AFFILIATION`). Nothing changes when no note says it.
    """
    if analysis.roles or analysis.identifiers:
        return candidates
    told = [pattern for attribute, pattern in _WHO_ONE_IS if attribute in analysis.attributes]
    if not told:
        return candidates
    notes = {id(c) for c in candidates if c.tier == TIER_NOTE and c.item.kind == "note"}
    named = {id(c) for c in candidates if id(c) in notes and _says_of_self(c, told)}
    if not named:
        return candidates
    return [replace(c, tier=TIER_ASIDE) if id(c) in notes - named else c for c in candidates]


_WHO_ONE_IS = (("name", SELF_INTRODUCTION), ("employer", AFFILIATION))
"""Which statement of the speaker about themself tells which attribute of theirs."""


def _says_of_self(candidate: Candidate, patterns: list[re.Pattern[str]]) -> bool:
    """Whether a note says who its subject is in one of ``patterns``.

    A note writes the speaker as the subject's id: "U-7 is Ann" is read as "I is Ann",
    "U-7是美团的" as "我是美团的".
    """
    text = _SPEAKER.sub("", candidate.statement).strip()
    subject = candidate.item.subject
    if subject:
        own = SELF_WORD_ZH if any(is_cjk(ch) for ch in text) else SELF_WORD_EN
        text = re.sub(re.escape(subject), own, text, flags=re.IGNORECASE)
    return any(pattern.search(text) for pattern in patterns)


def _about_where(candidates: list[Candidate], analysis: QueryAnalysis) -> list[Candidate]:
    """Under a question about one kind of *where*, notes of another kind rank after the rest.

    "Where am I originally from?" asks where one comes from: "Chicago born and raised"
    answers, "based in Manchester" (where one lives) does not; "我现在住哪个城市？" is not
    answered by "上次去悉尼旅游住的民宿" (a trip), nor "用户在哪家公司上班？" by "去厦门那趟是途远
    旅行社带的团". Kinds: :mod:`memlane.lang.whereabouts`. A note of another kind ranks after
    the rest even when no note is of the kind asked ("Went to Stockholm last summer" does not
    tell where one lives), and when some note is of the kind asked, so does a note of no kind
    ("The discount code from last week isn't working"). A place asked that is neither the
    subject's own nor of a kind ("what city do I need a hotel in for the work event?": the
    event's) is not told by where one lives — nor by the statement the subject's location was
    read from ("I'm in Rotterdam", which names no verb of living). Nothing changes when every
    note would rank after the rest (for where one works: when every note tells a trip).
    """
    asked = whereabouts(analysis.query)
    standing = analysis.own_value and bool(set(analysis.attributes) & _STANDING)
    elsewhere = _place_of_another(analysis, asked)
    where = bool(asked) and asks_where(analysis.query)
    if not where and not (standing and TRAVEL not in asked) and not elsewhere:
        return candidates
    notes = [c for c in candidates if c.tier == TIER_NOTE and c.item.kind == "note"]
    kinds = {id(c): whereabouts(c.statement) for c in notes}
    if elsewhere:  # the place of an event or a trip: where one lives does not tell it
        lived = _read_from(candidates, "location")
        aside = {
            id(c)
            for c in notes
            if kinds[id(c)] == {RESIDENCE} or (not kinds[id(c)] and c.turns & lived)
        }
        if len(aside) == len(kinds):
            return candidates
    elif where:
        told = any(kind & asked for kind in kinds.values())  # then a note of no kind is aside
        aside = {key for key, kind in kinds.items() if not kind & asked and (kind or told)}
    else:  # where one works now: a trip does not tell it
        aside = {key for key, kind in kinds.items() if TRAVEL in kind}
        if len(aside) == len(kinds):
            return candidates
    return [replace(c, tier=TIER_ASIDE) if id(c) in aside else c for c in candidates]


def _read_from(candidates: list[Candidate], attribute: str) -> frozenset[str]:
    """What the recalled facts of ``attribute`` were read from (``note:7``, turn ids)."""
    return frozenset(
        ref
        for c in candidates
        if c.item.fact is not None and c.item.fact.attribute == attribute
        for ref in c.item.provenance
    )


def _place_of_another(analysis: QueryAnalysis, asked: frozenset[str]) -> bool:
    """Whether a question asks for a place that is not the subject's own, nor of a kind.

    "What city do I need a hotel in for the work event?" asks for a city, but the
    analysis did not read it as the subject's ``location`` (the city is the event's); it
    names no kind of *where* (living, coming from, travelling) either.
    """
    if asked or analysis.roles or analysis.identifiers or "location" in analysis.attributes:
        return False
    located = any(intent.attribute == "location" for intent in analysis.intents)
    return located and asks_where(analysis.query)


def _of_the_subject(candidate: Candidate) -> bool:
    """Whether a candidate is a note that opens with the subject (it tells of them)."""
    return (
        candidate.tier == TIER_NOTE
        and candidate.item.kind == "note"
        and opens_with_speaker(candidate.statement, candidate.item.subject or "")
    )


def _about_before(candidates: list[Candidate], analysis: QueryAnalysis) -> list[Candidate]:
    """What answers a question about an earlier value, read at present (the **when** rule)."""
    changed = any(_tells_before(c) for c in candidates)
    kept = _without_present_only(candidates, analysis.attributes)
    changes = [c.statement for c in kept if c.item.fact is None and tells_past(c.statement)]
    kept = [c for c in kept if not _present_profile(c, changes)]
    if asks_earlier(analysis.query):
        replaced = [c for c in candidates if c.replaced_by]
        asked = asked_terms(analysis.query)
        code = _asks_code(analysis)
        kept = [c for c in kept if not _the_replacement(c, replaced, asked, code)]
        if replaced:
            kept = [c for c in kept if not _beside_the_point(c, asked)]
    if analysis.intents and not changed:
        return [c for c in kept if c.item.lane == "window"]
    return kept


def _present_profile(candidate: Candidate, changes: list[str]) -> bool:
    """A current fact of the profile supplement that a recalled change led to.

    "我跳槽到小米了" tells that 小米 is the present employer: under a question about before,
    that present is not what was asked (a value nothing tells changed still comes back).
    """
    fact = candidate.item.fact
    return (
        candidate.tier == TIER_PROFILE
        and fact is not None
        and candidate.item.status == "current"
        and any(mentions(text, fact.value) for text in changes)
    )


def _asks_code(analysis: QueryAnalysis) -> bool:
    """Whether the question asks for a code: a code noun ("卡*尾号*多少") or a code attribute."""
    attributes = {intent.attribute for intent in analysis.intents}
    return bool(attributes & CODES) or bool(code_nouns(fold(analysis.query)))


def _the_replacement(
    candidate: Candidate, replaced: list[Candidate], asked: frozenset[str], code: bool
) -> bool:
    """A current statement that made a recalled one stale: the present, not what was asked.

    Asked "what was the old office address?", the statement that gave the new one ("send
    to 236 Church St from now on") is what replaced the answer, not the answer; it is left
    out, with the summaries that only restate it (every turn they cite is its). One that
    names the value it took back ("I used to prefer aisle seats but now …") tells the
    answer too; naming only what the question names ("公司那个作废了" for "之前公司那个地址")
    is not naming the value. Asked for a code (``code``), only naming the old code tells it:
    "建行那张卡注销了，换成尾号4274的招行卡" names the old card by its bank, not the tail
    "之前扣款那张卡尾号多少？" asks for.
    """
    if candidate.item.status != "current" or candidate.item.fact is not None:
        return False
    turns = candidate.said_in()
    if not turns:
        return False
    taken_back = [
        salient_terms_besides(found.old, asked)
        for found in retractions(candidate.statement)
        if not code or holds_code(found.old, candidate.item.subject)
    ]
    return any(
        turns <= old.replaced_by
        and not any(shares_term(terms, old.statement) for terms in taken_back)
        for old in replaced
    )


def _beside_the_point(candidate: Candidate, asked: frozenset[str]) -> bool:
    """A current statement sharing no word with a question for an earlier value.

    When a statement that was replaced is recalled, it answers "what was the old office
    address?"; a current line about opening hours, found for want of better, does not
    outrank it.
    """
    return (
        candidate.item.status == "current"
        and candidate.item.fact is None
        and not shares_term(asked, candidate.statement)
    )


def _tells_before(candidate: Candidate) -> bool:
    """Whether a candidate says what held before: not current, or telling of a change."""
    return candidate.item.status != "current" or tells_past(candidate.statement)


def about_whom_asked(candidates: list[Candidate], analysis: QueryAnalysis) -> list[Candidate]:
    """Only what names the people the query asks about ("我哥的手机号" → what names 哥哥).

    A statement about the subject alone does not answer a question about their brother, their
    wife or their dog: without such a statement, memory knows nothing about them.
    """
    if not analysis.roles:
        return candidates
    return [c for c in candidates if roles_named(c.item.text) & set(analysis.roles)]


def _someone_elses(candidate: Candidate, asked: tuple[str, ...], mentions: Mentions) -> bool:
    """Whether every asked attribute the statement names belongs to someone else.

    So does a statement told of someone else from its first words ("My mum lives in Oslo",
    "我老婆在大疆上班": :func:`memlane.lang.holders.opens_with_role`); a summary's lines are
    not judged as one statement.
    """
    if candidate.item.fact is not None:
        return False
    if candidate.item.kind != "summary" and opens_with_role(candidate.statement):
        return True
    text = fold(candidate.statement)
    named = [m for m in mentions(candidate.statement) if m.attribute in asked]
    return bool(named) and all(owning_role(text, m.span[0]) for m in named)


def _without_present_only(candidates: list[Candidate], asked: tuple[str, ...]) -> list[Candidate]:
    """Drop the present value of an attribute with no earlier one, and what it was read from.

    Under a question about the past, an attribute that holds only its present value has no
    answer; its current fact and the statements it cites would be read as one.
    """
    changed = {fact.attribute for c, fact in _facts(candidates) if c.item.status != "current"}
    present = [
        fact
        for c, fact in _facts(candidates)
        if fact.attribute in asked and fact.attribute not in changed
    ]
    if not present:
        return candidates
    cited = {ref for fact in present for ref in fact.provenance}
    dropped = {id(fact) for fact in present}
    return [
        c
        for c in candidates
        if id(c.item.fact) not in dropped and not (c.item.ref in cited or c.turns & cited)
    ]


def _facts(candidates: list[Candidate]) -> list[tuple[Candidate, Fact]]:
    return [(c, c.item.fact) for c in candidates if c.item.fact is not None]
