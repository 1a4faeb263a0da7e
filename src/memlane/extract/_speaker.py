"""Who is talking, and how: first person, questions, hypotheticals, negation.

A statement only becomes a fact if the words before its verb are the speaker ("我", "I",
"we") and harmless adverbs ("现在", "已经", "just", "currently") — anything else ("我没有",
"我想", "我妈妈", "I don't", "I used to", "my brother") blocks it. This allow-list is what keeps
negations, wishes and other people's facts out, without a parser.
"""

from __future__ import annotations

import re

from memlane.extract._text import word_set as _words

_ZH_ADVERB = (
    r"现在|目前|如今|当前|已经|早已|早就|刚刚|刚|才|终于|也|还|就|一直|最近|总算|正式|暂时|正在|已|都"
    r"|又|全家|一家人|一家|家|其实|今年|终|刚好|正好|确实|真的|前不久|不久前|月初|月底|年初|年底"
    r"|长期|重新|顺利|成功|总共|本人|从|自从|开始|起|以来|现|前阵子|前段时间|前些天|这次|前[一两二三四五六七八九几]+(?:天|周|个?月|年)"
)
_ZH_LEAD = (
    r"但是|但|不过|而且|所以|然后|对了|另外|哦|嗯|啊|那|总之|反正|顺便说一下|顺便|告诉你|跟你说"
    r"|说一下|提醒一下|更新一下|补充一下|好的|好|是的|对|是|嗨|哈喽|你好|您好|因为|话说|其实"
)
_ZH_ADVERBS = re.compile(rf"(?:{_ZH_ADVERB}|\s)*")
_ZH_LEADING = re.compile(rf"(?:{_ZH_LEAD}|{_ZH_ADVERB}|\s)*")
_ZH_SUBJECT = re.compile(r"(?P<before>.*)(?P<subject>我们|我|本人)(?P<between>.*)", re.DOTALL)
_ZH_OTHERS = re.compile(
    r"[他她它]|你(?!好)|您(?!好)|朋友|同事|老板|妈|爸|父|母|哥|姐|弟|妹|老婆|老公|妻|丈夫|儿子|女儿"
    r"|孩子|客户|室友"
)
_EN_SUBJECT = re.compile(
    r"(?P<before>.*\b)?(?P<subject>i|we)(?P<contraction>'(?:ve|m|re|d|ll))?(?![\w'])(?P<between>.*)",
    re.IGNORECASE | re.DOTALL,
)
_EN_CONJUNCTION = re.compile(r"\b(?:and|but|so|because|then)\b", re.IGNORECASE)
_EN_TOKEN = re.compile(r"[a-z']+")
_EN_LEAD = _words(
    "so and but well actually oh also btw yes yeah yep ok okay hi hey hello fyi anyway anyways "
    "now then recently finally just update um uh by the way good news guess what lol haha sure "
    "right alright note that is was it's today's"
)
_EN_BETWEEN = _words(
    "just recently finally now currently already also actually officially permanently still "
    "have has 've 'm am are 're been do really eventually temporarily happily mostly basically "
    "both all even since then come originally"
)
_EN_BLOCKERS = _words(
    "to hope want wish plan would will might may could should going gonna like love not never "
    "if used"
)
_QUESTION_ZH = re.compile(r"吗|哪(?!怕)|什么|谁|多少|是否|是不是|有没有|难道|怎么|几时|何时|啥")
_QUESTION_EN = re.compile(
    r"(?:where|what|when|who|whom|which|why|how|do|does|did|is|are|am|was|were|can|could|would"
    r"|will|should|have|has|had|shall|may|might)\b",
    re.IGNORECASE,
)
_HYPOTHETICAL = re.compile(
    r"如果|假如|要是|假设|万一|倘若|若是|的话|假使|如若|\b(?:if|suppose|supposing|imagine|assuming"
    r"|unless|whether|in\s+case)\b",
    re.IGNORECASE,
)
_REQUEST = re.compile(r"可以|能|请|\b(?:can|could|would|will|please)\b", re.IGNORECASE)


def is_question(sentence: str, terminator: str) -> bool:
    """A question: ends with "?", asks with 吗/哪/什么…, or opens with "where/do/did/can…"."""
    return (
        "?" in terminator
        or sentence.endswith("?")
        or _QUESTION_ZH.search(sentence) is not None
        or _QUESTION_EN.match(sentence) is not None
    )


def is_hypothetical(sentence: str) -> bool:
    """A condition or supposition: 如果, 假如, 要是, …的话, if, suppose, unless, in case."""
    return _HYPOTHETICAL.search(sentence) is not None


def is_request(text: str) -> bool:
    """Whether ``text`` asks politely (可以, 能, 请, can, could, please…)."""
    return _REQUEST.search(text) is not None


def zh_speaker(prefix: str, sentence_head: str) -> bool:
    """Whether a Chinese verb preceded by ``prefix`` (its clause, times cut out) is the speaker's.

    Without an explicit "我", the clause may still be the speaker's ("上周搬到北京了") unless the
    sentence so far names someone else.
    """
    match = _ZH_SUBJECT.fullmatch(prefix)
    if match is None:
        return _ZH_ADVERBS.fullmatch(prefix) is not None and not _ZH_OTHERS.search(sentence_head)
    return (
        _ZH_LEADING.fullmatch(match["before"]) is not None
        and _ZH_ADVERBS.fullmatch(match["between"]) is not None
    )


def zh_lead_only(prefix: str) -> bool:
    """Whether ``prefix`` holds nothing but connectives and adverbs ("其实", "对了", "现在")."""
    return _ZH_LEADING.fullmatch(prefix) is not None


def en_speaker(prefix: str) -> bool:
    """Whether an English verb preceded by ``prefix`` is the speaker's ("I've just", "we")."""
    match = _EN_SUBJECT.fullmatch(prefix)
    if match is None or (match["contraction"] or "").lower() in ("'d", "'ll"):
        return False
    # Only the words since the last conjunction lead up to the subject: "My wife and I
    # moved", "I'm Sam and I live in Paris".
    before = _EN_CONJUNCTION.split(match["before"] or "")[-1]
    # A second verb shares the subject ("I work at Google and live in Zurich") unless the
    # first one wishes, plans or denies ("I hope to move and live in Paris").
    *earlier, between = _EN_CONJUNCTION.split(match["between"])
    if any(_blocks(token) for part in earlier for token in _EN_TOKEN.findall(part.lower())):
        return False
    return _only(before, _EN_LEAD) and _only(between, _EN_BETWEEN)


def en_lead_only(prefix: str) -> bool:
    """Whether ``prefix`` holds nothing but English connectives ("so", "by the way")."""
    return _only(prefix, _EN_LEAD)


def _blocks(token: str) -> bool:
    return token in _EN_BLOCKERS or token.endswith(("n't", "'d", "'ll"))


def _only(text: str, allowed: frozenset[str]) -> bool:
    return all(token in allowed for token in _EN_TOKEN.findall(text.lower()))
