"""The offline summarizer: deterministic, rule-based session summaries in Chinese and English.

It follows the update-the-existing-summary pattern: each call folds a few new turns into the
previous five sections. Facts and open items are the turns' own sentences (clipped to their
key clauses), so identifiers and dates stay verbatim. Sections are bounded, but a line that
carries an identifier or a date is never dropped: past the bound, the oldest such lines are
folded into "earlier: ..." lines that keep each identifier, date and amount verbatim with a
few words of context. A newer statement of the same relation ("我住在北京" after "我住在上海")
replaces the older line; otherwise both are kept.

This module decides which sentences become facts and open items and when an open item
closes; :mod:`memlane.summaries.lines` merges, bounds and archives the lines, and
:mod:`memlane.summaries.sections` ranks topic, entities and mood.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from memlane.errors import InvalidInput
from memlane.lang.changes import retractions
from memlane.lang.speaker import EN_NAME_NOT_FIRST as _NAME
from memlane.lang.speaker import FIRST_PERSON as _FIRST_PERSON
from memlane.lang.words import shares_term
from memlane.pacing import pause
from memlane.summaries.lines import (
    ARCHIVE,
    Line,
    fold_overflow,
    merge_facts,
    merge_lines,
    prefixed,
    split_label,
)
from memlane.summaries.model import SummaryContent
from memlane.summaries.notes import (
    intents,
    is_evasive,
    is_informative,
    is_request,
    moods,
    relations,
    reports_done,
    strip_discourse,
    worth_asking,
)
from memlane.summaries.sections import merge_mood, merge_ranked
from memlane.summaries.text import (
    PROTECTED_KINDS,
    SpanKind,
    clip_line,
    contains_cjk,
    entity_candidates,
    find_spans,
    has_protected,
    is_question,
    keywords,
    split_sentences,
    topic_candidates,
)
from memlane.window.model import Turn

_PEOPLE_ROLES = ("user", "assistant", "tool")


@dataclass(frozen=True, slots=True)
class _Sentence:
    """One sentence of the new turns, with who said it."""

    text: str  # without an opening "Oh," / "嗯，"
    label: str  # line prefix: "" (the subject), a speaker name, "assistant" or "tool"
    role: str
    turn: int
    question: bool
    informative: bool
    keywords: frozenset[str]

    @classmethod
    def of(cls, raw: str, label: str, role: str, turn: int) -> _Sentence:
        pause()
        text = strip_discourse(raw)
        return cls(
            text,
            label,
            role,
            turn,
            is_question(text),
            is_informative(text),
            frozenset(keywords(text)),
        )


class OfflineSummarizer:
    """A :class:`~memlane.summaries.summarizer.Summarizer` that needs no model.

    Args:
        max_items_per_section: the bound of each section. Fact lines and open items that
            carry an identifier or a date are never dropped (see ``compact_overflow``); the
            other lines keep at least half of the bound.
        max_mood_items: the bound of the mood section (moods and intents).
        max_line_tokens: fact and open-item lines longer than this (see
            :func:`~memlane.summaries.text.estimate_tokens`) keep only their key clauses.
        label_speakers: prefix user lines with the turn's subject ("U-001: I ...") even when
            the turn names no ``speaker``. A user turn with a ``speaker`` (several people in
            one conversation, LoCoMo's "Caroline") is always prefixed with it; otherwise
            only assistant and tool lines are prefixed.
        compact_overflow: when lines carrying identifiers or dates exceed the bound, fold
            the oldest into "earlier: ..." lines of snippets (each identifier, date and
            amount verbatim with a few words of context). ``False`` keeps them whole, so
            the section grows with them.

    Raises:
        InvalidInput: a bound is not a positive integer.
    """

    def __init__(
        self,
        max_items_per_section: int = 6,
        *,
        max_mood_items: int = 4,
        max_line_tokens: int = 24,
        label_speakers: bool = False,
        compact_overflow: bool = True,
    ) -> None:
        for name, value in (
            ("max_items_per_section", max_items_per_section),
            ("max_mood_items", max_mood_items),
            ("max_line_tokens", max_line_tokens),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InvalidInput(name, f"must be a positive integer, got {value!r}")
        self._limit = max_items_per_section
        self._mood_limit = max_mood_items
        self._line_tokens = max_line_tokens
        self._label_speakers = label_speakers
        self._compact = compact_overflow

    def update(self, previous: SummaryContent | None, turns: Sequence[Turn]) -> SummaryContent:
        """Return ``previous`` updated with ``turns`` (oldest first), deterministically.

        With no turns, ``previous`` is returned unchanged.

        Raises:
            InvalidInput: ``previous`` is not a ``SummaryContent`` or ``turns`` holds a
                non-``Turn``.
        """
        if previous is not None and not isinstance(previous, SummaryContent):
            raise InvalidInput("previous", "must be a SummaryContent or None")
        if isinstance(turns, str) or any(not isinstance(turn, Turn) for turn in turns):
            raise InvalidInput("turns", "must be a sequence of Turn")
        base = previous if previous is not None else SummaryContent()
        sentences = self._sentences(turns)
        if not sentences:
            return base
        # Names seen in earlier rounds still are speakers, not topics or entities.
        labels = {split_label(line)[0] for line in (*base.facts, *base.open_items)}
        speakers = {turn.subject for turn in turns} | {turn.speaker or "" for turn in turns}
        speakers |= labels
        speakers -= {"", "assistant", "tool", ARCHIVE}
        fresh_facts, fresh_open = self._classify(sentences, speakers)
        kept_open, closed = _close_open_items(base.open_items, sentences)
        merged = merge_facts(
            [Line.of(line) for line in base.facts],
            [Line.of(line) for line in [*closed, *fresh_facts]],
        )
        facts = self._bound(merged, _fact_salience)
        open_lines = [Line.of(line) for line in merge_lines(kept_open, fresh_open)]
        open_items = self._bound(open_lines, lambda line: 0.0)
        texts = [sentence.text for sentence in sentences]
        # Topics come from what the people said; an assistant's phrasing is noise there.
        users = [s for s in sentences if s.role == "user"]
        user_texts = [s.text for s in users]
        topic = merge_ranked(
            base.topic, topic_candidates(user_texts or texts, speakers), self._limit
        )
        entities = merge_ranked(base.entities, entity_candidates(texts, speakers), self._limit)
        mood = merge_mood(base.mood, _mood_counts(users), self._mood_limit)
        return SummaryContent(topic, facts, open_items, entities, mood)

    def _sentences(self, turns: Sequence[Turn]) -> list[_Sentence]:
        found: list[_Sentence] = []
        for index, turn in enumerate(turns):
            if turn.role not in _PEOPLE_ROLES:
                continue
            label: str
            if turn.role != "user":
                label = turn.role
            elif turn.speaker:
                label = turn.speaker
            else:
                label = turn.subject if self._label_speakers else ""
            found.extend(
                _Sentence.of(text, label, turn.role, index)
                for text in split_sentences(turn.content)
            )
        return found

    def _classify(
        self, sentences: list[_Sentence], speakers: set[str]
    ) -> tuple[list[str], list[str]]:
        """Fact lines and open items of the new sentences, in order."""
        facts: list[str] = []
        open_items: list[str] = []
        for index, sentence in enumerate(sentences):
            pause()
            text = sentence.text
            protected = bool(find_spans(text, PROTECTED_KINDS))
            line = prefixed(sentence.label, self._clip(text))
            if sentence.question or is_request(text):
                if not worth_asking(text):
                    continue
                if sentence.question and _answered(index, sentences):
                    if protected:
                        facts.append(line)
                    continue
                open_items.append(line)
            elif (
                protected
                or find_spans(text, _AMOUNT_KINDS)
                or (
                    sentence.role == "user"
                    and sentence.informative
                    and _is_fact(_drop_names(text, speakers))
                )
            ):
                facts.append(line)
        return facts, open_items

    def _clip(self, text: str) -> str:
        return clip_line(text, self._line_tokens, keep=lambda clause: bool(relations(clause)))

    def _bound(self, lines: list[Line], salience: Callable[[str], float]) -> tuple[str, ...]:
        """Bound a section without losing an identifier or a date.

        Lines without one keep the most salient (newest first among equals), at least half
        the bound when there are that many; lines with one fill the rest, newest first, and
        older ones beyond the bound shrink to "earlier: ..." snippets that keep every
        identifier, date and amount verbatim with a few words of context.
        """
        archive = [line for line in lines if line.archive]
        live = [line for line in lines if not line.archive]
        protected = [index for index, line in enumerate(live) if line.protected]
        others = [index for index, line in enumerate(live) if not line.protected]
        other_slots = min(len(others), max(self._limit - len(protected), self._limit // 2))
        protected_slots = max(self._limit - other_slots, 1) if self._compact else len(protected)
        ranked = sorted(others, key=lambda index: (-salience(live[index].text), -index))
        keep = set(ranked[:other_slots]) | set(protected[len(protected) - protected_slots :])
        overflow = [live[index] for index in protected if index not in keep]
        archived = fold_overflow(archive, overflow)
        return (*archived, *(line.text for index, line in enumerate(live) if index in keep))


# --- which sentences are facts, and how salient a fact line is ----------------------------

_AMOUNT_KINDS: frozenset[SpanKind] = frozenset({"amount"})


def _is_fact(text: str) -> bool:
    """A user's declarative sentence that asserts something worth keeping."""
    if not is_informative(text):
        return False
    return bool(
        relations(text) or _FIRST_PERSON.search(text) or _NAME.search(text) or find_spans(text)
    )


def _drop_names(text: str, speakers: set[str]) -> str:
    """Remove the speakers' names and short forms ("Mel" for Melanie): vocatives, not content."""
    return _CAPITAL_WORD.sub(
        lambda match: (
            "" if any(name.startswith(match.group()) for name in speakers) else match.group()
        ),
        text,
    )


_CAPITAL_WORD = re.compile(r"\b[A-Z][a-z]{2,}\b")


_SALIENT_KINDS: frozenset[SpanKind] = frozenset(
    {"amount", "quantity", "identifier", "date", "number"}
)


def _fact_salience(line: str) -> float:
    _, body = split_label(line)
    spans = find_spans(body, _SALIENT_KINDS)
    return (
        3.0 * bool(relations(body))
        + min(2, len(spans))
        + min(2, len(_NAME.findall(body)))
        + 0.5 * bool(_FIRST_PERSON.search(body))
        + min(1.0, len(keywords(body)) / 8)
    )


# --- open items ----------------------------------------------------------------------------


def _answered(index: int, sentences: list[_Sentence]) -> bool:
    """True when another speaker's next turn replies with a statement that is not a dodge."""
    asker = sentences[index]
    reply = [
        s
        for s in sentences[index + 1 :]
        if s.turn > asker.turn and (s.label, s.role) != (asker.label, asker.role)
    ]
    if not reply:
        return False
    first_turn = [s for s in reply if s.turn == reply[0].turn]
    if any(is_evasive(s.text) for s in first_turn):
        return False
    return any(
        not s.question and (s.informative or s.keywords & asker.keywords) for s in first_turn
    )


def _close_open_items(
    previous: Sequence[str], sentences: list[_Sentence]
) -> tuple[list[str], list[str]]:
    """Split previous open items into those still open and closed ones that must be kept.

    A question closes when another speaker's new statement shares a keyword with it, or when
    it was the latest open item and the new turns open with another speaker's statement; a
    request closes when a new statement reports it done ("已经", "done") and shares a keyword.
    Either closes when its asker takes back a value it names (:func:`_withdrawn`).
    Closed items that carry an identifier or a date move to the facts.
    """
    still_open: list[str] = []
    closed_kept: list[str] = []
    first = [s for s in sentences if s.turn == sentences[0].turn]
    for position, item in enumerate(previous):
        label, body = split_label(item)
        words = frozenset(keywords(body))
        others = [s for s in sentences if s.label != label and not s.question]
        if is_question(body):
            latest = position == len(previous) - 1
            closed = any(words & s.keywords for s in others) or (
                latest
                and first[0].label != label
                and not any(is_evasive(s.text) for s in first)
                and any(not s.question for s in first)
            )
        else:
            closed = any(
                words & s.keywords and reports_done(s.text) for s in sentences if not s.question
            )
        closed = closed or _withdrawn(body, label, sentences)
        if not closed:
            still_open.append(item)
        elif has_protected(item):
            closed_kept.append(item)
    return still_open, closed_kept


def _withdrawn(item: str, label: str, sentences: list[_Sentence]) -> bool:
    """Whether the one who opened ``item`` has since taken back a value it names.

    "Can all the paperwork be in Spanish?" is no longer open once its asker says "no need
    for Spanish anymore": the request is withdrawn, not pending.
    """
    return any(
        shares_term(found.terms, item)
        for s in sentences
        if s.label == label
        for found in retractions(s.text)
    )


# --- mood and intent -----------------------------------------------------------------------


def _mood_counts(sentences: Sequence[_Sentence]) -> Counter[tuple[str, bool]]:
    """Counts of (canonical mood or ``intent:name``, said in Chinese) in the user's sentences."""
    counts: Counter[tuple[str, bool]] = Counter()
    for sentence in sentences:
        pause()
        text = sentence.text
        chinese = contains_cjk(text)
        for mood in moods(text):
            counts[(mood, chinese)] += 1
        for intent in intents(text, question=sentence.question, informative=sentence.informative):
            counts[(f"intent:{intent}", chinese)] += 1
    return counts
