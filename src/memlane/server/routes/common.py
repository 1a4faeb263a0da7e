"""Pieces shared by the routes: pagination, body models, the subject check."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Depends, Query
from pydantic import BaseModel, ConfigDict

from memlane.memory import Memory
from memlane.server.errors import not_found
from memlane.server.serialize import page

MAX_PAGE = 1000


class Body(BaseModel):
    """A request body: unknown fields are an error, not silently dropped."""

    model_config = ConfigDict(extra="forbid")


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
ValidAt = Annotated[str | None, Query(description="Valid-time instant (ISO-8601; default now).")]
KnownAt = Annotated[
    str | None, Query(description="Transaction-time instant (ISO-8601; default: now).")
]


def known_subject(memory: Memory, subject: str) -> None:
    """Raise the 404 unless the tenant holds something about ``subject`` (in any lane).

    A subject of another tenant is unknown here by construction, so both read the same.
    """
    audit = memory.views.audit(subject)
    if not (audit.facts or audit.summaries or audit.notes):
        raise not_found()
