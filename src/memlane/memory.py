"""``memlane.Memory``: the one facade that wires storage, lanes and configuration together."""

from __future__ import annotations

import os
from datetime import tzinfo
from types import TracebackType

from memlane.errors import InvalidInput
from memlane.facts.lane import FactsLane
from memlane.storage import open_backend
from memlane.timeutil import Clock, resolve_timezone, system_clock

DEFAULT_TENANT = "default"


class Memory:
    """Long-term memory for one tenant, on SQLite (default) or another backend.

    Args:
        url: a SQLite file path, ``sqlite:///path``, or ``":memory:"``; ``None`` reads
            ``MEMLANE_URL`` and falls back to ``./memlane.db``.
        tenant: scopes every read and write of this handle.
        timezone: how dates and naive times given to this handle are read.
        clock: returns the current instant (aware); inject one for tests and replays.

    Example:
        >>> with Memory(":memory:", timezone="Asia/Shanghai") as mem:
        ...     _ = mem.facts.set("U-001", "location", "上海", valid_from="2026-03-01")
        ...     mem.facts.get("U-001", "location", valid_at="2026-05-01").value
        '上海'
    """

    def __init__(
        self,
        url: str | os.PathLike[str] | None = None,
        *,
        tenant: str = DEFAULT_TENANT,
        timezone: str | tzinfo = "UTC",
        clock: Clock | None = None,
    ) -> None:
        if not isinstance(tenant, str) or not tenant.strip() or tenant != tenant.strip():
            raise InvalidInput("tenant", f"must be a non-empty name, got {tenant!r}")
        if clock is not None and not callable(clock):
            raise InvalidInput("clock", "must be a callable returning an aware datetime")
        self.tenant = tenant
        self.timezone = resolve_timezone(timezone)
        self.clock: Clock = clock or system_clock
        self._backend = open_backend(url)
        self.url = self._backend.url
        self.facts = FactsLane(
            self._backend.facts, tenant=tenant, timezone=self.timezone, clock=self.clock
        )
        self._closed = False

    def close(self) -> None:
        """Release the database; safe to call twice."""
        if not self._closed:
            self._closed = True
            self._backend.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Memory({self.url!r}, tenant={self.tenant!r})"
