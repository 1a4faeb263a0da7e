"""The LLM seam: an OpenAI-compatible chat client with validated JSON answers, and prompts.

Nothing here is needed offline: memlane's extractors and summarizers fall back to
rule-based ones when no chat endpoint is configured or it gives no usable answer.
"""

from memlane.llm.client import ChatClient, ChatModel, LLMError
from memlane.llm.jsonout import NoJSONFound, extract_json
from memlane.llm.prompts import PROMPT_VERSION, ChatMessage, Prompt
from memlane.llm.schema import Length, Pattern, SchemaViolation, validate
from memlane.llm.stats import LLMStats

__all__ = [
    "PROMPT_VERSION",
    "ChatClient",
    "ChatMessage",
    "ChatModel",
    "LLMError",
    "LLMStats",
    "Length",
    "NoJSONFound",
    "Pattern",
    "Prompt",
    "SchemaViolation",
    "extract_json",
    "from_env",
    "validate",
]


def from_env() -> ChatClient | None:
    """The client configured by ``MEMLANE_LLM_*`` variables, or ``None`` when none is set."""
    return ChatClient.from_env()
