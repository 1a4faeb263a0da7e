import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np
import pytest

from memlane.embed import CachedEmbedder, Embedder, EmbeddingError, HashEmbedder, OpenAIEmbedder
from memlane.embed.openai_compat import embeddings_url
from memlane.errors import InvalidInput, MemlaneError

STUB_DIM = 16
_reference = HashEmbedder(dim=STUB_DIM)

SLOW_SECONDS = 3.0
"""How long the stub's "slow" mode takes to answer: far past every client timeout here."""


@dataclass
class StubState:
    """What the stub answers next, and what it was sent."""

    mode: str = "ok"
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)


def stub_vector(text: str) -> list[float]:
    # Scaled by 3 so the client's re-normalization is observable.
    return [3.0 * float(x) for x in _reference.embed_query(text)]


class StubHandler(BaseHTTPRequestHandler):
    server: "StubServer"

    def do_POST(self) -> None:
        state = self.server.state
        length = int(self.headers.get("Content-Length", "0"))
        body = json.loads(self.rfile.read(length))
        state.requests.append(body)
        state.headers.append({k.lower(): v for k, v in self.headers.items()})
        state.paths.append(self.path)
        if state.mode == "500":
            self._reply(500, b'{"error": "model crashed"}')
        elif state.mode == "slow":
            time.sleep(SLOW_SECONDS)
            self._reply(200, b"{}")
        elif state.mode == "garbage":
            self._reply(200, b"<html>not json{")
        elif state.mode == "short":
            self._reply(200, json.dumps({"data": []}).encode())
        elif state.mode == "nan":
            data = [
                {"index": i, "embedding": [float("nan")] * STUB_DIM}
                for i, _ in enumerate(body["input"])
            ]
            self._reply(200, json.dumps({"data": data}).encode())
        else:
            data = [{"index": i, "embedding": stub_vector(t)} for i, t in enumerate(body["input"])]
            # Answer in reverse order: the client must place vectors by their 'index'.
            self._reply(200, json.dumps({"object": "list", "data": data[::-1]}).encode())

    def _reply(self, status: int, payload: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, format: str, *args: Any) -> None:
        pass


class StubServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    state: StubState

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # the client hung up first in the timeout test; that is the point of it


@pytest.fixture(scope="module")
def server() -> Iterator[StubServer]:
    stub = StubServer(("127.0.0.1", 0), StubHandler)
    stub.state = StubState()
    thread = threading.Thread(target=stub.serve_forever, daemon=True)
    thread.start()
    yield stub
    stub.shutdown()
    stub.server_close()
    thread.join(5)


@pytest.fixture
def state(server: StubServer, monkeypatch: pytest.MonkeyPatch) -> StubState:
    for name in (
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "http_proxy",
        "https_proxy",
        "all_proxy",
    ):
        monkeypatch.delenv(name, raising=False)
    server.state = StubState()
    return server.state


@pytest.fixture
def base_url(server: StubServer) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}/v1"


def test_embeds_through_the_endpoint(state: StubState, base_url: str) -> None:
    with OpenAIEmbedder(base_url, "stub-model", api_key="sk-test") as client:
        embedder: Embedder = client
        texts = ["first text", "second text", "我住在上海"]
        docs = embedder.embed_documents(texts)
        query = embedder.embed_query("first text")
    assert docs.shape == (3, STUB_DIM)
    assert docs.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(docs, axis=1), 1.0, rtol=1e-5)
    np.testing.assert_allclose(docs, _reference.embed_documents(texts), atol=1e-6)
    np.testing.assert_allclose(query, _reference.embed_query("first text"), atol=1e-6)
    assert state.paths == ["/v1/embeddings", "/v1/embeddings"]
    assert state.requests[0] == {"model": "stub-model", "input": texts, "encoding_format": "float"}
    assert state.headers[0]["authorization"] == "Bearer sk-test"


def test_no_api_key_sends_no_authorization(state: StubState, base_url: str) -> None:
    with OpenAIEmbedder(base_url, "stub-model") as embedder:
        embedder.embed_query("x")
    assert "authorization" not in state.headers[0]


def test_texts_are_sent_in_batches_and_kept_in_order(state: StubState, base_url: str) -> None:
    texts = [f"text number {i}" for i in range(5)]
    with OpenAIEmbedder(base_url, "stub-model", batch_size=2) as embedder:
        docs = embedder.embed_documents(texts)
    assert [r["input"] for r in state.requests] == [texts[0:2], texts[2:4], texts[4:5]]
    np.testing.assert_allclose(docs, _reference.embed_documents(texts), atol=1e-6)


def test_prefixes_are_added_for_models_that_need_them(state: StubState, base_url: str) -> None:
    with OpenAIEmbedder(
        base_url, "e5", query_prefix="query: ", document_prefix="passage: "
    ) as embedder:
        embedder.embed_documents(["a doc"])
        embedder.embed_query("a question")
    assert [r["input"] for r in state.requests] == [["passage: a doc"], ["query: a question"]]


def test_dim_is_learned_from_the_first_answer(state: StubState, base_url: str) -> None:
    with OpenAIEmbedder(base_url, "stub-model") as embedder:
        assert embedder.embed_documents([]).shape == (0, 0)
        assert embedder.dim == STUB_DIM  # asks the endpoint once
        assert embedder.dim == STUB_DIM
        assert embedder.embed_documents([]).shape == (0, STUB_DIM)
    assert len(state.requests) == 1


def test_a_given_dim_that_does_not_match_is_an_error(state: StubState, base_url: str) -> None:
    with OpenAIEmbedder(base_url, "stub-model", dim=8) as embedder, pytest.raises(EmbeddingError):
        embedder.embed_query("x")


def test_http_500_raises_embedding_error(state: StubState, base_url: str) -> None:
    state.mode = "500"
    with OpenAIEmbedder(base_url, "stub-model") as embedder, pytest.raises(EmbeddingError) as info:
        embedder.embed_documents(["x"])
    assert isinstance(info.value, MemlaneError)
    assert info.value.status_code == 500
    assert "HTTP 500" in str(info.value)
    assert "model crashed" in str(info.value)


def test_timeout_raises_embedding_error(state: StubState, base_url: str) -> None:
    state.mode = "slow"
    began = time.perf_counter()
    with (
        OpenAIEmbedder(base_url, "stub-model", timeout=0.1) as embedder,
        pytest.raises(EmbeddingError) as info,
    ):
        embedder.embed_query("x")
    assert "timed out" in str(info.value)
    assert time.perf_counter() - began < SLOW_SECONDS / 2  # gave up, did not wait or retry


def test_malformed_json_raises_embedding_error(state: StubState, base_url: str) -> None:
    state.mode = "garbage"
    with OpenAIEmbedder(base_url, "stub-model") as embedder, pytest.raises(EmbeddingError) as info:
        embedder.embed_query("x")
    assert "not JSON" in str(info.value)


@pytest.mark.parametrize("mode", ["short", "nan"])
def test_wrong_shaped_answers_raise_embedding_error(
    state: StubState, base_url: str, mode: str
) -> None:
    state.mode = mode
    with OpenAIEmbedder(base_url, "stub-model") as embedder, pytest.raises(EmbeddingError):
        embedder.embed_documents(["a", "b"])


def test_unreachable_endpoint_raises_embedding_error() -> None:
    # Bind and release a port so that nothing listens on it.
    probe = ThreadingHTTPServer(("127.0.0.1", 0), StubHandler)
    port = probe.server_address[1]
    probe.server_close()
    with (
        OpenAIEmbedder(f"http://127.0.0.1:{port}", "m", timeout=2) as embedder,
        pytest.raises(EmbeddingError),
    ):
        embedder.embed_query("x")


@pytest.mark.parametrize(
    ("base_url", "expected"),
    [
        ("http://h:1/v1", "http://h:1/v1/embeddings"),
        ("http://h:1/v1/", "http://h:1/v1/embeddings"),
        ("http://h:1", "http://h:1/v1/embeddings"),
        ("https://h/api/v1/embeddings", "https://h/api/v1/embeddings"),
    ],
)
def test_embeddings_url(base_url: str, expected: str) -> None:
    assert embeddings_url(base_url) == expected


@pytest.mark.parametrize(
    ("kwargs", "field_name"),
    [
        ({"base_url": "localhost:8080"}, "base_url"),
        ({"model": " "}, "model"),
        ({"timeout": 0}, "timeout"),
        ({"batch_size": 0}, "batch_size"),
        ({"dim": 0}, "dim"),
    ],
)
def test_bad_settings_are_invalid_input(kwargs: dict[str, Any], field_name: str) -> None:
    arguments: dict[str, Any] = {"base_url": "http://127.0.0.1:1/v1", "model": "m", **kwargs}
    with pytest.raises(InvalidInput) as info:
        OpenAIEmbedder(**arguments)
    assert info.value.field == field_name


def test_name_tells_endpoints_apart() -> None:
    with OpenAIEmbedder("http://a:1/v1", "m") as one, OpenAIEmbedder("http://b:1/v1", "m") as two:
        assert one.name != two.name
        assert one.name == "openai:m@http://a:1/v1/embeddings"


def test_cache_in_front_of_the_endpoint_sends_each_text_once(
    state: StubState, base_url: str
) -> None:
    with OpenAIEmbedder(base_url, "stub-model", batch_size=2) as client:
        cached = CachedEmbedder(client)
        assert cached.embed_documents([]).shape == (0, 0)  # no request just to learn dim
        assert state.requests == []
        cached.embed_documents(["a", "b", "a", "c"])
        cached.embed_documents(["c", "b"])
        cached.embed_query("a")
        cached.embed_query("a")
    assert [r["input"] for r in state.requests] == [["a", "b"], ["c"], ["a"]]
