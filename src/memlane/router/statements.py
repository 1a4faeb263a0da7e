"""A statement as adjudication sees it: what was said, by whom, when, and from which turns.

Shared by the evidence a judgement reads (:mod:`memlane.router.evidence`) and the walk that
finds what re-fills a slot (:mod:`memlane.router.refilling`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property
from typing import TypeVar, cast

from memlane.router.claims import Claim, claims
from memlane.summaries.model import Note

T = TypeVar("T")

Since = tuple[tuple[datetime, datetime], frozenset[str]]
"""Statements said after ``(said, stored)`` and not from these turns: those that may
supersede another (see :func:`first_later`)."""
Refills = Callable[[str], bool | None]
"""Whether a clause re-fills a slot (see :meth:`memlane.router.evidence.Evidence.refilling`):
``None`` when it restates no slot of it at all, ``False`` when it does but not for this
question (the question names its value: :func:`memlane.router.slots.names_value`)."""


@dataclass(frozen=True)
class Statement:
    """Evidence: a note or user turn of a subject; its claims are read when first asked for."""

    subject: str
    text: str
    said: datetime
    learned: datetime
    turns: frozenset[str]
    ref: str
    note: Note | None = None

    @cached_property
    def claims(self) -> tuple[Claim, ...]:
        """What the statement asserts (see :func:`memlane.router.claims.claims`)."""
        return tuple(claims(self.text, self.subject))


def statement(
    subject: str,
    text: str,
    *,
    said: datetime,
    learned: datetime,
    turns: Iterable[str],
    ref: str,
    note: Note | None = None,
) -> Statement:
    """Build a :class:`Statement`."""
    return Statement(subject, text, said, learned, frozenset(turns), ref, note)


def first_later(
    found: Iterable[T],
    after: tuple[datetime, datetime],
    turns: frozenset[str],
    keep: Callable[[T], bool] | None = None,
    said: Callable[[T], Statement] = lambda item: cast(Statement, item),
) -> T | None:
    """The first of ``found`` (latest first) said after ``after``, not from ``turns``, kept."""
    for item in found:
        statement = said(item)
        if (statement.said, statement.learned) <= after:
            return None  # the rest are older still
        if not statement.turns & turns and (keep is None or keep(item)):
            return item
    return None


def said_when(said: Statement) -> tuple[datetime, datetime]:
    """When a statement was said, then stored: the later one is the newer knowledge."""
    return said.said, said.learned
