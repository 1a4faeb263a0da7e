"""What a relation means, whatever words ask for it: "who *trains* the squad" asks the coach.

A knowledge base states a relation by its noun ("the head *coach* of the Falcons is …",
"《晚潮月刊》的*主编*是…"); a question often asks it by a verb or a paraphrase nobody stated
("Who *trains* the Falcons squad?", "谁负责*编*《晚潮月刊》?", "Which company *backs* the
marathon?"). Word overlap cannot tie the two, and a hashing embedder cannot either. This
module holds, per *sense* of a relation, the nouns, verbs and set phrases of each language
that say it: a thesaurus of the relations people keep about organisations, teams, places,
events and products — not of any one data set.

:func:`senses` reads which senses a text speaks of; two texts that share a sense speak of the
same relation. English is compared word by word on crude stems (:func:`memlane.lang.kinds.stem`:
"coaches", "coaching" → "coach"), so inflections need no entry; a phrase is a run of stems.
Chinese is compared by substring. Names do not count: a capitalized English word inside a
sentence is a name ("the Cairnbrook Arts *Fund*" is funded by no one for it).

>>> sorted(senses("Who trains the Pellridge Kestrels squad?"))
['coach']
>>> sorted(senses("The head coach of the Pellridge Kestrels is Hollis Olsen."))
['coach']
>>> sorted(senses("谁在带岚溪海豚队训练？")), sorted(senses("岚溪海豚队的主教练是顾静姝。"))
(['coach'], ['coach'])
>>> shares_sense("Which company backs the Umbermore Marathon?", "the main sponsor")
True
>>> shares_sense("Who leads the Quillley Mariners on the field?", "head coach")
False
"""

from __future__ import annotations

import re

from memlane.lang.kinds import stem
from memlane.lang.script import fold
from memlane.memo import per_process

EN_SENSES: dict[str, tuple[str, ...]] = {
    "leader": ("leader", "lead", "in charge", "boss", "run", "helm", "captain", "skipper",
               "chair", "chairperson", "chairman", "chairwoman", "president", "mayor",
               "principal", "headmaster", "headmistress", "head teacher", "chief executive",
               "ceo", "conductor", "editor"),
    "coach": ("coach", "trainer", "train", "manager", "coaching staff"),
    "captain": ("captain", "skipper", "armband", "on the field", "on the pitch", "on court"),
    "sponsor": ("sponsor", "sponsorship", "back", "backer", "pay for", "pays for",
                "paid for", "fund", "funder", "bankroll", "underwrite", "finance", "bankroller",
                "title partner"),
    "product": ("flagship", "product", "sell", "make", "known for", "famous for",
                "best seller", "bestseller", "main line", "manufacture", "produce"),
    "headquarters": ("headquarters", "headquartered", "head office", "hq", "main office",
                     "based in", "head offices"),
    "editor": ("editor", "edit", "editorial", "editor-in-chief", "chief editor"),
    "chief executive": ("chief executive", "ceo", "managing director", "at the helm",
                        "manage"),
    "chair": ("chair", "chairperson", "chairman", "chairwoman", "president", "preside",
              "presiding"),
    "mayor": ("mayor", "town council", "city council", "city hall", "town hall"),
    "principal": ("principal", "headmaster", "headmistress", "head teacher", "headteacher",
                  "school head"),
    "owner": ("owner", "own", "property", "belong", "proprietor"),
    "founder": ("founder", "found", "founded", "set up", "established"),
    "conductor": ("conductor", "conduct", "music director", "baton", "podium"),
    "chef": ("chef", "cook", "kitchen"),
    "curator": ("curator", "curate", "exhibition"),
    "keeper": ("keeper", "keep", "tend", "look after", "caretaker"),
    "home ground": ("home ground", "home matches", "home games", "home match", "home game",
                    "stadium", "arena", "home venue", "play at home"),
    "fee": ("fee", "dues", "membership", "member", "subscription", "join", "toll", "fare",
            "admission", "ticket"),
    "staff": ("employ", "employee", "staff", "headcount", "workforce", "people work",
              "work there"),
    "population": ("population", "resident", "inhabitant", "people live", "live there"),
    "capital": ("capital", "seat of government", "administrative centre"),
    "motto": ("motto", "slogan", "watchword", "words", "written", "inscription", "inscribed",
              "engraved"),
    "emblem": ("emblem", "mascot", "creature", "animal", "crest", "symbol"),
    "colour": ("colour", "color", "represent"),
    "opening": ("open", "opening time", "doors open", "open its doors"),
    "departure": ("depart", "departure", "leave", "sail", "first ferry"),
    "tallest": ("tallest", "highest", "tallest building", "skyscraper"),
    "export": ("export", "ship abroad", "sell abroad"),
    "budget": ("budget", "spend", "funding", "money"),
}  # fmt: skip
"""English words of each sense, as nouns, verbs or set phrases (inflections need no entry).
A relation may have two senses: a captain, a chair or a mayor is also a *leader*, so "who
leads …" asks any of them, and "who leads … on the field" the captain most."""

ZH_SENSES: dict[str, tuple[str, ...]] = {
    "leader": ("领导", "主持", "负责人", "一把手", "掌舵", "带领", "队长", "会长", "主席",
               "理事长", "董事长", "市长", "镇长", "县长", "校长", "首席执行官", "总裁", "指挥",
               "主编"),
    "coach": ("教练", "主教练", "执教", "训练", "带训"),
    "captain": ("队长", "场上", "领队", "袖标"),
    "sponsor": ("赞助", "赞助商", "冠名", "出资", "资助", "买单", "金主"),
    "product": ("主打", "产品", "招牌", "卖", "生产", "出名"),
    "headquarters": ("总部", "总公司"),
    "editor": ("主编", "编辑", "总编", "负责编", "编的"),
    "chief executive": ("首席执行官", "总裁", "总经理", "执行官"),
    "chair": ("会长", "主席", "理事长", "董事长"),
    "mayor": ("市长", "镇长", "县长", "市政府", "政务"),
    "principal": ("校长",),
    "owner": ("老板", "店主", "东家", "所有者", "拥有", "归属"),
    "founder": ("创始人", "创办", "创立", "成立"),
    "conductor": ("指挥",),
    "chef": ("主厨", "厨师", "掌勺", "后厨"),
    "curator": ("馆长", "策展"),
    "keeper": ("看守", "守塔", "看管", "值守"),
    "home ground": ("主场", "球场", "体育场", "体育中心"),
    "fee": ("年费", "会费", "入会", "会员", "加入", "交多少", "交钱", "通行费", "过路费", "门票",
            "票价"),
    "staff": ("员工", "职工", "雇员", "雇佣", "人手"),
    "population": ("人口", "居民", "常住"),
    "capital": ("首府", "首都", "省会"),
    "motto": ("校训", "座右铭", "口号", "格言"),
    "emblem": ("吉祥物", "校徽", "会徽", "标志", "动物"),
    "colour": ("颜色", "代表色", "主色"),
    "opening": ("开门", "营业", "开张"),
    "departure": ("出发", "开船", "发船", "首班"),
    "tallest": ("最高",),
    "export": ("出口", "往外卖", "外销", "卖到外"),
    "budget": ("预算", "经费", "能花"),
}  # fmt: skip
"""Chinese words of each sense, matched as substrings of the text."""

_EN_TOKEN = re.compile(r"[A-Za-z][A-Za-z'’-]*")
_LETTERS = re.compile(r"[a-z]+")


def _stems(phrase: str) -> tuple[str, ...]:
    return tuple(stem(word) for word in _LETTERS.findall(phrase.lower()))


_EN_STEMS = {
    sense: tuple(_stems(phrase) for phrase in phrases) for sense, phrases in EN_SENSES.items()
}
_EN_OPENING: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
"""The English phrases of every sense by their first stem: only a phrase whose first stem a
text holds can run in it, so a text is compared with those alone."""
for _sense, _phrases in _EN_STEMS.items():
    for _phrase in _phrases:
        assert _phrase, f"an English phrase of {_sense!r} has no word"
        _EN_OPENING.setdefault(_phrase[0], []).append((_sense, _phrase))


@per_process
def senses(text: str) -> frozenset[str]:
    """The senses of relation ``text`` speaks of (see the module docstring)."""
    found: set[str] = set()
    words = _content_stems(text)
    for word in set(words):
        for sense, phrase in _EN_OPENING.get(word, ()):
            if sense not in found and _holds_run(words, phrase):
                found.add(sense)
    folded = fold(text)
    for sense, zh_phrases in ZH_SENSES.items():
        if any(phrase in folded for phrase in zh_phrases):
            found.add(sense)
    return frozenset(found)


def shares_sense(first: str, second: str) -> bool:
    """Whether two texts speak of one relation (a sense in common)."""
    return bool(senses(first) & senses(second))


def closeness(question: str, text: str) -> int:
    """How many senses ``text`` shares with ``question``.

    "Who leads … on the field?" shares two with a captain (a leader, on the field), one with
    a chair (a leader).

    >>> closeness("Who leads the Otters on the field?", "the captain")
    2
    """
    return len(senses(question) & senses(text))


def headwords(text: str) -> tuple[str, ...]:
    """The first word of each language for each sense ``text`` speaks of: what to search for.

    >>> headwords("Who wears the armband?")
    ('captain', '队长')
    """
    found = sorted(senses(text))
    return tuple(word for sense in found for word in (EN_SENSES[sense][0], ZH_SENSES[sense][0]))


def _content_stems(text: str) -> tuple[str, ...]:
    """The stems of ``text``'s words, a name (a capitalized word past the first) as a gap."""
    tokens = []
    for index, match in enumerate(_EN_TOKEN.finditer(text)):
        word = match[0]
        before = text[: match.start()].rstrip()
        opens = index == 0 or not before or before[-1] in ".:!?;)]#"
        if word[0].isupper() and not word.isupper() and not opens:
            tokens.append("")  # a name: no sense, and no phrase runs across it
            continue
        tokens.append(stem(word.lower()))
    return tuple(tokens)


def _holds_run(words: tuple[str, ...], phrase: tuple[str, ...]) -> bool:
    size = len(phrase)
    if size == 1:
        return phrase[0] in words
    return any(words[i : i + size] == phrase for i in range(len(words) - size + 1))
