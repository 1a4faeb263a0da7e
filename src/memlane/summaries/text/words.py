"""Words of Chinese and English text: scripts, word lists, segments, tokens, dedupe keys.

The stem is :func:`memlane.lang.words.stem`, the one every component matches words by.
"""

from __future__ import annotations

import math
import re
import unicodedata

from memlane.lang.script import UNSPACED_RANGES


def word_set(text: str) -> frozenset[str]:
    """The whitespace-separated words of ``text`` as a set (for readable word lists)."""
    return frozenset(text.split())


CJK_CLASS = UNSPACED_RANGES


_CJK_CHAR = re.compile(f"[{CJK_CLASS}]")
_CJK_RUN = re.compile(f"[{CJK_CLASS}]+")


ENGLISH_STOPWORDS = word_set(
    """a about above after again against all also am an and any are aren't as at be because
    been before being below between both but by can can't cannot could couldn't did didn't do
    does doesn't doing don't down during each even ever every few for from further get gets got
    gotta had hadn't has hasn't have haven't having he he'd he'll he's her here here's hers
    herself him himself his how how's i i'd i'll i'm i've if in into is isn't it it's its itself
    just let let's lot lots made make makes many may me might more most much must mustn't my
    myself need needs never no nor not now of off often oh on once one only or other ought our
    ours ourselves out over own per quite rather really same shall she she'd she'll she's should
    shouldn't since so some something still such sure than that that's the their theirs them
    themselves then there there's these they they'd they'll they're they've thing things this
    those though through thus till to too under until up upon us very was wasn't way we we'd
    we'll we're we've were weren't what what's whatever when when's where where's whether which
    while who who's whom why why's will with within without won't would wouldn't yet you you'd
    you'll you're you've your yours yourself yourselves also back bit going gonna go goes went
    come came take took want wanted think thought know knew say said tell told see saw look
    looking feel felt kind sort maybe always usually already cuz 'cause ya yep yesterday today
    tomorrow tonight week weekend month year last next ago lately recently soon later help
    helps helped keep kept try tried trying give gave given start started put seem seems mean
    means almost done doing getting gets find found use used able lots bunch whole totally"""
)
"""Function words and very common verbs, lower case, ignored as keywords."""

SMALL_TALK_WORDS = word_set(
    """hi hello hey heya hiya yo bye goodbye thanks thank ty thx please sorry ok okay okey yeah
    yes yea yup no nope nah wow whoa woah cool great awesome amazing nice good fine lovely
    wonderful fantastic terrible bad haha hahaha lol lmao omg um uh hmm hm mm ah aw aww oops
    welcome cheers congrats congratulations glad happy sounds sound totally definitely
    absolutely indeed true right exactly agree love like super pretty fun stuff mate buddy dear
    guys friend appreciate care morning evening afternoon night day long time see"""
)
"""Greetings, interjections and stock reactions: words that carry no content."""

# Chinese function words and stock phrases: the split points that cut a Chinese sentence
# into candidate key phrases (longest first so 什么 wins over 什).
_CJK_FUNCTION_WORDS = sorted(
    word_set(
        """我们 你们 他们 她们 它们 咱们 自己 什么 怎么 怎样 为什么 哪里 哪儿 这里 那里 这个 那个
    这些 那些 一个 一下 一些 一点 有点 已经 因为 所以 但是 可是 不过 如果 虽然 然后 还是 就是
    不是 没有 可以 可能 应该 需要 想要 觉得 知道 现在 今天 昨天 明天 前天 后天 刚才 刚刚 时候
    非常 真的 特别 比较 还有 而且 或者 以及 请问 谢谢 你好 您好 好的 嗯嗯 哈哈 是的 对的 一定
    帮我 麻烦 告诉 一直 总是 其实 大家 东西 事情 问题 的话 之前 之后 以后 以前 最近 上周 下周
    本周 这周 上个月 下个月 这个月 去年 今年 明年 上个星期 下个星期 刚才 一直 今晚 昨晚
    的 了 吗 呢 吧 啊 呀 哦 嗯 么 啦 哈 我 你 您 他 她 它 们 是 在 和 与 跟 也 都 就 还 很 太 把
    被 给 又 才 这 那 个 从 向 要 能 想 让 去 来 说 有 没 不 再 更 请 帮 但 而 或 并 些""",
    ),
    key=lambda word: (-len(word), word),
)
CJK_SPLIT = re.compile(
    "|".join(re.escape(word) for word in _CJK_FUNCTION_WORDS) + f"|[^{CJK_CLASS}]+"
)


_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*[A-Za-z]|[A-Za-z]")


def is_cjk(char: str) -> bool:
    """True for a CJK ideograph, kana or hangul character."""
    return bool(_CJK_CHAR.fullmatch(char))


def contains_cjk(text: str) -> bool:
    """True when ``text`` has at least one CJK character (the zh/en switch used throughout)."""
    return _CJK_CHAR.search(text) is not None


_TOKEN_PIECES = re.compile(
    f"(?P<cjk>[{CJK_CLASS}])|(?P<word>[^\\W\\d_]+(?:['’][^\\W\\d_]+)*)|(?P<digits>\\d+)"
    r"|(?P<other>\S)"
)


def estimate_tokens(text: str) -> int:
    """Estimate how many LLM tokens ``text`` costs, for budgets (no tokenizer needed).

    Rules, chosen to err slightly high for common BPE tokenizers: each CJK character
    (ideograph, kana, hangul) is 1 token; each other word is 1.3 tokens; a digit run costs
    1 token per 3 digits; any other visible character (punctuation, symbols) half a token.
    Whitespace is free. The sum is rounded up; empty text is 0.

    >>> estimate_tokens("我搬到北京了")
    6
    >>> estimate_tokens("I moved to Beijing.")
    6
    """
    total = 0.0
    for match in _TOKEN_PIECES.finditer(text):
        kind = match.lastgroup
        if kind == "cjk":
            total += 1.0
        elif kind == "word":
            total += 1.3
        elif kind == "digits":
            total += math.ceil(len(match.group()) / 3)
        else:
            total += 0.5
    return math.ceil(total - 1e-9)


def normalize_for_dedupe(text: str) -> str:
    """Reduce text to a comparison key: NFKC, case-folded, punctuation and spacing removed.

    Latin words stay separated by one space; CJK and digits are joined, so "138-0000-1234"
    and "13800001234" compare equal, as do "我搬到北京了！" and "我搬到北京了".

    >>> normalize_for_dedupe("  I moved to Beijing!! ")
    'i moved to beijing'
    """
    pieces = _ALNUM_RUN.findall(unicodedata.normalize("NFKC", text).casefold())
    out: list[str] = []
    for piece in pieces:
        if out and _latin_letter(out[-1][-1]) and _latin_letter(piece[0]):
            out.append(" ")
        out.append(piece)
    return "".join(out)


_ALNUM_RUN = re.compile(r"[^\W_]+")


def _latin_letter(char: str) -> bool:
    return char.isascii() and char.isalpha()


def words(text: str) -> list[str]:
    """Latin-script words of ``text`` as written (apostrophes and hyphens kept inside)."""
    return [match.group().replace("’", "'") for match in _WORD.finditer(text)]


def is_content_word(word: str) -> bool:
    """True for an English word that carries meaning (not a function word or small talk)."""
    lowered = word.lower().replace("’", "'")
    return (
        len(lowered) > 2
        and lowered not in ENGLISH_STOPWORDS
        and lowered not in SMALL_TALK_WORDS
        and not lowered.endswith("n't")
    )


def content_words(text: str) -> list[str]:
    """English content words of ``text`` in order, as written."""
    return [word for word in words(text) if is_content_word(word)]


def cjk_segments(text: str) -> list[str]:
    """Chinese runs of ``text`` cut at punctuation and function words, in order.

    >>> cjk_segments("我上周搬到北京了，新手机号是多少？")
    ['搬到北京', '新手机号', '多少']
    """
    return [piece for piece in CJK_SPLIT.split(text) if piece and _CJK_RUN.fullmatch(piece)]
