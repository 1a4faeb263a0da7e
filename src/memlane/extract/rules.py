"""The offline, deterministic extractor: statements and identifiers become fact operations.

What it emits:

- **Statements about the speaker** → ``set`` with confidence 1.0: ``location`` ("我搬到北京了",
  "I live in Paris"), ``work_location`` ("我在杭州工作", "I work in Berlin"), ``employer``
  ("我在阿里巴巴上班", "I work at Google"), ``hometown`` ("我老家是湖南的", "我是北京人",
  "I'm from Canada"), ``occupation`` ("我是一名老师", "I work as a nurse"), ``name`` ("我叫李雷",
  "my name is Sam Lee"), ``preferred_name`` ("叫我小王就行", "call me Sam") and ``birthday``
  ("我的生日是7月1日" → ``"--07-01"``, with a written year an ISO date). Questions,
  negations, hypotheticals, wishes and other people's facts yield nothing (see
  :mod:`._speaker`).
- **valid_from**: a time in the statement's clause, or a time that opens the sentence on its
  own ("上周，我搬到北京了"), gives the start of validity, as an aware UTC instant: a day
  starts at local midnight, a period at its first day ("我上周搬到北京了" → Monday of last
  week). Without one, ``valid_from`` is ``None`` (from the moment it was said). A state verb
  with a period that is already over ("我去年住在上海") describes the past, not the present, and
  yields nothing unless the clause says "since" (从/起/以来/since). A start in the future
  lowers the confidence to 0.7 (a plan, not yet a fact).
- **Identifiers** (phone, email, order, tracking, account, reference, user_id; see
  :mod:`.identifiers`) are all kept as written, because losing one is the worst failure:
  each is a mention, and each of the subject's is an ``add`` — confidence 1.0 when a cue
  names it ("我的手机号是…", "my email is …", "订单号 …"),
  ``ExtractConfig.identifier_confidence`` (0.8) when it stands alone or sits in a question.
  Someone else's ("我妈的电话…", "my dentist's number …") is only a mention: the note that
  said it is found by a search for it, and it is never served as the subject's own phone or
  e-mail. A phone or e-mail called old or out of use ("旧号码…", "…已经停用", "no longer
  use …") becomes a ``retract`` of that value (0.9); one explicitly denied ("…不是我的号码",
  "not my number") yields nothing.

Identifier values keep the text as written (the exact lane normalizes them); other values
are width-folded (full-width letters become ASCII) and trimmed of particles and punctuation.
``Extraction.notes`` stays empty.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime, tzinfo
from typing import Any

from memlane.errors import InvalidInput
from memlane.extract._calendar import TimeHit
from memlane.extract._statements import Doc, Statement, find_statements, make_doc
from memlane.extract._text import Sentence, fold, lower_ascii, without_spans
from memlane.extract.config import CompiledConfig, ExtractConfig
from memlane.extract.identifiers import scan_identifiers
from memlane.extract.model import AttributeSpec, Extraction, FactOp, Mention, MentionKind
from memlane.extract.times import check_reference, scan_times
from memlane.facts.normalize import code_key
from memlane.lang import names_other_person
from memlane.lang.changes import replaces_in_kind, retractions
from memlane.lang.codes import DISOWNED as _DISOWNED
from memlane.lang.codes import IDENTIFIER_CUES as _ID_CUES
from memlane.lang.codes import IDENTIFIER_SIGNALS as _ID_SIGNALS
from memlane.lang.codes import SINCE as _SINCE
from memlane.pacing import pause

__all__ = ["ATTRIBUTES", "CODE_ATTRIBUTES", "IDENTIFIER_ATTRIBUTES", "RuleExtractor"]

ATTRIBUTES: tuple[AttributeSpec, ...] = (
    AttributeSpec("phone", "many", identifier=True),
    AttributeSpec("email", "many", identifier=True),
    AttributeSpec("order", "many", identifier=True),
    AttributeSpec("tracking", "many", identifier=True),
    AttributeSpec("account", "many", identifier=True),
    AttributeSpec("reference", "many", identifier=True),
    AttributeSpec("user_id", "many", identifier=True),
    AttributeSpec("location", "one"),
    AttributeSpec("work_location", "one"),
    AttributeSpec("hometown", "one"),
    AttributeSpec("employer", "one"),
    AttributeSpec("occupation", "one"),
    AttributeSpec("name", "one"),
    AttributeSpec("preferred_name", "one"),
    AttributeSpec("birthday", "one"),
)
"""Every attribute :class:`RuleExtractor` may emit."""

FUTURE_CONFIDENCE = 0.7
RETIRED_CONFIDENCE = 0.9

_I = re.IGNORECASE
IDENTIFIER_ATTRIBUTES: dict[MentionKind, str] = {
    "phone": "phone",
    "email": "email",
    "order_id": "order",
    "tracking": "tracking",
    "account": "account",
    "reference": "reference",
    "user_id": "user_id",
}
"""The exact-lane attribute each kind of identifier mention is stored under."""

CODE_ATTRIBUTES: tuple[str, ...] = ("order", "tracking", "account", "reference", "user_id")
"""Attributes holding codes (one key rule, :func:`~memlane.facts.normalize.code_key`): an id
asked about without its kind ("where is K31560XB?") may be any of them."""


class RuleExtractor:
    """Deterministic zh/en extraction with regular rules; no model, no network.

    >>> from datetime import datetime, timedelta, timezone
    >>> cst = timezone(timedelta(hours=8))
    >>> out = RuleExtractor().extract("我上周搬到北京了", at=datetime(2026, 7, 4, 10, tzinfo=cst),
    ...                               timezone=cst)
    >>> [(op.kind, op.attribute, op.value, op.valid_from.isoformat()) for op in out.ops]
    [('set', 'location', '北京', '2026-06-21T16:00:00+00:00')]

    Raises:
        InvalidInput: ``config`` holds a bad pattern or confidence.
    """

    def __init__(self, config: ExtractConfig | None = None) -> None:
        self._config: CompiledConfig = (config or ExtractConfig()).compile()

    def attributes(self) -> Sequence[AttributeSpec]:
        """The attributes this extractor may emit (see :data:`ATTRIBUTES`)."""
        return ATTRIBUTES

    def extract(self, text: str, *, at: datetime, timezone: tzinfo) -> Extraction:
        """Extract fact operations and mentions from ``text`` said at ``at``.

        Raises:
            InvalidInput: ``text`` is not a string, ``at`` is naive or ``timezone`` is not a
                ``tzinfo``. Odd text never raises.
        """
        if not isinstance(text, str):
            raise InvalidInput("text", f"must be a string, got {type(text).__name__}")
        now = check_reference(at, timezone)
        folded = fold(text)
        lowered = lower_ascii(folded)
        # Each step over a long text is a point where a write lets requests go first.
        identifiers = scan_identifiers(text, folded, self._config, lowered)
        pause()
        spans = tuple(mention.span for mention in identifiers)
        times = tuple(
            hit
            for hit in scan_times(folded, now, timezone, lowered)
            if not any(hit.start < end and start < hit.end for start, end in spans)
        )
        pause()
        doc = make_doc(folded, lowered, times, spans)
        ops = [
            op
            for statement in find_statements(doc)
            if (op := _statement_op(doc, text, statement, now)) is not None
        ]
        pause()
        ops += _identifier_ops(doc, identifiers, now, self._config.identifier_confidence)
        retracted = tuple(found.old for found in retractions(text))
        pause()
        replaces = replaces_in_kind(text)
        pause()
        time_mentions = [
            Mention("time", text[hit.start : hit.end], hit.value, (hit.start, hit.end))
            for hit in times
        ]
        mentions = sorted([*time_mentions, *identifiers], key=lambda mention: mention.span)
        return Extraction(
            ops=_deduplicated(ops),
            mentions=tuple(mentions),
            retracted=retracted,
            replaces=replaces,
        )


def _statement_op(doc: Doc, text: str, statement: Statement, now: datetime) -> FactOp | None:
    hit = _time_of(doc, statement.clause, statement.sentence) if statement.timed else None
    if hit is not None and hit.stop is not None and not statement.changes:
        clause_text = doc.text[statement.clause[0] : statement.clause[1]]
        if hit.stop <= now.date() and not _SINCE.search(clause_text):
            return None
    valid_from = None if hit is None else hit.start_instant(now.tzinfo or UTC)
    future = valid_from is not None and valid_from > now
    start, end = statement.span
    return FactOp(
        "set",
        statement.attribute,
        statement.value,
        valid_from=valid_from,
        confidence=FUTURE_CONFIDENCE if future else 1.0,
        evidence=text[start:end],
        span=(start, end),
    )


def _time_of(doc: Doc, clause: tuple[int, int], sentence: Sentence) -> TimeHit | None:
    """The time validity starts: the clause's first, or one alone before it ("上周，我…")."""
    for hit in doc.times:
        if clause[0] <= hit.start < clause[1]:
            return hit
    first = sentence.clauses[0]
    if first[0] >= clause[0]:
        return None
    opening = [hit for hit in doc.times if first[0] <= hit.start < first[1]]
    if opening and not without_spans(doc.text, first[0], first[1], doc.time_spans).strip():
        return opening[0]
    return None


def _identifier_ops(
    doc: Doc, identifiers: list[Mention], now: datetime, bare_confidence: float
) -> list[FactOp]:
    """An op for every phone, e-mail, order and user id (kinds and confidences: see above)."""
    ops: list[FactOp] = []
    ends = [mention.span[1] for mention in identifiers]
    starts = [mention.span[0] for mention in identifiers]
    for index, mention in enumerate(identifiers):
        attribute = IDENTIFIER_ATTRIBUTES.get(mention.kind)
        if attribute is None:
            continue
        sentence, clause = _clause_of(doc, mention.span)
        # The words between this identifier and its neighbours, inside its clause.
        before = doc.text[max([clause[0], *ends[:index]]) : mention.span[0]]
        after_end = max(min([clause[1], *starts[index + 1 :]]), mention.span[1])
        after = doc.text[mention.span[1] : after_end]
        before_signals = _signals(before)
        signals = before_signals | _signals(after)
        # "New email: X — the old one is closed": the cue before X says which one is new.
        if "fresh" in before_signals and not before_signals & {"negated", "other"}:
            ops.append(_id_op("add", attribute, mention, 1.0, None))
        elif "retired" in signals and mention.kind in ("phone", "email"):
            ops.append(_id_op("retract", attribute, mention, RETIRED_CONFIDENCE, None))
        elif "negated" in before_signals or _DISOWNED.match(after):
            continue  # "不是我的号码 138…", "138… is not my number"; not "ORD-1 hasn't arrived"
        elif "other" in before_signals or names_other_person(before):  # "牙科诊所的电话"
            continue  # someone else's: a mention of the note, never the subject's own fact
        elif _cued(mention.kind, before + " " + after) and _states(doc, sentence):
            hit = _time_of(doc, clause, sentence) if sentence is not None else None
            valid_from = None if hit is None else hit.start_instant(now.tzinfo or UTC)
            ops.append(_id_op("add", attribute, mention, 1.0, valid_from))
        else:
            ops.append(_id_op("add", attribute, mention, bare_confidence, None))
    return ops


def _cued(kind: MentionKind, window: str) -> bool:
    return bool(_ID_CUES[kind].search(window.lower()))


def _states(doc: Doc, sentence: Sentence | None) -> bool:
    return sentence is not None and not doc.asks_or_supposes(sentence)


def _signals(window: str) -> set[str]:
    return {match.lastgroup or "" for match in _ID_SIGNALS.finditer(window)}


def _id_op(
    kind: str, attribute: str, mention: Mention, confidence: float, valid_from: datetime | None
) -> FactOp:
    return FactOp(
        "retract" if kind == "retract" else "add",
        attribute,
        mention.text,
        valid_from=valid_from,
        confidence=confidence,
        evidence=mention.text,
        span=mention.span,
    )


def _clause_of(doc: Doc, span: tuple[int, int]) -> tuple[Sentence | None, tuple[int, int]]:
    for sentence in doc.sentences:
        for clause in sentence.clauses:
            if clause[0] <= span[0] < clause[1]:
                return sentence, (clause[0], max(clause[1], span[1]))
    return None, span


def _deduplicated(ops: list[FactOp]) -> tuple[FactOp, ...]:
    """One op per (kind, attribute, value, valid_from), the most confident, in text order."""
    best: dict[tuple[Any, ...], FactOp] = {}
    for op in ops:
        key = (op.kind, op.attribute, _comparable(op.attribute, op.value), op.valid_from)
        if key not in best or op.confidence > best[key].confidence:
            best[key] = op
    return tuple(sorted(best.values(), key=lambda op: op.span))


def _comparable(attribute: str, value: Any) -> Any:
    if attribute == "phone":
        return "".join(char for char in str(value) if char.isdigit())
    if attribute == "email":
        return str(value).lower()
    if attribute in CODE_ATTRIBUTES:
        return code_key(value)
    return value
