"""What one server process holds: the key ring and one ``Memory`` per tenant."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from memlane.memory import Memory
from memlane.timeutil import Clock

MemoryFactory = Callable[[str], Memory]
"""Opens the memory of a tenant (the server calls it once per tenant)."""


@dataclass
class _Tenant:
    memory: Memory
    # One request at a time per tenant: sessions and windows are not built for
    # concurrent writers, and SQLite serializes writes anyway.
    lock: threading.Lock = field(default_factory=threading.Lock)


class ServerState:
    """The key ring and a cache of memories, one per tenant, for one process.

    Args:
        url: the memory location every tenant's ``Memory`` (and the keys) live in.
        memory_factory: opens a tenant's memory; default ``Memory(url, tenant=...)``.
        clock: the clock of the key ring.
    """

    def __init__(
        self,
        url: str | None,
        *,
        memory_factory: MemoryFactory | None = None,
        clock: Clock | None = None,
    ) -> None:
        self.url = url
        # The keys of every tenant, through a handle of its own (it holds no tenant's data).
        self._admin = Memory(url, clock=clock)
        self.keys = self._admin.keys
        self._factory = memory_factory or (lambda tenant: Memory(url, tenant=tenant))
        self._tenants: dict[str, _Tenant] = {}
        self._lock = threading.Lock()

    @contextmanager
    def memory(self, tenant: str) -> Iterator[Memory]:
        """The memory of ``tenant`` (opened on first use), held for the block."""
        with self._lock:
            entry = self._tenants.get(tenant)
            if entry is None:
                entry = self._tenants[tenant] = _Tenant(self._factory(tenant))
        with entry.lock:
            yield entry.memory

    def ready(self) -> bool:
        """True if the key store answers (the database is reachable)."""
        self.keys.list("")
        return True

    def pending(self) -> int:
        """Items of the tenants served so far that wait to be embedded (tenant locks not taken)."""
        with self._lock:
            memories = [entry.memory for entry in self._tenants.values()]
        return sum(memory.index.pending() for memory in memories)

    def close(self) -> None:
        """Close every memory (folding open sessions) and the key store."""
        with self._lock:
            entries = list(self._tenants.values())
            self._tenants.clear()
        for entry in entries:
            with entry.lock:
                entry.memory.close()
        self._admin.close()
