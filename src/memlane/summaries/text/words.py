"""Words of Chinese and English text: scripts, word lists, segments, tokens, dedupe keys.

The stem is :func:`memlane.lang.words.stem`, the one every component matches words by.
"""

from __future__ import annotations

import math
import re

from memlane.lang import en, stopwords
from memlane.lang.script import UNSPACED_RANGES, fold
from memlane.memo import per_recall


def word_set(text: str) -> frozenset[str]:
    """The whitespace-separated words of ``text`` as a set (for readable word lists)."""
    return frozenset(text.split())


CJK_CLASS = UNSPACED_RANGES


_CJK_CHAR = re.compile(f"[{CJK_CLASS}]")
_CJK_RUN = re.compile(f"[{CJK_CLASS}]+")


ENGLISH_STOPWORDS = stopwords.KEYWORDS
"""Function words and very common verbs, lower case, ignored as keywords."""

SMALL_TALK_WORDS = stopwords.SMALL_TALK
"""Greetings, interjections and stock reactions: words that carry no content."""

_CJK_FUNCTION_WORDS = stopwords.CHINESE_FUNCTION_WORDS
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
    return math.ceil(token_total(text) - 1e-9)


def token_total(text: str, total: float = 0.0) -> float:
    """``total`` plus what :func:`estimate_tokens` counts of ``text``, before rounding up.

    No piece spans white space, so the total of words joined by spaces is each word's added
    in turn (the same additions in the same order): a text grown a word at a time is
    counted once, not again for every word.
    """
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
    return total


@per_recall
def normalize_for_dedupe(text: str) -> str:
    """Reduce text to a comparison key: NFKC, case-folded, punctuation and spacing removed.

    Latin words stay separated by one space; CJK and digits are joined, so "138-0000-1234"
    and "13800001234" compare equal, as do "我搬到北京了！" and "我搬到北京了".

    >>> normalize_for_dedupe("  I moved to Beijing!! ")
    'i moved to beijing'
    """
    # The runs joined by one space, then the spaces not between two Latin letters cut out.
    return _JOINED.sub("", " ".join(_ALNUM_RUN.findall(fold(text))))


_ALNUM_RUN = re.compile(r"[^\W_]+")
_JOINED = re.compile(r"(?<![A-Za-z]) | (?![A-Za-z])")


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
        and not lowered.endswith(en.NEGATING_SUFFIX)
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
