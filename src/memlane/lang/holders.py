"""Whose value a generic noun asks for: "which *city*" is the subject's only when said so.

A noun that names a kind of value ("city", "company", "number", "城市", "公司") says nothing
of whose value is asked. "Which city is the conference in?", "组织那趟旅行的是哪个公司？" and
"what number was the hotel room?" ask about a conference, a trip and a room; "客户的出生地是
哪个城市？" asks about a birthplace. Such a noun asks for the subject's own value only when the
question names the subject (or an identifier of theirs) and no other noun the subject owns
holds it ("the user's *birthplace*").
"""

from __future__ import annotations

import re
from functools import cache

from memlane.lang import en, zh
from memlane.lang.roles import SUBJECT_OWNERS, roles_named
from memlane.lang.script import CJK_CHAR, CJK_RANGES, fold
from memlane.lang.speaker import SELF_WORD_ZH, SPEAKER_LABEL

_ZH_WHICH = re.compile(f"^(?:{zh.QUESTION_WORDS})[个家]?")
"""A Chinese question word opening a phrase, with its measure word: "*哪家*公司"."""


def is_generic(phrase: str) -> bool:
    """Whether an attribute phrase only names a kind of value ("which city", "哪家公司").

    >>> is_generic("which city"), is_generic("哪家公司"), is_generic("live in")
    (True, True, False)
    """
    folded = fold(phrase).strip()
    words = folded.split()
    if words and words[-1] in en.GENERIC_NOUNS:
        return all(word in en.ASKS_KIND for word in words[:-1])
    bare = _ZH_WHICH.sub("", folded)
    return bare in zh.GENERIC_NOUNS


def names_subject(text: str) -> bool:
    """Whether a question names its subject: a pronoun, "the user", "用户", "我".

    >>> names_subject("Which city is the customer based in?"), names_subject("年会在哪个城市办？")
    (True, False)

    A Chinese question that opens with a person's name and a word of when asks about them:
    the question is about its subject, whom it calls by name.

    >>> names_subject("孙春梅以前在哪家公司？"), names_subject("展会以前在哪个城市办？")
    (True, False)
    """
    folded = fold(text)
    return _self().search(folded) is not None or _opens_with_name().match(folded) is not None


def held_by_other(text: str, start: int) -> bool:
    """Whether the generic noun at ``start`` of folded ``text`` is not the subject's own.

    It is not when the question names no subject at all ("Which city is the conference
    in?"), or when the subject's possessive governs another noun that the generic one
    describes ("客户的出生地是哪个城市", "what city is the user's office in?"). Any other
    English noun of theirs qualifies it instead ("my *passport* number", "the number for my
    *keyboard*"): :mod:`.qualifiers` reads those.

    >>> t = fold("客户的出生地是哪个城市？")
    >>> held_by_other(t, t.index("城市")), held_by_other(fold("用户住哪个城市"), 5)
    (True, False)
    >>> t = fold("What's the user's current city?")
    >>> held_by_other(t, t.index("city"))
    False
    >>> t = fold("What city is the user's office in?")
    >>> held_by_other(t, t.index("city")), held_by_other(t, 0)
    (True, True)
    >>> t = fold("What's the number for my keyboard, my passport number?")
    >>> held_by_other(t, t.index("number"))
    False
    >>> t = fold("用户的常住城市是？")
    >>> held_by_other(t, t.index("城市"))
    False
    """
    if not names_subject(text):
        return True
    for match in _possessed().finditer(text):
        group = "latin" if match["latin"] else "cjk"
        noun = match[group]
        if not noun or match.start(group) <= start < match.end(group):
            continue  # the possessive governs the generic noun itself ("用户的常住城市")
        if noun in en.GENERIC_NOUNS or noun in zh.GENERIC_NOUNS:
            continue  # "the customer's name and city": one generic noun beside another
        if group == "latin" and not _LINKED.match(text[start : match.start()]):
            continue  # "my *passport* number", "number for my keyboard": qualifiers
        return True
    return False


_LINKED = re.compile(rf"(?:[a-z]+\s+){{1,2}}(?:{'|'.join(en.COPULAS)})\s+(?:the\s+)?$")
"""A generic noun and a linking verb before a possessive: "what city *is* the user's office"."""


@cache
def _opens_with_name() -> re.Pattern[str]:
    surnames = "|".join((*zh.COMPOUND_SURNAMES, f"[{zh.SURNAMES}]"))
    return re.compile(rf"(?:{surnames})[{CJK_RANGES}]{{1,2}}?(?:{zh.AFTER_NAME})")


@cache
def _self() -> re.Pattern[str]:
    latin = "|".join(re.escape(word) for word in sorted(en.SELF, key=len, reverse=True))
    cjk = "|".join(zh.SELF)
    return re.compile(rf"\b(?:{latin})\b|{cjk}")


@cache
def _possessed() -> re.Pattern[str]:
    """The first word a subject's possessive governs, modifiers that do not narrow skipped."""
    neutral = "|".join(sorted(en.NEUTRAL_MODIFIERS, key=len, reverse=True))
    latin = rf"(?:{SUBJECT_OWNERS})(?:(?:{neutral})\s+)*(?P<latin>[a-z]+)"
    cjk = rf"(?:{'|'.join(zh.SELF)})的(?P<cjk>[{CJK_RANGES}]{{1,6}}?)(?:{zh.COPULAS})"
    return re.compile(f"{latin}|{cjk}")


_SAID = re.compile(r"^.{0,40}?(?:\bsaid:|说：|说:)\s*")
_LEADING_ID = re.compile(r"^[\w-]*\d[\w-]*", re.ASCII)
"""A subject id a note opens with ("Cust_157717老婆在…"): whose statement it is, not a word."""
_CLAUSE_END = re.compile(r"[,.;!?，。；！？]")
_HEAD_WORDS = 4
_HEAD_CHARS = 5
"""How far into a clause the role is its subject: four words, or five Chinese characters
("我老婆在…", "我家猫叫…"; not "在百度做产品*经理*")."""


_SPEAKER_FIRST = re.compile(r"(?:i|i'm|i've|i'd|my|me)\b|我(?![们國国])")
"""The speaker as the first word of what they said: "I work for USPS", "My cell is …", "我在…"."""


def opens_with_speaker(statement: str, subject: str) -> bool:
    """Whether a statement is told of the speaker: its first word is "I", or the subject.

    A note writes "I" as the subject's id ("U-1 work for USPS", "U-1手机号…"), and labels
    what the speaker told of anything else ("U-1 said: the parcel came with Evri", "U-1说：
    这次京东送的"); a summary's line keeps the speaker's own words.

    >>> opens_with_speaker("U-1 work for USPS as a driver", "U-1")
    True
    >>> opens_with_speaker("U-1 said: I left it", "U-1"), opens_with_speaker("我在极兔上班", "")
    (False, True)
    """
    text = fold(statement).lstrip()
    own = fold(subject)
    if own and text.startswith(own):
        return not SPEAKER_LABEL.match(text[len(own) :])
    return _SPEAKER_FIRST.match(text) is not None


def opens_with_role(statement: str) -> bool:
    """Whether a statement is told of one of the subject's people or pets, named first.

    "My mum lives in Oslo", "我老婆在大疆上班", "Pepper (my cat) is due for her shots" tell of
    a mother, a wife, a cat: they do not give the subject's own city, employer or name.

    >>> opens_with_role("My mum lives in Oslo"), opens_with_role("U-1说：我老婆在大疆上班")
    (True, True)
    >>> opens_with_role("I live in Lyon with my mum"), opens_with_role("U-7在大疆做产品经理")
    (False, False)
    >>> opens_with_role("Cust_7妈一个人住在深圳，想给她寄点东西")
    True
    """
    text = _SAID.sub("", fold(statement), count=1)
    head = _CLAUSE_END.split(text, maxsplit=1)[0]
    clause = _LEADING_ID.sub("", head)
    if CJK_CHAR.match(clause):
        if clause != head:  # "Cust_7妈一个人住在…": the id stands for 我 ("我妈")
            return bool(roles_named(SELF_WORD_ZH + clause[:_HEAD_CHARS]))
        return bool(roles_named(clause[:_HEAD_CHARS]))
    return bool(roles_named(" ".join(clause.split()[:_HEAD_WORDS])))
