"""Field types that HTTP and MCP share, and the MCP tool signatures built from a declaration.

Only pydantic is needed here (the ``mcp`` extra brings it; FastAPI is not): the MCP server
and the HTTP routes both read their parameters' types from :func:`field_type`, which maps a
declared parameter (:mod:`memlane.operations.spec`) to a type with its limits published in
the JSON schema, and for HTTP also checked by the library's own rule as the request is read.
MCP publishes the same limits and lets the library refuse (a tool error naming the field).
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, Literal, TypeVar

from pydantic import AfterValidator, BeforeValidator, Field, GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema

from memlane import validation
from memlane.operations.spec import Operation, Param
from memlane.timeutil import INSTANT_PATTERN
from memlane.validation import MAX_LABEL_CHARS
from memlane.workflows.parse import steps_schema

Function = TypeVar("Function", bound=Callable[..., Any])


@dataclass(frozen=True, slots=True)
class Published:
    """Adds JSON-schema keywords (limits, patterns) to a field of the OpenAPI document."""

    keywords: str
    """The keywords, as JSON (so that the annotation stays hashable)."""

    @classmethod
    def of(cls, keywords: dict[str, Any]) -> Published:
        """Publish ``keywords``."""
        return cls(json.dumps(keywords, sort_keys=True))

    def __get_pydantic_json_schema__(
        self, core_schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        """The field's schema with these keywords added."""
        schema = handler(core_schema)
        schema.update(json.loads(self.keywords))
        return schema


def enforced(rule: Callable[[str, Any], object]) -> AfterValidator:
    """Apply a rule of :mod:`memlane.validation` to a field as the request is read.

    The rule is the library's own, so HTTP refuses exactly what the library refuses, before
    any work starts; the 422 names the field (see ``errors.install``).
    """

    def check(value: Any) -> Any:
        if value is not None:
            rule("value", value)
        return value

    return AfterValidator(check)


NOT_NULL: dict[str, Any] = {"not": {"type": "null"}}
"""What the OpenAPI document and the MCP schemas publish of a JSON value that must be given."""


INSTANT_SCHEMA: dict[str, Any] = {"minLength": 1, "maxLength": 64, "pattern": INSTANT_PATTERN}
"""What the OpenAPI document and the MCP schemas publish of an ISO-8601 time."""


def _text_rule(limit: int) -> Callable[[str, Any], object]:
    return lambda field, value: validation.text(field, value, limit)


Name = Annotated[str, Published.of(validation.name_schema()), enforced(validation.name)]
"""A subject, attribute, session id or speaker: the library's name rule."""


def field_type(param: Param, *, enforce: bool) -> Any:
    """The type of ``param``: limits published, and checked by the library rule if ``enforce``."""
    base = _base(param, enforce)
    return base | None if param.nullable else base


def conditions(params: tuple[Param, ...]) -> dict[str, Any]:
    """The JSON-schema rules of an object whose parameters depend on each other.

    A parameter given only with other values (:attr:`Param.only_with`) reads: *if* it is
    present and not null, *then* the others hold those values.
    """
    rules = [
        {
            "if": {"properties": {p.name: {"not": {"type": "null"}}}, "required": [p.name]},
            "then": {
                "properties": {other: {"const": value} for other, value in p.only_with},
                "required": [other for other, _ in p.only_with],
            },
        }
        for p in params
        if p.only_with
    ]
    return {"allOf": rules} if rules else {}


def tool(operation: Operation) -> Callable[[Function], Function]:
    """Give an MCP tool method (``self, **arguments``) the signature and doc of ``operation``.

    The method's own docstring, if any, follows the operation's doc in the tool description.
    """

    def declare(method: Function) -> Function:
        parameters = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
        for param in operation.params:
            published = field_type(param, enforce=False)
            parameters.append(
                inspect.Parameter(
                    param.name,
                    inspect.Parameter.KEYWORD_ONLY,
                    annotation=Annotated[published, Field(description=param.doc)],
                    default=inspect.Parameter.empty if param.required else param.default,
                )
            )
        signature = inspect.Signature(parameters, return_annotation=dict[str, Any])
        setattr(method, "__signature__", signature)  # noqa: B010
        notes = inspect.cleandoc(method.__doc__ or "")
        method.__doc__ = f"{operation.doc}\n\n{notes}" if notes else operation.doc
        return method

    return declare


def _base(param: Param, enforce: bool) -> Any:
    if param.kind in ("name", "text", "instant", "token"):
        return _string(param, enforce)
    if param.kind in ("integer", "number"):
        number = int if param.kind == "integer" else float
        return Annotated[number, Field(ge=param.low, le=param.high), BeforeValidator(_whole)]
    if param.kind == "choice":
        return Literal.__getitem__(param.choices)
    if param.kind == "flag":
        return bool
    if param.kind == "steps":  # published; the library reads and checks them
        return Annotated[list[dict[str, Any]], Published.of(steps_schema())]
    # A JSON value that must be given is never null: null would mean "no value".
    return Any if param.nullable else Annotated[Any, Published.of(NOT_NULL)]


def _string(param: Param, enforce: bool) -> Any:
    limit = MAX_LABEL_CHARS if param.high is None else int(param.high)
    schema, rule = {
        "name": (validation.name_schema(), validation.name),
        "token": (validation.token_schema(), validation.token),
        "instant": (INSTANT_SCHEMA, _text_rule(64)),
        "text": (validation.text_schema(limit), _text_rule(limit)),
    }[param.kind]
    if enforce:
        return Annotated[str, Published.of(schema), enforced(rule)]
    return Annotated[str, Published.of(schema)]


def _whole(value: Any) -> Any:
    """A whole number sent as ``5.0`` is the integer 5, as JSON Schema counts it."""
    return int(value) if isinstance(value, float) and value.is_integer() else value
