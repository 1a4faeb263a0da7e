"""Who is talking, and how: the words around the speaker, questions, conditions, requests.

A statement is the speaker's own when the words before its verb are the speaker ("我", "I",
"we") and harmless adverbs ("现在", "已经", "just", "currently"); these are the words
:mod:`memlane.extract._speaker` reads that by.
"""

from __future__ import annotations

import re

from memlane.lang.script import word_set as _words

ZH_ADVERB = (
    r"现在|目前|如今|当前|已经|早已|早就|刚刚|刚|才|终于|也|还|就|一直|最近|总算|正式|暂时|正在|已|都"
    r"|又|全家|一家人|一家|家|其实|今年|终|刚好|正好|确实|真的|前不久|不久前|月初|月底|年初|年底"
    r"|长期|重新|顺利|成功|总共|本人|从|自从|开始|起|以来|现|前阵子|前段时间|前些天|这次|前[一两二三四五六七八九几]+(?:天|周|个?月|年)"
)

ZH_LEAD = (
    r"但是|但|不过|而且|所以|然后|对了|另外|哦|嗯|啊|那|总之|反正|顺便说一下|顺便|告诉你|跟你说"
    r"|说一下|提醒一下|更新一下|补充一下|好的|好|是的|对|是|嗨|哈喽|你好|您好|因为|话说|其实"
)

ZH_ADVERBS = re.compile(rf"(?:{ZH_ADVERB}|\s)*")

ZH_LEADING = re.compile(rf"(?:{ZH_LEAD}|{ZH_ADVERB}|\s)*")

ZH_SUBJECT = re.compile(r"(?P<before>.*)(?P<subject>我们|我|本人)(?P<between>.*)", re.DOTALL)

ZH_OTHERS = re.compile(
    r"[他她它]|你(?!好)|您(?!好)|朋友|同事|老板|妈|爸|父|母|哥|姐|弟|妹|老婆|老公|妻|丈夫|儿子|女儿"
    r"|孩子|客户|室友"
)

EN_SUBJECT = re.compile(
    r"(?P<before>.*\b)?(?P<subject>i|we)(?P<contraction>'(?:ve|m|re|d|ll))?(?![\w'])(?P<between>.*)",
    re.IGNORECASE | re.DOTALL,
)

EN_CONJUNCTION = re.compile(r"\b(?:and|but|so|because|then)\b", re.IGNORECASE)

EN_LEAD = _words(
    "so and but well actually oh also btw yes yeah yep ok okay hi hey hello fyi anyway anyways "
    "now then recently finally just update um uh by the way good news guess what lol haha sure "
    "right alright note that is was it's today's"
)

EN_BETWEEN = _words(
    "just recently finally now currently already also actually officially permanently still "
    "have has 've 'm am are 're been do really eventually temporarily happily mostly basically "
    "both all even since then come originally"
)

EN_BLOCKERS = _words(
    "to hope want wish plan would will might may could should going gonna like love not never "
    "if used"
)

QUESTION_ZH = re.compile(r"吗|哪(?!怕)|什么|谁|多少|是否|是不是|有没有|难道|怎么|几时|何时|啥")

QUESTION_EN = re.compile(
    r"(?:where|what|when|who|whom|which|why|how|do|does|did|is|are|am|was|were|can|could|would"
    r"|will|should|have|has|had|shall|may|might)\b",
    re.IGNORECASE,
)

HYPOTHETICAL = re.compile(
    r"如果|假如|要是|假设|万一|倘若|若是|的话|假使|如若|\b(?:if|suppose|supposing|imagine|assuming"
    r"|unless|whether|in\s+case)\b",
    re.IGNORECASE,
)

REQUEST = re.compile(r"可以|能|请|\b(?:can|could|would|will|please)\b", re.IGNORECASE)
