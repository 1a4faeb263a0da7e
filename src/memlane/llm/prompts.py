"""Every prompt memlane sends to a chat model, built from typed inputs and shared fragments.

Each prompt has a name and a version in :data:`PROMPT_VERSION`; bump the version whenever the
wording or the answer format changes, so logs and stored provenance tell which one was used.

>>> prompt = workflow_description(WorkflowInput("order_refund", [{"action": "validate_order"}]))
>>> prompt.purpose
'workflow_description/v1'
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo
from types import MappingProxyType
from typing import Any, Final, Literal, TypedDict

from memlane.extract.model import AttributeSpec
from memlane.llm.replies import (
    DESCRIPTION_MAX_CHARS,
    SECTION_MAX_ITEMS,
    STATEMENT_MAX_CHARS,
    SUMMARY_SECTIONS,
)
from memlane.summaries.model import SummaryContent
from memlane.window.model import Turn

FACT_EXTRACTION: Final = "fact_extraction"
SUMMARY_UPDATE: Final = "summary_update"
WORKFLOW_DESCRIPTION: Final = "workflow_description"

PROMPT_VERSION: Final[Mapping[str, int]] = MappingProxyType(
    {FACT_EXTRACTION: 1, SUMMARY_UPDATE: 1, WORKFLOW_DESCRIPTION: 1}
)
"""The current version of each prompt, by name."""


class ChatMessage(TypedDict):
    """One message of an OpenAI-style chat conversation."""

    role: Literal["system", "user", "assistant"]
    content: str


@dataclass(frozen=True, slots=True)
class Prompt:
    """A built prompt: the messages to send, and which prompt (and version) they come from."""

    name: str
    version: int
    messages: tuple[ChatMessage, ...]

    @property
    def purpose(self) -> str:
        """``name/vN``, the label logs and errors use for this call."""
        return f"{self.name}/v{self.version}"


@dataclass(frozen=True, slots=True)
class ExtractionInput:
    """What the fact-extraction prompt is built from.

    ``at`` is when the statement was made (aware); relative times resolve in ``timezone``.
    """

    text: str
    at: datetime
    timezone: tzinfo
    attributes: Sequence[AttributeSpec] = ()


@dataclass(frozen=True, slots=True)
class SummaryInput:
    """What the summary-update prompt is built from; turn times are shown in ``timezone``."""

    previous: SummaryContent | None
    turns: Sequence[Turn]
    timezone: tzinfo = UTC


@dataclass(frozen=True, slots=True)
class WorkflowInput:
    """What the workflow-description prompt is built from.

    ``steps`` are ``{"action": ..., "args": {...}}`` mappings, as the workflow lane keeps them.
    """

    task_type: str
    steps: Sequence[Mapping[str, Any]]
    params: Sequence[str] = ()


# Shared fragments: each rule is worded once, so prompts cannot drift apart.
_MEMORY_ROLE = "You write memory records for an AI agent's long-term memory."
_JSON_ONLY = (
    "Answer with one JSON object and nothing else: no explanations, no Markdown, no code fences."
)
_KEEP_LANGUAGE = (
    "Write every statement in the language the user wrote in (Chinese stays Chinese, "
    "English stays English). Copy names, numbers and identifiers exactly as written."
)
_SELF_CONTAINED = (
    "Each statement must make sense on its own: name people instead of using pronouns, "
    "and write dates instead of relative words such as 'yesterday' or '上周'."
)
_GROUNDED = "Use only what the text says; never guess or invent."


def _rules(*fragments: str) -> str:
    return "\n".join(f"- {fragment}" for fragment in fragments)


def _to_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _local_time(instant: datetime, zone: tzinfo) -> str:
    local = instant.astimezone(zone)
    return f"{local.isoformat(timespec='minutes')} ({local.strftime('%A')})"


def _zone_name(zone: tzinfo) -> str:
    return getattr(zone, "key", None) or str(zone)


def _build(name: str, system: str, user: str) -> Prompt:
    messages: tuple[ChatMessage, ...] = (
        {"role": "system", "content": system},
        {"role": "user", "content": user},
    )
    return Prompt(name, PROMPT_VERSION[name], messages)


# --- fact extraction ----------------------------------------------------------------------

_EXTRACTION_EXAMPLE_STATEMENT = "我上周搬到北京了，新手机号 139-1111-2222"
_EXTRACTION_EXAMPLE_ANSWER: Final[Mapping[str, Any]] = {
    "facts": [
        {
            "op": "set",
            "attribute": "location",
            "value": "北京",
            "valid_from": "2026-03-02",
            "evidence": "我上周搬到北京了",
        },
        {
            "op": "add",
            "attribute": "phone",
            "value": "139-1111-2222",
            "valid_from": None,
            "evidence": "新手机号 139-1111-2222",
        },
    ],
    "notes": ["用户在2026-03-02那一周搬到了北京。", "用户的新手机号是 139-1111-2222。"],
}

_EXTRACTION_SYSTEM = f"""{_MEMORY_ROLE}
From one statement by the user, extract two things.

"facts": changes to the user's attributes, each an object with
- "op": "set" (an attribute with one value at a time gets a new value), "add" (one more value \
of an attribute that has several values), or "retract" (a value no longer holds);
- "attribute": one of the allowed attributes listed with the statement if one fits, \
otherwise a short snake_case English name such as "favorite_team";
- "value": the value; identifiers (phone numbers, e-mails, order ids) exactly as written;
- "valid_from": when the fact started to hold as an ISO-8601 date or date-time, resolved \
against the statement time ("上周", "last Monday" become a date), or null if not said;
- "evidence": the words of the statement that state the fact.

"notes": short atomic statements worth remembering, one idea each.

Rules:
{_rules(_GROUNDED, _SELF_CONTAINED, _KEEP_LANGUAGE, _JSON_ONLY)}
- If nothing is worth remembering, answer {{"facts": [], "notes": []}}.

Example, for a statement made at 2026-03-10T09:00+08:00 (Tuesday):
Statement: {_EXTRACTION_EXAMPLE_STATEMENT}
Answer: {_to_json(_EXTRACTION_EXAMPLE_ANSWER)}"""


def _describe_attribute(spec: AttributeSpec) -> str:
    kind = "one value at a time" if spec.cardinality == "one" else "several values"
    identifier = ", identifier (copy exactly)" if spec.identifier else ""
    return f"- {spec.name}: {kind}{identifier}"


def fact_extraction(request: ExtractionInput) -> Prompt:
    """Build the prompt that turns one statement into facts and notes.

    The answer format is :class:`memlane.llm.replies.ExtractionReply`.
    """
    if request.attributes:
        allowed = "\n".join(_describe_attribute(spec) for spec in request.attributes)
    else:
        allowed = "(none defined yet: use snake_case names)"
    user = (
        f"Statement time: {_local_time(request.at, request.timezone)}, "
        f"time zone {_zone_name(request.timezone)}.\n"
        f"Allowed attributes:\n{allowed}\n"
        f'Statement:\n"""\n{request.text}\n"""'
    )
    return _build(FACT_EXTRACTION, _EXTRACTION_SYSTEM, user)


# --- summary update -----------------------------------------------------------------------

_SECTION_MEANINGS: Final[Mapping[str, str]] = {
    "topic": "what the session is about",
    "facts": "facts the user stated or confirmed, with dates when known",
    "open_items": "questions, requests and tasks still open",
    "entities": "people, places, organisations, identifiers and things named",
    "mood": "the user's mood and intent",
}

_SUMMARY_SYSTEM = f"""{_MEMORY_ROLE}
You keep the running summary of one conversation session. It has five sections, each a \
list of short statements:
{_rules(*(f'"{name}": {_SECTION_MEANINGS[name]}' for name in SUMMARY_SECTIONS))}

Update the existing summary with the new turns: keep what still holds, revise statements the \
new turns change (replace them rather than keeping both), add what is new, and remove open \
items that were resolved.

Rules:
{_rules(_GROUNDED, _SELF_CONTAINED, _KEEP_LANGUAGE, _JSON_ONLY)}
- At most {SECTION_MAX_ITEMS} statements per section, each under {STATEMENT_MAX_CHARS} \
characters; use [] for an empty section.

Answer format, each section a list of strings: \
{_to_json({name: [] for name in SUMMARY_SECTIONS})}"""


def _render_sections(content: SummaryContent) -> str:
    # One section per line: valid JSON, and far fewer tokens than an indented dump.
    lines = (f'"{name}": {_to_json(list(getattr(content, name)))}' for name in SUMMARY_SECTIONS)
    return "{\n" + ",\n".join(lines) + "\n}"


def _render_turn(turn: Turn, zone: tzinfo) -> str:
    when = turn.at.astimezone(zone).strftime("%Y-%m-%d %H:%M")
    return f"[{turn.id}] {when} {turn.role}: {turn.content}"


def summary_update(request: SummaryInput) -> Prompt:
    """Build the prompt that folds new turns into the previous summary.

    The answer format is :class:`memlane.llm.replies.SummaryReply`.
    """
    if request.previous is None or request.previous.is_empty():
        previous = "(none yet: these are the first turns of the session)"
    else:
        previous = _render_sections(request.previous)
    turns = "\n".join(_render_turn(turn, request.timezone) for turn in request.turns)
    user = (
        f"Previous summary:\n{previous}\n\n"
        f"New turns, oldest first, as [turn id] time role: text "
        f"(times in {_zone_name(request.timezone)}):\n{turns}"
    )
    return _build(SUMMARY_UPDATE, _SUMMARY_SYSTEM, user)


# --- workflow description -----------------------------------------------------------------

_WORKFLOW_SYSTEM = f"""You describe how an AI agent carries out a kind of task.
Given a task type and its steps, write one paragraph of two to four sentences: what the \
workflow achieves, when to use it, its main steps, and the parameters it needs.

Rules:
{_rules(_GROUNDED, _KEEP_LANGUAGE, _JSON_ONLY)}
- At most {DESCRIPTION_MAX_CHARS} characters.

Answer format: {_to_json({"description": "<the paragraph>"})}"""


def workflow_description(request: WorkflowInput) -> Prompt:
    """Build the prompt that describes a workflow in one paragraph.

    The answer format is :class:`memlane.llm.replies.WorkflowDescriptionReply`.
    """
    steps = "\n".join(
        f"{number}. {_to_json(dict(step))}" for number, step in enumerate(request.steps, 1)
    )
    params = ", ".join(request.params) if request.params else "(none listed)"
    user = f"Task type: {request.task_type}\nParameters: {params}\nSteps:\n{steps}"
    return _build(WORKFLOW_DESCRIPTION, _WORKFLOW_SYSTEM, user)


# --- correction ---------------------------------------------------------------------------

_PROBLEM_MAX_CHARS = 500


def correction(problem: str) -> ChatMessage:
    """The follow-up message sent after an answer failed validation, naming the problem."""
    if len(problem) > _PROBLEM_MAX_CHARS:
        problem = problem[: _PROBLEM_MAX_CHARS - 3] + "..."
    content = (
        f"Your previous answer could not be used: {problem}\n"
        f"Answer again with the corrected JSON object in the format asked for. {_JSON_ONLY}"
    )
    return {"role": "user", "content": content}
