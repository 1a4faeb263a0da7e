"""HTTP request models and query parameters, built from an operation's declaration.

Each public operation is declared once (:mod:`memlane.operations.catalog`); this module
turns a declaration into what FastAPI reads — a pydantic body model for a POST route, a
dependency whose signature lists a GET route's query parameters — with the field types of
:mod:`memlane.server.fields`, which the MCP tools use too. So a parameter's name, type,
default, limits and doc cannot differ between the HTTP route and the MCP tool.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Annotated, Any

from fastapi import Query
from pydantic import Field, create_model

from memlane.operations.spec import Operation
from memlane.server.fields import field_type
from memlane.server.routes.common import Body


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
