"""MCP over streamable HTTP behind the HTTP API's keys: tenant and role come from the key.

Every request needs ``Authorization: Bearer <key>`` (401 otherwise, before the MCP layer
sees it); the tools then work on the memory of the key's tenant, and a tool the key's role
does not grant (``forget`` needs ``compliance``) answers a tool error. The transport runs
stateless, so each HTTP request carries its own caller. See docs/mcp.md.
"""

from __future__ import annotations

from contextvars import ContextVar

from starlette.types import ASGIApp, Receive, Scope, Send

from memlane.access import ApiKey, Permission
from memlane.server.auth import KeyGate
from memlane.server.mcp_server import build_server
from memlane.server.state import ServerState

MCP_PATH = "/mcp"

_caller: ContextVar[ApiKey | None] = ContextVar("memlane_mcp_caller", default=None)


def mcp_http_app(state: ServerState, *, host: str = "127.0.0.1") -> ASGIApp:
    """The MCP endpoint at :data:`MCP_PATH` over every tenant of ``state``, behind its keys.

    ``host`` is the interface it will listen on (the SDK guards localhost against DNS
    rebinding). The caller closes ``state`` after the server stops.

    Example:
        >>> app = mcp_http_app(ServerState("memlane.db"))  # doctest: +SKIP
        >>> uvicorn.run(app, port=8766)  # doctest: +SKIP
    """
    server = build_server(
        lambda: state.handle(_current().tenant),
        requester=lambda: f"key:{_current().id}",
        authorize=_authorize,
    )
    app = server.streamable_http_app(
        streamable_http_path=MCP_PATH, stateless_http=True, json_response=True, host=host
    )
    return KeyGate(_BindCaller(app), state, prefix="/")


class _BindCaller:
    """Make the key the gate admitted the current caller of the tools, for the request."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        key = scope.get("state", {}).get("key") if scope["type"] == "http" else None
        token = _caller.set(key if isinstance(key, ApiKey) else None)
        try:
            await self.app(scope, receive, send)
        finally:
            _caller.reset(token)


def _current() -> ApiKey:
    key = _caller.get()
    if key is None:  # the gate admits no request without a key
        raise PermissionError("no authenticated caller")
    return key


def _authorize(permission: Permission) -> str | None:
    key = _current()
    return None if key.allows(permission) else f"the {key.role} role may not do this"
