"""Text helpers shared by the offline summarizer and the note extractor (Chinese and English).

Everything here is deterministic and dependency-free, one module per job: ``words`` (scripts,
word lists, stems, CJK segments, the token estimate for budgets, keys for de-duplication),
``sentences`` (splitting, questions), ``spans`` (identifiers, dates, amounts and quantities
that must survive verbatim), ``candidates`` (keywords, key phrases, entities) and ``clip``
(shortening a line to its key clauses). Every public name is importable from here.
"""

from memlane.lang.words import stem
from memlane.summaries.text.candidates import (
    entity_candidates,
    keywords,
    topic_candidates,
)
from memlane.summaries.text.clip import (
    clip_line,
)
from memlane.summaries.text.sentences import (
    is_question,
    split_sentences,
)
from memlane.summaries.text.spans import (
    PROTECTED_KINDS,
    SpanKind,
    TypedSpan,
    find_spans,
    has_protected,
    mask_spans,
)
from memlane.summaries.text.words import (
    ENGLISH_STOPWORDS,
    SMALL_TALK_WORDS,
    cjk_segments,
    contains_cjk,
    content_words,
    estimate_tokens,
    is_cjk,
    is_content_word,
    normalize_for_dedupe,
    word_set,
    words,
)

__all__ = [
    "ENGLISH_STOPWORDS",
    "PROTECTED_KINDS",
    "SMALL_TALK_WORDS",
    "SpanKind",
    "TypedSpan",
    "cjk_segments",
    "clip_line",
    "contains_cjk",
    "content_words",
    "entity_candidates",
    "estimate_tokens",
    "find_spans",
    "has_protected",
    "is_cjk",
    "is_content_word",
    "is_question",
    "keywords",
    "mask_spans",
    "normalize_for_dedupe",
    "split_sentences",
    "stem",
    "topic_candidates",
    "word_set",
    "words",
]
