"""Pieces shared by the routes: pagination, body models, the subject check."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Depends, Query, Request
from pydantic import AfterValidator, BaseModel, ConfigDict, GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema

from memlane import validation
from memlane.memory import Memory
from memlane.router.analysis import MAX_QUERY_CHARS
from memlane.server.errors import ApiError, not_found
from memlane.server.serialize import page
from memlane.timeutil import INSTANT_PATTERN
from memlane.validation import MAX_LABEL_CHARS, MAX_NOTE_CHARS, MAX_TURN_CHARS

MAX_PAGE = validation.MAX_PAGE


@dataclass(frozen=True, slots=True)
class Published:
    """Adds JSON-schema keywords (limits, patterns) to a field of the OpenAPI document."""

    keywords: tuple[tuple[str, Any], ...]

    @classmethod
    def of(cls, keywords: dict[str, Any]) -> Published:
        """The keywords of ``keywords`` (kept hashable, as type annotations must be)."""
        frozen = {k: tuple(v) if isinstance(v, list) else v for k, v in keywords.items()}
        return cls(tuple(sorted(frozen.items())))

    def __get_pydantic_json_schema__(
        self, core_schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        """The field's schema with these keywords added."""
        schema = handler(core_schema)
        schema.update({k: list(v) if isinstance(v, tuple) else v for k, v in self.keywords})
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


def _text_rule(limit: int) -> Callable[[str, Any], object]:
    return lambda field, value: validation.text(field, value, limit)


Name = Annotated[str, Published.of(validation.name_schema()), enforced(validation.name)]
"""A subject, attribute, session id or speaker: the library's name rule."""
NoteText = Annotated[
    str, Published.of(validation.text_schema(MAX_NOTE_CHARS)), enforced(_text_rule(MAX_NOTE_CHARS))
]
"""The text of ``remember``."""
TurnText = Annotated[
    str, Published.of(validation.text_schema(MAX_TURN_CHARS)), enforced(_text_rule(MAX_TURN_CHARS))
]
"""The content of a turn."""
Label = Annotated[
    str,
    Published.of(validation.text_schema(MAX_LABEL_CHARS)),
    enforced(_text_rule(MAX_LABEL_CHARS)),
]
"""A ``source`` or a ``reason``."""
QueryText = Annotated[
    str,
    Published.of(validation.text_schema(MAX_QUERY_CHARS)),
    enforced(_text_rule(MAX_QUERY_CHARS)),
]
"""A search question (the router checks the rest)."""
Instant = Annotated[
    str,
    Published.of({"minLength": 1, "maxLength": 64, "pattern": INSTANT_PATTERN}),
    enforced(lambda field, value: validation.text(field, value, 64)),
]
"""An ISO-8601 date or instant."""


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


def paging(
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE, description="Page size.")] = 100,
    offset: Annotated[int, Query(ge=0, description="Items to skip.")] = 0,
) -> Paging:
    """The pagination parameters of a list route."""
    return Paging(limit=limit, offset=offset)


Page = Annotated[Paging, Depends(paging)]
ValidAt = Annotated[
    Instant | None, Query(description="Valid-time instant (ISO-8601; default now).")
]
KnownAt = Annotated[
    Instant | None, Query(description="Transaction-time instant (ISO-8601; default: now).")
]


def known_subject(memory: Memory, subject: str) -> None:
    """Raise the 404 unless the tenant holds something about ``subject`` (in any lane).

    A subject of another tenant is unknown here by construction, so both read the same.
    """
    audit = memory.views.audit(subject)
    if not (audit.facts or audit.summaries or audit.notes):
        raise not_found()


def known_query(request: Request) -> None:
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
