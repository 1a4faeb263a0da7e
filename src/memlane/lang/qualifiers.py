"""Qualifiers: the words that narrow an attribute word to one thing among its kind.

"What's my *passport* number?", "my *work* email", "客户的*公司*邮箱", "*小米14*的快递单号",
"the tracking number *for my mechanical keyboard*": each asks for one number, e-mail or
code, not for any the subject holds. A stored value answers such a question only if what
was said about it carries every qualifier; the same value said without them is a near
miss ("frequent flyer number UA…" for a passport number), never the answer.

Qualifiers are found by position, not listed: the content words right before the attribute
word (up to a possessive, a determiner or the subject; in Chinese the run right before it and
any model name before a 的) and, in English, the words of a "for …" phrase right after it.
A qualifier of several words is carried when any of them is ("work desk phone": work or
desk). Only a closed class of words that do not narrow ("new", "current", "现在的") is
written down, in :mod:`memlane.lang.en` and :mod:`memlane.lang.zh`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache

from memlane.lang import en, zh
from memlane.lang.script import CJK_CHAR, CJK_RANGES, fold, whole_latin
from memlane.lang.words import without_leading_fillers

Span = tuple[int, int]

_LATIN_WORD = re.compile(r"[a-z0-9][a-z0-9'-]*$")
_LATIN_OR_DIGIT = re.compile("[a-z0-9]")
_ZH_VALUE_WORDS = re.compile(zh.VALUE_WORDS)
_ZH_CONJUNCTIONS = re.compile(zh.CONJUNCTIONS)
_ZH_EPISODE_TIMES = re.compile(zh.EPISODE_TIMES)
_ZH_SUBJECT_WORDS = re.compile(zh.SUBJECT_WORDS)
_ZH_LEADING_SUBJECT_WORDS = re.compile(rf"^(?:{zh.SUBJECT_WORDS})+")
_ZH_QUESTION_WORDS = re.compile(zh.QUESTION_WORDS)
_MAX_WORDS = 3
_MAX_CJK = 6


Qualifier = tuple[str, ...]
"""The words of one qualifier; any of them carries it."""


def qualifiers(text: str, span: Span, skip: Iterable[Span] = ()) -> tuple[Qualifier, ...]:
    """The qualifiers of the attribute word at ``span`` of folded ``text``, nearest first.

    ``skip`` are spans of words that name the same attribute ("*mobile* number"): they are
    part of the attribute, not qualifiers.

    >>> q = "what's my passport number?"
    >>> qualifiers(q, (q.index("number"), q.index("number") + 6))
    (('passport',),)
    >>> q = "我那个小米14的快递单号是多少"
    >>> qualifiers(q, (q.index("单号"), q.index("单号") + 2))
    (('小米14',),)
    >>> q = "用户单位的固定电话"
    >>> qualifiers(q, (q.index("电话"), q.index("电话") + 2))
    (('固定', '单位'),)
    >>> q = "我现在的手机号"
    >>> qualifiers(q, (q.index("手机号"), q.index("手机号") + 3))
    ()
    """
    start, end = span
    for first, last in sorted(skip, reverse=True):
        if last <= start and not text[last:start].strip():
            start = first
    found = [*_before(text[:start], _names_value(text[span[0] : end])), _after(text, end)]
    return tuple(group for group in found if group)


def carries(text: str, qualifier: Qualifier) -> bool:
    """Whether ``text`` says any word of ``qualifier`` (folded; English plurals match).

    >>> carries("私人邮箱leihu83@example.net", ("个人",)), carries("工作邮箱", ("个人",))
    (True, False)

    A Chinese word is also said by its first character right after a number, as a measure
    names what the number counts: "汉庭2839房" says the 房间.

    >>> carries("汉庭2839房，退房时忘拿外套了", ("酒店", "房间")), carries("房间很大", ("酒店",))
    (True, False)
    """
    folded = fold(text)
    if any(_counted(folded, word) for word in qualifier):
        return True
    return any(
        _ends_compound(folded, word, qualifier)
        if len(word) == 1 and _is_cjk_text(word)
        else word in folded
        if _is_cjk_text(word)
        else bool(_word_pattern(word).search(folded))
        for word in _alike(qualifier)
    )


NUMBER_MARK = r"(?:#|no\.?|number|nr\.?|号|號)"
"""What may stand between a noun and the number it names: "room *#*1830", "gate *no.* 4"."""


def numbers(text: str, qualifier: Qualifier) -> bool:
    """Whether ``text`` gives a number named by a word of ``qualifier``: "room 1830".

    The number of a room, a gate or a seat is written right after the noun (in Chinese
    also right before it: "2839号房间"): "what was my *room* number?" is answered by it, not
    by a phone number. A Chinese noun is also said by its first character right after the
    number, as a measure names what it counts: "汉庭2839*房*" is a 房间's number.

    >>> numbers("Stayed at the Ibis Styles, room 1830 — I left my charger", ("room",))
    True
    >>> numbers("the room was cold, call me on 07700 900 300", ("room",))
    False
    >>> numbers("我手机156-95392891", ("公司", "司座", "座机", "机"))
    False
    >>> numbers("汉庭2839房，退房时忘拿外套了", ("酒店", "房间")), numbers("房间很大", ("房间",))
    (True, False)
    """
    folded = fold(text)
    for word in qualifier:
        if len(word) == 1 and _is_cjk_text(word):
            continue  # a compound's head alone: "手*机*156…" is no number of the "座机"
        name = re.escape(word) if _is_cjk_text(word) else whole_latin(re.escape(word))
        after = rf"{name}(?:e?s)?\s*{NUMBER_MARK}?\s*\d"
        before = rf"\d\s*{NUMBER_MARK}?\s*{name}"
        if re.search(after, folded):
            return True
        if _is_cjk_text(word) and (re.search(before, folded) or _counted(folded, word)):
            return True
    return False


def _counted(folded: str, word: str) -> bool:
    """Whether a two-character Chinese ``word`` is said by its first character after digits."""
    if len(word) != 2 or not _is_cjk_text(word):
        return False
    return re.search(rf"\d{re.escape(word[0])}", folded) is not None


def _alike(qualifier: Qualifier) -> Qualifier:
    """A qualifier with the words that say the same of a code: "个人" is "私人".

    So is "personal" "private" (:data:`memlane.lang.zh.PRIVATE_WORDS`, ``en.PRIVATE_WORDS``),
    and "frequent flyer" "loyalty" (``LOYALTY_WORDS``: a loyalty account, in either language).

    >>> carries("my loyalty number for the airline is LH29824204", ("flyer", "frequent"))
    True
    """
    loyalty = zh.LOYALTY_WORDS | en.LOYALTY_WORDS
    groups = (zh.PRIVATE_WORDS, en.PRIVATE_WORDS, loyalty)
    alike = [group for group in groups if group & set(qualifier)]
    return tuple(dict.fromkeys([*qualifier, *(word for group in alike for word in group)]))


def _ends_compound(folded: str, head: str, qualifier: Qualifier = ()) -> bool:
    """Whether ``head`` (a compound's last character: :func:`_bigrams`) ends a word of ``folded``.

    The head of a Chinese compound comes last ("银行*卡*"): it ends a word when a character of
    the compound comes before it, or when nothing of a word follows it ("尾号1892的*卡*").
    Where it only starts one ("*人*体工学椅" for "扫地机器人"), it is another thing's; so where
    it ends a rival of the compound (:data:`memlane.lang.zh.RIVAL_KINDS`: "手*机*" for "座机").

    >>> _ends_compound("扣款用尾号3355的银行卡", "卡"), _ends_compound("尾号1892的卡，谢谢", "卡")
    (True, True)
    >>> _ends_compound("人体工学椅的快递单号是jt1316569946746", "人")
    False
    >>> _ends_compound("手机+86 191 0430 7306", "机", ("座机", "机"))
    False
    """
    for match in re.finditer(re.escape(head), folded):
        before = folded[match.start() - 1] if match.start() else ""
        after = folded[match.end()] if match.end() < len(folded) else ""
        if _rival(before + head, qualifier):
            continue
        if (_is_cjk_text(before) and before not in zh.FUNCTION_CHARACTERS) or not (
            _is_cjk_text(after) and after not in zh.FUNCTION_CHARACTERS
        ):
            return True
    return False


def _rival(word: str, qualifier: Qualifier) -> bool:
    """Whether ``word`` is another kind of the thing a word of ``qualifier`` names."""
    return any(
        word in kinds and word not in qualifier and bool(kinds & set(qualifier))
        for kinds in zh.RIVAL_KINDS
    )


def _before(text: str, value_word: bool) -> list[Qualifier]:
    text = text.rstrip()
    if text and _is_cjk_text(text[-1]):
        return _cjk_before(text, value_word)
    return [tuple(_latin_before(text))]


def _names_value(word: str) -> bool:
    """Whether an attribute word names the value itself ("号码", "邮箱"), not a thing ("订单")."""
    return bool(_ZH_VALUE_WORDS.search(word))


def _latin_before(text: str) -> list[str]:
    words: list[str] = []
    for token in reversed(text.split()):
        word = _LATIN_WORD.search(token)
        if word is None or word.start() != 0 or token.endswith(("'s", "’s")):
            break
        if token in en.STOP_WORDS or len(words) == _MAX_WORDS:
            break
        if token not in en.NEUTRAL_MODIFIERS:
            words.append(token)
    return words


def _cjk_before(text: str, value_word: bool = True) -> list[Qualifier]:
    """Qualifiers of a Chinese attribute word, read without a word segmenter.

    The run right before it narrows it ("*公司*邮箱", "*快递*单号"), and so does the run
    before 的 that this run belongs to ("*瑜伽垫*的快递单号"): both make one qualifier,
    carried by any two characters of them in a row. A run before 的 that ends right at the
    attribute word narrows a word for the value ("我那个*牙科*的号码": ``value_word``) when it
    names a thing, not when it is a clause ("我新买的手机号", "他用的号", "那时候客户留的邮箱":
    :func:`_possessor`); "空气炸锅的订单" asks about the order, not which number. A run naming a
    model by letters or digits ("*小米14*的快递单号") is a qualifier of its own, carried whole.
    When the thing is named, a word for the kind of code ("快递", "物流") narrows nothing more.
    """
    match = _CJK_PHRASE.search(text)
    if match is None:
        return []
    phrase = _ZH_CONJUNCTIONS.split(match.group())[-1]
    *earlier, nearest = phrase.split("的")
    # What a run before 的 ends with names the thing; a longer run starts with the verb that
    # asks ("帮我查*罗技鼠标*的物流单号").
    runs = [_bare(run)[-_MAX_CJK:] for run in reversed(earlier)]
    models = [(run,) for run in runs if _LATIN_OR_DIGIT.search(run) and len(run) <= _MAX_CJK]
    narrowing = [_unclause(_unheld(_unmodified(_bare(nearest))))]
    if (
        value_word
        and not narrowing[0]
        and not nearest.strip()
        and runs
        and (runs[0],) not in models
    ):
        narrowing = [_possessor(runs[0])]
    elif narrowing[0] and runs and (runs[0],) not in models:
        # "罗技鼠标的*物流*单号": in one qualifier with the thing, the kind would carry it;
        # "*上次住*的酒店房间号": a clause before 的 narrows nothing
        thing = "" if _ZH_EPISODE_TIMES.search(runs[0]) else runs[0]
        narrowing = [thing] if narrowing[0] in zh.CODE_KINDS else [*narrowing, thing]
    elif narrowing[0] in zh.CODE_KINDS and models:
        narrowing = []  # "iPhone 15的*物流*单号": the model names the thing
    kept = [r for r in narrowing if r and len(r) <= _MAX_CJK and r not in zh.NEUTRAL_MODIFIERS]
    pieces = tuple(dict.fromkeys(piece for run in kept for piece in _bigrams(run)))
    return [pieces, *models]


def _possessor(run: str) -> str:
    """What a run before 的 names, when it names a thing rather than tells a clause.

    A clause holds a verb: what is left once the words that narrow nothing and a verb of
    holding are taken off is one character ("新买" → "买"), or holds the subject ("那时候客户
    留"). A thing is named by two characters or more.

    >>> _possessor("牙科"), _possessor("新买"), _possessor("时候客户留"), _possessor("之前用")
    ('牙科', '', '', '')
    """
    bare = _unheld(_unmodified(run))
    if len(bare) < 2 or _ZH_SUBJECT_WORDS.search(bare) or _is_clause(bare):
        return ""
    if bare != _unmodified(run):
        return ""
    return bare


def _unclause(run: str) -> str:
    """A run that is a clause, not a noun, is no qualifier.

    A clause holds the subject past its start ("给他打电话该打哪个号？" asks for the number to
    call the subject on, not for one of a thing called "给他打"), a modal verb of need before
    a verb, or ends where its verb says where something goes ("发票要发*到*哪个邮箱？" asks where
    to send the invoice: the subject's e-mail, not one called "发票"). "*公司*电话" is a
    qualifier still.

    >>> _unclause("给他打"), _unclause("发票要发到"), _unclause("快递寄到"), _unclause("公司")
    ('', '', '', '公司')
    """
    return "" if _is_clause(run) else run


def _is_clause(run: str) -> bool:
    if _ZH_SUBJECT_WORDS.search(run[1:]) or _ZH_EPISODE_TIMES.search(run):
        return True
    if len(run) > 1 and run[-1] in zh.GOAL_COMPLEMENTS:
        return True
    return any(0 <= run.find(need) < len(run) - len(need) for need in zh.NEEDS)


def _unmodified(run: str) -> str:
    """A run without the words that narrow nothing ("之前那个旧" → "", "公司新" → "公司").

    >>> _unmodified("之前那个旧"), _unmodified("公司新"), _unmodified("招行")
    ('', '公司', '招行')
    """
    for word in sorted(zh.NEUTRAL_MODIFIERS, key=len, reverse=True):
        run = run.replace(word, "")
    return run


def _unheld(run: str) -> str:
    """A run that only says the subject holds the value ("现在用", "一直留") narrows nothing.

    >>> _unheld("现在用"), _unheld("备用"), _unheld("公司")
    ('', '备用', '公司')
    """
    for verb in zh.HOLDING_VERBS:
        if run.endswith(verb) and not without_leading_fillers(run[: -len(verb)]):
            return ""
    return run


def _bigrams(run: str) -> list[str]:
    """The pieces that carry a run: any two characters of it in a row.

    A longer run is also carried by its last character when that is the head of a Chinese
    compound ("银行*卡*", "身份*证*"): "尾号1892的卡" carries "付款卡". Chinese words are
    mostly of two characters, so a run of even length ends in a word of two ("公司*座机*"):
    its last character is half a word, and "手机" does not carry "座机" by the 机 they share.

    >>> _bigrams("付款卡"), _bigrams("公司座机")
    (['付款', '款卡', '卡'], ['公司', '司座', '座机'])
    """
    if len(run) <= 2:
        return [run]
    pairs = [run[i : i + 2] for i in range(len(run) - 1)]
    return pairs if len(run) % 2 == 0 else [*pairs, run[-1]]


def _bare(run: str) -> str:
    """A run less the subject before it and question words ("用户单位" → "单位")."""
    run = _ZH_LEADING_SUBJECT_WORDS.sub("", run)
    return _ZH_QUESTION_WORDS.sub("", run)


def _after(text: str, end: int) -> Qualifier:
    match = _POST.match(text, end)
    if match is None:
        return ()
    words: list[str] = []
    for token in match.group("words").split():
        if not words and token in en.ON_RECORD:
            return ()  # "on file": where the value is kept, not which one
        if token in en.STOP_WORDS or len(words) == _MAX_WORDS:
            break
        words.append(token)
    return tuple(words)


def _is_cjk_text(text: str) -> bool:
    return bool(CJK_CHAR.search(text))


@cache
def _word_pattern(word: str) -> re.Pattern[str]:
    return re.compile(whole_latin(rf"{re.escape(word)}(?:e?s)?"))


_CJK_PHRASE = re.compile(f"[{CJK_RANGES}a-z0-9]+$")
_POST = re.compile(rf"{en.POST_MODIFIER}(?P<words>[a-z0-9][a-z0-9' -]*)")
