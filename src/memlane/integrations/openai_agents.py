"""memlane as an OpenAI Agents SDK session, plus ``recall`` and ``remember`` tools.

Needs the ``openai-agents`` extra (``pip install 'memlane[openai-agents]'``).

>>> from agents import Agent, Runner  # doctest: +SKIP
>>> from memlane.integrations.openai_agents import MemlaneSession, memlane_tools
>>> session = MemlaneSession(mem, subject="U-1", session_id="s-9")  # doctest: +SKIP
>>> agent = Agent(name="helper", tools=memlane_tools(mem, "U-1"))  # doctest: +SKIP
>>> await Runner.run(agent, "I moved to Lisbon", session=session)  # doctest: +SKIP

``MemlaneSession`` implements the SDK's ``Session`` protocol (``get_items``, ``add_items``,
``pop_item``, ``clear_session``). Two things happen to each added item:

- it is kept verbatim, in order, as a version in the exact lane of ``subject`` — the history
  the SDK replays to the model, exactly as it was given (tool calls and all), readable as of
  any past moment, and reached by ``Memory.forget(subject)`` and ``purge``;
- a message with text (user, assistant, system or developer) also becomes a turn of the
  memlane session ``session_id``: user turns are extracted into facts and notes at once,
  rounds leaving the window are folded into the session summary. So what the user says in
  a conversation is in ``mem.recall`` from then on.

``pop_item`` removes the newest item from the history (what memlane already learned from it
stays, like anything said); ``clear_session`` empties the history and closes the memlane
session, folding its window into the summary.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, cast

from memlane.errors import InvalidInput
from memlane.integrations._records import Records, address
from memlane.session import MAX_TURN_CHARS
from memlane.summaries.model import Summary
from memlane.window.model import Role

try:
    from agents import FunctionTool, RunContextWrapper, function_tool
    from agents.exceptions import ModelBehaviorError
    from agents.items import TResponseInputItem
    from agents.memory import SessionSettings
    from agents.memory.session_settings import resolve_session_limit
except ImportError as error:  # pragma: no cover - exercised by a test with the package hidden
    raise ImportError(
        "memlane.integrations.openai_agents needs the OpenAI Agents SDK: "
        "pip install 'memlane[openai-agents]'"
    ) from error

if TYPE_CHECKING:
    from memlane.memory import Memory

__all__ = ["MemlaneSession", "memlane_tools"]

KIND = "agents"
_ROLES: dict[str, Role] = {
    "user": "user",
    "assistant": "assistant",
    "system": "system",
    "developer": "system",
}


class MemlaneSession:
    """The Agents SDK ``Session`` protocol over a memlane memory (see the module docstring).

    Args:
        memory: the memory that keeps the conversation.
        subject: whom the conversation is about (the user).
        session_id: the conversation; the SDK's ``session_id`` and memlane's.
        window: rounds the memlane session keeps verbatim before folding them.
        session_settings: the SDK's settings (``limit``: the default of ``get_items``).

    Raises:
        InvalidInput: an empty subject or session id, or a bad window.
    """

    def __init__(
        self,
        memory: Memory,
        subject: str,
        session_id: str,
        *,
        window: int = 5,
        session_settings: SessionSettings | None = None,
    ) -> None:
        memory.session(subject, session_id, window)  # validates all three, opens the session
        self.memory = memory
        self.subject = subject
        self.session_id = session_id
        self.window = window
        self.session_settings = session_settings
        self._records = Records(memory, KIND)
        self._lock = threading.Lock()

    # -- the Session protocol -------------------------------------------------------------

    async def get_items(self, limit: int | None = None) -> list[TResponseInputItem]:
        """The history, oldest first; with ``limit``, its latest ``limit`` items in order."""
        return await asyncio.to_thread(self.items, limit)

    async def add_items(self, items: list[TResponseInputItem]) -> None:
        """Append items to the history; their text messages become memlane turns."""
        await asyncio.to_thread(self.add, items)

    async def pop_item(self) -> TResponseInputItem | None:
        """Remove and return the newest item (``None`` if the history is empty)."""
        return await asyncio.to_thread(self.pop)

    async def clear_session(self) -> None:
        """Empty the history and close the memlane session (its window is summarized)."""
        await asyncio.to_thread(self.clear)

    # -- the same, synchronously ----------------------------------------------------------

    def items(self, limit: int | None = None) -> list[TResponseInputItem]:
        """:meth:`get_items` without the event loop.

        A limit of 0 gives nothing and a negative one everything, as the SDK's own SQLite
        session does.
        """
        limit = resolve_session_limit(limit, self.session_settings)
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int)):
            raise InvalidInput("limit", f"must be an integer or None, got {limit!r}")
        history = [item for _, item in self._history()]
        if limit is None or limit < 0:
            return history
        return history[-limit:] if limit else []

    def add(self, items: Iterable[TResponseInputItem]) -> None:
        """:meth:`add_items` without the event loop; all items are kept, or none."""
        batch = [_checked_item(item) for item in items]
        if not batch:
            return
        with self._lock, self.memory.facts.batch():
            last = max((seq for seq, _ in self._history()), default=0)
            for seq, item in enumerate(batch, start=last + 1):
                payload = {"session_id": self.session_id, "seq": seq, "item": item}
                self._records.write(self.subject, address(self.session_id, seq), payload)
        for item in batch:
            turn = _turn_of(item)
            if turn is not None:
                self.memory.session(self.subject, self.session_id, self.window).add(*turn)

    def pop(self) -> TResponseInputItem | None:
        """:meth:`pop_item` without the event loop."""
        with self._lock, self.memory.facts.batch():
            history = self._history()
            if not history:
                return None
            seq, item = history[-1]
            self._records.remove(self.subject, address(self.session_id, seq))
            return item

    def clear(self) -> None:
        """:meth:`clear_session` without the event loop."""
        with self._lock:
            with self.memory.facts.batch():
                for seq, _ in self._history():
                    self._records.remove(self.subject, address(self.session_id, seq))
            self.close()

    def close(self) -> Summary | None:
        """Close the memlane session: fold its window into the summary (the history stays)."""
        running = self.memory.running_session(self.subject, self.session_id)
        return None if running is None else running.close()

    def _history(self) -> list[tuple[int, TResponseInputItem]]:
        found = []
        for fact in self._records.scan(self.subject):
            payload = fact.value
            if isinstance(payload, dict) and payload.get("session_id") == self.session_id:
                found.append((int(payload["seq"]), cast(TResponseInputItem, payload["item"])))
        return sorted(found, key=lambda entry: entry[0])


def memlane_tools(
    memory: Memory, subject: str, *, session_id: str | None = None
) -> list[FunctionTool]:
    """``recall`` and ``remember`` as Agents SDK function tools, bound to one subject.

    ``recall(query)`` answers with memlane's recall block (facts, notes, summaries; the
    window of ``session_id`` too, when given); ``remember(text)`` keeps a statement (a note,
    plus the facts it states). A bad argument comes back to the model as the tool's error
    message, naming the field.

    >>> agent = Agent(name="helper", tools=memlane_tools(mem, "U-1"))  # doctest: +SKIP

    Raises:
        InvalidInput: an empty subject.
    """
    if not isinstance(subject, str) or not subject.strip():
        raise InvalidInput("subject", "must be a non-empty string")

    def recall(query: str) -> str:
        """Look up what long-term memory holds about the user.

        Args:
            query: The question, in the user's words, e.g. "where does the user live?".
        """
        return memory.recall(subject, query, session_id=session_id).text

    def remember(text: str) -> str:
        """Keep a statement about the user in long-term memory.

        Args:
            text: One self-contained statement, e.g. "The user's favourite team is Chelsea".
        """
        note = memory.remember(subject, text, source="agent")
        return f"Remembered (note {note.id})."

    return [
        function_tool(recall, failure_error_function=_tool_error),
        function_tool(remember, failure_error_function=_tool_error),
    ]


def _tool_error(context: RunContextWrapper[Any], error: Exception) -> str:
    """What the model reads when a tool call fails: the field at fault, so it can retry."""
    if isinstance(error, InvalidInput):
        return f"Invalid argument {error}"
    if isinstance(error, ModelBehaviorError):  # arguments that are not the tool's JSON
        return str(error)
    return f"memlane failed ({type(error).__name__}); try again later."


def _checked_item(item: object) -> Any:
    if not isinstance(item, Mapping):
        raise InvalidInput("items", f"each item must be a mapping, got {type(item).__name__}")
    return dict(item)


def _turn_of(item: Mapping[str, Any]) -> tuple[Role, str] | None:
    """The memlane turn a history item says, if it is a message with text."""
    role = _ROLES.get(str(item.get("role")))
    if role is None or item.get("type", "message") != "message":
        return None
    content = item.get("content")
    if isinstance(content, list):
        content = "\n".join(
            part["text"]
            for part in content
            if isinstance(part, Mapping) and isinstance(part.get("text"), str)
        )
    if not isinstance(content, str) or not content.strip():
        return None
    return role, content.strip()[:MAX_TURN_CHARS]
