"""The HTTP API: ``create_app(url)`` builds the FastAPI application.

Requires the ``server`` extra (``pip install 'memlane[server]'``).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio.to_thread

try:
    from fastapi import Depends, FastAPI
except ImportError as missing:  # pragma: no cover - exercised without the extra
    raise ImportError(
        "the memlane HTTP server needs FastAPI and uvicorn: pip install 'memlane[server]'"
    ) from missing

from memlane.errors import MemlaneError
from memlane.memory import Memory
from memlane.server import errors, ui
from memlane.server.auth import KeyGate
from memlane.server.docs import docs_router, swagger_assets
from memlane.server.middleware import DEFAULT_MAX_BODY, AccessLog, BodyLimit
from memlane.server.routes import facts, inspector, keys, privacy
from memlane.server.routes import memory as memory_routes
from memlane.server.routes.common import known_query
from memlane.server.state import DEFAULT_TENANT_HANDLES, SWEEP_EVERY_S, ServerState
from memlane.timeutil import Clock

API_VERSION = "1"

log = logging.getLogger("memlane.server")


def create_app(
    url: str | None = None,
    *,
    memory: Memory | None = None,
    clock: Clock | None = None,
    max_body_bytes: int = DEFAULT_MAX_BODY,
    tenant_handles: int = DEFAULT_TENANT_HANDLES,
) -> FastAPI:
    """The HTTP API over the memories at ``url``: every tenant a scope of one ``Memory``.

    One database pool, one embedder and one chat model serve every tenant; requests run in
    parallel (see docs/server.md, "Threads and tenants").

    Args:
        url: where the memories and the API keys live (``None``: ``MEMLANE_URL``); ignored
            when ``memory`` is given.
        memory: the memory to serve, with its settings (clock, embedder, time zone, …); the
            app closes it at shutdown. Default: ``Memory(url, clock=clock)``.
        clock: the clock of the memory made from ``url``.
        max_body_bytes: larger request bodies are refused with 413.
        tenant_handles: tenant handles kept warm in the LRU.

    Example:
        >>> app = create_app("memlane.db")  # doctest: +SKIP
        >>> uvicorn.run(app, port=8765)  # doctest: +SKIP
    """
    state = ServerState(url, memory=memory, clock=clock, tenant_handles=tenant_handles)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        try:
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(_sweeping, state)
                yield
                tasks.cancel_scope.cancel()
        finally:
            # Folding the open sessions may call a model: never on the event loop.
            await anyio.to_thread.run_sync(state.close)

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
    for module in (facts, memory_routes, privacy, keys, inspector, ui):
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
        """The database answers; ``pending``: items of every tenant waiting to be embedded."""
        state.ready()
        return {"status": "ready", "pending": state.pending()}

    # Outermost last: the log sees every answer, the gate runs before the body is read.
    app.add_middleware(BodyLimit, max_bytes=max_body_bytes)
    app.add_middleware(KeyGate, state=state)
    app.add_middleware(AccessLog)
    return app


async def _sweeping(state: ServerState) -> None:
    """Fold idle sessions of every tenant now and then, so quiet tenants' windows go too."""
    while True:
        await anyio.sleep(SWEEP_EVERY_S)
        try:
            await anyio.to_thread.run_sync(state.sweep)
        except MemlaneError as error:  # the database is away: the next round tries again
            log.warning("sweeping idle sessions failed: %s", type(error).__name__)
