"""ASGI middleware: the request size limit and the access log."""

from __future__ import annotations

import json
import logging
import time
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

log = logging.getLogger("memlane.server")

DEFAULT_MAX_BODY = 1024 * 1024


class BodyLimit:
    """Answer 413 to a request whose body is larger than ``max_bytes``.

    The declared ``Content-Length`` is checked first; a body without one (chunked) is
    read up to the limit and handed on only if it fits.
    """

    def __init__(self, app: ASGIApp, max_bytes: int = DEFAULT_MAX_BODY) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Check the body's size, then hand the request on."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        if declared is not None and declared > self.max_bytes:
            await _too_large(send, self.max_bytes)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                # The client went away: let the app see the disconnect.
                await self.app(scope, _replay([message], receive), send)
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                await _too_large(send, self.max_bytes)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body: Message = {"type": "http.request", "body": b"".join(chunks), "more_body": False}
        await self.app(scope, _replay([body], receive), send)


class AccessLog:
    """One log line per request: method, route template, status, time, key id and role.

    The route template (``/v1/facts/get``), not the path or query, is logged, so neither
    memory content nor subjects nor keys reach the log.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Run the request and log how it went."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500

        async def record(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, record)
        finally:
            route = scope.get("route")
            state: dict[str, Any] = scope.get("state", {})
            log.info(
                "%s %s %d %.1fms key=%s role=%s",
                scope["method"],
                getattr(route, "path", "-"),
                status,
                (time.perf_counter() - started) * 1000,
                state.get("key_id", "-"),
                state.get("role", "-"),
            )


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", []):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


def _replay(messages: list[Message], then: Receive) -> Receive:
    pending = list(messages)

    async def receive() -> Message:
        # The body first, then the real channel (which reports the client's disconnect).
        return pending.pop(0) if pending else await then()

    return receive


async def _too_large(send: Send, max_bytes: int) -> None:
    body = json.dumps(
        {
            "error": {
                "code": "payload_too_large",
                "message": f"request body larger than {max_bytes} bytes",
                "field": None,
            }
        }
    ).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
