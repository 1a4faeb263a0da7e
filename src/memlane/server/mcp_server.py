"""memlane as an MCP server: tools over one tenant's ``Memory`` (needs the ``mcp`` extra).

Tools: ``remember``, ``recall``, ``get_fact``, ``fact_history``, ``forget``,
``record_trajectory`` and ``find_workflow``. Run it with
``memlane mcp`` (stdio) or ``memlane mcp --http`` (streamable HTTP); see docs/mcp.md.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

from pydantic import Field

from memlane.errors import InvalidInput
from memlane.memory import Memory
from memlane.server.serialize import deletion_dict, note_dict
from memlane.validation import MAX_NOTE_CHARS, name_schema, text_schema

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

INSTRUCTIONS = (
    "Long-term memory. `remember` free-text statements about a subject; `recall` what is "
    "known before answering; `get_fact`/`fact_history` read exact facts on both time axes "
    "(times are ISO-8601); `forget` erases a subject or one attribute in every lane; "
    "`record_trajectory` after a task, `find_workflow` before one, to reuse what worked."
)

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


class MemoryTools:
    """The tool functions, bound to one memory; calls are serialized by a lock."""

    def __init__(self, memory: Memory) -> None:
        self.memory = memory
        self._lock = threading.Lock()

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
        with self._lock:
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
        with self._lock:
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
        with self._lock:
            facts = self.memory.facts
            if facts.definition(attribute).cardinality == "many":
                found = facts.get_all(subject, attribute, valid_at, known_at)
                return {"facts": [f.to_dict() for f in found]}
            one = facts.get(subject, attribute, valid_at, known_at)
        return {"facts": [] if one is None else [one.to_dict()]}

    def fact_history(
        self,
        subject: Subject,
        attribute: Attribute,
        known_at: Instant = None,
    ) -> dict[str, Any]:
        """Every value an attribute had over time, as believed at ``known_at`` (default now)."""
        with self._lock:
            found = self.memory.facts.history(subject, attribute, known_at)
        return {"facts": [f.to_dict() for f in found]}

    def forget(
        self,
        subject: Subject,
        attribute: Annotated[
            str | None, Field(description="Only this attribute; omit to forget the subject.")
        ] = None,
        reason: Annotated[str | None, Field(description="Why, for the deletion log.")] = None,
    ) -> dict[str, Any]:
        """Erase a subject (or one attribute, and every text mentioning its values) everywhere."""
        with self._lock:
            deletion = self.memory.forget(subject, attribute, reason, requested_by="mcp")
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
        with self._lock:
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
        with self._lock:
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


def build_server(memory: Memory) -> MCPServer:
    """An MCP server exposing ``memory`` through its tools.

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

    tools = MemoryTools(memory)
    server: MCPServer = MCPServer("memlane", instructions=INSTRUCTIONS, log_level="WARNING")
    for tool in (
        tools.remember,
        tools.recall,
        tools.get_fact,
        tools.fact_history,
        tools.forget,
        tools.record_trajectory,
        tools.find_workflow,
    ):
        server.add_tool(_reporting(tool, ToolError), name=tool.__name__)
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
