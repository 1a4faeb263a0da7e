"""How a statement says who holds what (read by :mod:`memlane.router.claims`).

"Alice's favourite team is Chelsea", "Bob lives in Leeds", "U-1住在上海", "珂洲市的市长是…":
a holder, then a relation. The patterns here find the relation and mark where its holder
ends; the words here say which holders are no one ("it", "there"), which are the subject
itself ("I", "用户"), and which words around a value are not part of it ("now", "现在").
"""

from __future__ import annotations

from memlane.lang import zh

NAME = r"(?<![\w.-])(?P<{group}>[A-Za-z][\w.-]*)"
"""A name, as a named group: it starts a word (trying every letter of a long word is
quadratic in its length)."""

ADVERBS = r"(?:(?:now|currently|recently|just|has|have|had|finally|already|also)\s+)*"
"""Adverbs between a holder and its verb ("Bob *has now* moved to …")."""

POSSESSED = (
    r"['’]s\s+(?P<what>(?:(?:new|current|old)\s+)?"
    r"(?:favou?rite\s+)?[a-z]+(?:\s+[a-z]+)?)\s+(?:is|are|was|were|has\s+been)\b"
)
"""After a holder: what of theirs a statement gives ("Alice*'s favourite team is* …")."""

DWELLS = (
    r"(?:lives?|lived|is\s+living"
    r"|was\s+living|moved|relocated|resides|resided|is\s+based|was\s+based|settled)"
    r"\s+(?:in|to|into)\b"
)
"""After a holder, a space and :data:`ADVERBS`: where they live ("Bob *lives in* …")."""

WORKS = (
    r"(?:works?|worked|is\s+working"
    r"|was\s+working|started\s+working)\s+(?:at|for)\b"
)
"""After a holder, a space and :data:`ADVERBS`: whom they work for ("Bob *works at* …")."""

ZH_RELATIONS = (
    rf"(?P<location>(?:{zh.ASPECT})?(?:住在|居住在|搬到|搬去|搬家到|定居在|家在))"
    rf"|(?P<employer>(?:{zh.ASPECT})?(?:(?<![现实存所自好])在[^，。！？\s]{{1,12}}(?:工作(?!日)|上班)|就职于))"
    r"|(?P<birthday>生日(?:是|在))"
    r"|(?<!我)的(?P<zh>[^\s，。！？的是]{1,6})(?:是|叫)"
)
"""A Chinese relation after its holder: a named attribute, or "的<what>是" for any other. The 在
of a word ("*现在*改成工作日送") and the 工作 of 工作日 (a workday) say no employer; an aspect
adverb before a verb (:data:`memlane.lang.zh.ASPECT`, "李四*正*在腾讯上班") is the verb's, so
the holder ends before it."""

ZH_KIN = (
    r"我(?P<kin>朋友|哥哥|姐姐|弟弟|妹妹|妈妈|爸爸|母亲|父亲|妻子|丈夫|老公|老婆|同事|儿子"
    r"|女儿|室友)"
)
""""我朋友/我哥哥…的X是": about someone close to the speaker, not the speaker."""

ZH_SELF = "我"
"""The Chinese first person: a relation after it is the speaker's own."""

ZH_OF = "的"
"""The Chinese possessive, trimmed from the end of a holder."""

NOT_HOLDERS = frozenset(
    {"it", "that", "this", "what", "there", "here", "who", "which", "let", "i", "you", "we"}
    | {"they", "he", "she", "everyone"}
)
"""Words in a holder's place that hold nothing of their own."""

SELF_WORDS = frozenset({"i", "me", "my", "we", "our", "我", "我们", "user", "the user", "用户"})
"""Holders that are the subject itself."""

ASKED = r"\basked:|问："
"""A reported question ("U-001 asked: …"): it asserts nothing."""

FILLERS = (
    r"\b(?:now|currently|still|just|recently|already|new|actually|also|finally|my|our|i|i'm"
    r"|his|her|their)\b|['’]s\b|现在|目前|已经|还是|仍然|刚刚|刚|最近|新|也|了|我的|我们|我"
)
"""Words around a value that do not change what it says ("now", "现在")."""

ZH_PREFIX_NOISE = (
    r"[\d\s\-:/.年月日号]+|上上周|上周|下周|这周|本周|那周|上个月|下个月|去年|今年|昨天|今天|前天"
    r"|最近|已经|现在|刚刚|刚|也|还|又|就|都|了|那个周末|这次|那次"
    rf"|{zh.NOW}"
)
"""Times and adverbs before a Chinese relation that are not its holder ("李四*目前*在阿里工作")."""

RELATION_MODIFIERS = r"^(?:new|current|old)\s+"
"""Words before what a holder has that do not change which relation it is ("*new* phone")."""

SPELLINGS = {"favorite": "favourite"}
"""Spellings of one word folded to one form."""

ALIASES: dict[str, str] = {
    "phone": "phone", "phone number": "phone", "mobile": "phone", "mobile number": "phone",
    "cell": "phone", "number": "phone", "email": "email", "email address": "email",
    "e-mail": "email", "address": "location", "home": "location", "home address": "location",
    "city": "location", "name": "name", "full name": "name", "nickname": "preferred_name",
    "birthday": "birthday", "job": "occupation", "occupation": "occupation",
    "profession": "occupation", "employer": "employer", "company": "employer",
    "hometown": "hometown", "age": "age", "手机": "phone", "手机号": "phone",
    "手机号码": "phone", "电话": "phone", "电话号码": "phone", "邮箱": "email", "名字": "name",
    "姓名": "name", "生日": "birthday", "地址": "location", "住址": "location",
    "职业": "occupation", "工作": "employer", "公司": "employer", "老家": "hometown",
    "家乡": "hometown",
}  # fmt: skip
"""What a holder has ("Alice's *mobile*", "的*手机号*是") → the exact-lane attribute it names."""

ZH_ORIGIN = r"(?:从|由)[{cjk}A-Za-z]{{1,12}}$"
"""Where a move came from, right before its verb ("这次*从扬州*搬到了无锡"): not its holder
(``{cjk}``: the CJK ranges)."""

NAMED = frozenset({"location", "name", "phone", "email", "employer", "age", "birthday"})
"""Relations a statement names by their attribute's own name ("U-1's phone is …")."""
