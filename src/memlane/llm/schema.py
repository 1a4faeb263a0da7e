"""Validate decoded JSON against plain dataclasses, with error messages a model can act on.

A schema is a dataclass whose field annotations use ``str``, ``int``, ``float``, ``bool``,
``None``, ``Any``, ``Literal[...]``, unions, ``list[X]``, ``tuple[X, ...]``, ``dict[str, X]``,
nested dataclasses, and ``Annotated[X, Length(...), Pattern(...)]`` for bounds. Keys the
schema does not name are ignored (models add them); a missing key takes the field's default.

>>> from dataclasses import dataclass
>>> @dataclass
... class Point:
...     x: int
...     label: str = ""
>>> validate({"x": 3, "colour": "red"}, Point)
Point(x=3, label='')
"""

from __future__ import annotations

import dataclasses
import re
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import (
    Annotated,
    Any,
    Literal,
    TypeVar,
    Union,
    cast,
    get_args,
    get_origin,
    get_type_hints,
)

T = TypeVar("T")

_EXPECTED = re.compile(r"expected (.+), got [^,]+")
_SCALARS: Mapping[type, str] = {
    str: "a string",
    bool: "true or false",
    int: "an integer",
    float: "a number",
    type(None): "null",
}


class SchemaViolation(ValueError):
    """Decoded JSON does not match the schema.

    Args:
        path: where the problem is, e.g. ``facts[0].op`` (empty for the whole value).
        message: what is wrong, phrased for the model that has to correct it.
    """

    def __init__(self, path: str, message: str) -> None:
        self.path = path
        self.message = message
        super().__init__(f"{path}: {message}" if path else message)


@dataclass(frozen=True, slots=True)
class Length:
    """Bounds on the length of a string or a list (``Annotated[str, Length(1, 300)]``)."""

    min: int = 0
    max: int | None = None


@dataclass(frozen=True, slots=True)
class Pattern:
    """A regular expression a string must match in full, with a name the model understands."""

    regex: str
    description: str


def validate(data: Any, schema: type[T]) -> T:
    """Check ``data`` (decoded JSON) against the dataclass ``schema`` and build an instance.

    Raises:
        SchemaViolation: the data does not match; the message names the path.
        TypeError: the schema uses an annotation this validator does not support.
    """
    return cast(T, _convert(data, schema, ""))


def json_type_name(value: Any) -> str:
    """Name a decoded JSON value's type as JSON calls it (``"object"``, ``"array"``, ...)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _join(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def _convert(value: Any, hint: Any, path: str) -> Any:
    if hint is Any:
        return value
    origin = get_origin(hint)
    if origin is Annotated:
        base, *constraints = get_args(hint)
        result = _convert(value, base, path)
        for constraint in constraints:
            _check(result, constraint, path)
        return result
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return _convert_dataclass(value, hint, path)
    handler = _HANDLERS.get(origin)
    if handler is not None:
        return handler(value, hint, path)
    if hint in _SCALARS:
        return _convert_scalar(value, hint, path)
    raise TypeError(f"unsupported schema annotation {hint!r} at {path or 'top level'}")


def _convert_scalar(value: Any, hint: type, path: str) -> Any:
    # bool is an int subclass in Python but not in JSON, so it is excluded explicitly.
    is_bool = isinstance(value, bool)
    if hint is float and isinstance(value, int | float) and not is_bool:
        return float(value)
    if hint is int and isinstance(value, int) and not is_bool:
        return value
    if hint in (str, bool, type(None)) and type(value) is hint:
        return value
    raise SchemaViolation(path, f"expected {_SCALARS[hint]}, got {json_type_name(value)}")


def _convert_dataclass(value: Any, schema: type, path: str) -> Any:
    if not isinstance(value, dict):
        raise SchemaViolation(path, f"expected an object, got {json_type_name(value)}")
    hints = get_type_hints(schema, include_extras=True)
    arguments: dict[str, Any] = {}
    for field in dataclasses.fields(schema):
        if not field.init:
            continue
        if field.name in value:
            arguments[field.name] = _convert(
                value[field.name], hints[field.name], _join(path, field.name)
            )
        elif field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING:
            raise SchemaViolation(path, f'missing required key "{field.name}"')
    try:
        return schema(**arguments)
    except ValueError as error:
        # A dataclass may check cross-field rules in __post_init__; report them like the rest.
        raise SchemaViolation(path, str(error)) from error


def _convert_literal(value: Any, hint: Any, path: str) -> Any:
    allowed = get_args(hint)
    for option in allowed:
        if type(value) is type(option) and value == option:
            return value
    choices = ", ".join(repr(option).replace("'", '"') for option in allowed)
    raise SchemaViolation(path, f"expected one of {choices}, got {_short(value)}")


def _convert_union(value: Any, hint: Any, path: str) -> Any:
    expected: list[str] = []
    deeper: SchemaViolation | None = None
    for option in get_args(hint):
        try:
            return _convert(value, option, path)
        except SchemaViolation as error:
            shallow = _EXPECTED.fullmatch(error.message) if error.path == path else None
            if shallow is not None:
                expected.append(shallow.group(1))
            elif deeper is None:
                deeper = error
    if deeper is not None:
        # The value had one option's shape but failed inside it: that is the useful news.
        raise deeper
    alternatives = " or ".join(dict.fromkeys(expected))
    raise SchemaViolation(path, f"expected {alternatives}, got {json_type_name(value)}")


def _convert_sequence(value: Any, hint: Any, path: str) -> Any:
    arguments = get_args(hint)
    origin = get_origin(hint)
    if origin is tuple and not (len(arguments) == 2 and arguments[1] is Ellipsis):
        raise TypeError(f"only variadic tuples (tuple[X, ...]) are supported, got {hint!r}")
    if not isinstance(value, list):
        raise SchemaViolation(path, f"expected an array, got {json_type_name(value)}")
    item_hint = arguments[0] if arguments else Any
    items = [_convert(item, item_hint, _join(path, index)) for index, item in enumerate(value)]
    return tuple(items) if origin is tuple else items


def _convert_mapping(value: Any, hint: Any, path: str) -> Any:
    arguments = get_args(hint)
    if arguments and arguments[0] is not str:
        raise TypeError(f"JSON object keys are strings; got {hint!r}")
    if not isinstance(value, dict):
        raise SchemaViolation(path, f"expected an object, got {json_type_name(value)}")
    item_hint = arguments[1] if arguments else Any
    return {key: _convert(item, item_hint, _join(path, key)) for key, item in value.items()}


def _check(value: Any, constraint: Any, path: str) -> None:
    if isinstance(constraint, Length):
        size = len(value)
        unit = "characters" if isinstance(value, str) else "items"
        if size < constraint.min:
            what = "must not be empty" if constraint.min == 1 else f"needs {constraint.min} {unit}"
            raise SchemaViolation(path, f"{what}, got {size}")
        if constraint.max is not None and size > constraint.max:
            raise SchemaViolation(path, f"at most {constraint.max} {unit} allowed, got {size}")
    elif isinstance(constraint, Pattern) and not re.fullmatch(constraint.regex, value):
        raise SchemaViolation(path, f"must be {constraint.description}, got {_short(value)}")


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


_HANDLERS: Mapping[Any, Callable[[Any, Any, str], Any]] = {
    Literal: _convert_literal,
    Union: _convert_union,
    types.UnionType: _convert_union,
    list: _convert_sequence,
    tuple: _convert_sequence,
    dict: _convert_mapping,
}
