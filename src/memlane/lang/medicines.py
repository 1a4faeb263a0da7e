"""Medicines told apart from food by their names: "allergic to penicillin" is no food allergy.

A question about food ("Which foods am I allergic to?", "用户有食物过敏吗") is not answered by
an allergy to a medicine. Medicines are recognized by the stems of their international
nonproprietary names (WHO INN stems: -cillin, -mycin, -profen, -oxacin, …; in Chinese the
same stems: 西林, 霉素, 洛芬, 沙星, 头孢 …) and a few names older than the stems (aspirin,
codeine); a food has no such shape, so it is never listed.
"""

from __future__ import annotations

import re
from functools import cache

from memlane.lang.script import fold

EN_MEDICINE = (
    r"\b[a-z]*(?:cillin|mycin|micin|profen|oxacin|cycline|statin|sartan|olol|caine|codone"
    r"|barbital|azepam|sulfa[a-z]*)\b|\b(?:aspirin|codeine|morphine|insulin|paracetamol"
    r"|acetaminophen|sulfonamides?)\b"
)
"""INN stems and old names of medicines, in English."""

ZH_MEDICINE = (
    r"西林|霉素|沙星|洛芬|头孢|环素|他汀|沙坦|洛尔|卡因|阿司匹林|磺胺|吗啡|可待因|胰岛素"
    r"|对乙酰氨基酚"
)
"""INN stems and old names of medicines, in Chinese."""

FOOD_QUESTION = r"\bfoods?\b|\bdiet(?:ary)?\b|\beat(?:s|ing)?\b|食物|食品|吃的|饮食|忌口"
"""Words by which a question asks about food."""


@cache
def _medicine() -> re.Pattern[str]:
    return re.compile(f"{EN_MEDICINE}|{ZH_MEDICINE}")


@cache
def _food() -> re.Pattern[str]:
    return re.compile(FOOD_QUESTION)


def asks_about_food(question: str) -> bool:
    """Whether ``question`` asks about food.

    >>> asks_about_food("Which foods am I allergic to?"), asks_about_food("我对什么过敏？")
    (True, False)
    """
    return bool(_food().search(fold(question)))


def names_medicine_only(text: str) -> bool:
    """Whether ``text`` names a medicine and no food a question could ask about.

    >>> names_medicine_only("I'm allergic to amoxicillin"), names_medicine_only("我对头孢过敏")
    (True, True)
    >>> names_medicine_only("Allergic to penicillin and to most foods"), names_medicine_only(
    ...     "I'm allergic to peanuts")
    (False, False)
    """
    folded = fold(text)
    return bool(_medicine().search(folded)) and not _food().search(folded)
