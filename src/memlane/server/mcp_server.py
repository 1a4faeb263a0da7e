"""memlane as an MCP server: tools over one tenant's ``Memory`` (needs the ``mcp`` extra).

The tools are the methods of :class:`MemoryTools` named in :data:`TOOL_NAMES`; the server
registers exactly those, and ``memlane mcp --help`` lists them from the same tuple. Run it
with ``memlane mcp`` (stdio) or ``memlane mcp --http`` (streamable HTTP); see docs/mcp.md.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from memlane.access import Permission
from memlane.errors import InvalidInput
from memlane.facts.model import Fact
from memlane.memory import Memory
from memlane.operations import attribute_hint, catalog, fact_values, require_subject
from memlane.server.fields import tool
from memlane.server.serialize import deletion_dict, note_dict, summary_dict, turn_dict

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

    @tool(catalog.REMEMBER)
    def remember(self, **arguments: Any) -> dict[str, Any]:
        """Answers the note kept."""
        note = self.memory.remember(**arguments)
        return {"note": note_dict(note)}

    @tool(catalog.RECALL)
    def recall(self, **arguments: Any) -> dict[str, Any]:
        """Omit ``subject`` to resolve it from the query."""
        result = self.memory.recall(**arguments)
        return result.to_dict()

    @tool(catalog.FACT_GET)
    def get_fact(self, **arguments: Any) -> dict[str, Any]:
        """All values of a many-valued attribute, else the one value."""
        found = fact_values(self.memory, **arguments)
        hint = None if found else self._hint(arguments)
        return _hinted({"facts": [f.to_dict() for f in found]}, hint)

    @tool(catalog.FACT_HISTORY)
    def fact_history(self, **arguments: Any) -> dict[str, Any]:
        """Answers the versions by valid time."""
        found = self.memory.facts.history(**arguments)
        return {"facts": [f.to_dict() for f in found]}

    @tool(catalog.FACT_SET)
    def set_fact(self, **arguments: Any) -> dict[str, Any]:
        """Answers the version written (a warning if the attribute looks like a typo)."""
        return self._write(self.memory.facts.set, arguments)

    @tool(catalog.FACT_ADD)
    def add_fact(self, **arguments: Any) -> dict[str, Any]:
        """Answers the version written (a warning if the attribute looks like a typo)."""
        return self._write(self.memory.facts.add, arguments)

    @tool(catalog.FACT_LOOKUP)
    def lookup(self, **arguments: Any) -> dict[str, Any]:
        """Answers the subjects' ids."""
        subjects = self.memory.facts.lookup(**arguments)
        hint = None if subjects else self._hint(arguments)
        return _hinted({"subjects": subjects}, hint)

    @tool(catalog.ADD_TURN)
    def add_turn(self, **arguments: Any) -> dict[str, Any]:
        """Keeps the last ``window`` rounds verbatim, folds older ones into the summary.

        Call ``close_session`` when the conversation ends.
        """
        turn = self.memory.add_turn(**arguments)
        return {"turn": turn_dict(turn)}

    @tool(catalog.CLOSE_SESSION)
    def close_session(self, **arguments: Any) -> dict[str, Any]:
        """Answers the session's summary."""
        subject, session_id = arguments["subject"], arguments["session_id"]
        running = self.memory.running_session(subject, session_id)
        if running is None:
            raise InvalidInput(
                "session_id",
                f"no running session {session_id!r} of {subject!r} "
                "(add_turn opens one; it closes by itself after 30 idle minutes)",
            )
        summary = running.close()
        return {"summary": None if summary is None else summary_dict(summary)}

    @tool(catalog.FORGET)
    def forget(self, **arguments: Any) -> dict[str, Any]:
        """A subject nothing is known about is an error, and no deletion is logged."""
        require_subject(self.memory, arguments["subject"])
        deletion = self.memory.forget(**arguments, requested_by=self._requester())
        return {"deletion": deletion_dict(deletion)}

    @tool(catalog.RECORD_TRAJECTORY)
    def record_trajectory(self, **arguments: Any) -> dict[str, Any]:
        """Answers the run and its task type's workflow as it now stands."""
        run = self.memory.workflows.record(**arguments)
        workflow = self.memory.workflows.get(run.task_type)
        return {
            "trajectory": {"id": run.id, "task_type": run.task_type, "success": run.success},
            "workflow": None if workflow is None else workflow.as_dict(),
        }

    @tool(catalog.FIND_WORKFLOW)
    def find_workflow(self, **arguments: Any) -> dict[str, Any]:
        """Each with its score, the workflow and ``instructions`` to follow."""
        hits = self.memory.workflows.match(**arguments)
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

    def _write(self, write: Callable[..., Fact], arguments: dict[str, Any]) -> dict[str, Any]:
        hint = self._hint(arguments)
        fact = write(**arguments)
        return _hinted({"fact": fact.to_dict()}, hint)

    def _hint(self, arguments: dict[str, Any]) -> str | None:
        """A warning if the call's attribute looks like a typo (of the subject's, if any)."""
        return attribute_hint(self.memory, arguments["attribute"], arguments.get("subject"))


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

    # ``wraps`` copied a declared tool's own signature, ``self`` included: the bound one.
    setattr(call, "__signature__", inspect.signature(tool, eval_str=True))  # noqa: B010
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
