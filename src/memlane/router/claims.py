"""Claims: what a statement asserts about whom, so recall can tell new knowledge from old.

A claim is ``(holder, relation, value)``: "Alice's favourite team is now Chelsea" claims
``("alice", "my:favourite team", "alice's favourite team is chelsea")``. Two claims with
the same holder and relation are about the same thing; the later one wins. Relations that
name an exact-lane attribute (``location``, ``phone``...) are also checked against facts.

First-person statements ("我搬到北京了", "my favourite team is Arsenal", as turns and
``remember`` texts read) go through :func:`memlane.summaries.notes.relations`; third-person
ones (notes rewrite "I" as the speaker: "U-001 moved to Beijing", "Alice's favourite team
is ...", "U-001住在上海") through the patterns here. The holder is ``""`` when the statement
is about the subject itself (first person, the subject id, "the user").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memlane.extract import find_identifiers
from memlane.lang import asks_about_plans, is_cjk, is_negated, mentions_value
from memlane.lang import relations as words
from memlane.lang.script import CJK_RANGES, EMOJI_RANGES
from memlane.memo import per_process
from memlane.pacing import pause
from memlane.router.slots import SPEAKER_LABEL, strip_numbering
from memlane.summaries.notes import relations
from memlane.summaries.text import is_question, normalize_for_dedupe

SELF = ""
MAX_HOLDER_CHARS = 32
"""A Chinese holder ("珂洲市最高" of "珂洲市最高的建筑是…") is cut to its last characters."""
HOLDER_WINDOW = 3 * MAX_HOLDER_CHARS
"""How far before a Chinese relation its holder is looked for: a clause that repeats a relation
thousands of times ("他的名字是李他的名字是李…") costs work linear in its length."""


@dataclass(frozen=True, slots=True)
class Claim:
    """One relation a statement asserts.

    Attributes:
        holder: whom it is about, case-folded; ``""`` for the subject itself.
        relation: ``location``, ``phone``... or ``my:<what>`` ("my:favourite team").
        attribute: the exact-lane attribute the relation maps to, if any.
        value: the clause, normalized, without fillers such as "now"/"现在": two claims
            with equal values say the same thing.
        clause: the clause as written.
    """

    holder: str
    relation: str
    attribute: str | None
    value: str
    clause: str

    @property
    def key(self) -> tuple[str, str]:
        """What the claim is about: ``(holder, relation)``."""
        return self.holder, self.relation


_CLAUSE_BREAK = re.compile(rf"[，。；;！!？?\n{EMOJI_RANGES}]+|[,.](?=\s|$)")
_THIRD_PERSON = re.compile(
    "|".join(
        (
            words.NAME.format(group="possessor") + words.POSSESSED,
            words.NAME.format(group="dweller") + r"\s+" + words.ADVERBS + words.DWELLS,
            words.NAME.format(group="worker") + r"\s+" + words.ADVERBS + words.WORKS,
        )
    ),
    re.IGNORECASE,
)
_CJK_RELATIONS = re.compile(words.ZH_RELATIONS)
_CJK_KIN = re.compile(words.ZH_KIN)
_NOT_HOLDERS = words.NOT_HOLDERS
_SELF_WORDS = words.SELF_WORDS
_ASKED = re.compile(words.ASKED)
_FILLERS = re.compile(words.FILLERS, re.IGNORECASE)
_CJK_PREFIX_NOISE = re.compile(rf"^(?:{words.ZH_PREFIX_NOISE})+|(?:{words.ZH_PREFIX_NOISE})+$")
"""Times and adverbs at either end of what stands before a relation; inside a name they are
part of it (the 月 of "《晚潮月刊》的主编")."""
_ALIASES = words.ALIASES
_RELATION_MODIFIERS = re.compile(words.RELATION_MODIFIERS)
_ORIGIN = re.compile(words.ZH_ORIGIN.format(cjk=CJK_RANGES))
_NAMED = words.NAMED
_NEEDS_IDENTIFIER = {"phone": "phone", "email": "email"}
_LEADING_NAME = re.compile(r"\s*([A-Za-z][\w.-]*)")
_SPACES = re.compile(r"\s+")


@per_process
def claims(text: str, subject: str) -> tuple[Claim, ...]:
    """The claims of one statement of ``subject``'s memory, clause by clause.

    Questions, negations ("I don't live there any more"), plans ("一直想搬去呼和浩特",
    "planning to move to Oslo") and reported questions ("U-001 asked: ...") claim nothing:
    they do not assert a value that holds.

    >>> [(c.holder, c.relation) for c in claims("Alice's favourite team is now Chelsea", "U-1")]
    [('alice', 'my:favourite team')]
    >>> [(c.holder, c.relation) for c in claims("U-1住在上海，在阿里巴巴工作", "U-1")]
    [('', 'location'), ('', 'employer')]
    """
    if _ASKED.search(text):
        return ()
    found: list[Claim] = []
    holder = _leading_holder(text, subject)
    for clause in _clauses(text):
        pause()  # a long note's clauses: a write lets requests go first (memlane.pacing)
        if is_question(clause) or is_negated(clause) or asks_about_plans(clause):
            continue  # a plan ("一直想搬去太原") asserts no value that holds now
        taken: set[tuple[str, str]] = set()
        clause_claims = _third_person(clause, subject, taken) + _cjk(clause, subject, holder, taken)
        covered = {claim.relation for claim in clause_claims}
        for name in relations(clause):
            relation, attribute = _relation(name)
            if relation not in covered:
                clause_claims.append(_claim(SELF, relation, attribute, clause))
        for claim in clause_claims:
            if _complete(claim) and claim.key not in {c.key for c in found}:
                found.append(claim)
    return tuple(found)


def _clauses(text: str) -> list[str]:
    pieces = (strip_numbering(piece).strip() for piece in _CLAUSE_BREAK.split(text))
    return [piece for piece in pieces if piece]


def _third_person(clause: str, subject: str, taken: set[tuple[str, str]]) -> list[Claim]:
    found: list[Claim] = []
    for match in _THIRD_PERSON.finditer(clause):
        name = match["possessor"] or match["dweller"] or match["worker"]
        if name.casefold() in _NOT_HOLDERS:
            continue
        holder = _holder(name, subject)
        if match["what"]:
            relation, attribute = _relation("my:" + match["what"].lower())
        else:
            relation = attribute = "location" if match["dweller"] else "employer"
        _add(found, taken, holder, (relation, attribute), clause, name)
    return found


def _cjk(clause: str, subject: str, holder: str, taken: set[tuple[str, str]]) -> list[Claim]:
    found: list[Claim] = []
    first_me, folded = clause.find(words.ZH_SELF), subject.casefold()
    first_kin = _CJK_KIN.search(clause)
    told = _told_from(clause, folded)
    for match in _CJK_RELATIONS.finditer(clause):
        group, start = match.lastgroup, match.start()
        # The kin phrase before the match, if any: the first of the clause, if it ends there.
        kin = first_kin if first_kin is not None and first_kin.end() <= start else None
        if group is None or (0 <= first_me < start and kin is None):
            continue  # first person: relations() reads it
        relation = _relation("my:" + match["zh"]) if group == "zh" else (group, group)
        if kin is not None:
            _add(found, taken, words.ZH_SELF + kin["kin"], relation, clause, kin[0])
            continue
        since = 0
        if told is not None:  # the clause opens with the subject
            opened, told_start = told
            if group != "zh" or told_start == opened or not clause[told_start:start].strip():
                if (SELF, relation[0]) not in taken:
                    _add(found, taken, SELF, relation, clause, clause[:start].strip())
                continue
            since = told_start  # "U-1说：青禾酒家的主厨是…": the speaker tells of what holds it
        raw = clause[max(since, start - HOLDER_WINDOW) : start].strip()
        prefix = _ORIGIN.sub("", _CJK_PREFIX_NOISE.sub("", raw)).rstrip(words.ZH_OF)
        prefix = prefix[-MAX_HOLDER_CHARS:]
        who = _holder(prefix, subject) if prefix else holder
        _add(found, taken, who, relation, clause, prefix)
    return found


def _told_from(clause: str, folded_subject: str) -> tuple[int, int] | None:
    """Where a clause that opens with the subject goes on, and where what it tells starts.

    ``None`` if the clause does not open with the subject. Else the offset right after the
    subject, and the offset after a speaker's label and numbering there ("说：", "3. "); the
    two are equal when there is none.
    """
    lead = len(clause) - len(clause.lstrip())
    if not clause[lead : lead + len(folded_subject)].casefold().startswith(folded_subject):
        return None  # casefold never shortens
    opened = lead + len(folded_subject)
    head = clause[opened : opened + HOLDER_WINDOW]
    told = strip_numbering(SPEAKER_LABEL.sub("", head, count=1)).strip()
    if told == head.strip():
        return opened, opened
    return opened, opened + head.index(told) if told else opened + len(head)


def _leading_holder(text: str, subject: str) -> str:
    """Who a note is about: notes start with their speaker ("U-001 moved...", "Alice的...")."""
    if text.casefold().startswith(subject.casefold()):
        return SELF
    match = _LEADING_NAME.match(text)
    if match and match.group(1).casefold() not in _NOT_HOLDERS | _SELF_WORDS:
        return _holder(match.group(1), subject)
    return SELF


def _holder(name: str, subject: str) -> str:
    folded = name.strip().casefold()
    if folded == subject.casefold() or folded in _SELF_WORDS:
        return SELF
    return folded


def _relation(name: str) -> tuple[str, str | None]:
    """A relation key and its exact-lane attribute: "my:favorite team" → "my:favourite team"."""
    if not name.startswith("my:"):
        return name, name if name in _NAMED else None
    what = _RELATION_MODIFIERS.sub("", name[3:].strip())
    for spelling, folded in words.SPELLINGS.items():
        what = what.replace(spelling, folded)
    attribute = _ALIASES.get(what)
    if attribute is not None:
        return attribute, attribute
    return "my:" + what, _SPACES.sub("_", what)


def _add(
    found: list[Claim],
    taken: set[tuple[str, str]],
    holder: str,
    relation: tuple[str, str | None],
    clause: str,
    drop: str,
) -> None:
    """Add a claim of ``clause`` to ``found`` unless a complete one ``taken`` has its key.

    :func:`claims` keeps the first complete claim of each ``(holder, relation)``; a later one
    is not built at all (each builds its value from the whole clause), so that a clause
    repeating "Bob lives in " thousands of times costs time linear in its length.
    """
    if (holder, relation[0]) in taken:
        return
    claim = _claim(holder, relation[0], relation[1], clause, drop=drop)
    if _complete(claim):
        taken.add(claim.key)
    found.append(claim)


def _claim(holder: str, relation: str, attribute: str | None, clause: str, drop: str = "") -> Claim:
    text = clause if not drop else clause.replace(drop, " ", 1)
    return Claim(holder, relation, attribute, normalize_for_dedupe(_FILLERS.sub(" ", text)), clause)


def _complete(claim: Claim) -> bool:
    """A phone or e-mail claim needs the number or address itself, not just the word."""
    kind = _NEEDS_IDENTIFIER.get(claim.relation)
    if kind is None:
        return bool(claim.value)
    return any(m.kind == kind for m in find_identifiers(claim.clause))


def named(holder: str, query: str) -> bool:
    """True if ``query`` (case-folded) names ``holder``: whole, or most of a Chinese one.

    A Chinese holder is what stands before "的…是", which may carry more than the name
    ("珂洲市最高的建筑是…" is held by "珂洲市最高"): a run of at least half of it, two
    characters or more, in the query names it.

    >>> named("珂洲市最高", "珂洲市哪栋楼最高？"), named("珂洲市最高", "珀洲市哪栋楼最高？")
    (True, False)
    """
    if holder in query:
        return True
    if not holder or not is_cjk(holder[0]):
        return False
    size = max(2, -(-len(holder) // 2))
    return any(holder[i : i + size] in query for i in range(len(holder) - size + 1))


def mentions(text: str, value: object) -> bool:
    """True if ``text`` names a fact ``value`` (see :func:`memlane.lang.words.mentions_value`)."""
    return mentions_value(text, value)
