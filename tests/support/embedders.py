"""Test embedders over the hash embedder: one that plays a slow model behind a gate."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

from memlane.embed import HashEmbedder
from memlane.embed.base import Vectors


class HashBacked:
    """The name and width of the hash embedder it wraps (``inner``)."""

    def __init__(self, dim: int) -> None:
        self.inner = HashEmbedder(dim=dim)

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def dim(self) -> int:
        return self.inner.dim


class GatedEmbedder(HashBacked):
    """A hash embedder whose document calls wait for ``gate``; it records what it embedded."""

    def __init__(self, *, open_gate: bool = False, delay: float = 0.0) -> None:
        super().__init__(dim=64)
        self.gate = threading.Event()
        if open_gate:
            self.gate.set()
        self.entered = threading.Event()
        self.delay = delay
        self.embedded: list[str] = []
        self.threads: set[int] = set()
        self._lock = threading.Lock()

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        self.entered.set()
        assert self.gate.wait(timeout=60), "the test never opened the gate"
        time.sleep(self.delay * len(texts))
        with self._lock:
            self.embedded.extend(texts)
            self.threads.add(threading.get_ident())
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> Vectors:
        return self.inner.embed_query(text)
