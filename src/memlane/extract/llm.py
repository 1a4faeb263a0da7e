"""Fact extraction by a chat model, with a rule-based extractor as its floor and fallback.

The rule-based extractor always runs: the identifiers it finds (phone numbers, e-mails,
order ids) are kept even when the model misses them, and its facts on attributes the model
did not mention are kept too. When the model gives no usable answer the rule-based result
is returned alone, so extraction degrades but never breaks and never drops a fact.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, tzinfo
from typing import Any

from memlane.errors import InvalidInput
from memlane.extract.model import AttributeSpec, Extraction, Extractor, FactOp, OpKind
from memlane.lang.times import NO_TIME as _NO_TIME
from memlane.llm import prompts
from memlane.llm.client import ChatModel, LLMError
from memlane.llm.replies import ExtractionReply, FactReply
from memlane.llm.schema import SchemaViolation, validate
from memlane.llm.stats import Counters
from memlane.timeutil import parse_instant

_log = logging.getLogger("memlane.llm.extract")

_NOT_NAME_CHARS = re.compile(r"[\s\-./]+")
_NOT_IDENTITY_CHARS = re.compile(r"[\W_]+")
_WORD = re.compile(r"\w")


@dataclass(frozen=True, slots=True)
class ExtractorStats:
    """What an :class:`LLMExtractor` did.

    ``calls``: statements extracted; ``llm_answers``: statements the model answered validly;
    ``fallbacks``: statements answered by the rule-based extractor alone because the model
    failed; ``rule_ops_added``: rule-based ops kept beside a valid model answer (facts the
    model missed).
    """

    calls: int = 0
    llm_answers: int = 0
    fallbacks: int = 0
    rule_ops_added: int = 0


class LLMExtractor:
    """An :class:`~memlane.extract.model.Extractor` that asks a chat model, floored by rules.

    ``fallback`` (normally the rule-based extractor) runs on every statement and declares the
    attributes. The model's facts are validated: attribute names must be declared or
    snake_case, ``valid_from`` must parse (read in the statement's time zone), ``set`` and
    ``add`` need a value; a ``set`` on a many-valued attribute becomes an ``add`` and vice
    versa. ``confidence`` is stamped on the model's facts.
    """

    def __init__(self, client: ChatModel, fallback: Extractor, *, confidence: float = 0.8) -> None:
        if not 0.0 <= confidence <= 1.0:
            raise InvalidInput("confidence", f"must be between 0 and 1, got {confidence!r}")
        self._client = client
        self._fallback = fallback
        self._confidence = confidence
        self._counters = Counters(ExtractorStats)

    @property
    def stats(self) -> ExtractorStats:
        """A snapshot of the counters since this extractor was made."""
        return self._counters.snapshot()

    def attributes(self) -> Sequence[AttributeSpec]:
        """The fallback's attributes: the model is asked to use these names first."""
        return self._fallback.attributes()

    def extract(self, text: str, *, at: datetime, timezone: tzinfo) -> Extraction:
        """Extract from ``text`` said at ``at`` (aware); relative times resolve in ``timezone``.

        Never raises on what the model says: a model failure yields the fallback's result.
        """
        self._counters.add("calls")
        rules = self._fallback.extract(text, at=at, timezone=timezone)
        if not text.strip():
            return rules
        specs = {spec.name: spec for spec in self._fallback.attributes()}
        prompt = prompts.fact_extraction(
            prompts.ExtractionInput(text, at, timezone, tuple(specs.values()))
        )
        reader = _ReplyReader(text, specs, timezone, self._confidence)
        try:
            ops, notes = self._client.complete_json(
                prompt.messages, reader.read, purpose=prompt.purpose
            )
        except LLMError as error:
            self._counters.add("fallbacks")
            _log.warning("fact extraction uses the rule-based result alone: %s", error)
            return rules
        self._counters.add("llm_answers")
        merged, added = merge_ops(ops, rules.ops, specs)
        if added:
            self._counters.add("rule_ops_added", added)
            _log.info("fact extraction: kept %d rule-based op(s) the model missed", added)
        return Extraction(
            ops=merged,
            mentions=rules.mentions,
            notes=notes or rules.notes,
            retracted=rules.retracted,
            replaces=rules.replaces,
        )


def merge_ops(
    llm_ops: Sequence[FactOp], rule_ops: Sequence[FactOp], specs: Mapping[str, AttributeSpec]
) -> tuple[tuple[FactOp, ...], int]:
    """Union the model's ops with the rule-based ones; return the ops and how many rules added.

    Identifier ops from the rules are added unless the model has the same op on the same
    value (compared ignoring case and punctuation, so ``138-0000-1234`` matches
    ``13800001234``). Other rule ops are added only for attributes the model did not
    mention: where both speak about one attribute, the model's reading wins.
    """
    merged = _unique(llm_ops)
    seen = {_op_key(op) for op in merged}
    mentioned = {op.attribute for op in merged}
    added = 0
    for op in rule_ops:
        spec = specs.get(op.attribute)
        wanted = (spec is not None and spec.identifier) or op.attribute not in mentioned
        key = _op_key(op)
        if wanted and key not in seen:
            merged.append(op)
            seen.add(key)
            added += 1
    return tuple(merged), added


def _unique(ops: Iterable[FactOp]) -> list[FactOp]:
    seen: set[tuple[str, str, str]] = set()
    unique: list[FactOp] = []
    for op in ops:
        key = _op_key(op)
        if key not in seen:
            seen.add(key)
            unique.append(op)
    return unique


def _op_key(op: FactOp) -> tuple[str, str, str]:
    return op.kind, op.attribute, _identity(op.value)


def _identity(value: Any) -> str:
    if isinstance(value, str):
        return _NOT_IDENTITY_CHARS.sub("", value).casefold()
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


class _ReplyReader:
    """Turns the model's decoded answer into ops and notes, or says what is wrong with it."""

    def __init__(
        self, text: str, specs: Mapping[str, AttributeSpec], zone: tzinfo, confidence: float
    ) -> None:
        self._text = text
        self._specs = specs
        self._zone = zone
        self._confidence = confidence

    def read(self, data: Any) -> tuple[tuple[FactOp, ...], tuple[str, ...]]:
        """Validate ``data``; raise :class:`SchemaViolation` naming the first problem."""
        reply = validate(_tidy(data), ExtractionReply)
        ops = tuple(self._op(index, fact) for index, fact in enumerate(reply.facts))
        notes = tuple(dict.fromkeys(note.strip() for note in reply.notes))
        return ops, notes

    def _op(self, index: int, fact: FactReply) -> FactOp:
        path = f"facts[{index}]"
        value = fact.value.strip() if isinstance(fact.value, str) else fact.value
        if fact.op != "retract" and value in (None, ""):
            raise SchemaViolation(f"{path}.value", f'must not be empty for "{fact.op}"')
        valid_from = None
        if fact.valid_from is not None and fact.valid_from.strip().lower() not in _NO_TIME:
            try:
                valid_from = parse_instant(fact.valid_from, self._zone, "valid_from")
            except InvalidInput as error:
                raise SchemaViolation(
                    f"{path}.valid_from",
                    "must be an ISO-8601 date or date-time such as 2026-03-02, or null",
                ) from error
        evidence = fact.evidence.strip()
        start = self._text.find(evidence) if evidence else -1
        span = (start, start + len(evidence)) if start >= 0 else (0, 0)
        return FactOp(
            kind=self._kind(fact.op, fact.attribute),
            attribute=fact.attribute,
            value=value,
            valid_from=valid_from,
            confidence=self._confidence,
            evidence=evidence,
            span=span,
        )

    def _kind(self, op: OpKind, attribute: str) -> OpKind:
        # Models mix up set and add; the declared cardinality decides which one is meant.
        spec = self._specs.get(attribute)
        if spec is None or op == "retract":
            return op
        return "add" if spec.cardinality == "many" else "set"


def _tidy(data: Any) -> Any:
    """Forgive the model's cosmetic slips before validation: case, spacing, bare strings."""
    if not isinstance(data, dict):
        return data
    tidy = dict(data)
    facts = tidy.get("facts")
    if isinstance(facts, list):
        tidy["facts"] = [_tidy_fact(fact) for fact in facts]
    notes = tidy.get("notes")
    if isinstance(notes, str):
        notes = [notes]
    if isinstance(notes, list):
        tidy["notes"] = [
            note for note in notes if not (isinstance(note, str) and not _WORD.search(note))
        ]
    return tidy


def _tidy_fact(fact: Any) -> Any:
    if not isinstance(fact, dict):
        return fact
    tidy = dict(fact)
    if isinstance(tidy.get("op"), str):
        tidy["op"] = tidy["op"].strip().lower()
    if tidy.get("evidence") is None:
        tidy.pop("evidence", None)
    attribute = tidy.get("attribute")
    if isinstance(attribute, str):
        tidy["attribute"] = _NOT_NAME_CHARS.sub("_", attribute.strip()).strip("_").lower()
    return tidy
