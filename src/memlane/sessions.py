"""The running sessions of one memory handle, and the sweep that folds idle ones.

``Memory`` keeps one :class:`Session` per ``(subject, session_id)`` while it runs; this
registry holds them, under one lock, so the facade only wires it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import datetime, timedelta

from memlane.session import Session, idle_for


class RunningSessions:
    """The open sessions of a memory handle, by subject and session id (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._sessions: dict[tuple[str, str], Session] = {}

    def open(self, subject: str, session_id: str, make: Callable[[], Session]) -> Session:
        """The running session ``session_id`` of ``subject``, made with ``make`` if none runs."""
        with self._lock:
            running = self._sessions.get((subject, session_id))
            if running is not None and not running.closed:
                return running
            session = make()
            self._sessions[subject, session_id] = session
            return session

    def running(self, subject: str | None, session_id: str) -> Session | None:
        """The open session ``session_id`` of ``subject`` (``None``: of any subject), if any."""
        with self._lock:
            if subject is not None:
                found = self._sessions.get((subject, session_id))
                return found if found is not None and not found.closed else None
            for (_, running_id), session in self._sessions.items():
                if running_id == session_id and not session.closed:
                    return session
        return None

    def of_subject(self, subject: str) -> list[Session]:
        """Every session of ``subject`` this handle holds."""
        with self._lock:
            return [s for (who, _), s in self._sessions.items() if who == subject]

    def all(self) -> list[Session]:
        """Every session this handle holds."""
        with self._lock:
            return list(self._sessions.values())

    def sweep(self, now: datetime, idle_timeout: timedelta) -> list[Session]:
        """Fold and close sessions idle for ``idle_timeout`` or longer; return them."""
        with self._lock:
            idle = [s for s in self._sessions.values() if idle_for(s, now) >= idle_timeout]
        for session in idle:
            session.close()
        return idle

    def remove(self, session: Session) -> None:
        """Drop ``session`` (it closed), unless another session has taken its place."""
        with self._lock:
            if self._sessions.get((session.subject, session.session_id)) is session:
                del self._sessions[session.subject, session.session_id]
