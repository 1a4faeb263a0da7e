"""Keywords, key phrases and named entities of texts, for summaries and notes."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence

from memlane.lang.places import NOT_NAMES as _NOT_NAMES
from memlane.lang.places import ZH_LOCATIVE as _CJK_LOCATIVE
from memlane.lang.places import ZH_PLACE_AFTER as _CJK_PLACE
from memlane.lang.places import ZH_TRAILING_VERB as _CJK_TRAILING_VERB
from memlane.lang.words import stem
from memlane.pacing import pause
from memlane.summaries.text.spans import PROTECTED_KINDS, find_spans, mask_spans
from memlane.summaries.text.words import (
    CJK_SPLIT,
    ENGLISH_STOPWORDS,
    SMALL_TALK_WORDS,
    cjk_segments,
    content_words,
    is_content_word,
    words,
)


def keywords(text: str) -> list[str]:
    """Comparison keywords of ``text``: stemmed English content words and CJK bigrams."""
    found: list[str] = []
    for word in content_words(text):
        found.append(stem(word))
        pause()  # a long text's words: a write lets requests go first (memlane.pacing)
    for segment in cjk_segments(text):
        if len(segment) == 1:
            continue
        found.extend(segment[i : i + 2] for i in range(len(segment) - 1))
        pause()
    found.extend(span.text for span in find_spans(text, PROTECTED_KINDS))
    return found


_PHRASE_BREAK = re.compile(r"[^\w\s'’-]+")
_MAX_PHRASE_WORDS = 3
_POSSESSIVE = re.compile(r"['’]s$")


def topic_candidates(texts: Sequence[str], exclude: Iterable[str] = ()) -> dict[str, float]:
    """Key phrases of ``texts`` with a salience score, most salient first.

    English: runs of up to three adjacent content words ("LGBTQ support group"), scored
    by their most frequent word plus a bonus for length and repetition. Chinese: the runs
    between punctuation and function words (2-6 characters), scored by how often they occur;
    longer runs give their repeated 2-4 character pieces. ``exclude`` holds names (the
    speakers) that are not topics.
    """
    excluded = {stem(word) for name in exclude for word in words(name)}
    surface: dict[str, str] = {}
    runs = [run for text in texts for run in _content_runs(mask_spans(text), excluded, surface)]
    frequency = Counter(stemmed for run in runs for stemmed in run)
    repeats = Counter(runs)
    scores: dict[str, float] = {}
    for run in runs:
        phrase = " ".join(surface[stemmed] for stemmed in run)
        score = max(frequency[s] for s in run) + 0.5 * (len(run) - 1) + 0.5 * (repeats[run] - 1)
        scores[phrase] = max(scores.get(phrase, 0.0), score)
    scores.update(_cjk_topics(texts))
    return dict(sorted(scores.items(), key=lambda item: -item[1]))


def _content_runs(text: str, excluded: set[str], surface: dict[str, str]) -> list[tuple[str, ...]]:
    """Stemmed runs of adjacent content words, at most three long; records surface forms."""
    pause()
    runs: list[tuple[str, ...]] = []
    position = 0
    for chunk in _PHRASE_BREAK.split(text):
        current: list[str] = []
        for word in [*words(chunk), ""]:
            if word and is_content_word(word) and stem(word) not in excluded:
                stemmed = stem(word)
                current.append(stemmed)
                # Keep the capital of a name, not of a word that only starts the sentence.
                proper = word[0].isupper() and (position > 0 or word[1:] != word[1:].lower())
                plain = _POSSESSIVE.sub("", word.replace("’", "'"))
                surface.setdefault(stemmed, plain if proper else plain.lower())
            elif current:
                runs.extend(
                    tuple(current[i : i + _MAX_PHRASE_WORDS])
                    for i in range(0, len(current), _MAX_PHRASE_WORDS)
                )
                current = []
            position += bool(word)
    return runs


def _cjk_topics(texts: Sequence[str]) -> dict[str, float]:
    joined = "\n".join(texts)
    scores: dict[str, float] = {}
    for text in texts:
        for segment in cjk_segments(text):
            if 2 <= len(segment) <= 6:
                scores[segment] = float(joined.count(segment))
                continue
            for size in (4, 3, 2):
                for i in range(len(segment) - size + 1):
                    piece = segment[i : i + size]
                    count = joined.count(piece)
                    if count >= 2:
                        scores[piece] = max(scores.get(piece, 0.0), float(count))
    return scores


_CAPITALIZED = re.compile(
    r"(?<![\w'’])[A-Z][A-Za-z'’&-]*(?:\s+(?:of\s+|de\s+|the\s+)?[A-Z][A-Za-z'’&-]*)*"
)


def entity_candidates(texts: Sequence[str], exclude: Iterable[str] = ()) -> dict[str, float]:
    """Named things in ``texts`` with a score, most salient first.

    Identifiers (2 each), amounts and quantities, capitalized names, and Chinese places or
    names after 叫/在/去/到/住在/来自. A capitalized word at the start of a sentence counts
    only when it also appears inside a sentence or is part of a longer name. ``exclude``
    holds names (the speakers) to skip.
    """
    excluded = {name.casefold() for name in exclude}
    masked = [mask_spans(text) for text in texts]
    mid_sentence = {
        match.group()
        for text in masked
        for match in _CAPITALIZED.finditer(text)
        if match.start() > 0
    }
    scores: dict[str, float] = {}

    def add(name: str, score: float) -> None:
        # A speaker's name or short form ("Mel" for Melanie) is a vocative, not an entity.
        folded = name.casefold()
        short_form = len(folded) > 2 and any(speaker.startswith(folded) for speaker in excluded)
        if folded not in excluded and not short_form:
            scores[name] = scores.get(name, 0.0) + score

    for text, plain in zip(texts, masked, strict=True):
        for span in find_spans(text, frozenset({"identifier", "amount", "quantity"})):
            add(span.text, 2.0 if span.kind == "identifier" else 1.0)
        for match in _CAPITALIZED.finditer(plain):
            name = _clean_name(match.group())
            if name and (match.start() > 0 or " " in name or name in mid_sentence):
                add(name, 1.0)
        for match in _CJK_PLACE.finditer(text):
            head = CJK_SPLIT.split(match.group(1))[0]
            head = _CJK_TRAILING_VERB.sub("", head[:2] + _CJK_LOCATIVE.sub("", head[2:]))
            if 2 <= len(head) <= 4:
                add(head, 1.0)
    return dict(sorted(scores.items(), key=lambda item: -item[1]))


def _clean_name(raw: str) -> str:
    """Drop a possessive and leading small-talk words ("Hey Caroline's" → "Caroline")."""
    parts = _POSSESSIVE.sub("", raw).split()
    while parts and (
        parts[0] in _NOT_NAMES
        or parts[0].lower() in ENGLISH_STOPWORDS
        or parts[0].lower() in SMALL_TALK_WORDS
    ):
        parts.pop(0)
    if len(parts) == 1 and (len(parts[0]) < 2 or parts[0].lower() in ENGLISH_STOPWORDS):
        return ""
    return " ".join(parts)
