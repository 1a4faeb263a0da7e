"""Counters that LLM-backed components keep, so callers can report what happened."""

from __future__ import annotations

import dataclasses
import threading
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

S = TypeVar("S")


@dataclass(frozen=True, slots=True)
class LLMStats:
    """Counters of a :class:`memlane.llm.ChatClient`.

    ``calls``: ``complete_json`` calls; ``requests``: HTTP requests sent; ``retries``:
    requests beyond the first of a call; ``invalid_outputs``: answers that did not decode or
    validate; ``failures``: calls that raised :class:`memlane.llm.LLMError`.
    """

    calls: int = 0
    requests: int = 0
    retries: int = 0
    invalid_outputs: int = 0
    failures: int = 0


class Counters(Generic[S]):
    """Thread-safe integer counters named after the fields of the dataclass ``kind``.

    >>> counters = Counters(LLMStats)
    >>> counters.add("calls")
    >>> counters.snapshot().calls
    1
    """

    def __init__(self, kind: type[S]) -> None:
        self._kind = kind
        self._lock = threading.Lock()
        fields: tuple[Any, ...] = dataclasses.fields(kind)  # type: ignore[arg-type]
        self._values = dict.fromkeys((field.name for field in fields), 0)

    def add(self, name: str, amount: int = 1) -> None:
        """Increase the counter ``name`` by ``amount``."""
        with self._lock:
            self._values[name] += amount

    def snapshot(self) -> S:
        """The current values, as an instance of the dataclass."""
        with self._lock:
            return self._kind(**self._values)
