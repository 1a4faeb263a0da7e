"""Retraction cues the classes of :mod:`memlane.lang.en` and :mod:`~memlane.lang.zh` lack.

Data only, one constant per cue class, each a regex source matched on folded text (NFKC,
case-folded): what a speaker says when an event moves to another time, and when a
statement only takes back a value without giving a new one.
"""

from __future__ import annotations

ZH_TIME_WORD = (
    r"(?:下+|这|本)?(?:周|星期|礼拜)[一二三四五六日天末]|明天|后天|大后天|今天|今晚|明晚"
    r"|[上中下]午|早上|晚上|傍晚|凌晨|\d{1,2}(?:月|号|日|点|:\d\d)"
    r"|[一二三四五六七八九十两]{1,3}(?:月|号|日|点)"
)
"""A Chinese word for a day or a time of day ("周日", "下午", "3点", "两点")."""

ZH_RESCHEDULE = rf"改(?:到|在|成)?(?={ZH_TIME_WORD})"
"""改 right before a time: the speaker moves an event to another time ("理发改周六上午十点",
"改到下周二"); 改 before anything else is another word (改善, 改变)."""

EN_RESCHEDULE = r"\breschedul(?:e|es|ed|ing)\b"
"""An English verb that moves a booked event to another time."""

EN_OWN_RESCHEDULE = (
    r"^(?:(?:please|pls|plz|so|and|but|ok|okay|oh|also|just|actually|sorry)\s+)*"
    r"(?:(?:i|we|i'd|we'd|i'll|we'll)\s+)?"
    r"(?:(?:need|needs|have|has|had|got|want|wanna|gotta|would\s+like|like|must|will|can|could"
    r"|may|let's|let\s+me|let\s+us)\s+(?:(?:to|i|we|you)\s+)?)*"
    rf"{EN_RESCHEDULE}"
)
"""A clause that opens with the reschedule verb, its subject the speaker or dropped ("Need to
*reschedule* the dog grooming", "can we reschedule …"): the speaker moves their own booking,
whatever else the sentence tells ("something came up on Monday" says why)."""

ASKS_EARLIER = (
    r"\b(?:old|previous(?:ly)?|former(?:ly)?|before|earlier|used?\s+to|originally"
    r"|back\s+then|at\s+th(?:at|e)\s+(?:time|point))\b"
    r"|之前|以前|原来|旧|当时|那时|那会儿|曾经|过去"
)
"""Words of a question that asks for the value that held before a change ("the *old*
office address", "客户*之前*那个号码"), not for what became of something ("where should the
courier *leave* …")."""

STREET_TYPES = (
    r"st|street|rd|road|ave|avenue|lane|ln|drive|dr|row|sq|square|way|blvd|boulevard|place|pl"
    r"|court|ct|terrace|close|crescent|parade|hill|walk"
)
"""English words for the kind of street an address names ("12 Harbour *Rd*", "9 Mill *Lane*")."""

EN_STREET_ADDRESS = rf"\b\d{{1,5}}\s+(?:[A-Z][a-z'-]*\s+){{1,3}}(?i:{STREET_TYPES})\b"
"""A street address: a house number, the street's name (capitalized, as written) and its
kind ("415 Oak Drive"); matched on the text as written, not folded."""

ZH_STREET_ADDRESS = r"[\u4e00-\u9fff]{2}(?:大道|路|街|道|巷|弄)\d{1,5}号"
"""A Chinese street address: the street's name (its last two characters), its kind and the
number (学府路135号), whatever city and district are written before it."""

COURTESY = (
    r"\b(?:sorry|thanks?|thank\s+you|please|pls|cheers|ok(?:ay)?)\b"
    r"|不好意思|抱歉|对不起|谢谢|麻烦了"
)
"""Courtesy said beside a retraction ("Monday is out, *sorry*", "不要了，*谢谢*"): no news of
what holds now."""
