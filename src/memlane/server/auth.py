"""Who is calling: the bearer key, its tenant, and whether its role allows the route."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Annotated

import anyio.to_thread
from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.types import ASGIApp, Receive, Scope, Send

from memlane.access import ApiKey, Permission
from memlane.errors import StorageError
from memlane.memory import Memory
from memlane.server.errors import ApiError, error_response
from memlane.server.state import ServerState

bearer = HTTPBearer(auto_error=False, description="An API key: `ml_<id>_<secret>`.")

PROTECTED_PREFIX = "/v1/"
UNAUTHORIZED = "missing or invalid API key"


class KeyGate:
    """Check the bearer key of every ``/v1`` request before anything else reads it.

    A request without a valid key gets 401 whatever its body, so validation errors never
    answer an anonymous caller. The key found is left in the request state for the routes.

    Args:
        app: the application behind the gate.
        state: holds the key ring.
        prefix: the paths that need a key (the MCP endpoint is all ``/``).
    """

    def __init__(self, app: ASGIApp, state: ServerState, prefix: str = PROTECTED_PREFIX) -> None:
        self.app = app
        self.state = state
        self.prefix = prefix

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Admit the request with a valid key; answer 401 otherwise."""
        if scope["type"] == "http" and scope["path"].startswith(self.prefix):
            try:
                # SQLite may wait on a lock: never on the event loop.
                key = await anyio.to_thread.run_sync(
                    self.state.keys.authenticate, _bearer_token(scope)
                )
            except StorageError:
                await error_response(503, "storage unavailable")(scope, receive, send)
                return
            if key is None:
                response = error_response(401, UNAUTHORIZED, headers=_CHALLENGE)
                await response(scope, receive, send)
                return
            scope.setdefault("state", {}).update(key=key, key_id=key.id, role=key.role)
        await self.app(scope, receive, send)


_CHALLENGE = {"WWW-Authenticate": "Bearer"}


def _bearer_token(scope: Scope) -> str:
    for name, value in scope.get("headers", []):
        if name == b"authorization":
            scheme, _, token = value.decode("latin-1").partition(" ")
            return token.strip() if scheme.lower() == "bearer" else ""
    return ""


@dataclass(frozen=True, slots=True)
class Caller:
    """An authenticated request: its key and the server state."""

    key: ApiKey
    state: ServerState

    @contextmanager
    def memory(self) -> Iterator[Memory]:
        """The memory of the key's tenant, and only of it."""
        with self.state.memory(self.key.tenant) as memory:
            yield memory


def server_state(request: Request) -> ServerState:
    """The state the app was created with."""
    state = request.app.state.memlane
    assert isinstance(state, ServerState)
    return state


async def authenticate(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
) -> Caller:
    """The caller of a request with a valid, unrevoked key.

    A coroutine, like every dependency that does no I/O: FastAPI hands a plain function to
    a worker thread, and each hand-over costs the request CPU and a wait. Only a request
    the gate has not seen (none under ``/v1``) looks its key up, in a thread.

    Raises:
        ApiError: 401 when the key is missing, malformed, unknown or revoked (one message).
    """
    state = server_state(request)
    # Normally the gate has checked the key already; check it here when it has not.
    key = getattr(request.state, "key", None)
    if not isinstance(key, ApiKey):
        if credentials is None or credentials.scheme.lower() != "bearer":
            raise ApiError(401, UNAUTHORIZED)
        key = await anyio.to_thread.run_sync(state.keys.authenticate, credentials.credentials)
    if key is None:
        raise ApiError(401, UNAUTHORIZED)
    # For the access log: the key's public id and role, never the key.
    request.state.key_id = key.id
    request.state.role = key.role
    return Caller(key=key, state=state)


def require(permission: Permission) -> Callable[[Caller], Awaitable[Caller]]:
    """A dependency admitting only callers whose role grants ``permission`` (else 403)."""

    async def check(caller: Annotated[Caller, Depends(authenticate)]) -> Caller:
        if not caller.key.allows(permission):
            raise ApiError(403, f"the {caller.key.role} role may not do this")
        return caller

    return check


Reader = Annotated[Caller, Depends(require("read"))]
Writer = Annotated[Caller, Depends(require("write"))]
Auditor = Annotated[Caller, Depends(require("audit"))]
Compliance = Annotated[Caller, Depends(require("compliance"))]
Admin = Annotated[Caller, Depends(require("keys"))]
