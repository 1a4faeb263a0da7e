"""Reading trajectories: Mind2Web action lines, WebArena think/action blocks, plain dicts.

Mind2Web (as in the AWM prompts): ``[textbox]  Origin City or Airport -> TYPE: Seattle``.
WebArena (BrowserGym actions): ``<think>why</think><action>click('227')</action>``.
Plain: ``{"action": "validate_order", "args": {"order": "ORD-1"}}``.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping
from typing import Any

from memlane.errors import InvalidInput
from memlane.workflows.model import Action

_MIND2WEB = re.compile(
    r"^\s*\[(?P<role>[^\]]*)\]\s*(?P<label>.*?)\s*->\s*(?P<verb>[A-Za-z_]+)(?::\s?(?P<value>.*))?$"
)
_BLOCK = re.compile(
    r"(?:<think>(?P<think>.*?)</think>\s*)?<action>(?P<action>.*?)</action>", re.DOTALL
)
_CALL = re.compile(r"^\s*(?P<name>[A-Za-z_][\w.]*)\s*\((?P<args>.*)\)\s*$", re.DOTALL)
_QUERY = re.compile(r"^#*\s*Query(?:\s+\d+)?\s*:\s*(?P<task>.+)$")
MAX_STEPS = 500


def steps_schema() -> dict[str, Any]:
    """The JSON schema of a list of steps as dicts (what :func:`parse_steps` accepts of one)."""
    step = {
        "type": "object",
        "required": ["action"],
        "properties": {
            "action": {"type": "string", "minLength": 1, "description": "What was done."},
            "args": {"type": "object", "description": "With which arguments."},
            "note": {"type": "string", "description": "Anything worth knowing about it."},
        },
    }
    return {"type": "array", "minItems": 1, "maxItems": MAX_STEPS, "items": step}


def parse_mind2web_line(line: str) -> Action | None:
    """One Mind2Web action line, or ``None`` if the line is not one."""
    found = _MIND2WEB.match(line.rstrip())
    if found is None:
        return None
    element = f"[{found['role'].strip()}] {' '.join(found['label'].split())}".rstrip()
    args = {"element": element}
    if found["value"] is not None:
        args["value"] = found["value"].strip()
    return Action(found["verb"].lower(), args)


def parse_mind2web(text: str) -> list[Action]:
    """Every Mind2Web action line in ``text``, in order (other lines are skipped)."""
    actions = []
    for line in text.splitlines():
        action = parse_mind2web_line(line)
        if action is not None:
            actions.append(action)
    return actions


def parse_webarena(text: str) -> list[Action]:
    """Every ``<action>`` block of a WebArena trajectory, with its ``<think>`` as the note."""
    actions = []
    for block in _BLOCK.finditer(text):
        call = block["action"].strip()
        note = " ".join((block["think"] or "").split())
        actions.append(_call(call, note))
    return actions


def _call(call: str, note: str) -> Action:
    found = _CALL.match(call)
    if found is None:
        return Action(call.split("(")[0].strip() or "noop", {"raw": call}, note)
    try:
        values = ast.literal_eval(f"({found['args']},)") if found["args"].strip() else ()
    except (SyntaxError, ValueError):
        values = (found["args"].strip(),)
    args = {f"arg{i}": str(v) for i, v in enumerate(values)}
    return Action(found["name"], args, note)


def split_tasks(text: str) -> list[tuple[str, str]]:
    """Split a prompt file into ``(task, trajectory text)`` at ``Query:`` headers."""
    tasks: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        header = _QUERY.match(line.strip())
        if header is not None:
            tasks.append((header["task"].strip(), []))
        elif tasks:
            tasks[-1][1].append(line)
    return [(task, "\n".join(lines)) for task, lines in tasks]


def parse_steps(steps: str | Iterable[Any]) -> list[Action]:
    """Normalize what a caller recorded: a trajectory text (either format) or a list.

    List items may be :class:`Action`, ``{"action": ..., "args": {...}}`` dicts, or
    Mind2Web / WebArena lines.

    Raises:
        InvalidInput: nothing recognizable, or an item of an unknown shape.
    """
    if isinstance(steps, str):
        actions = parse_webarena(steps) if "<action>" in steps else parse_mind2web(steps)
    elif isinstance(steps, Iterable) and not isinstance(steps, bytes | Mapping):
        actions = [_item(i, item) for i, item in enumerate(steps)]
    else:  # one step given alone is a mapping: its keys are no steps
        raise InvalidInput(
            "steps", f"must be a trajectory text or a list of steps, got {type(steps).__name__}"
        )
    if not actions:
        raise InvalidInput("steps", "no action found")
    if len(actions) > MAX_STEPS:
        raise InvalidInput("steps", f"at most {MAX_STEPS} steps, got {len(actions)}")
    return actions


def _item(index: int, item: Any) -> Action:
    if isinstance(item, Action):
        return item
    if isinstance(item, Mapping):
        name = item.get("action")
        if not isinstance(name, str) or not name.strip():
            raise InvalidInput(f"steps[{index}].action", "must be a non-empty string")
        args = item.get("args") or {}
        if not isinstance(args, Mapping):
            raise InvalidInput(f"steps[{index}].args", "must be a mapping")
        note = item.get("note") or ""
        return Action(name.strip(), {str(k): _text(v) for k, v in args.items()}, str(note))
    if isinstance(item, str):
        parsed = parse_steps(item) if "<action>" in item else [parse_mind2web_line(item)]
        if len(parsed) == 1 and parsed[0] is not None:
            return parsed[0]
    raise InvalidInput(f"steps[{index}]", f"not an action: {item!r:.80}")


def _text(value: Any) -> str:
    return value if isinstance(value, str) else str(value)
