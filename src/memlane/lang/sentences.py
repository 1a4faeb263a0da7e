"""Sentences and clauses: where they end, and what makes one a question, zh and en."""

from __future__ import annotations

import re

from memlane.lang.script import word_set

ABBREVIATIONS = word_set(
    "mr mrs ms dr prof sr jr st mt vs etc e.g i.e a.m p.m u.s u.k no inc ltd co corp jan feb mar "
    "apr jun jul aug sep sept oct nov dec approx dept fig est ave rd"
)
"""Words that end a sentence only in appearance ("Dr. Li", "e.g. this"); compared lower-cased
without the final dot."""

ZH_QUESTION_END = re.compile(r"(?:吗|么|呢|是否|有没有|能不能|可不可以|要不要|会不会)[。.~～]?$")
"""A Chinese question without a question mark: it ends with 吗, 呢, 是否, 有没有…

Not 吧: without a question mark it closes a suggestion or a request ("洗牙约在周四晚上七点吧",
"下单吧", "叫我孟老师吧"), which states what the speaker wants; asked ("你是学生吧？"), it
carries one."""

CLAUSE_SEPARATOR = re.compile(
    r"[,，;；:：、]\s*|\s+[-–—]\s+"
    r"|\s+(?=(?:and|but|which|because|while|though|although)\s)"
)
"""Cut after punctuation, or before a conjunction so it stays with the clause it opens."""

ASKING_CLAUSE = re.compile(r"[,，]\s*(?=[^,，]*$)")
"""Where the last clause of a sentence begins ("Flying to Oslo next week*, *what's the weather
like?", "我下周去成都出差*，*那边冷吗？"): a question that follows what the speaker tells."""

NUMBERING = re.compile(
    r"^\s*(?:(?:[^\W\d_]{1,12}\s*(?![(（\[【]))?[#№]?\s*[(（\[【]?\s*(?:第\s*)?\d+\s*"
    r"(?:条|项|號|号)?\s*(?:[)）\]】、.:：,，]|-(?!\d))\s*|[#№]\s*\d+\s+)+"
)
"""Numbering in front of a statement: "22、", "(3)", "（3）", "第33条：", "#4", "Fact 12:".

Not a date a statement opens with, nor one in brackets after its first words: "下周去东京出差
（2025-12-29 那周）" keeps its words (a label is no label before a bracket, and "2025-12"
is no number followed by a dash)."""

EN_OPEN_QUESTION = re.compile(
    r"^(?:what|who)\s+[a-z]+ed\b"
    r"|^(?:why|what|when|where|who|whom|which|how)"
    r"(?:['’]s\b|\s+(?:is|are|was|were|am|do|does|did|can|could|will|would|should|shall|has"
    r"|have|had|may|might|must|isn['’]t|aren['’]t|wasn['’]t|don['’]t|doesn['’]t|didn['’]t"
    r"|can['’]t|won['’]t|many|much|long|often|come|else)\b)",
    re.IGNORECASE,
)
"""An English question for information: a question word followed by a verb ("*why is*
shipping so slow", "*when will* my invoice be ready", "*what happened* to my voucher") — not
a clause it opens ("When I moved …"), nor a suggestion ("what about Thursday?", "how about
5pm?": no verb follows)."""

ZH_OPEN_QUESTION = re.compile(
    r"为什么|为啥|怎么|什么时候|啥时候|哪(?!怕)|谁|多少|几(?:点|时|号|天)"
)
"""Chinese words asking for information: 为什么, 怎么, 什么时候, 哪, 谁, 多少, 几点 (a request,
"能不能改到周六？", asks for no information and may carry a new value)."""

ASKING_ABOUT = re.compile(
    r"\b(?:ask|asks|asked|asking|question|questions|wonder|wondered|complain|complained"
    r"|complaint|complaints|enquire|enquired|inquire|inquired)\b|问|抱怨|投诉|咨询",
    re.IGNORECASE,
)
"""Words of asking or complaining: a question about what someone asked ("what did the user
ask about shipping?", "她问过什么？") is answered by the questions themselves."""

TROUBLE = re.compile(
    r"\b(?:isn['’]t|is\s+not|aren['’]t|are\s+not|won['’]t|doesn['’]t|does\s+not|don['’]t"
    r"|didn['’]t|stopped|keeps?|still\s+not|never)\s+(?:working|work|loading|load|arriv\w*"
    r"|apply|applying|going\s+through|failing|crashing)\b"
    r"|用不了|不能用|坏了|没收到|还没到|打不开|登不上|失效",
    re.IGNORECASE,
)
"""A report that something of the service fails: "the code *isn't working*", "优惠券*用不了*"."""

TROUBLE_ASKED = re.compile(
    r"\b(?:problems?|issues?|wrong|broken|working|fail\w*|faults?|trouble|bugs?|errors?)\b"
    r"|问题|故障|坏|出错|毛病",
    re.IGNORECASE,
)
"""Words of a question about what went wrong ("what *problem* did she report?", "什么*问题*")."""

_NAME_INSIDE = re.compile(r"(?<=[\w,] )[A-Z][^\W\d_]+")
_VALUE_SIGNS = re.compile(r"\d|@")
_ANNOTATION = re.compile(r"\s*[(（][^)）]*[)）]")  # the dates a note was annotated with


def only_reports_trouble(statement: str) -> bool:
    """Whether ``statement`` only reports that something fails, telling no value.

    A report of trouble with the service ("The discount code from last week isn't working")
    holds no name (a capitalized word inside), no digit, no address; one that does ("my
    Visa ending 4421 isn't working") tells which.

    >>> only_reports_trouble("The discount code from last week isn't working")
    True
    >>> only_reports_trouble("my Visa ending 4421 is not working"), only_reports_trouble("hi")
    (False, False)
    """
    text = _ANNOTATION.sub("", statement)
    if not TROUBLE.search(text) or _VALUE_SIGNS.search(text) or _NAME_INSIDE.search(text):
        return False
    return not _SENTENCE_INSIDE.search(text)


def asks_about_trouble(question: str) -> bool:
    """Whether ``question`` asks what went wrong: a report of trouble answers it.

    >>> asks_about_trouble("What problem did the user report?"), asks_about_trouble("Who is she?")
    (True, False)
    """
    return TROUBLE_ASKED.search(question) is not None or TROUBLE.search(question) is not None


_SENTENCE_INSIDE = re.compile(r"[.!?。！？;；](?=\s*\S)")


def only_asks(statement: str) -> bool:
    """Whether ``statement`` only asks for information: one question, telling no value.

    A question for information opens with a question word and a verb, or in Chinese holds a
    question word; a request ("Can we do Thursday instead?", "能不能改到周六？") or a statement
    with a question after it ("Flying to Oslo next week, what's the weather like?") is no such
    question: it tells what the speaker wants or does.

    >>> only_asks("why is shipping so slow this week"), only_asks("When will my invoice be ready?")
    (True, True)
    >>> only_asks("When I moved to Lyon I sold the car"), only_asks("Can we do Thursday instead?")
    (False, False)
    >>> only_asks("上次那个优惠券怎么用不了"), only_asks("去常州那趟是山海游学带的团")
    (True, False)
    >>> only_asks("Flying to Oslo next week, what's the weather like?")
    False
    """
    text = statement.strip()
    if not text or _SENTENCE_INSIDE.search(text) or ASKING_CLAUSE.search(text):
        return False
    return bool(EN_OPEN_QUESTION.match(text) or ZH_OPEN_QUESTION.search(text))


EN_QUESTION_WORD = re.compile(
    r"\b(?:why|what|when|where|who|whom|whose|which|how)\b", re.IGNORECASE
)
"""An English question word, anywhere ("user's new phone — *which* brand?")."""

ZH_QUESTION_WORD = re.compile(rf"{ZH_OPEN_QUESTION.pattern}|什么|啥")
"""A Chinese question word asking for information (什么, 哪, 谁, 多少…)."""


def asks_for_information(question: str) -> bool:
    """Whether ``question`` asks for a value (a question word), not only whether something is.

    >>> asks_for_information("the new phone — which brand?"), asks_for_information("哪家组织的？")
    (True, True)
    >>> asks_for_information("aisle or window?"), asks_for_information("Is she vegan?")
    (False, False)
    """
    return bool(EN_QUESTION_WORD.search(question) or ZH_QUESTION_WORD.search(question))


def asks_about_asking(question: str) -> bool:
    """Whether ``question`` asks what someone asked or complained about.

    >>> asks_about_asking("What did the user ask about shipping?"), asks_about_asking("他问过啥")
    (True, True)
    >>> asks_about_asking("How many children does the user have?")
    False
    """
    return ASKING_ABOUT.search(question) is not None
