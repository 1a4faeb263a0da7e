"""The HTTP API: ``create_app(url)`` builds the FastAPI application.

Requires the ``server`` extra (``pip install 'memlane[server]'``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

try:
    from fastapi import Depends, FastAPI
except ImportError as missing:  # pragma: no cover - exercised without the extra
    raise ImportError(
        "the memlane HTTP server needs FastAPI and uvicorn: pip install 'memlane[server]'"
    ) from missing

from memlane.server import errors, ui
from memlane.server.auth import KeyGate
from memlane.server.docs import docs_router, swagger_assets
from memlane.server.middleware import DEFAULT_MAX_BODY, AccessLog, BodyLimit
from memlane.server.routes import facts, inspector, keys, memory, privacy
from memlane.server.routes.common import known_query
from memlane.server.state import MemoryFactory, ServerState
from memlane.timeutil import Clock

API_VERSION = "1"


def create_app(
    url: str | None = None,
    *,
    memory_factory: MemoryFactory | None = None,
    clock: Clock | None = None,
    max_body_bytes: int = DEFAULT_MAX_BODY,
) -> FastAPI:
    """The HTTP API over the memories at ``url`` (one ``Memory`` per tenant, opened lazily).

    Args:
        url: where the memories and the API keys live (``None``: ``MEMLANE_URL``).
        memory_factory: opens a tenant's memory (tests inject clocks and embedders here).
        clock: the clock of the key ring.
        max_body_bytes: larger request bodies are refused with 413.

    Example:
        >>> app = create_app("memlane.db")  # doctest: +SKIP
        >>> uvicorn.run(app, port=8765)  # doctest: +SKIP
    """
    state = ServerState(url, memory_factory=memory_factory, clock=clock)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        try:
            yield
        finally:
            state.close()

    app = FastAPI(
        title="memlane",
        version=API_VERSION,
        description="Long-term memory for AI agents. Authenticate with `Authorization: "
        "Bearer <key>`; each key is bound to one tenant and one role.",
        lifespan=lifespan,
        dependencies=[Depends(known_query)],
        # Served below from local files, or not at all: never from a CDN.
        docs_url=None,
        redoc_url=None,
    )
    app.state.memlane = state
    errors.install(app)
    for module in (facts, memory, privacy, keys, inspector, ui):
        app.include_router(module.router)
    assets = swagger_assets()
    if assets is not None:
        app.include_router(docs_router(assets, app.openapi_url or "/openapi.json", app.title))

    @app.get("/healthz", tags=["health"])
    def healthz() -> dict[str, Any]:
        """The process is up."""
        return {"status": "ok"}

    @app.get("/readyz", tags=["health"])
    def readyz() -> dict[str, Any]:
        """The database answers; ``pending``: items the served tenants' indexers have to embed."""
        state.ready()
        return {"status": "ready", "pending": state.pending()}

    # Outermost last: the log sees every answer, the gate runs before the body is read.
    app.add_middleware(BodyLimit, max_bytes=max_body_bytes)
    app.add_middleware(KeyGate, state=state)
    app.add_middleware(AccessLog)
    return app
