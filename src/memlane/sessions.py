"""The running sessions of a memory, and the sweep that folds idle ones.

One :class:`RunningSessions` table holds the open sessions of every tenant handle of a memory
(``Memory.for_tenant`` shares it), under one lock; each handle sees its own tenant's through
:meth:`RunningSessions.scoped`, so the facade only wires it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import datetime, timedelta

from memlane.session import Session, idle_for

_Key = tuple[str, str, str]  # tenant, subject, session id


class RunningSessions:
    """The open sessions of one tenant, by subject and session id (thread-safe).

    Args:
        tenant: whose sessions this view lists and opens.
    """

    def __init__(self, tenant: str = "default") -> None:
        self.tenant = tenant
        self._lock = threading.RLock()
        self._sessions: dict[_Key, Session] = {}

    def scoped(self, tenant: str) -> RunningSessions:
        """The sessions of ``tenant``, in the same table as these (same lock)."""
        view = RunningSessions.__new__(RunningSessions)
        view.tenant, view._lock, view._sessions = tenant, self._lock, self._sessions
        return view

    def open(self, subject: str, session_id: str, make: Callable[[], Session]) -> Session:
        """The running session ``session_id`` of ``subject``, made with ``make`` if none runs.

        ``make`` reads the database, so it runs outside the table's lock; if two threads open
        the same session at once, both get the one stored first.
        """
        key = (self.tenant, subject, session_id)
        running = self.running(subject, session_id)
        if running is not None:
            return running
        made = make()
        with self._lock:
            running = self._sessions.get(key)
            if running is not None and not running.closed:
                return running
            self._sessions[key] = made
            return made

    def running(self, subject: str | None, session_id: str) -> Session | None:
        """The open session ``session_id`` of ``subject`` (``None``: of any subject), if any."""
        with self._lock:
            if subject is not None:
                found = self._sessions.get((self.tenant, subject, session_id))
                return found if found is not None and not found.closed else None
            for (tenant, _, running_id), session in self._sessions.items():
                if tenant == self.tenant and running_id == session_id and not session.closed:
                    return session
        return None

    def of_subject(self, subject: str) -> list[Session]:
        """Every session of ``subject`` this tenant holds."""
        with self._lock:
            return [s for s in self.all() if s.subject == subject]

    def all(self) -> list[Session]:
        """Every session of this tenant."""
        with self._lock:
            return [s for (t, _, _), s in self._sessions.items() if t == self.tenant]

    def every_tenant(self) -> list[Session]:
        """Every session in the table, of any tenant."""
        with self._lock:
            return list(self._sessions.values())

    def sweep(
        self, now: datetime, idle_timeout: timedelta, *, every_tenant: bool = False
    ) -> list[Session]:
        """Fold and close this tenant's (or every tenant's) sessions idle for ``idle_timeout``.

        The sessions are closed after the table's lock is released: a fold may call a model.
        """
        with self._lock:
            held = self.every_tenant() if every_tenant else self.all()
            idle = [s for s in held if idle_for(s, now) >= idle_timeout]
        for session in idle:
            session.close()
        return idle

    def remove(self, session: Session) -> None:
        """Drop ``session`` (it closed), unless another session has taken its place."""
        key = (self.tenant, session.subject, session.session_id)
        with self._lock:
            if self._sessions.get(key) is session:
                del self._sessions[key]
