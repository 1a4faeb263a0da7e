"""Fixtures of the router tests: a memory on a fake clock, and an embedder that counts calls."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence

import pytest

import memlane
from memlane.embed.base import Vectors
from tests.conftest import FakeClock
from tests.support.embedders import HashBacked


class CountingEmbedder(HashBacked):
    """A hash embedder that counts its calls, or refuses them all (``refuse=True``).

    ``calls`` counts the calls made on the thread that built it, the test's: a request's
    path; the background indexer's calls are ``background_calls``.
    """

    def __init__(self, refuse: bool = False) -> None:
        super().__init__(dim=256)
        self.refuse = refuse
        self.calls = 0
        self.background_calls = 0
        self._thread = threading.get_ident()

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        return self._count(lambda: self.inner.embed_documents(texts))

    def embed_query(self, text: str) -> Vectors:
        return self._count(lambda: self.inner.embed_query(text))

    def _count(self, compute):
        if threading.get_ident() == self._thread:
            self.calls += 1
        else:
            self.background_calls += 1
        if self.refuse:
            raise AssertionError("no embedding may be computed on this path")
        return compute()


@pytest.fixture
def embedder() -> CountingEmbedder:
    return CountingEmbedder()


@pytest.fixture
def mem(clock: FakeClock, scratch_url: str, embedder: CountingEmbedder) -> Iterator[memlane.Memory]:
    clock.set("2026-03-02T02:00:00+00:00")  # 10:00 in Shanghai
    with memlane.Memory(
        scratch_url, clock=clock, timezone="Asia/Shanghai", embedder=embedder
    ) as memory:
        memory.facts.define("phone", cardinality="many", identifier=True)
        memory.facts.define("order", cardinality="many", identifier=True)
        yield memory


@pytest.fixture
def backend(every_backend: str) -> str:
    """This suite is part of the contract: it runs on every backend."""
    return every_backend
