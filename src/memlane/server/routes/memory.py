"""``/v1/remember``, ``/v1/recall``, ``/v1/summaries/...`` and ``/v1/sessions/...``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from fastapi import APIRouter, Depends, Query

from memlane.memory import Memory
from memlane.operations.catalog import ACTIVE_VIEW, ADD_TURN, CLOSE_SESSION, RECALL, REMEMBER
from memlane.server.auth import Reader, Writer
from memlane.server.declared import query_parameters, request_model
from memlane.server.errors import API_ERRORS, not_found
from memlane.server.routes.common import Body, Name, QueryText, known_subject
from memlane.server.serialize import (
    note_dict,
    note_hit_dict,
    profile_dict,
    summary_dict,
    summary_hit_dict,
    turn_dict,
)
from memlane.session import Session

router = APIRouter(prefix="/v1", tags=["memory"], responses=API_ERRORS)

MAX_K = 100

if TYPE_CHECKING:
    Remember = Body
    RecallQuery = Body
    TurnIn = Body
    SessionRef = Body
else:  # the bodies, built from the operations' declarations
    Remember = request_model(REMEMBER, "Remember")
    RecallQuery = request_model(RECALL, "RecallQuery")
    TurnIn = request_model(ADD_TURN, "TurnIn")
    SessionRef = request_model(CLOSE_SESSION, "SessionRef")

ActiveQuery = Annotated[dict[str, Any], Depends(query_parameters(ACTIVE_VIEW))]


K = Annotated[int, Query(ge=1, le=MAX_K, description="At most this many hits.")]


@router.post("/remember", tags=["memory"])
def remember(caller: Writer, body: Remember) -> dict[str, Any]:
    """``mem.remember``: a free-text statement, kept as a note plus the facts it states."""
    with caller.memory() as memory:
        note = memory.remember(**dict(body))
    return {"note": note_dict(note)}


@router.post("/recall")
def recall(caller: Reader, body: RecallQuery) -> dict[str, Any]:
    """``mem.recall``: ranked items from the right lanes, the plan, and a prompt block."""
    with caller.memory() as memory:
        result = memory.recall(**dict(body))
    return result.to_dict()


@router.get("/summaries/search", tags=["summaries"])
def search(
    caller: Reader, query: QueryText, subject: Name | None = None, k: K = 5
) -> dict[str, Any]:
    """``summaries.search``: session summaries and storylines matching ``query``."""
    with caller.memory() as memory:
        hits = memory.summaries.search(subject, query, k)
    return {"items": [summary_hit_dict(hit) for hit in hits]}


@router.get("/summaries/search_notes", tags=["summaries"])
def search_notes(
    caller: Reader, query: QueryText, subject: Name | None = None, k: K = 5
) -> dict[str, Any]:
    """``summaries.search_notes``: notes matching ``query``."""
    with caller.memory() as memory:
        hits = memory.summaries.search_notes(subject, query, k)
    return {"items": [note_hit_dict(hit) for hit in hits]}


@router.get("/summaries/storyline", tags=["summaries"])
def storyline(caller: Reader, subject: Name) -> dict[str, Any]:
    """``summaries.storyline``: the subject's rolling summary (404: none)."""
    with caller.memory() as memory:
        found = memory.summaries.storyline(subject)
    if found is None:
        raise not_found()
    return {"summary": summary_dict(found)}


@router.get("/views/active", tags=["views"])
def active(caller: Reader, read: ActiveQuery) -> dict[str, Any]:
    """``views.active``: the subject as agents see it (profile, storyline, notes)."""
    with caller.memory() as memory:
        known_subject(memory, read["subject"])
        view = memory.views.active(**read)
    return {
        "profile": profile_dict(view.profile),
        "storyline": None if view.storyline is None else summary_dict(view.storyline),
        "notes": [note_dict(n) for n in view.notes],
    }


@router.post("/sessions/turn", tags=["sessions"])
def add_turn(caller: Writer, body: TurnIn) -> dict[str, Any]:
    """``session.add``: a turn of a running session (opened on its first turn)."""
    with caller.memory() as memory:
        turn = memory.add_turn(**dict(body))
    return {"turn": turn_dict(turn)}


@router.get("/sessions/window", tags=["sessions"])
def window(caller: Reader, subject: Name, session_id: Name) -> dict[str, Any]:
    """``session.window``: the turns kept verbatim (404: no such running session)."""
    with caller.memory() as memory:
        turns = _running(memory, subject, session_id).window()
    return {"items": [turn_dict(t) for t in turns]}


@router.post("/sessions/close", tags=["sessions"])
def close(caller: Writer, body: SessionRef) -> dict[str, Any]:
    """``session.close``: fold the window into the session summary."""
    with caller.memory() as memory:
        summary = _running(memory, **dict(body)).close()
    return {"summary": None if summary is None else summary_dict(summary)}


def _running(memory: Memory, subject: str, session_id: str) -> Session:
    found = memory.running_session(subject, session_id)
    if found is None:
        raise not_found()
    return found
