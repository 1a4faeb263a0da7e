"""Results of pure text functions kept for one recall, or for the process within a bound.

A recall judges each candidate against each of the subject's later statements, and asks
the same questions of the same texts again and again: the retractions a statement makes,
its salient terms, its street addresses, its comparison key. A function decorated with
:func:`per_recall` computes each answer once inside ``with recall_scope():`` and keeps it
until the block ends; outside any scope it computes every time, as if undecorated.

What recalls ask of the same recalled lines recall after recall (a line's clauses, claims,
words) is kept across recalls by :func:`per_process`: the last :data:`KEPT_PER_FUNCTION`
answers of each function, least recently used out.

Only functions of their arguments alone (text in, an immutable value out) may be
decorated: nothing read from a store is kept, so a write or a forget is never answered
from here. But the process memos are keyed by the texts they were asked about, recalled
notes among them: a forget or a purge empties them all (:func:`forget_process_memos`), so no
deleted text stays in the process through them. A bulk import is not a recall: the memos
it filled are emptied after it (:func:`bulk_work`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar, cast, overload

F = TypeVar("F", bound=Callable[..., Any])

KEPT_PER_FUNCTION = 4_096
"""Answers each :func:`per_process` function keeps: the lines and clauses of about one long
conversation (LoCoMo's conv-26 answers alike, as fast, with 4,096 or 32,768 kept). Every
entry is walked by each full garbage collection of the process (a set or an object it holds:
~1 us): with 32,768 kept by each of ~20 functions, once a process had keyed 10^5 notes each
full collection took ~200 ms, one of them in every other batch of fact writes
(docs/benchmarks.md, stop 38)."""

_PROCESS_MEMOS: list[functools._lru_cache_wrapper[Any]] = []
"""Every :func:`per_process` memo, to empty them at once (:func:`forget_process_memos`)."""

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


@overload
def per_process(function: F) -> F: ...


@overload
def per_process(*, most: int) -> Callable[[F], F]: ...


def per_process(function: F | None = None, *, most: int = KEPT_PER_FUNCTION) -> Any:
    """Keep ``function``'s last ``most`` answers for the process (:data:`KEPT_PER_FUNCTION`).

    A :func:`functools.lru_cache` (so ``cache_info`` and ``cache_clear`` as there), emptied
    with every other by :func:`forget_process_memos`. ``@per_process`` or
    ``@per_process(most=1024)``.
    """

    def keep(function: F) -> F:
        kept = functools.lru_cache(maxsize=most)(function)
        _PROCESS_MEMOS.append(kept)
        return cast(F, kept)

    return keep if function is None else keep(function)


def forget_process_memos() -> None:
    """Empty every :func:`per_process` memo (memlane calls it after a forget or a purge).

    Their keys are the texts recalls asked about: a deleted note's text, its clauses and
    words would otherwise stay in the process until pushed out by others.
    """
    for kept in _PROCESS_MEMOS:
        kept.cache_clear()


@contextmanager
def bulk_work() -> Iterator[None]:
    """A block of text work that is not recalls' (a bulk import): its answers are not kept.

    An import asks the process memos about each note it keys, so a large one leaves them
    full of its own notes' texts, which later recalls rarely ask about, each entry a live
    object the collector's next young collections walk (9 ms of the second recall after a
    10^4-note import, stop 43). When the block ends, every memo that computed as many
    answers in it as the memo keeps holds nothing from before the block, and is emptied.
    """
    memos = list(_PROCESS_MEMOS)
    computed = [kept.cache_info().misses for kept in memos]
    try:
        yield
    finally:
        for kept, before in zip(memos, computed, strict=True):
            info = kept.cache_info()
            if info.maxsize is not None and info.misses - before >= info.maxsize:
                kept.cache_clear()


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
