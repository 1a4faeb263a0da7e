"""Results of pure text functions kept for the length of one recall, and no longer.

A recall judges each candidate against each of the subject's later statements, and asks
the same questions of the same texts again and again: the retractions a statement makes,
its salient terms, its street addresses, its comparison key. A function decorated with
:func:`per_recall` computes each answer once inside ``with recall_scope():`` and keeps it
until the block ends; outside any scope it computes every time, as if undecorated.

Only functions of their arguments alone (text in, an immutable value out) may be
decorated: nothing read from a store is kept, and nothing outlives the recall, so a write
or a forget is never answered from here.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar, cast

F = TypeVar("F", bound=Callable[..., Any])

_SCOPE: ContextVar[dict[tuple[Any, ...], Any] | None] = ContextVar(
    "memlane_recall_scope", default=None
)


def per_recall(function: F) -> F:
    """Keep ``function``'s results within the current :func:`recall_scope`, if any.

    Calls with keyword arguments, or with an argument that cannot be hashed, are computed
    every time.
    """

    @functools.wraps(function)
    def kept(*args: Any, **kwargs: Any) -> Any:
        memo = _SCOPE.get()
        if memo is None or kwargs:
            return function(*args, **kwargs)
        key = (kept, *args)
        try:
            return memo[key]
        except KeyError:
            found = memo[key] = function(*args)
            return found
        except TypeError:  # an argument that cannot be a key
            return function(*args)

    return cast(F, kept)


@contextmanager
def recall_scope() -> Iterator[None]:
    """Keep :func:`per_recall` results until the block ends (a scope already open is reused)."""
    if _SCOPE.get() is not None:
        yield
        return
    token = _SCOPE.set({})
    try:
        yield
    finally:
        _SCOPE.reset(token)


def in_scope() -> bool:
    """Whether a :func:`recall_scope` is open (for tests)."""
    return _SCOPE.get() is not None
