"""The nesting rule both backends' write transactions follow."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from memlane.errors import StorageError


class Nesting:
    """Nested write transactions join the outermost one, all or nothing.

    If a nested block fails after it wrote, the outermost block refuses to commit, so a
    failed write inside a batch never leaves a trace even when the caller catches its error.
    """

    def __init__(self) -> None:
        self.depth = 0
        self._writes = 0
        self._poisoned = False

    def wrote(self) -> None:
        """Record that the current transaction has written."""
        self._writes += 1

    @contextmanager
    def outermost(self) -> Iterator[None]:
        """The outermost block; raises before the commit if a nested block failed writing."""
        self.depth = 1
        try:
            yield
            if self._poisoned:
                raise StorageError("a write inside this batch failed; the batch was rolled back")
        finally:
            self.depth = 0
            self._poisoned = False

    @contextmanager
    def nested(self) -> Iterator[None]:
        """A block inside the outermost one."""
        writes_before = self._writes
        self.depth += 1
        try:
            yield
        except BaseException:
            if self._writes != writes_before:
                self._poisoned = True
            raise
        finally:
            self.depth -= 1
