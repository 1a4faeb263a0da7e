"""The JSON answers the prompts ask for, as schemas for :func:`memlane.llm.schema.validate`.

The limits here are quoted by the prompts too, so the model is told the same bounds the
validator enforces.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal

from memlane.llm.schema import Length, Pattern

SUMMARY_SECTIONS: tuple[str, ...] = ("topic", "facts", "open_items", "entities", "mood")
"""The five sections of a summary, in the order prompts and answers list them."""

SECTION_MAX_ITEMS = 20
STATEMENT_MAX_CHARS = 300
NOTES_MAX_ITEMS = 20
FACTS_MAX_ITEMS = 50
EVIDENCE_MAX_CHARS = 500
DESCRIPTION_MAX_CHARS = 1200

ATTRIBUTE_NAME = Pattern(r"[a-z][a-z0-9_]{0,63}", "a snake_case name such as favorite_team")

HAS_WORDS = Pattern(r"(?s).*\w.*", "a statement with words, not a placeholder such as ...")
"""Small models copy a format's placeholders; a statement must hold a letter or digit."""

Statement = Annotated[str, Length(1, STATEMENT_MAX_CHARS), HAS_WORDS]
Section = Annotated[tuple[Statement, ...], Length(0, SECTION_MAX_ITEMS)]


@dataclass(frozen=True, slots=True)
class FactReply:
    """One fact as the extraction prompt asks for it."""

    op: Literal["set", "add", "retract"]
    attribute: Annotated[str, ATTRIBUTE_NAME]
    value: Any = None
    valid_from: str | None = None
    evidence: Annotated[str, Length(0, EVIDENCE_MAX_CHARS)] = ""


@dataclass(frozen=True, slots=True)
class ExtractionReply:
    """The answer to the fact-extraction prompt."""

    facts: Annotated[tuple[FactReply, ...], Length(0, FACTS_MAX_ITEMS)] = ()
    notes: Annotated[tuple[Statement, ...], Length(0, NOTES_MAX_ITEMS)] = ()


@dataclass(frozen=True, slots=True)
class SummaryReply:
    """The answer to the summary-update prompt: the five sections."""

    topic: Section = ()
    facts: Section = ()
    open_items: Section = ()
    entities: Section = ()
    mood: Section = ()


@dataclass(frozen=True, slots=True)
class WorkflowDescriptionReply:
    """The answer to the workflow-description prompt."""

    description: Annotated[str, Length(1, DESCRIPTION_MAX_CHARS), HAS_WORDS]
