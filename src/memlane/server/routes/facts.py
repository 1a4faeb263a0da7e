"""``/v1/facts/...``: the exact lane, named as in ``mem.facts``."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter

from memlane.operations import catalog
from memlane.server.auth import Auditor, Reader, Writer
from memlane.server.declared import Arguments, body, query
from memlane.server.errors import API_ERRORS, not_found
from memlane.server.routes.common import (
    JsonRoute,
    Page,
    known_subject,
)
from memlane.server.serialize import profile_dict

router = APIRouter(prefix="/v1/facts", tags=["facts"], responses=API_ERRORS, route_class=JsonRoute)


@router.get("/get")
def get(caller: Reader, given: Annotated[Arguments, query(catalog.FACT_GET)]) -> dict[str, Any]:
    """``facts.get``: the version valid at ``valid_at`` as believed at ``known_at`` (404: none)."""
    with caller.memory() as memory:
        found = memory.facts.get(**given)
    if found is None:
        raise not_found()
    return {"fact": found.to_dict()}


@router.get("/get_all")
def get_all(caller: Reader, given: Annotated[Arguments, query(catalog.FACT_GET)]) -> dict[str, Any]:
    """``facts.get_all``: every value of a many-valued attribute at that point."""
    with caller.memory() as memory:
        found = memory.facts.get_all(**given)
    return {"facts": [f.to_dict() for f in found]}


@router.get("/history")
def history(
    caller: Reader, paging: Page, given: Annotated[Arguments, query(catalog.FACT_HISTORY)]
) -> dict[str, Any]:
    """``facts.history``: the valid-time timeline believed at ``known_at``."""
    with caller.memory() as memory:
        known_subject(memory, given["subject"])
        found = memory.facts.history(**given)
    return paging.of([f.to_dict() for f in found])


@router.get("/audit")
def audit(
    caller: Auditor, paging: Page, given: Annotated[Arguments, query(catalog.FACT_AUDIT)]
) -> dict[str, Any]:
    """``facts.audit``: every version ever stored, deleted ones flagged (auditor role)."""
    with caller.memory() as memory:
        known_subject(memory, given["subject"])
        found = memory.facts.audit(**given)
    return paging.of([f.to_dict() for f in found])


@router.get("/lookup")
def lookup(
    caller: Reader, paging: Page, given: Annotated[Arguments, query(catalog.FACT_LOOKUP)]
) -> dict[str, Any]:
    """``facts.lookup``: subjects whose identifier is exactly ``value``."""
    with caller.memory() as memory:
        subjects = memory.facts.lookup(**given)
    return paging.of(subjects)


@router.get("/profile")
def profile(
    caller: Reader, given: Annotated[Arguments, query(catalog.FACT_PROFILE)]
) -> dict[str, Any]:
    """``facts.profile``: every attribute of a subject at that point."""
    with caller.memory() as memory:
        known_subject(memory, given["subject"])
        found = memory.facts.profile(**given)
    return {"subject": given["subject"], "profile": profile_dict(found)}


@router.post("/set")
def set_fact(
    caller: Writer, given: Annotated[Arguments, body(catalog.FACT_SET, "FactWrite")]
) -> dict[str, Any]:
    """``facts.set``: a one-valued attribute holds ``value`` on ``[valid_from, valid_to)``."""
    return _write(caller, given, "set")


@router.post("/add")
def add_fact(
    caller: Writer, given: Annotated[Arguments, body(catalog.FACT_SET, "FactWrite")]
) -> dict[str, Any]:
    """``facts.add``: one more value of a many-valued attribute."""
    return _write(caller, given, "add")


def _write(caller: Writer, given: Arguments, operation: str) -> dict[str, Any]:
    """Run ``facts.set`` or ``facts.add`` with the body's fields."""
    with caller.memory() as memory:
        write = memory.facts.set if operation == "set" else memory.facts.add
        written = write(**given)
    return {"fact": written.to_dict()}


@router.post("/retract")
def retract(
    caller: Writer, given: Annotated[Arguments, body(catalog.FACT_RETRACT, "Retraction")]
) -> dict[str, Any]:
    """``facts.retract``: end what holds (one value, if given) on the interval."""
    with caller.memory() as memory:
        ended = memory.facts.retract(**given)
    return {"superseded": [f.to_dict() for f in ended]}


@router.post("/define")
def define(
    caller: Writer, given: Annotated[Arguments, body(catalog.FACT_DEFINE, "Definition")]
) -> dict[str, Any]:
    """``facts.define``: an attribute's cardinality and whether it is an identifier."""
    with caller.memory() as memory:
        definition = memory.facts.define(**given)
    return {
        "attribute": definition.name,
        "cardinality": definition.cardinality,
        "identifier": definition.identifier,
        "normalizer": definition.normalizer,
    }
