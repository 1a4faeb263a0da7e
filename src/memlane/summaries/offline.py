"""The offline summarizer: deterministic, rule-based session summaries in Chinese and English.

It follows the update-the-existing-summary pattern: each call folds a few new turns into the
previous five sections. Facts and open items are the turns' own sentences (clipped to their
key clauses), so identifiers and dates stay verbatim. Sections are bounded, but a line that
carries an identifier or a date is never dropped: past the bound, the oldest such lines are
folded into "earlier: ..." lines that keep each identifier, date and amount verbatim with a
few words of context. A newer statement of the same relation ("我住在北京" after "我住在上海")
replaces the older line; otherwise both are kept.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from memlane.errors import InvalidInput
from memlane.lang.script import CJK_RANGES
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
from memlane.summaries.text import (
    PROTECTED_KINDS,
    SpanKind,
    TypedSpan,
    clip_line,
    contains_cjk,
    entity_candidates,
    find_spans,
    has_protected,
    is_question,
    keywords,
    normalize_for_dedupe,
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
        speakers -= {"", "assistant", "tool", _ARCHIVE}
        fresh_facts, fresh_open = self._classify(sentences, speakers)
        kept_open, closed = _close_open_items(base.open_items, sentences)
        merged = _merge_facts(
            [_Line.of(line) for line in base.facts],
            [_Line.of(line) for line in [*closed, *fresh_facts]],
        )
        facts = self._bound(merged, _fact_salience)
        open_lines = [_Line.of(line) for line in _merge_lines(kept_open, fresh_open)]
        open_items = self._bound(open_lines, lambda line: 0.0)
        texts = [sentence.text for sentence in sentences]
        # Topics come from what the people said; an assistant's phrasing is noise there.
        users = [s for s in sentences if s.role == "user"]
        user_texts = [s.text for s in users]
        topic = _merge_ranked(
            base.topic, topic_candidates(user_texts or texts, speakers), self._limit
        )
        entities = _merge_ranked(base.entities, entity_candidates(texts, speakers), self._limit)
        mood = _merge_mood(base.mood, _mood_counts(users), self._mood_limit)
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
            text = sentence.text
            protected = bool(find_spans(text, PROTECTED_KINDS))
            line = _prefixed(sentence.label, self._clip(text))
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

    def _bound(self, lines: list[_Line], salience: Callable[[str], float]) -> tuple[str, ...]:
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
        archived = _archive(archive, overflow)
        return (*archived, *(line.text for index, line in enumerate(live) if index in keep))


# --- lines ---------------------------------------------------------------------------------

_LABEL = re.compile(r"^(?P<label>[^\s:：][^:：\n]{0,39})[:：]\s?(?P<body>.+)$", re.DOTALL)
_AMOUNT_KINDS: frozenset[SpanKind] = frozenset({"amount"})


def _prefixed(label: str, text: str) -> str:
    return f"{label}: {text}" if label else text


def split_label(line: str) -> tuple[str, str]:
    """Split ``"Caroline: I moved"`` into ``("Caroline", "I moved")``; ``("", line)`` if bare.

    A prefix counts as a label only when it is short and has no sentence punctuation, so
    "Note: call at 9" style lines with a long lead-in stay bare.
    """
    match = _LABEL.match(line)
    if match is None or any(mark in match["label"] for mark in ",.!?，。！？"):
        return "", line
    return match["label"].strip(), match["body"].strip()


# --- relations, facts and their merge ------------------------------------------------------

# A line whose only identifier is the old value of one of these may be replaced outright.
_VALUE_RELATIONS = frozenset({"phone", "email", "name"})
_FIRST_PERSON = re.compile(r"\b(?:I|I'm|I've|I'd|I'll|my|me|we|our|us)\b|我", re.IGNORECASE)
_NAME = re.compile(r"(?<!^)(?<![.!?]\s)\b[A-Z][a-z]+")


def relation_keys(line: str) -> frozenset[str]:
    """The ``speaker|relation`` keys of a summary line; empty for assistant/tool lines."""
    return _Line.of(line).keys


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


_ARCHIVE = "earlier"
_ARCHIVE_SIZE = 8  # snippets per "earlier:" line


@dataclass(frozen=True, slots=True)
class _Line:
    """A fact line with what merging needs, computed once per update."""

    text: str
    norm: str
    keys: frozenset[str]
    protected: frozenset[str]  # normalized identifiers and dates it carries
    archive: bool

    @classmethod
    def of(cls, text: str) -> _Line:
        label, body = split_label(text)
        keys: frozenset[str] = frozenset()
        if label not in ("assistant", "tool", _ARCHIVE):
            keys = frozenset(f"{label}|{name}" for name in relations(body))
        spans = find_spans(text, PROTECTED_KINDS)
        protected = frozenset(normalize_for_dedupe(span.text) for span in spans)
        return cls(text, normalize_for_dedupe(text), keys, protected, label == _ARCHIVE)


def _merge_facts(previous: list[_Line], fresh: list[_Line]) -> list[_Line]:
    """Previous lines then fresh ones; a fresh line removes duplicates and superseded lines."""
    lines = list(previous)
    for line in fresh:
        if not line.norm or any(line.norm in old.norm for old in lines):
            continue
        lines = [
            old
            for old in lines
            if old.archive or (old.norm not in line.norm and not _supersedes(line, old))
        ]
        lines.append(line)
    return lines


def _supersedes(new: _Line, old: _Line) -> bool:
    shared = new.keys & old.keys
    if not shared:
        return False
    if old.protected <= new.protected:
        return True
    # The old line's one identifier is the old value of the relation being replaced.
    value_relation = any(key.split("|", 1)[1] in _VALUE_RELATIONS for key in shared)
    return value_relation and len(old.protected) == 1 and bool(new.protected)


def _archive(archive: list[_Line], overflow: list[_Line]) -> list[str]:
    """Fold overflowing lines into "earlier:" lines of identifier/date snippets."""
    snippets = [piece for line in archive for piece in split_label(line.text)[1].split("; ")]
    seen = {normalize_for_dedupe(piece) for piece in snippets}
    for line in overflow:
        for piece in _snippets(line.text):
            if normalize_for_dedupe(piece) not in seen:
                seen.add(normalize_for_dedupe(piece))
                snippets.append(piece)
    return [
        f"{_ARCHIVE}: " + "; ".join(snippets[start : start + _ARCHIVE_SIZE])
        for start in range(0, len(snippets), _ARCHIVE_SIZE)
    ]


_SNIPPET_KINDS: frozenset[SpanKind] = frozenset({"identifier", "date", "amount"})
_CLAUSE_END = re.compile(r"[,，;；:：、。！？!?]")


def _snippets(line: str) -> list[str]:
    """The identifiers, dates and amounts of ``line``, with a little context.

    Spans a few words apart form one snippet; each snippet starts with the two words (or
    up to four CJK characters) before it.

    >>> _snippets("我上周搬到北京了，新手机号 139-1111-2222。订单 ORD-1 预计 7月6日 送达")
    ['新手机号 139-1111-2222', '订单 ORD-1 预计 7月6日']
    """
    label, body = split_label(line)
    who = f"{label} " if label not in ("", "assistant", "tool") else ""
    runs: list[list[TypedSpan]] = []
    for span in find_spans(body, _SNIPPET_KINDS):
        gap = body[runs[-1][-1].end : span.start] if runs else ""
        if runs and len(gap) <= 24 and len(gap.split()) <= 4 and not _CLAUSE_END.search(gap):
            runs[-1].append(span)
        else:
            runs.append([span])
    pieces: list[str] = []
    for run in runs:
        before = _CLAUSE_END.split(body[: run[0].start])[-1].rstrip()
        cjk = _CJK_TAIL.search(before)
        context = cjk.group() if cjk else " ".join(before.split()[-2:])
        pieces.append(f"{who}{context} {body[run[0].start : run[-1].end]}".strip())
    return pieces


_CJK_TAIL = re.compile(f"[{CJK_RANGES}]{{1,4}}$")


def _merge_lines(previous: Iterable[str], fresh: Iterable[str]) -> list[str]:
    """Previous then fresh lines without normalized duplicates (a repeat moves to the end)."""
    lines: list[str] = []
    for line in [*previous, *fresh]:
        norm = normalize_for_dedupe(line)
        lines = [old for old in lines if normalize_for_dedupe(old) != norm]
        if norm:
            lines.append(line)
    return lines


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
        if not closed:
            still_open.append(item)
        elif has_protected(item):
            closed_kept.append(item)
    return still_open, closed_kept


# --- ranked sections: topic and entities ---------------------------------------------------


def _merge_ranked(previous: Sequence[str], fresh: dict[str, float], limit: int) -> tuple[str, ...]:
    """Rank previous items (kept with a bonus by their old rank) and fresh candidates.

    A previous item scores 0.5-1.5 by its old rank plus its fresh score when repeated, so a
    candidate seen twice in the new turns outranks an old item nobody mentions any more.
    """
    scores: dict[str, list[float | str]] = {}
    order: dict[str, int] = {}
    for rank, item in enumerate(previous):
        key = normalize_for_dedupe(item)
        if key and key not in scores:
            scores[key] = [0.5 + (len(previous) - rank) / len(previous), item]
            order[key] = rank
    for item, score in fresh.items():
        key = normalize_for_dedupe(item)
        if not key:
            continue
        entry = scores.setdefault(key, [0.0, item])
        entry[0] = float(entry[0]) + score
        entry[1] = item  # the newest surface form wins
        order.setdefault(key, len(order))
    chosen: list[str] = []
    for key in sorted(scores, key=lambda key: (-float(scores[key][0]), order[key])):
        # "studio" adds nothing next to "dance studio"; "ORD-1" is not part of "ORD-12"
        covered = not _has_digit(key) and any(key in longer for longer in chosen)
        if len(chosen) < limit and not covered:
            chosen.append(key)
    return tuple(str(scores[key][1]) for key in chosen)


def _has_digit(text: str) -> bool:
    return any(char.isdigit() for char in text)


# --- mood and intent -----------------------------------------------------------------------

# canonical mood: (Chinese label, polarity: +1 pleasant, -1 unpleasant, 0 neither)
_MOOD_LABELS: dict[str, tuple[str, int]] = {
    "frustrated": ("烦躁", -1),
    "sad": ("难过", -1),
    "worried": ("担心", -1),
    "confused": ("困惑", 0),
    "urgent": ("着急", 0),
    "happy": ("开心", 1),
    "excited": ("兴奋", 1),
    "grateful": ("感激", 0),  # thanks close a request; they do not cancel a complaint
}
_INTENTS: dict[str, tuple[str, str]] = {
    "asking": ("intent: asking", "意图：询问"),
    "requesting": ("intent: requesting", "意图：请求"),
    "complaining": ("intent: complaining", "意图：抱怨"),
    "planning": ("intent: planning", "意图：计划"),
    "sharing": ("intent: sharing", "意图：分享"),
}


def _label(canonical: str, chinese: bool) -> str:
    if canonical.startswith("intent:"):
        english, zh = _INTENTS[canonical.split(":", 1)[1]]
        return zh if chinese else english
    return f"情绪：{_MOOD_LABELS[canonical][0]}" if chinese else f"mood: {canonical}"


def _canonical(line: str) -> str | None:
    for name in _MOOD_LABELS:
        if line in (_label(name, False), _label(name, True)):
            return name
    for name in _INTENTS:
        if line in _INTENTS[name]:
            return f"intent:{name}"
    return None


def _mood_counts(sentences: Sequence[_Sentence]) -> Counter[tuple[str, bool]]:
    """Counts of (canonical mood or ``intent:name``, said in Chinese) in the user's sentences."""
    counts: Counter[tuple[str, bool]] = Counter()
    for sentence in sentences:
        text = sentence.text
        chinese = contains_cjk(text)
        for mood in moods(text):
            counts[(mood, chinese)] += 1
        for intent in intents(text, question=sentence.question, informative=sentence.informative):
            counts[(f"intent:{intent}", chinese)] += 1
    return counts


def _merge_mood(
    previous: Sequence[str], counts: Counter[tuple[str, bool]], limit: int
) -> tuple[str, ...]:
    """The newest moods and intents first (by count), then previous ones not contradicted.

    At most half the slots (rounded up) go to intents so moods are not crowded out.
    """
    totals: Counter[str] = Counter()
    chinese_votes: Counter[str] = Counter()
    for (name, chinese), count in counts.items():
        totals[name] += count
        chinese_votes[name] += count if chinese else -count
    if len([name for name in totals if name.startswith("intent:")]) > 1:
        totals.pop("intent:sharing", None)  # the weakest intent, only shown alone
    fresh = sorted(totals, key=lambda name: (-totals[name], name.startswith("intent:"), name))
    polarities = {_MOOD_LABELS[name][1] for name in fresh if name in _MOOD_LABELS} - {0}
    lines = [(name, _label(name, chinese_votes[name] > 0)) for name in fresh]
    for line in previous:
        name = _canonical(line) or line
        polarity = _MOOD_LABELS[name][1] if name in _MOOD_LABELS else 0
        if name in totals or (polarity and -polarity in polarities):
            continue
        lines.append((name, line))
    intent_slots = (limit + 1) // 2
    chosen: list[str] = []
    intent_count = 0
    for name, line in lines:
        is_intent = name.startswith("intent:")
        if len(chosen) >= limit or (is_intent and intent_count >= intent_slots):
            continue
        intent_count += is_intent
        chosen.append(line)
    return tuple(dict.fromkeys(chosen))
