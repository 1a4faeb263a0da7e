"""``/v1/remember``, ``/v1/recall``, ``/v1/summaries/...`` and ``/v1/sessions/...``."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter

from memlane.memory import Memory
from memlane.operations import catalog
from memlane.server.auth import Reader, Writer
from memlane.server.declared import Arguments, body, query
from memlane.server.errors import API_ERRORS, not_found
from memlane.server.routes.common import JsonRoute, known_subject
from memlane.server.serialize import (
    note_dict,
    note_hit_dict,
    profile_dict,
    summary_dict,
    summary_hit_dict,
    turn_dict,
)
from memlane.session import Session

router = APIRouter(prefix="/v1", tags=["memory"], responses=API_ERRORS, route_class=JsonRoute)


@router.post("/remember", tags=["memory"])
def remember(
    caller: Writer, given: Annotated[Arguments, body(catalog.REMEMBER, "Remember")]
) -> dict[str, Any]:
    """``mem.remember``: a free-text statement, kept as a note plus the facts it states."""
    with caller.memory() as memory:
        note = memory.remember(**given)
    return {"note": note_dict(note)}


@router.post("/recall")
def recall(
    caller: Reader, given: Annotated[Arguments, body(catalog.RECALL, "RecallQuery")]
) -> dict[str, Any]:
    """``mem.recall``: ranked items from the right lanes, the plan, and a prompt block."""
    with caller.memory() as memory:
        result = memory.recall(**given)
    return result.to_dict()


@router.get("/summaries/search", tags=["summaries"])
def search(
    caller: Reader, given: Annotated[Arguments, query(catalog.SUMMARY_SEARCH)]
) -> dict[str, Any]:
    """``summaries.search``: session summaries and storylines matching ``query``."""
    with caller.memory() as memory:
        hits = memory.summaries.search(**given)
    return {"items": [summary_hit_dict(hit) for hit in hits]}


@router.get("/summaries/search_notes", tags=["summaries"])
def search_notes(
    caller: Reader, given: Annotated[Arguments, query(catalog.NOTE_SEARCH)]
) -> dict[str, Any]:
    """``summaries.search_notes``: notes matching ``query``."""
    with caller.memory() as memory:
        hits = memory.summaries.search_notes(**given)
    return {"items": [note_hit_dict(hit) for hit in hits]}


@router.get("/summaries/storyline", tags=["summaries"])
def storyline(
    caller: Reader, given: Annotated[Arguments, query(catalog.STORYLINE)]
) -> dict[str, Any]:
    """``summaries.storyline``: the subject's rolling summary (404: none)."""
    with caller.memory() as memory:
        found = memory.summaries.storyline(**given)
    if found is None:
        raise not_found()
    return {"summary": summary_dict(found)}


@router.get("/views/active", tags=["views"])
def active(
    caller: Reader, given: Annotated[Arguments, query(catalog.ACTIVE_VIEW)]
) -> dict[str, Any]:
    """``views.active``: the subject as agents see it (profile, storyline, notes)."""
    with caller.memory() as memory:
        known_subject(memory, given["subject"])
        view = memory.views.active(**given)
    return {
        "profile": profile_dict(view.profile),
        "storyline": None if view.storyline is None else summary_dict(view.storyline),
        "notes": [note_dict(n) for n in view.notes],
    }


@router.post("/sessions/turn", tags=["sessions"])
def add_turn(
    caller: Writer, given: Annotated[Arguments, body(catalog.ADD_TURN, "TurnIn")]
) -> dict[str, Any]:
    """``session.add``: a turn of a running session (opened on its first turn)."""
    with caller.memory() as memory:
        turn = memory.add_turn(**given)
    return {"turn": turn_dict(turn)}


@router.get("/sessions/window", tags=["sessions"])
def window(
    caller: Reader, given: Annotated[Arguments, query(catalog.SESSION_WINDOW)]
) -> dict[str, Any]:
    """``session.window``: the turns kept verbatim (404: no such running session)."""
    with caller.memory() as memory:
        turns = _running(memory, **given).window()
    return {"items": [turn_dict(t) for t in turns]}


@router.post("/sessions/close", tags=["sessions"])
def close(
    caller: Writer, given: Annotated[Arguments, body(catalog.CLOSE_SESSION, "SessionRef")]
) -> dict[str, Any]:
    """``session.close``: fold the window into the session summary."""
    with caller.memory() as memory:
        summary = _running(memory, **given).close()
    return {"summary": None if summary is None else summary_dict(summary)}


def _running(memory: Memory, subject: str, session_id: str) -> Session:
    found = memory.running_session(subject, session_id)
    if found is None:
        raise not_found()
    return found
