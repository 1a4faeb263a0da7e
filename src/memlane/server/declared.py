"""HTTP request models and query parameters, built from an operation's declaration.

Each public operation is declared once (:mod:`memlane.operations.catalog`); this module
turns a declaration into what FastAPI reads — a pydantic body model for a POST route, a
dependency whose signature lists a GET route's query parameters — with the field types of
:mod:`memlane.server.fields`, which the MCP tools use too. So a parameter's name, type,
default, limits and doc cannot differ between the HTTP route and the MCP tool.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable
from typing import Annotated, Any

from fastapi import Depends, Path, Query
from pydantic import ConfigDict, Field, create_model

from memlane.operations.spec import Operation, Param
from memlane.server.fields import conditions, field_type
from memlane.server.routes.common import Body

Arguments = dict[str, Any]
"""What a route receives: the operation's arguments by name, checked, for the library call."""


def body(operation: Operation, model_name: str) -> Any:
    """A dependency reading ``operation``'s JSON body as :data:`Arguments`.

    ``Annotated[Arguments, body(catalog.RECALL, "RecallQuery")]``: the body is the model of
    :func:`request_model`, published as ``model_name`` in the OpenAPI document.
    """
    return Depends(_body_reader(operation, model_name))


def query(operation: Operation) -> Any:
    """A dependency reading ``operation``'s query (and path) parameters as :data:`Arguments`.

    A parameter named in braces in the operation's route (``/v1/keys/{key_id}``) is read
    from the path.
    """
    return Depends(query_parameters(operation))


def requested(operation: Operation) -> tuple[Param, ...]:
    """The parameters a request gives: all but those taken from the caller's key."""
    return tuple(param for param in operation.params if param.name not in operation.from_key)


@functools.cache
def _body_reader(operation: Operation, model_name: str) -> Callable[..., Awaitable[Arguments]]:
    """One reader per body, so that two routes taking it share one OpenAPI schema."""
    model = request_model(operation, model_name)

    async def read(given: Any) -> Arguments:
        return dict(given)

    parameter = inspect.Parameter("given", inspect.Parameter.KEYWORD_ONLY, annotation=model)
    setattr(read, "__signature__", inspect.Signature([parameter]))  # noqa: B010
    return read


def request_model(operation: Operation, model_name: str) -> type[Body]:
    """The body of ``operation``'s POST route, called ``model_name`` in the OpenAPI document."""
    fields: dict[str, Any] = {
        param.name: (
            Annotated[field_type(param, enforce=True), Field(description=param.doc)],
            ... if param.required else param.default,
        )
        for param in requested(operation)
    }
    base: type[Body] = Body
    rules = conditions(requested(operation))
    if rules:  # published in the schema; the library checks them

        class Conditional(Body):
            model_config = ConfigDict(json_schema_extra=rules)  # merged with Body's

        base = Conditional
    model: type[Body] = create_model(
        model_name, __base__=base, __doc__=f"The body of ``{operation.name}``.", **fields
    )
    return model


def query_parameters(operation: Operation) -> Callable[..., Awaitable[dict[str, Any]]]:
    """A dependency declaring ``operation``'s query parameters; it returns them by name."""

    async def given(**values: Any) -> dict[str, Any]:
        return values

    parameters = [
        inspect.Parameter(
            param.name,
            inspect.Parameter.KEYWORD_ONLY,
            annotation=Annotated[field_type(param, enforce=True), _where(operation, param)],
            default=inspect.Parameter.empty if param.required else param.default,
        )
        for param in requested(operation)
    ]
    setattr(given, "__signature__", inspect.Signature(parameters))  # noqa: B010
    given.__name__ = given.__qualname__ = f"{operation.name.replace('.', '_')}_query"
    return given


def _where(operation: Operation, param: Param) -> Any:
    """``Path`` for a parameter named in braces in the route, else ``Query``."""
    in_path = any(f"{{{param.name}}}" in route for route in operation.http)
    return Path(description=param.doc) if in_path else Query(description=param.doc)
