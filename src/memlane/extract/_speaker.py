"""Who is talking, and how: first person, questions, hypotheticals, negation.

A statement only becomes a fact if the words before its verb are the speaker ("我", "I",
"we") and harmless adverbs ("现在", "已经", "just", "currently") — anything else ("我没有",
"我想", "我妈妈", "I don't", "I used to", "my brother") blocks it. This allow-list is what keeps
negations, wishes and other people's facts out, without a parser.
"""

from __future__ import annotations

import re

from memlane.lang.speaker import EN_BETWEEN as _EN_BETWEEN
from memlane.lang.speaker import EN_BLOCKERS as _EN_BLOCKERS
from memlane.lang.speaker import EN_CONJUNCTION as _EN_CONJUNCTION
from memlane.lang.speaker import EN_LEAD as _EN_LEAD
from memlane.lang.speaker import EN_SUBJECT as _EN_SUBJECT
from memlane.lang.speaker import HYPOTHETICAL as _HYPOTHETICAL
from memlane.lang.speaker import QUESTION_EN as _QUESTION_EN
from memlane.lang.speaker import QUESTION_ZH as _QUESTION_ZH
from memlane.lang.speaker import REQUEST as _REQUEST
from memlane.lang.speaker import ZH_ADVERBS as _ZH_ADVERBS
from memlane.lang.speaker import ZH_LEADING as _ZH_LEADING
from memlane.lang.speaker import ZH_OTHERS as _ZH_OTHERS
from memlane.lang.speaker import ZH_SUBJECT as _ZH_SUBJECT

_EN_TOKEN = re.compile(r"[a-z']+")


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
