"""What one server process holds: the key ring and one memory shared by every tenant.

The tenants are scopes of one :class:`~memlane.memory.Memory`: its handle on a tenant
(``Memory.for_tenant``) shares the database pool, embedder, chat model and running sessions,
and a bounded LRU keeps the handles of recently seen tenants (their small caches) warm.
Requests run in parallel: nothing here serializes the requests of a tenant.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager

from memlane.errors import InvalidInput
from memlane.memory import Memory
from memlane.timeutil import Clock

DEFAULT_TENANT_HANDLES = 256
"""Tenant handles kept warm (an evicted one is rebuilt on the tenant's next request)."""
SWEEP_EVERY_S = 60.0
"""How often the server folds the idle sessions of every tenant, quiet ones included."""


class ServerState:
    """The key ring and the tenant handles of one memory, for one process.

    Args:
        url: where the memories and the keys live (``None``: ``MEMLANE_URL``); ignored when
            ``memory`` is given.
        memory: the memory every tenant is a scope of; the state closes it on :meth:`close`.
            Default: ``Memory(url, clock=clock)``.
        clock: the clock of the memory made from ``url``.
        tenant_handles: how many tenant handles the LRU keeps.
    """

    def __init__(
        self,
        url: str | None = None,
        *,
        memory: Memory | None = None,
        clock: Clock | None = None,
        tenant_handles: int = DEFAULT_TENANT_HANDLES,
    ) -> None:
        if isinstance(tenant_handles, bool) or not isinstance(tenant_handles, int):
            raise InvalidInput("tenant_handles", "must be a positive integer")
        if tenant_handles < 1:
            raise InvalidInput("tenant_handles", "must be a positive integer")
        self.root = memory if memory is not None else Memory(url, clock=clock)
        self.url = self.root.url
        self.keys = self.root.keys
        self._limit = tenant_handles
        self._handles: OrderedDict[str, Memory] = OrderedDict()
        self._lock = threading.Lock()
        # Notes an upgrade left waiting for keys are keyed by the indexer from now on, not by
        # the first recall of each subject while its caller waits.
        self.root.index.start()

    @contextmanager
    def memory(self, tenant: str) -> Iterator[Memory]:
        """The memory of ``tenant``, for the block (no lock is held meanwhile).

        The block is a request in progress: long work of other requests (a huge turn read
        or folded) lets it go first at each step (:mod:`memlane.pacing`).
        """
        handle = self.handle(tenant)
        with handle.index.indexer.request():
            yield handle

    def handle(self, tenant: str) -> Memory:
        """The handle on ``tenant``: from the LRU, or made (cheaply) and kept there."""
        with self._lock:
            found = self._handles.get(tenant)
            if found is not None:
                self._handles.move_to_end(tenant)
                return found
        made = self.root.for_tenant(tenant)
        with self._lock:
            found = self._handles.setdefault(tenant, made)
            self._handles.move_to_end(tenant)
            while len(self._handles) > self._limit:
                self._handles.popitem(last=False)
            return found

    def cached_tenants(self) -> list[str]:
        """The tenants whose handles the LRU holds, least recently used first."""
        with self._lock:
            return list(self._handles)

    def sweep(self) -> int:
        """Fold the idle sessions of every tenant (may call models: off the event loop)."""
        return len(self.root.sweep(every_tenant=True))

    def ready(self) -> bool:
        """True if the key store answers (the database is reachable)."""
        self.keys.list("-")  # any tenant: what matters is that the store answers
        return True

    def pending(self) -> int:
        """Items of every tenant in the database that wait for the (one) indexer."""
        return self.root.index.pending_everywhere()

    def close(self) -> None:
        """Fold every tenant's open sessions and release the memory (off the event loop)."""
        with self._lock:
            self._handles.clear()
        self.root.close()
