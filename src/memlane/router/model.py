"""Plain data of the router: what a query asks, what each lane was asked, what came back."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from memlane.facts.model import Fact
from memlane.lang.qualifiers import Qualifier

Lane = Literal["exact", "window", "summary", "workflow"]
Status = Literal["current", "stale", "historical"]
ItemKind = Literal["fact", "turn", "note", "summary", "workflow"]

LANES: tuple[Lane, ...] = ("exact", "window", "summary", "workflow")
"""Every lane, in the order a plan lists them."""


@dataclass(frozen=True, slots=True)
class IdentifierRef:
    """An identifier named in a query, e.g. the phone number in "用户 138-0000-1234 的订单".

    ``attribute`` is the exact-lane attribute it is looked up under (``phone``, ``email``,
    or a code: ``order``, ``tracking``, ``account``, ``reference``, ``user_id``, any of which
    a code is looked up in); ``values`` are the texts looked up, as written: the exact lane
    matches them by key (``+86 137…`` finds ``137-…``; see :mod:`memlane.facts.phones`).
    """

    attribute: str
    text: str
    values: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class AttributeIntent:
    """A phrase of the query that asks for an attribute ("住在哪里" → ``location``)."""

    attribute: str
    phrase: str
    span: tuple[int, int]


@dataclass(frozen=True, slots=True)
class TimeRef:
    """A time expression of the query ("上周", "last May") as a half-open UTC interval."""

    text: str
    start: datetime
    end: datetime


@dataclass(frozen=True, slots=True)
class QueryAnalysis:
    """What a query asks for, read without any model (Chinese and English).

    Attributes:
        query: the query as given.
        identifiers: identifiers named in it (looked up exactly, never by similarity).
        intents: every attribute phrase found, in order.
        attributes: the attributes asked for: the intents, minus those that only label an
            identifier ("手机号 138…的邮箱" asks for ``email``, not ``phone``).
        times: time expressions, resolved against the read instant.
        workflow: it asks how a kind of task is done.
        context: it asks about context, preferences or past episodes.
        history: it asks about earlier values ("以前", "before", "used to").
        own_value: its attribute words ask for the subject's own value now — not someone
            else's ("我老公的邮箱"), not a plan ("下周去哪"), not a past episode.
        roles: the subject's people (or pets) it asks about ("我哥" → sibling, "the user's
            dog" → dog): only what names one of them answers it.
        qualified: own-value attributes asked with qualifiers ("my *work* email", "*passport*
            number"), each with its qualifiers (see :mod:`memlane.lang.qualifiers`): only
            what carries every qualifier answers them, so they are not in ``attributes``.
    """

    query: str
    identifiers: tuple[IdentifierRef, ...] = ()
    intents: tuple[AttributeIntent, ...] = ()
    attributes: tuple[str, ...] = ()
    times: tuple[TimeRef, ...] = ()
    workflow: bool = False
    context: bool = False
    history: bool = False
    own_value: bool = True
    roles: tuple[str, ...] = ()
    qualified: tuple[tuple[str, tuple[Qualifier, ...]], ...] = ()

    @property
    def period(self) -> tuple[datetime, datetime] | None:
        """The span of every time expression, or ``None`` when the query names no time."""
        if not self.times:
            return None
        return min(t.start for t in self.times), max(t.end for t in self.times)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "identifiers": [
                {"attribute": i.attribute, "text": i.text, "values": list(i.values)}
                for i in self.identifiers
            ],
            "attributes": list(self.attributes),
            "intents": [{"attribute": i.attribute, "phrase": i.phrase} for i in self.intents],
            "times": [
                {"text": t.text, "start": t.start.isoformat(), "end": t.end.isoformat()}
                for t in self.times
            ],
            "workflow": self.workflow,
            "context": self.context,
            "history": self.history,
            "own_value": self.own_value,
            "roles": list(self.roles),
            "qualified": [
                {"attribute": attribute, "qualifiers": [list(q) for q in qualifiers]}
                for attribute, qualifiers in self.qualified
            ],
        }


@dataclass(frozen=True, slots=True)
class RecallItem:
    """One thing recalled, judged and ranked.

    Attributes:
        lane: where it came from: ``exact``, ``window``, ``summary`` or ``workflow``.
        text: the item as one line for a prompt.
        score: the router's confidence in [0, 1]; lanes and statuses rank first (see
            docs/recall.md), the score orders items within them.
        status: ``current`` (holds at the read point), ``historical`` (an exact fact that
            held at another time, returned for history) or ``stale`` (a statement a newer
            fact or statement contradicts).
        fact: the exact-lane version, for exact items.
        valid_from: when it became true (facts) or was said (turns, notes, summaries).
        valid_to: when it stopped being true (facts), or when a newer fact or statement
            superseded it (stale items); ``None`` if open.
        provenance: turn ids or sources it came from.
        subject: whose memory it is.
        kind: ``fact``, ``turn``, ``note``, ``summary`` or ``workflow``.
        ref: a stable reference: ``fact:12``, ``note:5``, ``summary:3``, a turn id.
        at: when it was said or learned.
        superseded_by: for stale items, what replaced it.
        rendered: whether it made it into ``Recall.text`` within the budget.
    """

    lane: Lane
    text: str
    score: float
    status: Status = "current"
    fact: Fact | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    provenance: list[str] = field(default_factory=list)
    subject: str | None = None
    kind: ItemKind = "fact"
    ref: str = ""
    at: datetime | None = None
    superseded_by: str | None = None
    rendered: bool = False

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (times as ISO-8601 strings)."""
        return {
            "lane": self.lane,
            "kind": self.kind,
            "text": self.text,
            "score": round(self.score, 4),
            "status": self.status,
            "subject": self.subject,
            "ref": self.ref,
            "valid_from": _iso(self.valid_from),
            "valid_to": _iso(self.valid_to),
            "at": _iso(self.at),
            "provenance": list(self.provenance),
            "superseded_by": self.superseded_by,
            "rendered": self.rendered,
            "fact": None if self.fact is None else self.fact.to_dict(),
        }


@dataclass(frozen=True, slots=True)
class LaneStep:
    """One lane of the plan: whether it was asked, why, how long it took, what it found."""

    lane: Lane
    asked: bool
    reason: str
    ms: float = 0.0
    found: int = 0

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "lane": self.lane,
            "asked": self.asked,
            "reason": self.reason,
            "ms": round(self.ms, 3),
            "found": self.found,
        }


@dataclass(frozen=True, slots=True)
class Recall:
    """The answer of ``Memory.recall``: ranked items, the plan that found them, a prompt block.

    Attributes:
        query: the query as given.
        items: at most ``k`` items, best first (see :class:`RecallItem`).
        plan: one step per lane, in the order exact, window, summary, workflow.
        text: the items rendered as a labelled block within ``budget_tokens`` (empty when
            nothing was found).
        subjects: whose memory was read (given, or resolved from an identifier).
        valid_at: the valid-time instant of the read.
        known_at: the transaction-time instant of the read (``None``: current belief).
        tokens: the estimated size of ``text``.
        budget_tokens: the budget ``text`` was fitted into.
        analysis: what the router read in the query.
        ms: total time taken.
    """

    query: str
    items: list[RecallItem]
    plan: list[LaneStep]
    text: str
    subjects: list[str]
    valid_at: datetime
    known_at: datetime | None
    tokens: int
    budget_tokens: int
    analysis: QueryAnalysis
    ms: float = 0.0

    def step(self, lane: Lane) -> LaneStep:
        """The plan's step for ``lane``."""
        for step in self.plan:
            if step.lane == lane:
                return step
        raise KeyError(lane)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict, for the CLI, HTTP and MCP adapters."""
        return {
            "query": self.query,
            "subjects": list(self.subjects),
            "valid_at": self.valid_at.isoformat(),
            "known_at": _iso(self.known_at),
            "items": [item.to_dict() for item in self.items],
            "plan": [step.to_dict() for step in self.plan],
            "text": self.text,
            "tokens": self.tokens,
            "budget_tokens": self.budget_tokens,
            "analysis": self.analysis.to_dict(),
            "ms": round(self.ms, 3),
        }


def _iso(instant: datetime | None) -> str | None:
    return None if instant is None else instant.isoformat()
