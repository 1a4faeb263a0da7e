"""Search tokens that work for Chinese as well as English, shared by every backend.

Neither SQLite FTS5's tokenizers (``unicode61`` keeps a run of Chinese characters as one
token, ``trigram`` needs three characters, so "北京" would never match) nor PostgreSQL's
text-search parser split Chinese usefully. We index overlapping character bigrams of CJK runs
(the classic CJK analyzer), lower-cased Latin words, and digit runs with their separators
removed, as one space-separated string; each backend then only splits it on spaces (FTS5's
``unicode61``, PostgreSQL's ``to_tsvector('simple', ...)``). A query is its unique tokens
minus stop words (:func:`terms`), which each backend writes in its own query syntax.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator

from memlane.lang import stopwords
from memlane.lang.script import UNSPACED_RANGES

_CJK = UNSPACED_RANGES
_TOKEN = re.compile(rf"[{_CJK}]+|[^\W_{_CJK}]+", re.UNICODE)
_CJK_CHARACTER = re.compile(f"[{_CJK}]")
_DIGIT_GROUPS = re.compile(r"\+?\d[\d\s().-]{4,}\d")
STOPWORDS = stopwords.SEARCH
"""Query words every search drops (kept in :mod:`memlane.lang.stopwords`)."""
COMMON_DOCS = 1_000
"""A query term held by more documents of the scope than this is left out of a lexical search
while a rarer term of the query stays in it (both backends): the cost of a search is then
bounded by the documents holding its rarer terms, not by the scope's size."""


def tokens(text: str) -> Iterator[str]:
    """Index tokens: CJK bigrams (a lone character stays whole), words, joined digit runs."""
    lowered = text.casefold()
    for match in _TOKEN.finditer(lowered):
        word = match.group()
        if _is_cjk(word[0]):
            if len(word) == 1:
                yield word
            else:
                yield from (word[i : i + 2] for i in range(len(word) - 1))
        else:
            yield word
    for match in _DIGIT_GROUPS.finditer(lowered):
        digits = "".join(ch for ch in match.group() if ch.isdigit())
        if digits != match.group():
            yield digits


def document(text: str) -> str:
    """The text as a search index should receive it: its tokens, space-separated."""
    return " ".join(tokens(text))


def terms(text: str) -> list[str]:
    """A query's tokens without stop words, each once, in the order they first appear.

    A search matches a document holding any of them; an empty list matches nothing.

    >>> terms("Where is the 北京 office? The office!")
    ['北京', 'office']
    """
    return list(dict.fromkeys(t for t in tokens(text) if t not in STOPWORDS))


def scope_token(*parts: str) -> str:
    """A token that marks a document's tenant (and subject, and kind) inside SQLite's FTS5.

    Queries AND it with their words, so FTS5 itself narrows the match to the scope instead of
    matching across every tenant and filtering afterwards. Hex digits after a prefix no text
    token has, so it never collides with content.
    """
    digest = hashlib.blake2b("\x1f".join(parts).encode(), digest_size=10).hexdigest()
    return f"zzscope{digest}"


def _is_cjk(character: str) -> bool:
    # Compiled once: a note's index entry asks this of every word, under the write lock.
    return _CJK_CHARACTER.match(character) is not None
