"""Choosing the extractor and summarizer: rules offline, an LLM when one is configured."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import tzinfo

from memlane.errors import InvalidInput
from memlane.extract.model import Extractor
from memlane.extract.rules import RuleExtractor
from memlane.llm import ChatClient, ChatModel
from memlane.summaries.offline import OfflineSummarizer
from memlane.summaries.summarizer import Summarizer

LLM_SPECS = ("offline", "openai", "openai:<model>", "openai:<model>@<base_url>")
"""The spec forms :func:`chat_model` accepts (besides ``None`` and a model object)."""

ENV_LLM_URL = "MEMLANE_LLM_URL"
ENV_LLM_MODEL = "MEMLANE_LLM_MODEL"


@dataclass(frozen=True, slots=True)
class Models:
    """The extractor and summarizer of a memory, and the chat model they share (if any).

    ``owned`` says whether the memory made ``client`` (and so closes it); a model passed in
    belongs to its caller.
    """

    extractor: Extractor
    summarizer: Summarizer
    client: ChatModel | None
    owned: bool = False

    def close(self) -> None:
        """Close the chat client if this memory made it."""
        if self.owned and isinstance(self.client, ChatClient):
            self.client.close()


def chat_model(
    llm: ChatModel | str | None, env: Mapping[str, str] | None = None
) -> ChatModel | None:
    """The chat model ``llm`` names: ``None`` when memlane should run on its rules.

    ``None`` reads ``MEMLANE_LLM_*`` (unset: offline); ``"offline"`` never uses one, even with
    the variables set; ``"openai:<model>@<base_url>"`` is an OpenAI-compatible endpoint
    (``"openai:<model>"`` and ``"openai"`` take the missing parts from ``MEMLANE_LLM_URL`` /
    ``MEMLANE_LLM_MODEL``; the key, timeout and retries always come from the environment). Any
    other object is used as it is (see :class:`~memlane.llm.ChatModel`).

    Raises:
        InvalidInput: an unknown spec, or one whose endpoint or model is missing.

    Example:
        >>> chat_model("openai:qwen2.5:3b@http://127.0.0.1:11434/v1", env={})
        ChatClient('http://127.0.0.1:11434/v1/chat/completions', model='qwen2.5:3b')
    """
    environment = os.environ if env is None else env
    if llm is None:
        return ChatClient.from_env(environment)
    if not isinstance(llm, str):
        if not callable(getattr(llm, "complete_json", None)):
            raise InvalidInput("llm", "must be a chat model (with complete_json) or a spec")
        return llm
    kind, _, argument = llm.strip().partition(":")
    if kind == "offline" and not argument:
        return None
    if kind != "openai":
        raise InvalidInput("llm", f"unknown chat model {llm!r}; expected one of {LLM_SPECS}")
    model, _, url = argument.partition("@")  # model names hold colons ("qwen2.5:3b")
    settings = dict(environment)
    settings[ENV_LLM_URL] = url.strip() or environment.get(ENV_LLM_URL, "")
    settings[ENV_LLM_MODEL] = model.strip() or environment.get(ENV_LLM_MODEL, "")
    if not settings[ENV_LLM_URL].strip():
        raise InvalidInput("llm", f"no endpoint: give 'openai:<model>@<base_url>' or {ENV_LLM_URL}")
    if not settings[ENV_LLM_MODEL].strip():
        raise InvalidInput("llm", f"no model: give 'openai:<model>@<base_url>' or {ENV_LLM_MODEL}")
    return ChatClient.from_env(settings)


def default_models(timezone: tzinfo, llm: ChatModel | str | None = None) -> Models:
    """Rules offline; with a chat model (``llm``, or ``MEMLANE_LLM_URL``), the LLM ones.

    The LLM extractor and summarizer fall back to the rules when the model gives no usable
    answer.
    """
    rules, offline = RuleExtractor(), OfflineSummarizer()
    client = chat_model(llm)
    if client is None:
        return Models(rules, offline, None)
    from memlane.extract.llm import LLMExtractor
    from memlane.summaries.llm import LLMSummarizer

    return Models(
        LLMExtractor(client, fallback=rules),
        LLMSummarizer(client, fallback=offline, timezone=timezone),
        client,
        owned=llm is None or isinstance(llm, str),
    )
