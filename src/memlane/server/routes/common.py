"""Pieces shared by the routes: pagination, body models, the subject check."""

from __future__ import annotations

import json
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Annotated, Any

import anyio.to_thread
from fastapi import Depends, Query, Request, Response
from fastapi.routing import APIRoute
from pydantic import BaseModel, ConfigDict

from memlane import validation
from memlane.memory import Memory
from memlane.server.errors import ApiError, not_found
from memlane.server.fields import Name as Name
from memlane.server.serialize import page

MAX_PAGE = validation.MAX_PAGE
OFF_LOOP_JSON_BYTES = 64 * 1024
"""Request bodies at least this long are parsed as JSON in a worker thread, not on the event
loop (a body of 1 MiB: some 1–9 ms of the loop, every other request's reading and answering
waiting meanwhile); a shorter one is parsed in place (microseconds, less than a hand-off)."""


class _OffLoopJson(Request):
    """A request whose long JSON body is parsed in a worker thread."""

    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            body = await self.body()
            if len(body) < OFF_LOOP_JSON_BYTES:
                self._json = json.loads(body)
            else:
                self._json = await anyio.to_thread.run_sync(json.loads, body)
        return self._json


class JsonRoute(APIRoute):
    """The routes of the API: a long JSON body is parsed off the event loop.

    FastAPI parses the body before validating it (a 422 for a text over its limit is only
    known after); the parse is what the loop would spend on a 1 MiB body.
    """

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        """FastAPI's handler, given the request as :class:`_OffLoopJson`."""
        handler = super().get_route_handler()

        async def route(request: Request) -> Response:
            return await handler(_OffLoopJson(request.scope, request.receive))

        return route


class Body(BaseModel):
    """A request body: unknown fields are an error, not silently dropped.

    Nor are values coerced: ``"immediately": 0.0`` is not ``false``, a number no subject.
    """

    model_config = ConfigDict(extra="forbid", strict=True)


@dataclass(frozen=True, slots=True)
class Paging:
    """``limit`` and ``offset`` of a list route."""

    limit: int
    offset: int

    def of(self, items: list[Any]) -> dict[str, Any]:
        """One page of ``items`` as ``{"items": [...], "total", "limit", "offset"}``."""
        chosen, position = page(items, self.limit, self.offset)
        return {"items": chosen, **position}


async def paging(
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE, description="Page size.")] = 100,
    offset: Annotated[int, Query(ge=0, description="Items to skip.")] = 0,
) -> Paging:
    """The pagination parameters of a list route."""
    return Paging(limit=limit, offset=offset)


Page = Annotated[Paging, Depends(paging)]


def known_subject(memory: Memory, subject: str) -> None:
    """Raise the 404 unless the tenant holds something about ``subject`` (in any lane).

    A subject of another tenant is unknown here by construction, so both read the same.
    """
    audit = memory.views.audit(subject)
    if not (audit.facts or audit.summaries or audit.notes):
        raise not_found()


async def known_query(request: Request) -> None:
    """Refuse a query parameter the route does not declare, or one given twice.

    A misspelt ``valid_at`` would otherwise be dropped in silence and the read answered
    for "now".

    Raises:
        ApiError: 422 naming the unknown parameter.
    """
    dependant = getattr(request.scope.get("route"), "dependant", None)
    if dependant is None or not request.query_params:
        return
    declared = _query_names(dependant)
    for name in request.query_params:
        if name not in declared:
            raise ApiError(422, "unknown query parameter", field=name)
        if len(request.query_params.getlist(name)) > 1:
            raise ApiError(422, "given more than once", field=name)


def _query_names(dependant: Any) -> set[str]:
    """The query parameters a route declares, its dependencies' (paging) included."""
    names = {param.alias for param in dependant.query_params}
    for inner in dependant.dependencies:
        names |= _query_names(inner)
    return names
