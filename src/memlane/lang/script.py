"""Writing systems: which characters are CJK ideographs (one definition for every module)."""

from __future__ import annotations

import re
import unicodedata

CJK_RANGES = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
"""CJK ideographs (extension A, the unified block, compatibility ideographs), for a regex class."""

UNSPACED_RANGES = "\u3040-\u30ff" + CJK_RANGES + "\uac00-\ud7af\U00020000-\U0002ffff"
"""Scripts written without spaces between words (kana, ideographs, hangul, extension B+):
they are cut into characters and bigrams, never into words."""


CJK_CHAR = re.compile(f"[{CJK_RANGES}]")
"""One CJK ideograph: ``CJK_CHAR.search(text)`` tells whether a text has any (compiled once,
for the modules that ask it of every statement)."""


EMOJI_RANGES = "\U0001f300-\U0001faff"
"""Pictographs and emoticons (😂, 🎉), for a regex class: in chat one ends a sentence as a
full stop does ("又搬家了😂 这次从扬州搬到了无锡")."""


NOT_AFTER_LATIN = r"(?<![a-z0-9])"
"""Lookbehind: not inside a (folded) Latin word or number that began earlier."""

NOT_BEFORE_LATIN = r"(?![a-z0-9])"
"""Lookahead: not followed by more of the same (folded) Latin word or number."""


def whole_latin(body: str) -> str:
    """The regex ``body`` bounded so that it matches only a whole folded Latin word or number.

    "order" is found in "my order." but not in "reorder" or "orders2"; a CJK character next
    to it is no bound to cross.

    >>> order = re.compile(whole_latin("order"))
    >>> bool(order.search("reorder")), bool(order.search("订单order号"))
    (False, True)
    """
    return f"{NOT_AFTER_LATIN}(?:{body}){NOT_BEFORE_LATIN}"


def is_cjk(char: str) -> bool:
    """True for one CJK ideograph.

    >>> is_cjk("京"), is_cjk("a")
    (True, False)
    """
    return (
        "\u3400" <= char <= "\u4dbf" or "\u4e00" <= char <= "\u9fff" or "\uf900" <= char <= "\ufaff"
    )


def fold(text: str) -> str:
    """NFKC and case-folded: the one form every comparison of ``memlane.lang`` uses."""
    return unicodedata.normalize("NFKC", text).casefold()


def word_set(text: str, separator: str | None = None) -> frozenset[str]:
    """The words of ``text`` split at ``separator`` (white space by default), stripped.

    A word list written as text, the way this package keeps its longer lists.

    >>> sorted(word_set("of  to  in"))
    ['in', 'of', 'to']
    """
    return frozenset(word.strip() for word in text.split(separator) if word.strip())


def gate(*needles: str) -> re.Pattern[str]:
    """A pattern that finds any of ``needles``: a cheap test before running costly patterns."""
    return re.compile("|".join(re.escape(needle) for needle in needles))
