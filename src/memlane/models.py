"""Choosing the extractor and summarizer: rules offline, an LLM when one is configured."""

from __future__ import annotations

from datetime import tzinfo

from memlane.extract.model import Extractor
from memlane.extract.rules import RuleExtractor
from memlane.summaries.offline import OfflineSummarizer
from memlane.summaries.summarizer import Summarizer


def default_extractor() -> Extractor:
    """Rules; with ``MEMLANE_LLM_URL`` set, the LLM extractor falling back to the rules."""
    rules = RuleExtractor()
    from memlane.llm import from_env

    client = from_env()
    if client is None:
        return rules
    from memlane.extract.llm import LLMExtractor

    return LLMExtractor(client, fallback=rules)


def default_summarizer(timezone: tzinfo) -> Summarizer:
    """The offline summarizer; with ``MEMLANE_LLM_URL`` set, the LLM one falling back to it."""
    offline = OfflineSummarizer()
    from memlane.llm import from_env

    client = from_env()
    if client is None:
        return offline
    from memlane.summaries.llm import LLMSummarizer

    return LLMSummarizer(client, fallback=offline, timezone=timezone)
