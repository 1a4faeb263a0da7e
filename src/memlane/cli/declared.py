"""The ``memlane`` command's arguments and options, built from an operation's declaration.

Each declared parameter (:mod:`memlane.operations.catalog`) becomes a positional argument
(those named in ``arguments``; one that may be omitted is given as ``-``, or left out if it
comes last) or an option spelt ``--name-with-dashes`` (unless ``spelt``
says otherwise), with the declaration's default and doc; the command function receives them
under their declared names and passes them to the library, which checks them (bad input:
one line, exit status 1). So the command cannot drift from the HTTP route or the MCP tool.

Example:
    >>> from memlane.operations.catalog import FACT_GET
    >>> @click.command()
    ... @declared(FACT_GET, arguments=("subject", "attribute"))
    ... def get(**arguments): ...
    >>> [p.opts[0] for p in get.params]
    ['subject', 'attribute', '--valid-at', '--known-at']
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import click

from memlane.operations.spec import Operation, Param

ANY = "-"
"""A positional argument that may be omitted (``None``) is given as ``-``."""

Command = TypeVar("Command", bound=Callable[..., Any])


class DeclaredArgument(click.Argument):
    """A positional argument built from a declared parameter."""

    def __init__(self, declared: Param, **attributes: Any) -> None:
        """An argument for ``declared``; ``attributes`` as for :class:`click.Argument`."""
        super().__init__([declared.name], **attributes)
        self.declared = declared


class DeclaredOption(click.Option):
    """An option built from a declared parameter."""

    def __init__(self, declared: Param, spelling: str, **attributes: Any) -> None:
        """An option for ``declared``; ``attributes`` as for :class:`click.Option`."""
        super().__init__([spelling, declared.name], **attributes)
        self.declared = declared


def declared(
    operation: Operation,
    arguments: tuple[str, ...] = (),
    spelt: Mapping[str, str] | None = None,
    defaults: Mapping[str, Any] | None = None,
) -> Callable[[Command], Command]:
    """Add every parameter of ``operation`` to a click command.

    Args:
        operation: the declaration.
        arguments: the parameters given by position, in the declaration's order.
        spelt: an option's spelling other than ``--name-with-dashes``; a flag whose default
            is true is spelt ``--no-...`` and turns it off; a choice spelt as one of its
            values (``--many``) is a flag that picks that value.
        defaults: a default for a parameter the declaration requires (a shell convenience,
            e.g. ``--role user``).
    """
    spelt = spelt or {}
    defaults = defaults or {}
    unknown = (set(arguments) | set(spelt) | set(defaults)) - set(operation.names)
    if unknown:
        raise ValueError(f"{operation.name} declares no parameter {sorted(unknown)}")
    params = [
        _argument(param, last=param.name == arguments[-1])
        if param.name in arguments
        else _option(param, spelt, defaults)
        for param in operation.params
    ]

    def attach(command: Command) -> Command:
        if isinstance(command, click.Command):
            raise TypeError("@declared goes below @click.command, as click's own decorators")
        # As click's own decorators do: they run bottom up, and click reverses the list.
        memo = command.__dict__.setdefault("__click_params__", [])
        memo.extend(reversed(params))
        return command

    return attach


def _argument(param: Param, last: bool) -> DeclaredArgument:
    """A positional argument; one that may be omitted is ``-``, or left out if it is last."""
    if not param.nullable:
        return DeclaredArgument(param)
    return DeclaredArgument(param, callback=_any, required=not last, default=None)


def _any(_context: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    return None if value == ANY else value


def _option(param: Param, spelt: Mapping[str, str], defaults: Mapping[str, Any]) -> DeclaredOption:
    spelling = spelt.get(param.name, "--" + param.name.replace("_", "-"))
    if param.kind == "flag":
        inverted = spelling.startswith("--no-")
        if param.default is not inverted:
            raise ValueError(f"{param.name}: a flag that is on by default is spelt --no-...")
        return DeclaredOption(
            param,
            spelling,
            is_flag=True,
            help=f"Do not: {param.doc[0].lower()}{param.doc[1:]}" if inverted else param.doc,
            callback=(lambda _c, _p, given: not given) if inverted else None,
        )
    if param.kind == "choice" and spelling.lstrip("-") in param.choices:
        return _choice_flag(param, spelling)
    default = defaults.get(param.name, None if param.required else param.default)
    return DeclaredOption(
        param,
        spelling,
        type=_type(param),
        default=default,
        required=param.required and param.name not in defaults,
        show_default=default is not None,
        help=_help(param),
    )


def _choice_flag(param: Param, spelling: str) -> DeclaredOption:
    """A choice spelt as one of its values (``--many``): a flag that picks that value."""
    chosen = spelling.lstrip("-")
    return DeclaredOption(
        param,
        spelling,
        is_flag=True,
        help=f"{param.doc} ({chosen}; default {param.default})",
        callback=lambda _c, _p, given: chosen if given else param.default,
    )


def _type(param: Param) -> Any:
    if param.kind == "choice":
        return click.Choice(param.choices)
    return {"integer": int, "number": float}.get(param.kind, str)


def _help(param: Param) -> str:
    if param.kind in ("integer", "number"):
        return f"{param.doc} ({param.low:g} to {param.high:g})"
    return param.doc
