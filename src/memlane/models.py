"""Choosing the extractor and summarizer: rules offline, an LLM when one is configured."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import tzinfo

from memlane.extract.model import Extractor
from memlane.extract.rules import RuleExtractor
from memlane.llm import ChatClient, from_env
from memlane.summaries.offline import OfflineSummarizer
from memlane.summaries.summarizer import Summarizer


@dataclass(frozen=True, slots=True)
class Models:
    """The extractor and summarizer of a memory, and the chat client they share (if any)."""

    extractor: Extractor
    summarizer: Summarizer
    client: ChatClient | None


def default_models(timezone: tzinfo) -> Models:
    """Rules offline; with ``MEMLANE_LLM_URL`` set, the LLM ones, falling back to the rules."""
    rules, offline = RuleExtractor(), OfflineSummarizer()
    client = from_env()
    if client is None:
        return Models(rules, offline, None)
    from memlane.extract.llm import LLMExtractor
    from memlane.summaries.llm import LLMSummarizer

    return Models(
        LLMExtractor(client, fallback=rules),
        LLMSummarizer(client, fallback=offline, timezone=timezone),
        client,
    )
