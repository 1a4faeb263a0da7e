"""LangGraph's store query rules as pure functions: value filters and namespace conditions.

They follow what LangGraph documents for ``BaseStore.search(filter=...)`` and
``list_namespaces(prefix=, suffix=, max_depth=)`` — the semantics of its own
``InMemoryStore`` — so that ``MemlaneStore`` answers the same questions the same way:

- a filter maps top-level keys of an item's value to an expected value: a scalar is compared
  with ``==``; a list must match element by element; a mapping either nests (its keys are
  looked up in the item's sub-mapping) or, when it has ``$`` keys, applies operators:
  ``$eq``, ``$ne``, and the numeric ``$gt``, ``$gte``, ``$lt``, ``$lte`` (both sides read as
  numbers, as ``float()`` reads them);
- a namespace condition is a prefix or a suffix path in which ``"*"`` matches any label.

Bad input raises :class:`~memlane.errors.InvalidInput` (where ``InMemoryStore`` lets a
``TypeError`` or ``ValueError`` escape).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from memlane.errors import InvalidInput

_NUMERIC: dict[str, Callable[[float, float], bool]] = {
    "$gt": operator.gt,
    "$gte": operator.ge,
    "$lt": operator.lt,
    "$lte": operator.le,
}
OPERATORS = ("$eq", "$ne", *_NUMERIC)


def matches(value: Mapping[str, Any], filter: Mapping[str, Any] | None) -> bool:
    """Whether an item's value satisfies a LangGraph filter (no filter: always).

    >>> matches({"kind": "pref", "score": 3}, {"kind": "pref", "score": {"$gte": 2}})
    True

    Raises:
        InvalidInput: an unknown operator, or a numeric operator on a non-number.
    """
    if not filter:
        return True
    return all(_compare(value.get(key), expected) for key, expected in filter.items())


def _compare(actual: Any, expected: Any) -> bool:
    if isinstance(expected, Mapping):
        if any(isinstance(key, str) and key.startswith("$") for key in expected):
            return all(_apply(actual, name, operand) for name, operand in expected.items())
        if not isinstance(actual, Mapping):
            return False
        return all(_compare(actual.get(key), sub) for key, sub in expected.items())
    if isinstance(expected, list | tuple):
        return (
            isinstance(actual, list | tuple)
            and len(actual) == len(expected)
            and all(_compare(a, e) for a, e in zip(actual, expected, strict=True))
        )
    return bool(actual == expected)


def _apply(actual: Any, name: str, operand: Any) -> bool:
    if name == "$eq":
        return bool(actual == operand)
    if name == "$ne":
        return bool(actual != operand)
    compare = _NUMERIC.get(name)
    if compare is None:
        raise InvalidInput(
            "filter", f"unsupported operator {name!r}; use one of {', '.join(OPERATORS)}"
        )
    try:
        return compare(float(actual), float(operand))
    except (TypeError, ValueError, OverflowError) as error:
        raise InvalidInput(
            "filter", f"{name} compares numbers, got {actual!r} and {operand!r}"
        ) from error


def namespace_matches(namespace: Sequence[str], kind: str, path: Sequence[str]) -> bool:
    """Whether ``namespace`` starts (``kind="prefix"``) or ends (``"suffix"``) with ``path``.

    ``"*"`` in ``path`` matches any one label.

    >>> namespace_matches(("users", "u-1", "prefs"), "suffix", ("*", "prefs"))
    True

    Raises:
        InvalidInput: ``kind`` is neither ``"prefix"`` nor ``"suffix"``.
    """
    if kind not in ("prefix", "suffix"):
        raise InvalidInput("match_type", f"must be 'prefix' or 'suffix', got {kind!r}")
    if len(namespace) < len(path):
        return False
    labels: Iterable[tuple[str, str]] = (
        zip(namespace, path, strict=False)
        if kind == "prefix"
        else zip(reversed(namespace), reversed(path), strict=False)
    )
    return all(wanted in ("*", label) for label, wanted in labels)


def list_namespaces(
    namespaces: Iterable[tuple[str, ...]],
    conditions: Iterable[tuple[str, Sequence[str]]],
    max_depth: int | None,
    limit: int,
    offset: int,
) -> list[tuple[str, ...]]:
    """The page of sorted namespaces that meet every condition, truncated to ``max_depth``.

    >>> list_namespaces([("a", "b", "c"), ("a", "d")], [("prefix", ("a",))], 1, 10, 0)
    [('a',)]
    """
    kept = [
        namespace
        for namespace in namespaces
        if all(namespace_matches(namespace, kind, path) for kind, path in conditions)
    ]
    if max_depth is not None:
        kept = sorted({namespace[:max_depth] for namespace in kept})
    else:
        kept = sorted(kept)
    return kept[offset : offset + limit]
