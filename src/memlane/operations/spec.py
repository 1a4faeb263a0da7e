"""How a public operation is declared: its parameters, their types, limits, defaults and docs.

An :class:`Operation` is plain data. The adapters build their own surface from it — the HTTP
request model (:mod:`memlane.server.declared`), the MCP tool signature (same module) and the
``memlane`` command's arguments and options (:mod:`memlane.cli.declared`) — so a parameter,
a limit or a default is written once and the three cannot drift. The limits are those of
:mod:`memlane.validation`; the library enforces them, the adapters publish them.

Example:
    >>> k = integer("k", "At most this many items.", 1, 100, default=8)
    >>> op = Operation("search", "Search.", (name("subject", "Whose."), k))
    >>> [(p.name, p.required) for p in op.params]
    [('subject', True), ('k', False)]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from memlane.validation import MAX_NAME_CHARS, MAX_TOKEN_CHARS

Kind = Literal[
    "name", "text", "instant", "integer", "number", "flag", "choice", "json", "token", "steps"
]
"""What a parameter holds; each adapter maps a kind to its own type."""


class _Required:
    """The default of a parameter that must be given."""

    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()
"""The default of a required parameter."""


@dataclass(frozen=True, slots=True)
class Param:
    """One parameter of an operation.

    Attributes:
        name: its name, the same in Python, JSON bodies, query strings and MCP arguments.
        kind: what it holds (see :data:`Kind`).
        doc: one line for the OpenAPI document, the MCP schema and ``--help``.
        default: its default, or :data:`REQUIRED`; ``None`` makes the parameter optional.
        low: the least value of an integer or a number.
        high: the greatest value of an integer or a number, the most characters of a text
            or a token, the most items of a list of steps.
        choices: the values a choice may take.
        only_with: the values other parameters must have for this one to be given (not
            ``None``): ``(("identifier", True),)`` on a normalizer, which only an
            identifier has.
    """

    name: str
    kind: Kind
    doc: str
    default: Any = REQUIRED
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()
    only_with: tuple[tuple[str, Any], ...] = ()

    @property
    def required(self) -> bool:
        """True if the parameter has no default."""
        return self.default is REQUIRED

    @property
    def nullable(self) -> bool:
        """True if ``None`` is a valid value (the default of an optional parameter)."""
        return self.default is None


@dataclass(frozen=True, slots=True)
class Operation:
    """A public operation and where each adapter offers it.

    Attributes:
        name: the library call it runs, e.g. ``recall`` or ``facts.set``.
        doc: what it does, in one line (the MCP tool's description starts with it).
        params: its parameters, in the library's order.
        http: the route, e.g. ``POST /v1/recall`` (``None``: not offered over HTTP).
        mcp: the MCP tool's name (``None``: no tool).
        cli: the command, e.g. ``fact set`` (``None``: no command).
        from_key: parameters the HTTP API takes from the caller's key (its tenant), never
            from the request.
    """

    name: str
    doc: str
    params: tuple[Param, ...]
    http: tuple[str, ...] = ()
    mcp: str | None = None
    cli: str | None = None
    from_key: tuple[str, ...] = ()

    def param(self, name: str) -> Param:
        """The parameter called ``name``.

        Raises:
            KeyError: the operation has no such parameter.
        """
        for param in self.params:
            if param.name == name:
                return param
        raise KeyError(f"{self.name} has no parameter {name!r}")

    @property
    def names(self) -> tuple[str, ...]:
        """The parameters' names, in order."""
        return tuple(param.name for param in self.params)


def name(field: str, doc: str, default: Any = REQUIRED) -> Param:
    """A name: subject, attribute, session id, speaker (:func:`memlane.validation.name`)."""
    return Param(field, "name", doc, default, high=MAX_NAME_CHARS)


def text(field: str, doc: str, limit: int, default: Any = REQUIRED) -> Param:
    """A text of at most ``limit`` characters (:func:`memlane.validation.text`)."""
    return Param(field, "text", doc, default, high=limit)


def instant(field: str, doc: str) -> Param:
    """An optional ISO-8601 date or instant (default: now)."""
    return Param(field, "instant", doc, None)


def integer(field: str, doc: str, low: int, high: int, default: int) -> Param:
    """An integer from ``low`` to ``high`` (:func:`memlane.validation.integer`)."""
    return Param(field, "integer", doc, default, low=low, high=high)


def number(field: str, doc: str, low: float, high: float, default: float) -> Param:
    """A number from ``low`` to ``high``."""
    return Param(field, "number", doc, default, low=low, high=high)


def flag(field: str, doc: str, default: bool) -> Param:
    """A yes or no."""
    return Param(field, "flag", doc, default)


def choice(
    field: str,
    doc: str,
    choices: tuple[str, ...],
    default: Any = REQUIRED,
    only_with: tuple[tuple[str, Any], ...] = (),
) -> Param:
    """One of ``choices`` (given only when other parameters have the values ``only_with``)."""
    return Param(field, "choice", doc, default, choices=choices, only_with=only_with)


def json_value(field: str, doc: str, default: Any = REQUIRED) -> Param:
    """Any JSON value (a fact's value, a value to retract); null only if it may be omitted."""
    return Param(field, "json", doc, default)


def token(field: str, doc: str, default: Any = REQUIRED) -> Param:
    """A short name of letters, digits, ``_ . : -`` (:func:`memlane.validation.token`)."""
    return Param(field, "token", doc, default, high=MAX_TOKEN_CHARS)


def steps(field: str, doc: str, most: int) -> Param:
    """A list of at most ``most`` actions, each ``{"action": ..., "args": {...}}``."""
    return Param(field, "steps", doc, high=most)
