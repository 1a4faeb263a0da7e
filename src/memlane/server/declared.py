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
from collections.abc import Callable
from typing import Annotated, Any

from fastapi import Depends, Query
from pydantic import Field, create_model

from memlane.operations.spec import Operation
from memlane.server.fields import field_type
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
    """A dependency reading ``operation``'s query parameters as :data:`Arguments`."""
    return Depends(query_parameters(operation))


@functools.cache
def _body_reader(operation: Operation, model_name: str) -> Callable[..., Arguments]:
    """One reader per body, so that two routes taking it share one OpenAPI schema."""
    model = request_model(operation, model_name)

    def read(given: Any) -> Arguments:
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
        for param in operation.params
    }
    model: type[Body] = create_model(
        model_name, __base__=Body, __doc__=f"The body of ``{operation.name}``.", **fields
    )
    return model


def query_parameters(operation: Operation) -> Callable[..., dict[str, Any]]:
    """A dependency declaring ``operation``'s query parameters; it returns them by name."""

    def given(**values: Any) -> dict[str, Any]:
        return values

    parameters = [
        inspect.Parameter(
            param.name,
            inspect.Parameter.KEYWORD_ONLY,
            annotation=Annotated[field_type(param, enforce=True), Query(description=param.doc)],
            default=inspect.Parameter.empty if param.required else param.default,
        )
        for param in operation.params
    ]
    setattr(given, "__signature__", inspect.Signature(parameters))  # noqa: B010
    given.__name__ = given.__qualname__ = f"{operation.name.replace('.', '_')}_query"
    return given
