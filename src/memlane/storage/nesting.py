"""The nesting rule both databases' write transactions follow, and the lock they hold."""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any, TypeVar, cast

from memlane.errors import StorageError

T = TypeVar("T")


class HeldLock:
    """A re-entrant lock that tells whether the calling thread holds it (:attr:`held_here`).

    A database's reads go where its lock says: a thread holding it reads on the connection
    the lock guards (its read transaction, its temporary tables), any other may read
    elsewhere. :class:`threading.RLock` knows its owner but tells it only by a private
    method; this one keeps its own count. Only the holding thread writes the owner, and it
    clears it before its last release, so no other thread ever finds itself there.

    :attr:`plain` is the same lock, taken without being counted: for the hold of one
    statement, during which the thread reads nothing else (about 1 us a statement less).
    """

    def __init__(self) -> None:
        self.plain = threading.RLock()
        self._owner: int | None = None
        self._depth = 0

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        """Hold the lock (again, if this thread holds it already), as an RLock's ``acquire``.

        False if it was not taken (not ``blocking``, or ``timeout`` seconds passed first).
        """
        if not self.plain.acquire(blocking, timeout):
            return False
        self._owner = threading.get_ident()
        self._depth += 1
        return True

    def release(self) -> None:
        """Release one hold of this thread's."""
        self._depth -= 1
        if not self._depth:
            self._owner = None
        self.plain.release()

    def __enter__(self) -> None:
        self.acquire()

    def __exit__(self, *_: object) -> None:
        self.release()

    @property
    def held_here(self) -> bool:
        """Whether the calling thread holds the lock (counted: not by :attr:`plain` alone)."""
        return self._owner == threading.get_ident()


class Nesting:
    """Nested write transactions join the outermost one, all or nothing.

    If a nested block fails after it wrote, the outermost block refuses to commit, so a
    failed write inside a batch never leaves a trace even when the caller catches its error.
    """

    def __init__(self) -> None:
        self.depth = 0
        self.transactions = 0
        """How many outermost transactions have begun."""
        self._writes = 0
        self._poisoned = False
        self._owner: int | None = None
        self._committed: list[Callable[[], None]] = []
        self._scratch: dict[Hashable, Any] = {}

    @property
    def open_here(self) -> bool:
        """Whether the calling thread is inside the open transaction (another thread's is not)."""
        return self.depth > 0 and self._owner == threading.get_ident()

    def of_transaction(self, key: Hashable, make: Callable[[], T]) -> T:
        """What ``make()`` gave for ``key`` at its first ask in this thread's transaction.

        Outside a transaction of this thread, a new one each time.
        """
        if not self.open_here:
            return make()
        if key not in self._scratch:
            self._scratch[key] = make()
        return cast(T, self._scratch[key])

    def after_commit(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` after the calling thread's outermost transaction commits.

        Outside a transaction of this thread it runs at once.
        """
        if self.open_here:
            self._committed.append(callback)
        else:
            callback()

    @contextmanager
    def write(
        self, lock: HeldLock, begin: Callable[[], AbstractContextManager[None]]
    ) -> Iterator[None]:
        """Under ``lock``, join the open transaction or open one with ``begin``.

        ``begin`` commits when its block ends and rolls back if the block raises.
        """
        with lock:
            if self.depth:
                with self.nested():
                    yield
                return
            try:
                with begin():
                    self.transactions += 1
                    with self.outermost():
                        yield
            finally:
                committed, self._committed = self._committed, []
        # Only a commit gets here; the callbacks run with the lock released.
        for callback in committed:
            callback()

    def wrote(self) -> None:
        """Record that the current transaction has written."""
        self._writes += 1

    @property
    def poisoned(self) -> bool:
        """True once a nested block failed after writing: the outermost one will not commit."""
        return self._poisoned

    @contextmanager
    def outermost(self) -> Iterator[None]:
        """The outermost block; raises before the commit if a nested block failed writing."""
        self.depth, self._owner = 1, threading.get_ident()
        try:
            yield
            if self._poisoned:
                raise StorageError("a write inside this batch failed; the batch was rolled back")
        finally:
            self.depth, self._owner = 0, None
            self._poisoned = False
            self._scratch.clear()

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
