"""Roles: the people (and pets) a statement can be about besides its subject.

One table for both languages: each role lists its words, so "我妈" and "my mother" name the
same role, and a question about someone's role is answered only by what names that role.
Words of one character (哥, 妈, 猫) name a role only after an owner ("我哥", "他家猫"): alone
they are too often part of another word (哥伦比亚, 山猫队).
"""

from __future__ import annotations

import re
from functools import cache

from memlane.lang import en, zh
from memlane.lang.script import fold

ROLES: dict[str, tuple[str, ...]] = {
    "mother": ("妈妈", "母亲", "老妈", "妈", "mother", "mom", "mum", "mommy"),
    "father": ("爸爸", "父亲", "老爸", "爸", "father", "dad", "daddy"),
    "parents": ("父母", "爸妈", "parents", "parent"),
    "spouse": ("老公", "老婆", "丈夫", "妻子", "爱人", "媳妇", "先生", "太太", "husband", "wife",
               "spouse", "partner"),
    "sibling": ("哥哥", "姐姐", "弟弟", "妹妹", "哥", "姐", "弟", "妹", "brother", "sister",
                "sibling"),
    "child": ("儿子", "女儿", "孩子", "小孩", "娃", "son", "daughter", "kid", "child", "children",
              "baby"),
    "grandparent": ("爷爷", "奶奶", "外婆", "外公", "姥姥", "姥爷", "grandma", "grandpa",
                    "grandmother", "grandfather"),
    "relative": ("家人", "家里人", "亲戚", "公婆", "岳父", "岳母", "aunt", "uncle", "cousin",
                 "family"),
    "partner": ("男朋友", "女朋友", "对象", "boyfriend", "girlfriend", "fiance", "fiancee"),
    "friend": ("朋友", "闺蜜", "friend"),
    "colleague": ("同事", "老板", "领导", "经理", "colleague", "coworker", "boss", "manager",
                  "assistant"),
    "neighbour": ("邻居", "室友", "房东", "neighbor", "neighbour", "roommate", "landlord"),
    "doctor": ("医生", "牙医", "牙科", "诊所", "医院", "大夫", "doctor", "dentist", "clinic",
               "physician", "hospital"),
    "dog": ("狗", "狗狗", "dog", "puppy"),
    "cat": ("猫", "猫咪", "cat", "kitten"),
    "pet": ("宠物", "pet"),
}  # fmt: skip
"""Every role and the words (zh and en) that name it."""

OWNERS = "我他她您你家的户"
"""What stands right before a one-character role word when it names the role ("我哥", "家狗",
"用户哥哥" — 户 ends 用户 and 客户)."""

COUNTERS = "个只条位"
"""Measure words that count a one-character role word, which then names the role too
("家里三个娃", "两只猫"), as an owner does."""

SUBJECT_OWNERS = (
    r"(?:我|我们|您|你|他|她|用户|客户|本人)(?:的|家的|家)?"
    r"|\b(?:my|our|your|his|her|their|the\s+user's|the\s+customer's|user's|customer's)\s+"
)
"""How a question attaches a role to its subject: "我哥", "用户的猫", "my wife", "her husband"."""
_SUBJECT_OWNER_ENDING = re.compile(f"(?:{SUBJECT_OWNERS})$")


def roles_named(text: str) -> frozenset[str]:
    """The roles ``text`` names.

    >>> sorted(roles_named("我哥和我妈的电话")), sorted(roles_named("What's my wife's email?"))
    (['mother', 'sibling'], ['spouse'])
    >>> roles_named("哥伦比亚的咖啡"), roles_named("家里三个娃")
    (frozenset(), frozenset({'child'}))
    """
    folded = fold(text)
    return frozenset(role for role, pattern in _patterns().items() if pattern.search(folded))


@cache
def _patterns() -> dict[str, re.Pattern[str]]:
    patterns = {}
    for role, words in ROLES.items():
        latin = [re.escape(w) for w in words if w.isascii()]
        long_cjk = [re.escape(w) for w in words if not w.isascii() and len(w) > 1]
        short = [re.escape(w) for w in words if not w.isascii() and len(w) == 1]
        parts = []
        if latin:
            parts.append(rf"\b(?:{'|'.join(sorted(latin, key=len, reverse=True))})(?:'s|s)?\b")
        if long_cjk:
            parts.append("|".join(sorted(long_cjk, key=len, reverse=True)))
        parts.extend(rf"(?<=[{OWNERS}{COUNTERS}]){word}" for word in short)
        patterns[role] = re.compile("|".join(parts))
    return patterns


def roles_of_subject(text: str) -> frozenset[str]:
    """The roles ``text`` attaches to its subject: "我哥的手机号", "the user's dog", "brother's".

    "Who is the boss at Varndle Software?" names a role, but not one of the subject's. Nor
    does a role named as the subject's company ("What did Mel and her kids make?", "我和我妈
    去了哪"): the question asks what they did together, which the subject's own statements
    answer ("we made pots"), so it is not about the role alone.

    >>> sorted(roles_of_subject("我哥的手机号")), sorted(roles_of_subject("brother's number?"))
    (['sibling'], ['sibling'])
    >>> roles_of_subject("Who is the boss at Varndle Software?")
    frozenset()
    >>> roles_of_subject("What did Mel and her kids make?"), roles_of_subject("我和我妈去了哪")
    (frozenset(), frozenset())
    >>> roles_of_subject("Where was John and his wife's first dance?")
    frozenset()
    """
    folded = fold(text)
    found = set()
    for role, pattern in _patterns().items():
        for match in pattern.finditer(folded):
            before, after = folded[: match.start()], folded[match.end() :]
            owner = _SUBJECT_OWNER_ENDING.search(before)
            if owner is not None and _in_company(before[: owner.start()]):
                continue  # "Mel and her kids", "John and his wife's first dance"
            possessive = after.startswith(("'s", "’s", "的")) or match.group().endswith("'s")
            if possessive or owner is not None:
                found.add(role)
    return frozenset(found)


def role_before(text: str, start: int) -> str | None:
    """The role named right before the word at ``start`` of folded ``text``, which it modifies.

    "帮我找下牙科诊所*电话*", "dentist *phone* number?" ask for the clinic's number: a role
    written against an attribute word owns it as "诊所的电话" does.

    >>> t = fold("帮我找下牙科诊所电话")
    >>> role_before(t, t.index("电话")), role_before(fold("my phone"), 3)
    ('doctor', None)
    """
    head = text[:start].rstrip()
    for role, pattern in _patterns().items():
        if any(match.end() == len(head) for match in pattern.finditer(head)):
            return role
    return None


_HOLDER_PHRASE = re.compile(
    r"\b(?:(?:for|at)\s+(?:(?:the|my|our|your|his|her|their|a|an)\s+)?"
    r"|of\s+(?:my|our|your|his|her|their)\s+)(?:[a-z]+\s+)?$"
)
"""The words before a role that make it the holder of what the clause asks for: "for the
dental (clinic)", "at the (hospital)", "of my (landlord)" — "of" only with an owner: "the
number of kids" counts them, and "the name of the pet that John lost" asks what the pet
was called, which a note naming the pet by its name answers."""


def role_held_after(text: str, start: int) -> str | None:
    """The role a phrase later in the clause names as the holder of the word at ``start``.

    "which *number* do I ring for the dental clinic?" asks for the clinic's number as
    "牙科诊所电话" does: English puts the holder after, in a phrase of "for", "of" or "at".

    >>> t = fold("which number do I ring for the dental clinic?")
    >>> role_held_after(t, t.index("number")), role_held_after(fold("my number for now"), 3)
    ('doctor', None)
    >>> role_held_after(fold("number of kids"), 6), role_held_after(fold("email of my boss"), 5)
    (None, 'colleague')
    """
    clause = _CLAUSE_END.split(text[start:], maxsplit=1)[0]
    end = start + len(clause)
    for role, pattern in _patterns().items():
        for match in pattern.finditer(text, start, end):
            if _HOLDER_PHRASE.search(text, start, match.start()):
                return role
    return None


def _in_company(before: str) -> bool:
    """Whether the words before a role's owner join it to the subject ("Mel and her …").

    Not when they join it to another role: "my wife and my son's emails" asks about both.
    """
    joined = _company().search(before)
    if joined is None:
        return False
    head = before[: joined.start()].rstrip()
    return not any(
        found.end() == len(head)
        for pattern in _patterns().values()
        for found in pattern.finditer(head)
    )


@cache
def _company() -> re.Pattern[str]:
    return re.compile(f"(?:{en.COMPANY}|{zh.COMPANY})\\s*$")


_CLAUSE_END = re.compile(r"[,.;!?，。；！？、\n]")
_OWNER_REACH = 16
"""How far before a word a role can own it ("女儿3月29号生日", "my son's birthday")."""


def owning_role(text: str, start: int) -> str | None:
    """The role that owns the word starting at ``start`` of folded ``text``, if any.

    The nearest role named before it in the same clause, a few words back at most.

    >>> t = fold("30 April is my son's birthday")
    >>> owning_role(t, t.index("birthday")), owning_role(fold("my birthday"), 3)
    ('child', None)
    """
    window = text[max(0, start - _OWNER_REACH) : start]
    clause = _CLAUSE_END.split(window)[-1]
    offset = start - len(clause)
    nearest: tuple[int, str] | None = None
    for role, pattern in _patterns().items():
        for match in pattern.finditer(text, offset, start):
            if nearest is None or match.end() > nearest[0]:
                nearest = (match.end(), role)
    return nearest[1] if nearest else None


_EN_ASKS_OWNER = re.compile(en.ASKS_OWNER)
_ZH_ASKS_OWNER = re.compile(zh.ASKS_OWNER)


def asks_owner(text: str) -> bool:
    """Whether ``text`` asks whom something belongs to ("whose birthday", "谁的生日")."""
    folded = fold(text)
    return bool(_EN_ASKS_OWNER.search(folded) or _ZH_ASKS_OWNER.search(folded))
