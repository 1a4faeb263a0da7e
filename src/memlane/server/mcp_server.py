"""memlane as an MCP server: tools over one tenant's ``Memory`` (needs the ``mcp`` extra).

The tools are the methods of :class:`MemoryTools` named in :data:`TOOL_NAMES`; the server
registers exactly those, and ``memlane mcp --help`` lists them from the same tuple. Run it
with ``memlane mcp`` (stdio) or ``memlane mcp --http`` (streamable HTTP); see docs/mcp.md.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

from pydantic import Field

from memlane.access import Permission
from memlane.errors import InvalidInput
from memlane.memory import MAX_WINDOW_ROUNDS, Memory
from memlane.operations import attribute_hint, fact_values, require_subject
from memlane.server.serialize import deletion_dict, note_dict, summary_dict, turn_dict
from memlane.validation import (
    MAX_LABEL_CHARS,
    MAX_NOTE_CHARS,
    MAX_TURN_CHARS,
    name_schema,
    text_schema,
)
from memlane.window.model import Role

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

INSTRUCTIONS = (
    "Long-term memory. `recall` what is known before answering; `remember` free-text "
    "statements about a subject; `set_fact`/`add_fact` record exact facts (one-valued / "
    "many-valued) and `get_fact`/`fact_history` read them on both time axes (times are "
    "ISO-8601); `lookup` finds the subject an identifier (phone, order id) belongs to; "
    "`add_turn` records a conversation turn by turn and `close_session` summarizes it; "
    "`forget` erases a subject or one attribute in every lane; `record_trajectory` after a "
    "task, `find_workflow` before one, to reuse what worked."
)

TOOL_NAMES = (
    "recall",
    "remember",
    "set_fact",
    "add_fact",
    "get_fact",
    "fact_history",
    "lookup",
    "add_turn",
    "close_session",
    "forget",
    "record_trajectory",
    "find_workflow",
)
"""Every tool the server offers, in the order ``--help`` and the docs list them."""

TOOL_PERMISSIONS: dict[str, Permission] = {
    **dict.fromkeys(("recall", "get_fact", "fact_history", "lookup", "find_workflow"), "read"),
    **dict.fromkeys(
        ("remember", "set_fact", "add_fact", "add_turn", "close_session", "record_trajectory"),
        "write",
    ),
    "forget": "compliance",
}
"""What a caller's role must grant to use each tool (over HTTP; as the HTTP API's routes)."""

Authorize = Callable[[Permission], str | None]
"""Checks the current caller for a permission: ``None`` if granted, else why not."""

StepList = Annotated[
    list[dict[str, Any]],
    Field(description='The actions taken, in order: [{"action": "search", "args": {...}}, ...]'),
]

Subject = Annotated[
    str,
    Field(
        description="Whose memory: a user or entity id, e.g. U-001.",
        json_schema_extra=name_schema(),
    ),
]
Attribute = Annotated[
    str, Field(description="e.g. location, phone, email.", json_schema_extra=name_schema())
]
Instant = Annotated[
    str | None, Field(description="ISO-8601 instant, e.g. 2026-07-01 or 2026-07-01T09:30Z.")
]
SessionId = Annotated[
    str, Field(description="The conversation's id, e.g. s-42.", json_schema_extra=name_schema())
]
Value = Annotated[
    Any, Field(description="The value: a string, a number, or any JSON (e.g. an object).")
]
Label = Annotated[
    str | None,
    Field(description="Where it came from / why.", json_schema_extra=text_schema(MAX_LABEL_CHARS)),
]


def _fact_write(operation: str, doc: str) -> Callable[..., dict[str, Any]]:
    """The ``set_fact`` or ``add_fact`` tool: one declaration of a fact write's arguments."""

    def tool(
        self: MemoryTools,
        subject: Subject,
        attribute: Attribute,
        value: Value,
        valid_from: Instant = None,
        valid_to: Instant = None,
        source: Label = None,
        reason: Label = None,
        confidence: Annotated[float, Field(ge=0, le=1, description="0 to 1.")] = 1.0,
    ) -> dict[str, Any]:
        return self._write(
            operation,
            subject=subject,
            attribute=attribute,
            value=value,
            valid_from=valid_from,
            valid_to=valid_to,
            source=source,
            reason=reason,
            confidence=confidence,
        )

    tool.__name__ = tool.__qualname__ = f"{operation}_fact"
    tool.__doc__ = doc
    return tool


class MemoryTools:
    """The tool functions, over one memory or over the memory of each call's caller.

    Calls run in parallel (a ``Memory`` is safe to share between threads).

    Args:
        memory: the memory, or a function returning the memory of the current call (over
            HTTP: the tenant of the caller's key).
        requester: who asks, for the deletion log (over HTTP: the caller's key id).
    """

    def __init__(
        self, memory: Memory | Callable[[], Memory], requester: Callable[[], str] = lambda: "mcp"
    ) -> None:
        self._memory = memory
        self._requester = requester

    @property
    def memory(self) -> Memory:
        """The memory this call works on."""
        return self._memory if isinstance(self._memory, Memory) else self._memory()

    def remember(
        self,
        subject: Subject,
        text: Annotated[
            str,
            Field(
                description="The statement to keep, in any language.",
                json_schema_extra=text_schema(MAX_NOTE_CHARS),
            ),
        ],
        at: Instant = None,
        source: Annotated[str | None, Field(description="Where it came from.")] = None,
    ) -> dict[str, Any]:
        """Keep a free-text statement about a subject; facts it states become exact facts."""
        note = self.memory.remember(subject, text, at=at, source=source)
        return {"note": note_dict(note)}

    def recall(
        self,
        query: Annotated[str, Field(description="The question, as the user asked it.")],
        subject: Annotated[
            str | None, Field(description="Whose memory; omit to resolve it from the query.")
        ] = None,
        session_id: Annotated[str | None, Field(description="A running session's id.")] = None,
        k: Annotated[int, Field(ge=1, le=100, description="At most this many items.")] = 8,
        budget_tokens: Annotated[
            int, Field(ge=1, le=100_000, description="Token budget of the text block.")
        ] = 1500,
        valid_at: Instant = None,
        known_at: Instant = None,
    ) -> dict[str, Any]:
        """Recall what memory holds for a question: a prompt-ready text block and the items."""
        result = self.memory.recall(
            subject, query, session_id, k, budget_tokens, valid_at, known_at
        )
        return result.to_dict()

    def get_fact(
        self,
        subject: Subject,
        attribute: Attribute,
        valid_at: Instant = None,
        known_at: Instant = None,
    ) -> dict[str, Any]:
        """The exact value(s) of an attribute at a point in time (default: now)."""
        found = fact_values(self.memory, subject, attribute, valid_at, known_at)
        hint = None if found else attribute_hint(self.memory, attribute, subject)
        return _hinted({"facts": [f.to_dict() for f in found]}, hint)

    def fact_history(
        self,
        subject: Subject,
        attribute: Attribute,
        known_at: Instant = None,
    ) -> dict[str, Any]:
        """Every value an attribute had over time, as believed at ``known_at`` (default now)."""
        found = self.memory.facts.history(subject, attribute, known_at)
        return {"facts": [f.to_dict() for f in found]}

    set_fact = _fact_write(
        "set",
        "Record that a one-valued attribute is `value` from `valid_from` (default now).\n\n"
        "The old value is kept as history, never overwritten.",
    )
    add_fact = _fact_write(
        "add", "Add one more value to a many-valued attribute (another phone, another e-mail)."
    )

    def lookup(
        self,
        attribute: Attribute,
        value: Annotated[str, Field(description="The identifier, written any way.")],
        valid_at: Instant = None,
        known_at: Instant = None,
    ) -> dict[str, Any]:
        """The subjects an identifier belongs to, exactly (never a near miss)."""
        subjects = self.memory.facts.lookup(attribute, value, valid_at, known_at)
        hint = None if subjects else attribute_hint(self.memory, attribute)
        return _hinted({"subjects": subjects}, hint)

    def add_turn(
        self,
        subject: Subject,
        session_id: SessionId,
        role: Annotated[Role, Field(description="Who spoke.")],
        content: Annotated[
            str,
            Field(description="What was said.", json_schema_extra=text_schema(MAX_TURN_CHARS)),
        ],
        at: Instant = None,
        speaker: Annotated[str | None, Field(description="The speaker's name.")] = None,
        window: Annotated[
            int, Field(ge=1, le=MAX_WINDOW_ROUNDS, description="Rounds kept verbatim.")
        ] = 5,
    ) -> dict[str, Any]:
        """Add a turn to a conversation (opened on its first turn); user turns become facts.

        The last ``window`` rounds are kept verbatim; older ones are folded into the session
        summary. Call ``close_session`` when the conversation ends.
        """
        turn = self.memory.add_turn(
            subject, session_id, role, content, at, speaker=speaker, window=window
        )
        return {"turn": turn_dict(turn)}

    def close_session(self, subject: Subject, session_id: SessionId) -> dict[str, Any]:
        """End a conversation: fold what is left into its summary and the subject's storyline."""
        running = self.memory.running_session(subject, session_id)
        if running is None:
            raise InvalidInput(
                "session_id",
                f"no running session {session_id!r} of {subject!r} "
                "(add_turn opens one; it closes by itself after 30 idle minutes)",
            )
        summary = running.close()
        return {"summary": None if summary is None else summary_dict(summary)}

    def forget(
        self,
        subject: Subject,
        attribute: Annotated[
            str | None, Field(description="Only this attribute; omit to forget the subject.")
        ] = None,
        reason: Annotated[str | None, Field(description="Why, for the deletion log.")] = None,
    ) -> dict[str, Any]:
        """Erase a subject (or one attribute, and every text mentioning its values) everywhere.

        A subject nothing is known about is an error, and no deletion is logged.
        """
        require_subject(self.memory, subject)
        deletion = self.memory.forget(subject, attribute, reason, requested_by=self._requester())
        return {"deletion": deletion_dict(deletion)}

    def record_trajectory(
        self,
        task: Annotated[str, Field(description="The task as it was asked.")],
        steps: StepList,
        success: Annotated[bool, Field(description="Did the run achieve the task?")],
        task_type: Annotated[
            str | None, Field(description="A name for the kind of task; omit to infer it.")
        ] = None,
        reason: Annotated[str | None, Field(description="Why it failed, if it did.")] = None,
    ) -> dict[str, Any]:
        """Record one run of a task; workflows are induced and evolved from such runs."""
        run = self.memory.workflows.record(
            task=task, steps=steps, success=success, task_type=task_type, reason=reason
        )
        workflow = self.memory.workflows.get(run.task_type)
        return {
            "trajectory": {"id": run.id, "task_type": run.task_type, "success": run.success},
            "workflow": None if workflow is None else workflow.as_dict(),
        }

    def find_workflow(
        self,
        task: Annotated[str, Field(description="The task about to be done.")],
        k: Annotated[int, Field(ge=1, le=20, description="At most this many workflows.")] = 3,
    ) -> dict[str, Any]:
        """Workflows that fit a task, best first, each with steps an agent can follow."""
        hits = self.memory.workflows.match(task, k=k)
        return {
            "workflows": [
                {
                    "score": hit.score,
                    "workflow": hit.workflow.as_dict(),
                    "instructions": self.memory.workflows.render(hit.workflow),
                }
                for hit in hits
            ]
        }

    def _write(self, operation: str, **arguments: Any) -> dict[str, Any]:
        hint = attribute_hint(self.memory, arguments["attribute"], arguments["subject"])
        write = self.memory.facts.set if operation == "set" else self.memory.facts.add
        fact = write(**arguments)
        return _hinted({"fact": fact.to_dict()}, hint)


def _hinted(payload: dict[str, Any], hint: str | None) -> dict[str, Any]:
    """``payload``, with a ``warning`` when the attribute looks like a typo."""
    return payload if hint is None else {**payload, "warning": hint}


def build_server(
    memory: Memory | Callable[[], Memory],
    *,
    requester: Callable[[], str] | None = None,
    authorize: Authorize | None = None,
) -> MCPServer:
    """An MCP server exposing ``memory`` through its tools.

    Args:
        memory: the memory, or a function giving the memory of the current call.
        requester: names the current caller in the deletion log (default ``"mcp"``).
        authorize: checks each call against :data:`TOOL_PERMISSIONS` (default: all allowed).

    Raises:
        ImportError: the ``mcp`` extra is not installed.
    """
    try:
        from mcp.server.mcpserver import MCPServer
    except ImportError as missing:
        raise ImportError(
            "the memlane MCP server needs the MCP SDK: pip install 'memlane[mcp]'"
        ) from missing
    from mcp.server.mcpserver.exceptions import ToolError

    tools = MemoryTools(memory) if requester is None else MemoryTools(memory, requester)
    server: MCPServer = MCPServer("memlane", instructions=INSTRUCTIONS, log_level="WARNING")
    for name in TOOL_NAMES:
        tool = _reporting(getattr(tools, name), ToolError)
        if authorize is not None:
            tool = _guarded(tool, TOOL_PERMISSIONS[name], authorize, ToolError)
        server.add_tool(tool, name=name)
    return server


Result = TypeVar("Result")


def _reporting(tool: Callable[..., Result], tool_error: type[Exception]) -> Callable[..., Result]:
    """``tool``, with bad input answered as a tool error that names the field.

    The SDK logs a ``ToolError`` in one line, without a traceback: a client's mistake is
    not the server's crash. Its text reads ``<field>: <what is expected>``.
    """

    @functools.wraps(tool)
    def call(*args: Any, **kwargs: Any) -> Result:
        try:
            return tool(*args, **kwargs)
        except InvalidInput as error:
            raise tool_error(str(error)) from error

    return call


def _guarded(
    tool: Callable[..., Result],
    permission: Permission,
    authorize: Authorize,
    tool_error: type[Exception],
) -> Callable[..., Result]:
    """``tool``, refused (a tool error) when the caller's role lacks ``permission``."""

    @functools.wraps(tool)
    def call(*args: Any, **kwargs: Any) -> Result:
        refusal = authorize(permission)
        if refusal is not None:
            raise tool_error(refusal)
        return tool(*args, **kwargs)

    return call
