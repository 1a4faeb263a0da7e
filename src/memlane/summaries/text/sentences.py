"""Splitting Chinese and English text into sentences, and telling questions."""

from __future__ import annotations

import re

from memlane.lang.sentences import ABBREVIATIONS as _ABBREVIATIONS
from memlane.lang.sentences import ZH_QUESTION_END as _ZH_QUESTION
from memlane.summaries.text.words import is_cjk

_CLOSERS = "\"'”’」』）)]】》"
_ALWAYS_END = "。！？；!?…"


_QUESTION_END = re.compile(r"[?？]\s*[\"'”’)）]*$")


def split_sentences(text: str) -> list[str]:
    """Split Chinese and English text into sentences, keeping their punctuation.

    Chinese ends at 。！？；… unconditionally; English ends at ``. ! ?`` followed by a space,
    the end, or a CJK character, except after abbreviations ("Dr.", "e.g."), initials
    ("J. K.") and before a lower-case word. Line breaks always end a sentence.

    >>> split_sentences("我搬到北京了。你呢？Dr. Li moved. OK!")
    ['我搬到北京了。', '你呢？', 'Dr. Li moved.', 'OK!']
    """
    sentences: list[str] = []
    for line in text.splitlines():
        start = 0
        index = 0
        while index < len(line):
            char = line[index]
            if char in _ALWAYS_END or char == ".":
                end = _absorb_terminators(line, index)
                if char in _ALWAYS_END or _dot_ends_sentence(line, index, end):
                    _append_stripped(sentences, line[start:end])
                    start = end
                index = end
                continue
            index += 1
        _append_stripped(sentences, line[start:])
    return sentences


def _absorb_terminators(line: str, index: int) -> int:
    """Index after a run of terminators and closing quotes/brackets ("?!", "...", '."')."""
    end = index + 1
    while end < len(line) and (line[end] in _ALWAYS_END or line[end] == "."):
        end += 1
    while end < len(line) and line[end] in _CLOSERS:
        end += 1
    return end


def _dot_ends_sentence(line: str, dot: int, end: int) -> bool:
    if end < len(line) and not (line[end].isspace() or is_cjk(line[end])):
        return False  # "3.5", "a.b@c.com", "U.S.A" inside a token
    rest = line[end:].lstrip()
    if rest and rest[0].islower():
        return False  # "e.g. this", "etc. and" and "wait... what"
    word_start = dot
    while word_start > 0 and (
        (line[word_start - 1].isascii() and line[word_start - 1].isalnum())
        or line[word_start - 1] == "."
    ):
        word_start -= 1
    word = line[word_start:dot].lower()
    if end - dot > 1:
        return True  # an ellipsis or "?." before an upper-case word ends the sentence
    return not (word in _ABBREVIATIONS or (len(word) == 1 and word.isalpha()))


def _append_stripped(sentences: list[str], piece: str) -> None:
    piece = piece.strip()
    if piece:
        sentences.append(piece)


def is_question(sentence: str) -> bool:
    """True for a question: a final ? / ？, or a Chinese question particle at the end."""
    stripped = sentence.strip()
    return bool(_QUESTION_END.search(stripped) or _ZH_QUESTION.search(stripped))
