"""A memory told something in one closed session: the setup of many recall tests."""

from __future__ import annotations

from typing import Any

import memlane

INDEX_WAIT_S = 30


def told(*texts: str, subject: str, wait: bool = False) -> memlane.Memory:
    """An in-memory hash-embedder memory whose ``subject`` said ``texts`` in one session.

    Turn ``n`` is said on the first of month ``n`` of 2026, and the session is closed, so
    notes, the summary and the storyline exist. ``wait`` also waits for the background
    indexer, for tests whose near misses are found by meaning too. The caller closes it.
    """
    mem = memlane.Memory(":memory:", embedder="hash")
    session = mem.session(subject, session_id="s-1")
    for month, text in enumerate(texts, start=1):
        session.add("user", text, at=f"2026-{month:02d}-01T09:00:00+00:00")
    session.close()
    if wait:
        assert mem.index.wait(timeout=INDEX_WAIT_S)
    return mem


def told_a_month_apart(mem: memlane.Memory, clock: Any, *said: str, subject: str = "U-1") -> None:
    """``subject`` says each of ``said`` in a session of its own (``s-1``, ``s-2``…), a month
    apart on the fake ``clock``; the assistant answers "Ok." two minutes later."""
    for number, text in enumerate(said, start=1):
        clock.advance(days=30)
        session = mem.session(subject, session_id=f"s-{number}")
        session.add("user", text)
        clock.advance(minutes=2)
        session.add("assistant", "Ok.")
        session.close()


def said_in_session(
    mem: memlane.Memory,
    clock: Any,
    session: str,
    said: str,
    reply: str = "Ok.",
    days: int = 1,
    *,
    subject: str = "U-1",
) -> None:
    """``subject`` says ``said`` in a new ``session`` ``days`` later on the fake ``clock``; the
    assistant answers ``reply`` two minutes later; the session is closed and the index drained
    (statements are found by meaning too)."""
    clock.advance(days=days)
    chat = mem.session(subject, session_id=session)
    for role, text in (("user", said), ("assistant", reply)):
        chat.add(role, text)
        clock.advance(minutes=2)
    chat.close()
    assert mem.index.wait(timeout=INDEX_WAIT_S)


def asked_after(clock: Any, question: str, *said: str, k: int = 8) -> memlane.Recall:
    """``question`` about ``U-1`` once it said each of ``said`` a month apart
    (:func:`told_a_month_apart`) to an in-memory hash-embedder memory, its index drained."""
    with memlane.Memory(":memory:", clock=clock, embedder="hash") as mem:
        told_a_month_apart(mem, clock, *said)
        assert mem.index.wait(timeout=INDEX_WAIT_S)
        return mem.recall("U-1", question, k=k)


def current_texts(result: memlane.Recall) -> list[str]:
    """The texts of the recalled items marked current."""
    return _texts_with_status(result, "current")


def stale_texts(result: memlane.Recall) -> list[str]:
    """The texts of the recalled items marked stale."""
    return _texts_with_status(result, "stale")


def _texts_with_status(result: memlane.Recall, status: str) -> list[str]:
    return [item.text for item in result.items if item.status == status]
