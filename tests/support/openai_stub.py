"""A scripted OpenAI-compatible HTTP server on 127.0.0.1, for tests that talk to an "LLM".

It speaks ``POST /v1/chat/completions``, ``POST /v1/embeddings`` and ``GET /v1/models`` on a
free port in a background thread. Each test scripts the chat answers (contents, HTTP errors,
stalls, malformed bodies) and then inspects the recorded requests::

    with OpenAIStub() as stub:
        stub.reply('{"facts": []}').fail(500).reply("garbage")
        client = ChatClient(stub.base_url, stub.model)
        ...
        assert stub.chat_requests[0].json["temperature"] == 0

Embeddings are deterministic unit vectors derived from the text (same text, same vector),
unless replies are queued for them with ``endpoint="embeddings"``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import socket
import struct
import threading
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

import pytest

Endpoint = Literal["chat", "embeddings"]


@dataclass(frozen=True)
class StubReply:
    """One scripted answer.

    ``content`` becomes ``choices[0].message.content`` of a chat answer; ``body`` replaces
    the whole body (for malformed answers); ``status`` other than 200 sends an OpenAI-style
    error carrying ``message``; ``delay`` stalls before answering (to provoke timeouts).
    """

    status: int = 200
    content: str | None = None
    body: bytes | None = None
    message: str = "stub error"
    delay: float = 0.0
    headers: Mapping[str, str] = field(default_factory=dict)
    finish_reason: str = "stop"


@dataclass(frozen=True)
class RecordedRequest:
    """A request the stub received; header names are lower case."""

    method: str
    path: str
    headers: Mapping[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        """The body decoded as JSON (``None`` when it is not JSON)."""
        try:
            return json.loads(self.body)
        except ValueError:
            return None

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The chat messages of a chat-completions request."""
        payload = self.json
        return list(payload.get("messages", [])) if isinstance(payload, dict) else []


Responder = Callable[[RecordedRequest], StubReply]


class OpenAIStub:
    """The server; use it as a context manager (or call :meth:`start` and :meth:`stop`).

    Args:
        models: model ids listed by ``/v1/models``; the first is :attr:`model`.
        api_key: when set, requests without ``Authorization: Bearer <api_key>`` get a 401.
        embedding_dim: length of the deterministic embedding vectors.
    """

    def __init__(
        self,
        *,
        models: Sequence[str] = ("stub-model",),
        api_key: str | None = None,
        embedding_dim: int = 8,
    ) -> None:
        self.models = tuple(models)
        self.api_key = api_key
        self.embedding_dim = embedding_dim
        self.responder: Responder | None = None
        self._queues: dict[Endpoint, deque[StubReply]] = {"chat": deque(), "embeddings": deque()}
        self._requests: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # --- lifecycle ------------------------------------------------------------------------

    def start(self) -> OpenAIStub:
        """Bind a free port on 127.0.0.1 and serve in a background thread."""
        self._server = _Server(self)
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, wake stalled answers, close open connections, join the threads."""
        if self._server is None:
            return
        self._stopping.set()
        self._server.shutdown()
        self._server.drop_connections()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join()
        self._server = None

    def __enter__(self) -> OpenAIStub:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1``, what a client takes as its base URL."""
        if self._server is None:
            raise RuntimeError("the stub is not running")
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    @property
    def model(self) -> str:
        """The first model id."""
        return self.models[0]

    # --- scripting ------------------------------------------------------------------------

    def enqueue(self, reply: StubReply, endpoint: Endpoint = "chat") -> OpenAIStub:
        """Queue ``reply`` as the next answer of ``endpoint``."""
        with self._lock:
            self._queues[endpoint].append(reply)
        return self

    def reply(self, *contents: str, delay: float = 0.0) -> OpenAIStub:
        """Queue chat answers with these message contents, in order."""
        for content in contents:
            self.enqueue(StubReply(content=content, delay=delay))
        return self

    def fail(
        self,
        status: int,
        message: str = "stub error",
        *,
        times: int = 1,
        headers: Mapping[str, str] | None = None,
        endpoint: Endpoint = "chat",
    ) -> OpenAIStub:
        """Queue ``times`` error answers with HTTP ``status`` and an OpenAI-style error body."""
        for _ in range(times):
            self.enqueue(StubReply(status=status, message=message, headers=headers or {}), endpoint)
        return self

    def stall(self, seconds: float, *, times: int = 1) -> OpenAIStub:
        """Queue ``times`` chat answers that arrive only after ``seconds`` (for timeouts)."""
        for _ in range(times):
            self.enqueue(StubReply(content="{}", delay=seconds))
        return self

    def malformed(self, body: bytes = b"<html>oops</html>", *, status: int = 200) -> OpenAIStub:
        """Queue a chat answer whose body is ``body`` verbatim."""
        return self.enqueue(StubReply(status=status, body=body))

    @property
    def pending(self) -> int:
        """Chat answers queued but not yet sent."""
        with self._lock:
            return len(self._queues["chat"])

    # --- inspection -----------------------------------------------------------------------

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request received, oldest first."""
        with self._lock:
            return list(self._requests)

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        """The chat-completions requests received, oldest first."""
        return [request for request in self.requests if request.path.endswith("/chat/completions")]

    # --- answering (called by the handler threads) ------------------------------------------

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self._requests.append(request)

    def _next(self, endpoint: Endpoint) -> StubReply | None:
        with self._lock:
            queue = self._queues[endpoint]
            return queue.popleft() if queue else None

    def _answer(self, request: RecordedRequest) -> tuple[StubReply, bytes]:
        """Pick the reply to ``request`` and render its body."""
        if self.api_key is not None and request.headers.get("authorization") != (
            f"Bearer {self.api_key}"
        ):
            return _error_reply(401, "Incorrect API key provided", "invalid_api_key")
        if request.method == "GET" and request.path.endswith("/models"):
            data = [{"id": name, "object": "model", "owned_by": "stub"} for name in self.models]
            return StubReply(), _dumps({"object": "list", "data": data})
        if request.method == "POST" and request.path.endswith("/chat/completions"):
            return self._scripted(request, "chat")
        if request.method == "POST" and request.path.endswith("/embeddings"):
            return self._scripted(request, "embeddings")
        return _error_reply(404, f"no route for {request.method} {request.path}", "not_found")

    def _scripted(self, request: RecordedRequest, endpoint: Endpoint) -> tuple[StubReply, bytes]:
        reply = self._next(endpoint)
        if reply is None and self.responder is not None:
            reply = self.responder(request)
        if reply is None:
            if endpoint == "embeddings":
                return StubReply(), self._embeddings_body(request)
            return _error_reply(418, "openai_stub: no scripted chat reply left", "stub_empty")
        if reply.body is not None:
            return reply, reply.body
        if reply.status != 200:
            return reply, _error_reply(reply.status, reply.message, "stub_error")[1]
        if endpoint == "embeddings":
            return reply, self._embeddings_body(request)
        return reply, self._chat_body(request, reply)

    def _chat_body(self, request: RecordedRequest, reply: StubReply) -> bytes:
        payload = request.json if isinstance(request.json, dict) else {}
        content = reply.content or ""
        return _dumps(
            {
                "id": f"chatcmpl-stub-{len(self._requests)}",
                "object": "chat.completion",
                "created": 0,
                "model": payload.get("model", self.model),
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": reply.content},
                        "finish_reason": reply.finish_reason,
                    }
                ],
                "usage": {"prompt_tokens": 0, "completion_tokens": len(content.split())},
            }
        )

    def _embeddings_body(self, request: RecordedRequest) -> bytes:
        payload = request.json if isinstance(request.json, dict) else {}
        inputs = payload.get("input", "")
        texts = [inputs] if isinstance(inputs, str) else [str(item) for item in inputs]
        dim = int(payload.get("dimensions") or self.embedding_dim)
        data = [
            {"object": "embedding", "index": index, "embedding": stub_embedding(text, dim)}
            for index, text in enumerate(texts)
        ]
        return _dumps(
            {
                "object": "list",
                "data": data,
                "model": payload.get("model", self.model),
                "usage": {"prompt_tokens": 0, "total_tokens": 0},
            }
        )


def stub_embedding(text: str, dim: int) -> list[float]:
    """The unit vector the stub returns for ``text``: deterministic, different per text."""
    values: list[float] = []
    counter = 0
    while len(values) < dim:
        digest = hashlib.sha256(f"{counter}:{text}".encode()).digest()
        for (raw,) in struct.iter_unpack(">I", digest):
            values.append(raw / 0xFFFFFFFF * 2 - 1)
        counter += 1
    values = values[:dim]
    norm = math.sqrt(sum(value * value for value in values)) or 1.0
    return [value / norm for value in values]


def _dumps(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False).encode()


def _error_reply(status: int, message: str, code: str) -> tuple[StubReply, bytes]:
    body = {"error": {"message": message, "type": "invalid_request_error", "code": code}}
    return StubReply(status=status), _dumps(body)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def do_GET(self) -> None:
        self._handle()

    def do_POST(self) -> None:
        self._handle()

    def log_message(self, format: str, *args: Any) -> None:
        """Stay quiet: test output is for assertions."""

    def _handle(self) -> None:
        stub = self.server.stub
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        headers = {name.lower(): value for name, value in self.headers.items()}
        request = RecordedRequest(self.command, self.path, headers, body)
        stub._record(request)
        reply, payload = stub._answer(request)
        if reply.delay and stub._stopping.wait(reply.delay):
            self.close_connection = True
            return
        try:
            self.send_response(reply.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload)
        except OSError:
            # The client gave up (a timeout test); nothing left to tell it.
            self.close_connection = True


class _Server(ThreadingHTTPServer):
    daemon_threads = False
    block_on_close = True

    def __init__(self, stub: OpenAIStub) -> None:
        self.stub = stub
        self._connections: set[socket.socket] = set()
        self._connections_lock = threading.Lock()
        super().__init__(("127.0.0.1", 0), _Handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._connections_lock:
            self._connections.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self._connections_lock:
            self._connections.discard(request)
        super().shutdown_request(request)

    def drop_connections(self) -> None:
        """Close kept-alive connections so their handler threads end."""
        with self._connections_lock:
            connections = list(self._connections)
        for connection in connections:
            # Already closed by the client: nothing to do.
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Ignore connections the client dropped mid-request."""


@pytest.fixture
def openai_stub() -> Iterator[OpenAIStub]:
    """A running :class:`OpenAIStub`; import this fixture into a conftest to use it."""
    with OpenAIStub() as stub:
        yield stub
