"""A deterministic lexical embedder: hashed words, character n-grams and CJK bigrams.

No model and no dependency beyond numpy, so it always works offline. It knows spelling, not
meaning: "I moved to Shanghai" is close to "moving to Shanghai" but not to "relocated to
the city". Unit tests use it everywhere, and it is the fallback when no model is installed.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import defaultdict
from collections.abc import Iterator, Sequence

import numpy as np

from memlane.embed.base import (
    Vectors,
    check_query,
    check_texts,
    empty_vectors,
    l2_normalize,
    single_row,
)
from memlane.errors import InvalidInput
from memlane.lang import stopwords
from memlane.lang.script import UNSPACED_RANGES, fold

# Han, kana and Hangul. These scripts are written without spaces, so they are cut into
# characters and character bigrams instead of words.
_CJK = UNSPACED_RANGES
_TOKEN = re.compile(rf"(?P<cjk>[{_CJK}]+)|(?P<word>(?:(?![{_CJK}])[^\W_])+)")

_STOPWORDS = stopwords.EMBEDDING
_CJK_STOP_CHARS = stopwords.EMBEDDING_CHARACTERS

_WORD_WEIGHT = 1.0
_STOPWORD_WEIGHT = 0.1
_TRIGRAM_WEIGHT = 0.5
_WORD_BIGRAM_WEIGHT = 0.5
_CJK_CHAR_WEIGHT = 0.5
_CJK_STOP_CHAR_WEIGHT = 0.1
_CJK_BIGRAM_WEIGHT = 1.0

_MIN_DIM = 8


class HashEmbedder:
    """Feature-hashing embedder; deterministic across processes, machines and versions.

    Each text becomes weighted features — words, padded character trigrams of words, word
    bigrams, and for CJK text single characters and character bigrams — hashed with a signed
    hash into ``dim`` buckets, damped with ``log1p`` and L2-normalized. A text with no letters
    or digits (e.g. ``""``) becomes the zero vector.

    Args:
        dim: number of buckets (vector length); more buckets mean fewer collisions.

    Example:
        >>> emb = HashEmbedder()
        >>> q = emb.embed_query("我住在上海")
        >>> docs = emb.embed_documents(["我现在住在上海", "明天下雨"])
        >>> bool(docs[0] @ q > docs[1] @ q)
        True
    """

    def __init__(self, dim: int = 256) -> None:
        if isinstance(dim, bool) or not isinstance(dim, int) or dim < _MIN_DIM:
            raise InvalidInput("dim", f"must be an integer >= {_MIN_DIM}, got {dim!r}")
        self._dim = dim

    @property
    def name(self) -> str:
        """Identifier that changes whenever the vectors would (dimension or feature recipe)."""
        return f"hash-v1-{self._dim}"

    @property
    def dim(self) -> int:
        """Vector length."""
        return self._dim

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        """Embed texts; returns ``(len(texts), dim)`` float32 rows of unit length."""
        items = check_texts(texts)
        if not items:
            return empty_vectors(self._dim)
        return l2_normalize(np.stack([self._raw_vector(text) for text in items]))

    def embed_query(self, text: str) -> Vectors:
        """Embed one query; same recipe as documents (the hashing is symmetric)."""
        return single_row(l2_normalize(self._raw_vector(check_query(text))))

    def __repr__(self) -> str:
        return f"HashEmbedder(dim={self._dim})"

    def _raw_vector(self, text: str) -> Vectors:
        weights: defaultdict[str, float] = defaultdict(float)
        for feature, weight in _features(text):
            weights[feature] += weight
        vector = np.zeros(self._dim, dtype=np.float32)
        for feature, total in weights.items():
            digest = int.from_bytes(
                hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest(), "little"
            )
            # The top bit picks the sign so that colliding features cancel out on average
            # instead of piling up in one bucket.
            sign = 1.0 if digest >> 63 else -1.0
            vector[digest % self._dim] += sign * math.log1p(total)
        return vector


def _features(text: str) -> Iterator[tuple[str, float]]:
    """Yield ``(feature, weight)`` pairs for ``text`` after Unicode and case folding."""
    folded = fold(text)
    previous_word: str | None = None
    for match in _TOKEN.finditer(folded):
        cjk_run = match.group("cjk")
        if cjk_run is not None:
            previous_word = None
            yield from _cjk_features(cjk_run)
            continue
        word = match.group("word")
        if word in _STOPWORDS:
            yield "w:" + word, _STOPWORD_WEIGHT
            previous_word = None
            continue
        yield "w:" + word, _WORD_WEIGHT
        padded = f"<{word}>"
        for start in range(len(padded) - 2):
            yield "t:" + padded[start : start + 3], _TRIGRAM_WEIGHT
        if previous_word is not None:
            yield f"b:{previous_word} {word}", _WORD_BIGRAM_WEIGHT
        previous_word = word


def _cjk_features(run: str) -> Iterator[tuple[str, float]]:
    """Yield the characters and character bigrams of a run of CJK text."""
    for char in run:
        weight = _CJK_STOP_CHAR_WEIGHT if char in _CJK_STOP_CHARS else _CJK_CHAR_WEIGHT
        yield "c:" + char, weight
    for start in range(len(run) - 1):
        yield "c:" + run[start : start + 2], _CJK_BIGRAM_WEIGHT
