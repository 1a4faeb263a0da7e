"""A body over the limit is refused before the application reads, parses or even sees it."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

pytest.importorskip("fastapi")

from memlane.server.middleware import BodyLimit

LIMIT = 1000
PIECE = 100


class Stream:
    """A request body handed out piece by piece, counting what was asked for."""

    def __init__(self, size: int) -> None:
        self.pieces = [b"x" * PIECE for _ in range(size // PIECE)]
        self.read = 0

    async def receive(self) -> dict[str, Any]:
        if self.read >= len(self.pieces):
            raise AssertionError("read past the end of the body")
        self.read += 1
        return {
            "type": "http.request",
            "body": b"x" * PIECE,
            "more_body": self.read < len(self.pieces),
        }


def refused(declared: int | None, size: int) -> tuple[list[dict[str, Any]], Stream, list[str]]:
    stream = Stream(size)
    reached: list[str] = []
    sent: list[dict[str, Any]] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        reached.append(scope["path"])

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    headers = [] if declared is None else [(b"content-length", str(declared).encode())]
    scope = {"type": "http", "method": "POST", "path": "/v1/remember", "headers": headers}
    asyncio.run(BodyLimit(app, max_bytes=LIMIT)(scope, stream.receive, send))
    return sent, stream, reached


def test_a_declared_length_over_the_limit_is_refused_before_a_byte_is_read() -> None:
    sent, stream, reached = refused(declared=100 * LIMIT, size=100 * LIMIT)
    assert stream.read == 0 and reached == []
    assert sent[0]["status"] == 413
    error = json.loads(sent[1]["body"])["error"]
    assert error == {
        "code": "payload_too_large",
        "message": f"request body larger than {LIMIT} bytes",
        "field": None,
    }


def test_a_streamed_body_is_refused_as_soon_as_its_count_passes_the_limit() -> None:
    sent, stream, reached = refused(declared=None, size=100 * LIMIT)
    assert stream.read == LIMIT // PIECE + 1  # the piece that went past it, and no more
    assert reached == [] and sent[0]["status"] == 413


def test_a_body_within_the_limit_is_handed_on_whole() -> None:
    sent, stream, reached = refused(declared=LIMIT, size=LIMIT)
    assert stream.read == LIMIT // PIECE and reached == ["/v1/remember"] and sent == []
