"""Session summaries written by a chat model, with an offline summarizer as fallback."""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, tzinfo
from typing import Any

from memlane.llm import prompts
from memlane.llm.client import ChatModel, LLMError
from memlane.llm.replies import SUMMARY_SECTIONS, SummaryReply
from memlane.llm.schema import SchemaViolation, validate
from memlane.llm.stats import Counters
from memlane.summaries.model import SummaryContent
from memlane.summaries.summarizer import Summarizer
from memlane.window.model import Turn

_log = logging.getLogger("memlane.llm.summaries")
_WORD = re.compile(r"\w")


@dataclass(frozen=True, slots=True)
class SummarizerStats:
    """What an :class:`LLMSummarizer` did.

    ``calls``: updates asked for; ``llm_answers``: updates the model answered validly;
    ``fallbacks``: updates the fallback summarizer made because the model failed.
    """

    calls: int = 0
    llm_answers: int = 0
    fallbacks: int = 0


class LLMSummarizer:
    """A :class:`~memlane.summaries.summarizer.Summarizer` that asks a chat model.

    The model gets the previous five sections and the new turns (with their ids, times shown
    in ``timezone``) and returns the updated sections; each must be a list of non-empty
    statements within the bounds the prompt states. When the model gives no usable answer,
    ``fallback.update`` is asked instead.
    """

    def __init__(self, client: ChatModel, fallback: Summarizer, *, timezone: tzinfo = UTC) -> None:
        self._client = client
        self._fallback = fallback
        self._timezone = timezone
        self._counters = Counters(SummarizerStats)

    @property
    def stats(self) -> SummarizerStats:
        """A snapshot of the counters since this summarizer was made."""
        return self._counters.snapshot()

    def update(self, previous: SummaryContent | None, turns: Sequence[Turn]) -> SummaryContent:
        """Return ``previous`` updated with ``turns`` (oldest first); never raises on model output.

        With no turns, ``previous`` is returned as it is (empty when ``None``).
        """
        self._counters.add("calls")
        if not turns:
            return previous if previous is not None else SummaryContent()
        prompt = prompts.summary_update(
            prompts.SummaryInput(previous, tuple(turns), self._timezone)
        )
        try:
            content = self._client.complete_json(
                prompt.messages, read_summary, purpose=prompt.purpose
            )
        except LLMError as error:
            self._counters.add("fallbacks")
            _log.warning("summary update uses the fallback summarizer: %s", error)
            return self._fallback.update(previous, turns)
        self._counters.add("llm_answers")
        return content


def read_summary(data: Any) -> SummaryContent:
    """Validate a decoded summary answer and return its five sections.

    Forgives cosmetic slips (a bare string for a section, blank, wordless or repeated
    statements, surrounding spaces) and rejects the rest, including an answer with every
    section empty.

    Raises:
        SchemaViolation: the answer does not have the five sections as lists of statements.
    """
    reply = validate(_tidy(data), SummaryReply)
    content = SummaryContent(**{name: getattr(reply, name) for name in SUMMARY_SECTIONS})
    if content.is_empty():
        raise SchemaViolation("", "every section is empty; summarize the turns")
    return content


def _tidy(data: Any) -> Any:
    if not isinstance(data, dict):
        return data
    tidy = dict(data)
    for name in SUMMARY_SECTIONS:
        section = tidy.get(name)
        if isinstance(section, str):
            section = [section]
        if isinstance(section, list):
            tidy[name] = _tidy_section(section)
    return tidy


def _tidy_section(section: list[Any]) -> list[Any]:
    seen: set[str] = set()
    items: list[Any] = []
    for item in section:
        if isinstance(item, str):
            item = item.strip()
            # Wordless items ("...", "-") are copied placeholders, not statements.
            if not _WORD.search(item) or item in seen:
                continue
            seen.add(item)
        # Anything else is left for the validator to reject with a message the model can use.
        items.append(item)
    return items
