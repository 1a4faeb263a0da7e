"""A turn of conversation, as the window lane holds it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

Role = Literal["user", "assistant", "system", "tool"]


@dataclass(frozen=True, slots=True)
class Turn:
    """One message of a session, with the id that provenance refers to (``"s-42#3"``).

    ``speaker`` names who said it when a conversation has several people (LoCoMo's
    "Caroline"); ``None`` means the subject (for user turns) or the agent.
    """

    id: str
    session_id: str
    subject: str
    role: Role
    content: str
    at: datetime
    speaker: str | None = None
