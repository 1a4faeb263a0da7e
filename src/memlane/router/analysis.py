"""Query analysis: identifiers, attribute intents, times and the kind of question, zh + en.

Deterministic and model-free, so routing a query never waits for an embedding: identifiers
come from :func:`memlane.extract.find_identifiers`, times from
:func:`memlane.extract.resolve_times`, attributes from the :class:`SynonymRegistry`, and the
kind of question (how-to, context, history) from the cue words of :mod:`memlane.lang`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime, tzinfo

from memlane import validation
from memlane.errors import InvalidInput
from memlane.extract import find_identifiers, resolve_times, time_interval
from memlane.extract.model import Mention
from memlane.extract.rules import CODE_ATTRIBUTES, IDENTIFIER_ATTRIBUTES
from memlane.lang import asks_about_plans, en, names_other_person, owner_of, roles_of_subject, zh
from memlane.lang.changes import event_times
from memlane.lang.codewords import code_nouns, event_nouns
from memlane.lang.grammar import VERB_ENDING, ZH_LINKER
from memlane.lang.holders import held_by_other, is_generic
from memlane.lang.qualifiers import Qualifier, qualifiers
from memlane.lang.roles import role_before, role_held_after
from memlane.lang.script import fold
from memlane.lang.topics import about_another_thing
from memlane.router.model import AttributeIntent, IdentifierRef, QueryAnalysis, TimeRef
from memlane.router.synonyms import SynonymRegistry, compile_phrase

_WORKFLOW = re.compile(f"{zh.ASKS_HOW_TO}|{en.ASKS_HOW_TO}")
_CONTEXT = re.compile(f"{zh.ASKS_CONTEXT}|{en.ASKS_CONTEXT}")

CODES = frozenset(IDENTIFIER_ATTRIBUTES.values())
"""Attributes whose values are codes: a subject holds many of each, one per purpose."""

EVENT = "appointment"
"""What ``qualified`` files a booked event under: answered by what tells its time."""

_HISTORY = re.compile(f"{zh.ASKS_HISTORY}|{en.ASKS_HISTORY}")
_CLAUSE_BREAK = re.compile(rf"[,.;!?，。；！？、]|\b(?:and|or)\b|{zh.CONJUNCTIONS}")


def analyze(
    query: str, *, synonyms: SynonymRegistry, at: datetime, timezone: tzinfo
) -> QueryAnalysis:
    """Read what ``query`` asks for; relative times resolve against ``at`` in ``timezone``.

    >>> from datetime import UTC, datetime
    >>> a = analyze("用户 138-0000-1234 的订单号是多少", synonyms=SynonymRegistry(),
    ...             at=datetime(2026, 7, 4, tzinfo=UTC), timezone=UTC)
    >>> [(i.attribute, i.values) for i in a.identifiers], a.attributes
    ([('phone', ('138-0000-1234',))], ('order',))

    Raises:
        InvalidInput: a bad query (see :func:`memlane.validation.query`).
    """
    query = validation.query("query", query)
    mentions = [m for m in find_identifiers(query) if m.kind in IDENTIFIER_ATTRIBUTES]
    identifiers = tuple(_identifier(mention, query) for mention in mentions)
    folded = fold(query)
    intents = _outside_events(synonyms.match(_without(query, mentions)), folded)
    context = asks_context(_blank(folded, [intent.span for intent in intents]))
    times = _times(query, mentions, at, timezone)
    # A question about the future ("下周去哪") is not answered by the value that holds now.
    own = _asks_own_value(query, intents, synonyms, bool(mentions))
    own = own and not any(t.start > at for t in times)
    asked = _asked(_heads(folded, intents), identifiers) if own and not context else ()
    # An identifier already says whose code is asked ("账号 X 绑定的邮箱"): nothing to narrow.
    qualified = () if mentions else _qualified(fold(_without(query, mentions)), intents, asked)
    if not mentions:  # "上次住的酒店房间号": an episode's code is narrowed all the same
        qualified += _coded(fold(query), intents, own)
    return QueryAnalysis(
        query=query,
        identifiers=identifiers,
        intents=intents,
        attributes=tuple(a for a in asked if a not in dict(qualified)),
        times=times,
        workflow=bool(_WORKFLOW.search(folded)),
        context=context,
        history=bool(_HISTORY.search(folded)),
        own_value=own,
        roles=_roles(_without(query, mentions), intents),
        qualified=qualified,
    )


def _outside_events(intents: list[AttributeIntent], folded: str) -> tuple[AttributeIntent, ...]:
    """The intents not inside an event that dates the question ("before the *job* change")."""
    events = event_times(folded)
    return tuple(
        intent
        for intent in intents
        if not any(start <= intent.span[0] and intent.span[1] <= end for start, end in events)
    )


def _roles(query: str, intents: tuple[AttributeIntent, ...]) -> tuple[str, ...]:
    """The people the query asks about.

    The subject's ("我哥的", "my brother's"), and whoever a role written against an attribute
    word names ("牙科诊所电话", "dentist phone number") or holds it in a phrase after it
    ("the number … for the dental clinic").
    """
    folded = fold(query)
    holders = (
        role_before(folded, intent.span[0]) or role_held_after(folded, intent.span[1])
        for intent in intents
    )
    return tuple(sorted(roles_of_subject(query) | {role for role in holders if role}))


def asks_several(query: str) -> bool:
    """Whether a question joins several asks ("favourite colour and 爱好", "A, B?").

    >>> asks_several("favourite colour and 爱好?"), asks_several("Who coaches the Comets?")
    (True, False)
    """
    return _CLAUSE_BREAK.search(query.strip().rstrip("?？!！。.")) is not None


def asks_context(text: str) -> bool:
    """True if ``text`` asks about context, preferences or past episodes ("喜欢", "said")."""
    return bool(_CONTEXT.search(fold(text)))


def literal_attributes(query: str, names: Iterable[str]) -> dict[str, list[tuple[int, int]]]:
    """Attribute names written out in the query ("tier", "favourite_team" as "favourite team").

    Lets a query ask for any attribute a subject holds, registered or not. Returns the
    spans (in the NFKC-folded query) where each name was found.
    """
    folded = fold(query)
    found: dict[str, list[tuple[int, int]]] = {}
    for name in names:
        phrase = name.replace("_", " ").strip()
        spans = [m.span() for m in compile_phrase(phrase).finditer(folded)] if phrase else []
        if spans:
            found[name] = spans
    return found


def narrowed_code(query: str, name: str, spans: Iterable[tuple[int, int]]) -> bool:
    """Whether a code attribute named by its name carries qualifiers in the query.

    "tracking no. for the mouse" asks for one tracking number among many, which the plain
    value of ``tracking`` does not answer (as for the codes of :func:`analyze`'s
    ``qualified``).
    """
    if name not in CODES:
        return False
    folded = fold(query)
    spans = list(spans)
    return any(qualifiers(folded, span, skip=spans) for span in spans)


def context_beyond(query: str, spans: Iterable[tuple[int, int]]) -> bool:
    """True if the query asks about context outside the given spans of its folded text.

    "what is the favourite team" asks for a ``favourite_team`` fact, not for context,
    once the span naming the attribute is set aside.
    """
    return asks_context(_blank(fold(query), spans))


def _identifier(mention: Mention, query: str) -> IdentifierRef:
    """The identifier as written, and as it may go on.

    "e79 044 *a*" may end in a letter that reads as a word too; the memory holds one reading
    or the other, so both are looked up.
    """
    attribute = IDENTIFIER_ATTRIBUTES[mention.kind]
    longer = _LAST_LETTER.match(query, mention.span[1])
    values = (mention.text,) if longer is None else (mention.text, mention.text + longer[0])
    return IdentifierRef(attribute, mention.text, values)


_LAST_LETTER = re.compile(r"[ -][A-Za-z](?![\w-])")


def _without(query: str, mentions: list[Mention]) -> str:
    """The query with identifiers blanked, so "ORD-7" is not read as the word "order"."""
    return _blank(query, [mention.span for mention in mentions])


def _blank(text: str, spans: Iterable[tuple[int, int]]) -> str:
    pieces = list(text)
    for start, end in spans:
        pieces[start:end] = " " * (end - start)
    return "".join(pieces)


def _asks_own_value(
    query: str,
    intents: tuple[AttributeIntent, ...],
    synonyms: SynonymRegistry,
    identified: bool,
) -> bool:
    """Whether the attribute words of ``query`` ask for the subject's own value, now.

    Not when the query names someone else ("我老公的邮箱", "my sister's email"), when an
    attribute word belongs to something else ("the *number of* kids", "name of the dog", a
    generic noun the question does not tie to the subject: "which city is the conference
    in?"), or when it asks about a plan ("下周要飞去哪", "which city am I considering moving
    to"): then the summary lane answers and the exact facts only supplement it.
    """
    if names_other_person(query) or asks_about_plans(query):
        return False
    plain = [intent for intent in intents if intent.attribute not in CODES]
    if plain and about_another_thing(query, [intent.span for intent in intents]):
        return False  # "which city is the conference in?" (a code's owner: qualifiers)
    folded = fold(query)
    if any(owner_of(folded, intent.span[1]) for intent in intents):
        return False
    return not any(
        _generic_of_other(folded, intent, synonyms, identified)
        or _typing_another(folded, intent, intents)
        or _object_of_other_verb(folded, intent, synonyms)
        or _subject_of_other_verb(folded, intent, synonyms)
        or _done_with_other_verb(folded, intent, synonyms)
        for intent in intents
    )


_SELF = "|".join(re.escape(word) for word in sorted(en.SELF, key=len, reverse=True))
_DOER = re.compile(rf"\s+(?:{'|'.join(en.AUXILIARIES)})\s+(?:{_SELF})\s+(?=[a-z])")


def _object_of_other_verb(folded: str, intent: AttributeIntent, synonyms: SynonymRegistry) -> bool:
    """A generic noun asked as the object of a verb its attribute has no phrase for.

    "Which *city* did I *visit*?", "which *number* do I *ring* for the clinic?" ask about
    what the subject did, not where they live or their phone; "which city do I *live in*",
    "which company did I *leave*" (a question about before) still ask for the attribute.
    """
    if not is_generic(intent.phrase):
        return False
    doer = _DOER.match(folded, intent.span[1])
    if doer is None:
        return False
    rest = folded[doer.end() :]
    verb = rest.split()[0]
    own = [p for p in synonyms.phrases(intent.attribute) if not is_generic(p)]
    if any(_verb_base(p.split()[0]) == _verb_base(verb) for p in own if p.isascii()):
        return False  # "did she *move* to" is said by "*moved* to"
    if verb in en.HOLDING_VERBS:
        return False  # "which number did they *have* then?" asks for the value they held
    return not _HISTORY.search(rest)


_ZH_ASKED = re.compile(zh.QUESTION_WORDS)
_ZH_DONE = re.compile(rf"(?P<verb>[^\W\d_a-z])(?:{zh.DONE_MARKS})$")


def _done_with_other_verb(folded: str, intent: AttributeIntent, synonyms: SynonymRegistry) -> bool:
    """A Chinese generic noun asked as what a verb its attribute has no phrase for was done to.

    "我去年夏天*去*的是哪个城市？" asks where the subject went, "我最*喜欢*的是哪个城市" what they
    like, not where they live; "我*住*的是哪个城市" and "我*搬*去的是哪个城市" (住在哪, 搬到哪)
    still ask for it. The verb is read as the two characters before the mark, grammar aside;
    the noun is asked by its question word (哪个, 什么): "用户*的*名字" is a possessive.
    """
    if not is_generic(intent.phrase) or not _ZH_ASKED.match(intent.phrase):
        return False
    done = _ZH_DONE.search(folded, 0, intent.span[0])
    if done is None or done["verb"] in zh.FUNCTION_CHARACTERS:
        return False
    verb = set(folded[max(done.start() - 1, 0) : done.end("verb")]) - zh.FUNCTION_CHARACTERS
    own = "".join(p for p in synonyms.phrases(intent.attribute) if not is_generic(p))
    return not verb & set(own)


_NEXT_WORD = re.compile(r"\s+([a-z]+)\b")
_DONE_TO_SELF = re.compile(rf"\s+(?:{_SELF})\b")
_NOT_VERBS = frozenset(
    (*en.COPULAS, *en.AUXILIARIES, *en.MODALS, *en.PREPOSITIONS, *en.GENERIC_NOUNS, *en.SELF)
)
"""Words after "which company" that are no verb it does ("which company *do* I work for")."""
_VERB_ENDING = re.compile(VERB_ENDING)


def _subject_of_other_verb(folded: str, intent: AttributeIntent, synonyms: SynonymRegistry) -> bool:
    """A generic noun asked as the doer of a verb its attribute has no phrase for.

    "Which *company* *made* the phone I just bought?", "what *city* *hosted* the final?" ask
    who made it and where it was held, not for the subject's employer or city; "which
    company *employs* her?" still asks for the employer ("employs" is its phrase), and so
    does one that acts on the subject ("which company *hired me*?").
    """
    asked = folded[: intent.span[0]].split()[-1:]
    if not is_generic(intent.phrase) or not asked or asked[0] not in en.ASKS_KIND:
        return False
    following = _NEXT_WORD.match(folded, intent.span[1])
    if following is None or following[1] in _NOT_VERBS:
        return False
    if _DONE_TO_SELF.match(folded, following.end()):
        return False
    verb = _verb_base(following[1])
    own = [p for p in synonyms.phrases(intent.attribute) if not is_generic(p) and p.isascii()]
    return not any(_verb_base(p.split()[0]) == verb for p in own)


def _verb_base(word: str) -> str:
    return _VERB_ENDING.sub("", word)


def _typing_another(
    folded: str, intent: AttributeIntent, intents: tuple[AttributeIntent, ...]
) -> bool:
    """A generic noun that only says what kind of value another attribute's phrase asks for.

    "Which *city* was the user *born* in?" asks where they were born, not where they live.
    """
    if not is_generic(intent.phrase):
        return False
    return any(
        other.attribute != intent.attribute
        and other.attribute not in CODES  # "*公司*邮箱": the noun qualifies a code instead
        and not is_generic(other.phrase)
        and not _CLAUSE_BREAK.search(
            folded[min(intent.span[1], other.span[1]) : max(intent.span[0], other.span[0])]
        )
        for other in intents
    )


def _generic_of_other(
    folded: str, intent: AttributeIntent, synonyms: SynonymRegistry, identified: bool
) -> bool:
    """A generic noun ("which city", "公司") that the question does not tie to its subject.

    It is tied by an identifier of the subject's, by a phrase of its attribute that is not
    generic ("住哪个城市" holds 住哪), or by naming the subject with no other noun of theirs
    holding it (:func:`memlane.lang.holders.held_by_other`).
    """
    if not is_generic(intent.phrase):
        return False
    specific = (p for p in synonyms.phrases(intent.attribute) if not is_generic(p))
    if any(compile_phrase(phrase).search(folded) for phrase in specific):
        return False
    if identified:
        return False
    return held_by_other(folded, intent.span[0])


def _asked(
    intents: tuple[AttributeIntent, ...], identifiers: tuple[IdentifierRef, ...]
) -> tuple[str, ...]:
    named = list(dict.fromkeys(intent.attribute for intent in intents))
    # "手机号 138… 的邮箱": the phone intent labels the identifier; email is the question.
    labels = {ref.attribute for ref in identifiers}
    if labels & set(CODE_ATTRIBUTES):  # "单号 1933…", "order ORD-7": any code labels itself
        labels |= set(CODE_ATTRIBUTES)
    asked = [attribute for attribute in named if attribute not in labels]
    return tuple(asked)


def _heads(folded: str, intents: tuple[AttributeIntent, ...]) -> tuple[AttributeIntent, ...]:
    """The intents less those that only qualify a code named right after ("*公司*邮箱")."""
    return tuple(
        intent
        for intent, following in zip(intents, (*intents[1:], None), strict=False)
        if following is None
        or following.attribute == intent.attribute
        or following.attribute not in CODES
        or folded[intent.span[1] : following.span[0]].strip(ZH_LINKER)
    )


def _qualified(
    folded: str, intents: tuple[AttributeIntent, ...], asked: tuple[str, ...]
) -> tuple[tuple[str, tuple[Qualifier, ...]], ...]:
    """The asked code attributes whose words carry qualifiers ("my *work* email"), with them.

    Only codes (phones, e-mails, order and tracking numbers, accounts: what a subject holds
    many of, one per purpose) are narrowed; "现在住的城市" or "current employer" are not.
    """
    found: dict[str, tuple[Qualifier, ...]] = {}
    plain: set[str] = set()  # "my mobile number": an attribute named plainly once is plain
    for intent in intents:
        if intent.attribute not in asked or intent.attribute not in CODES:
            continue
        same = [other.span for other in intents if other.attribute == intent.attribute]
        narrowing = qualifiers(folded, intent.span, skip=same)
        if narrowing:
            found[intent.attribute] = found.get(intent.attribute, ()) + narrowing
        else:
            plain.add(intent.attribute)
    return tuple((attribute, q) for attribute, q in found.items() if attribute not in plain)


def _coded(
    folded: str, intents: tuple[AttributeIntent, ...], own: bool
) -> tuple[tuple[str, tuple[Qualifier, ...]], ...]:
    """A code asked for by a code noun no attribute phrase holds ("护照号", "passport no.").

    Its qualifiers say which code it is; a code of another kind is a near miss, as for the
    codes of :func:`_qualified`. Filed under ``reference``, the kind of a code said plainly;
    a booked event ("the eye doctor *appointment*") under :data:`EVENT`.
    """
    found: list[tuple[str, tuple[Qualifier, ...]]] = []
    asked = [(EVENT, event_nouns(folded))]  # "my eye doctor's appointment" is the subject's
    if own:
        asked.append(("reference", code_nouns(folded)))
    for kind, nouns in asked:
        spans = [
            span
            for span in nouns
            if not any(span[0] < i.span[1] and i.span[0] < span[1] for i in intents)
        ]
        narrowing = tuple(q for span in spans for q in qualifiers(folded, span, skip=spans))
        if narrowing:
            found.append((kind, narrowing))
    return tuple(found)


def _times(
    query: str, mentions: list[Mention], at: datetime, timezone: tzinfo
) -> tuple[TimeRef, ...]:
    found: list[TimeRef] = []
    for mention in resolve_times(query, at, timezone):
        start, end = mention.span
        if any(start < m.span[1] and m.span[0] < end for m in mentions):
            continue  # digits of an identifier, not a date
        try:
            first, last = time_interval(mention.value, timezone)
        except InvalidInput:
            continue
        found.append(TimeRef(mention.text, first, last))
    return tuple(found)
