"""Who is talking, and how: the words around the speaker, questions, conditions, requests.

A statement is the speaker's own when the words before its verb are the speaker ("我", "I",
"we") and harmless adverbs ("现在", "已经", "just", "currently"); these are the words
:mod:`memlane.extract._speaker` reads that by. Also here: the label a note's speaker is
written with ("U-7 said:", "U-7说："), the first person anywhere in a sentence, and the
capitalization that tells an English name.
"""

from __future__ import annotations

import re

from memlane.lang.script import CJK_RANGES
from memlane.lang.script import word_set as _words

ZH_ADVERB = (
    r"现在|目前|如今|当前|已经|早已|早就|刚刚|刚|才|终于|也|还|就|一直|最近|总算|正式|暂时|正在|已|都"
    r"|又|全家|一家人|一家|家|其实|今年|终|刚好|正好|确实|真的|前不久|不久前|月初|月底|年初|年底"
    r"|长期|重新|顺利|成功|总共|本人|从|自从|开始|起|以来|现|前阵子|前段时间|前些天|这次|前[一两二三四五六七八九几]+(?:天|周|个?月|年)"
)
"""Adverbs and time words that may stand between 我 and its verb (现在, 已经, 刚, 前两天…)."""

ZH_LEAD = (
    r"但是|但|不过|而且|所以|然后|对了|另外|哦|嗯|啊|那|总之|反正|顺便说一下|顺便|告诉你|跟你说"
    r"|说一下|提醒一下|更新一下|补充一下|好的|好|是的|对|是|嗨|哈喽|你好|您好|因为|话说|其实"
)
"""Connectives and greetings that may open a Chinese statement of the speaker (但是, 对了,
你好…)."""

ZH_ADVERBS = re.compile(rf"(?:{ZH_ADVERB}|\s)*")
"""A run of :data:`ZH_ADVERB` words and spaces."""

ZH_LEADING = re.compile(rf"(?:{ZH_LEAD}|{ZH_ADVERB}|\s)*")
"""A run of :data:`ZH_LEAD` and :data:`ZH_ADVERB` words and spaces."""

ZH_SUBJECT = re.compile(r"(?P<before>.*)(?P<subject>我们|我|本人)(?P<between>.*)", re.DOTALL)
"""The speaker as a Chinese subject (我, 我们, 本人), with what stands before and after it."""

ZH_OTHERS = re.compile(
    r"[他她它]|你(?!好)|您(?!好)|朋友|同事|老板|妈|爸|父|母|哥|姐|弟|妹|老婆|老公|妻|丈夫|儿子|女儿"
    r"|孩子|客户|室友"
)
"""Other people as a Chinese subject: pronouns, kin, friends, colleagues, customers."""

EN_SUBJECT = re.compile(
    r"(?P<before>.*\b)?(?P<subject>i|we)(?P<contraction>'(?:ve|m|re|d|ll))?(?![\w'])(?P<between>.*)",
    re.IGNORECASE | re.DOTALL,
)
"""The speaker as an English subject (I, we, with a contraction), with what stands before and
after it."""

EN_CONJUNCTION = re.compile(r"\b(?:and|but|so|because|then)\b", re.IGNORECASE)
"""Conjunctions that open a new English clause."""

EN_LEAD = _words(
    "so and but well actually oh also btw yes yeah yep ok okay hi hey hello fyi anyway anyways "
    "now then recently finally just update um uh by the way good news guess what lol haha sure "
    "right alright note that is was it's today's"
)
"""Words that may open an English statement of the speaker (so, actually, by the way…)."""

EN_BETWEEN = _words(
    "just recently finally now currently already also actually officially permanently still "
    "have has 've 'm am are 're been do really eventually temporarily happily mostly basically "
    "both all even since then come originally"
)
"""Words that may stand between I and its verb (just, finally, have, 'm…)."""

EN_BLOCKERS = _words(
    "to hope want wish plan would will might may could should going gonna like love not never "
    "if used"
)
"""Words between I and a verb that make the verb no fact: wishes, plans, modals, negation,
habit (want, would, not, used)."""

QUESTION_ZH = re.compile(r"吗|哪(?!怕)|什么|谁|多少|是否|是不是|有没有|难道|怎么|几时|何时|啥")
"""Chinese question words (吗, 哪, 什么, 是否…)."""

QUESTION_EN = re.compile(
    r"(?:where|what|when|who|whom|which|why|how|do|does|did|is|are|am|was|were|can|could|would"
    r"|will|should|have|has|had|shall|may|might)\b",
    re.IGNORECASE,
)
"""Words an English question opens with (where, what, do, can…)."""

HYPOTHETICAL = re.compile(
    r"如果|假如|要是|假设|万一|倘若|若是|的话|假使|如若|\b(?:if|suppose|supposing|imagine|assuming"
    r"|unless|whether|in\s+case)\b",
    re.IGNORECASE,
)
"""Conditions and suppositions (如果, 假如, …的话, if, suppose, unless, in case)."""

REQUEST = re.compile(r"可以|能|请|\b(?:can|could|would|will|please)\b", re.IGNORECASE)
"""Words of a polite request (可以, 能, 请, can, could, please…)."""


SAYING = ("said", "says", "asked", "说", "问")
"""The verbs of a note's speaker label ("U-7 said:", "U-7说："), English and Chinese."""

SPEAKER_LABEL = re.compile(rf"^\s*(?:{'|'.join(SAYING)})?\s*[:：]\s*")
"""The label after a speaker's name that notes start with ("说：", " said:")."""

SPEAKER_PREFIX = re.compile(
    rf"^[^:：]*?(?:\b(?:{'|'.join(w for w in SAYING if w.isascii())}):"
    rf"|[{''.join(w for w in SAYING if not w.isascii())}]：)"
)
"""A note's speaker and label ("U-7 said:", "U-7说："): not what the note says beside an id.

The label of :data:`SPEAKER_LABEL` with the name before it, for a reader that does not know
the name: a verb of :data:`SAYING` right before its colon (":" after an English one, "："
after a Chinese one), so that "Fact 12:" or "注意：" is not taken for a speaker."""


FIRST_PERSON = re.compile(r"\b(?:I|I'm|I've|I'd|I'll|my|me|we|our|us)\b|我", re.IGNORECASE)
"""The speaker naming themself, anywhere in a sentence: a summary keeps such a sentence."""

# English writes names capitalized; a sentence's first word is capitalized all the same.
EN_NAME_NOT_FIRST = re.compile(r"(?<!^)(?<![.!?]\s)\b[A-Z][a-z]+")
"""A capitalized word that does not open a sentence: likely a name."""

EN_NAME_INSIDE = re.compile(r"(?<=[\w,] )[A-Z][^\W\d_]+")
"""A capitalized word after a word or comma and a space: a name inside a question."""


SELF_INTRODUCTION = re.compile(
    r"^\s*(?:(?i:i['’]m|i\s+am|i\s+is|this\s+is|it['’]s)\s+"
    r"(?P<en>[A-Z][^\W\d_]+(?:\s+[A-Z][^\W\d_]+){0,2})"
    rf"|(?:我|本人)(?:是|叫)(?P<zh>[{CJK_RANGES}]{{2,4}}))\s*[.!。！~～]*\s*$"
)
"""The speaker saying who they are and nothing else: "I'm Pablo Lopez", "This is Ann",
"我是钟海燕" (a name is capitalized in English; in Chinese two to four characters). A note
writes the speaker as the subject's id: read back as "I"/"我" ("U-7 is Ann" → "I is Ann")."""

AFFILIATION = re.compile(
    r"^\s*(?:(?i:i['’]m|i\s+am|i\s+is)\s+(?i:with|at)\s+(?P<en>[A-Z][\w&.-]*(?:\s+[A-Z][\w&.-]*){0,2})"
    rf"|(?:我|本人)是(?P<zh>[{CJK_RANGES}A-Za-z0-9]{{2,10}})的(?=[，,。.！!~～\s]|$))"
)
"""The speaker saying whose they are, first: "我是美团的，平时加班多", "I'm with Globex" (the
place the speaker belongs to, as an employee)."""

SELF_WORD_EN, SELF_WORD_ZH = "I", "我"
"""How a note's subject is read back as the speaker."""
