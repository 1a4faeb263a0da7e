"""The routing rules of ARCHITECTURE.md ("The router"), as pure decisions with reasons.

1. An identifier, or a known attribute of a known subject → the exact lane only; if it
   answers, no other lane is asked and no embedding is computed.
2. Context, preferences, past episodes (or an exact lane that did not answer) → the summary
   lane, supplemented by the subject's exact profile.
3. A running session → its window, always (it is in memory and costs nothing), ranked
   above summaries because it is fresher.
4. How a kind of task is done → the workflow lane, when one is attached.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from memlane.router.analysis import context_beyond
from memlane.router.lanes import ExactRead, Resolution
from memlane.router.model import IdentifierRef, QueryAnalysis


@dataclass(frozen=True, slots=True)
class Decision:
    """Whether to ask a lane, and why (shown in ``Recall.plan``)."""

    asked: bool
    reason: str


def exact_decision(resolution: Resolution, analysis: QueryAnalysis, given: bool) -> Decision:
    """Ask the exact lane whenever a subject is known (given, by identifier or session)."""
    if resolution.subjects:
        how = "given" if given else _resolved_how(resolution)
        return Decision(True, f"subject {', '.join(resolution.subjects)} {how}")
    if analysis.identifiers:
        return Decision(False, f"{_refs(resolution.unmatched)}: no subject (exact match only)")
    return Decision(False, "no subject: none given, no identifier in the query, no session")


def exact_reason(decision: Decision, read: ExactRead, resolution: Resolution) -> str:
    """The exact step's reason once it ran: what was asked and whether it answered."""
    parts = [decision.reason]
    if resolution.unmatched and not resolution.matched:
        held = "not held by " + ", ".join(resolution.subjects)
        parts.append(f"{_refs(resolution.unmatched)} {held} (exact match only): no answer")
    elif resolution.unmatched:
        parts.append(f"{_refs(resolution.unmatched)} matched no subject (exact match only)")
    if read.asked:
        outcome = "answered" if read.answered else "no value"
        parts.append(f"asked for {', '.join(read.asked)}: {outcome}")
    elif read.answered:
        parts.append("identifier matched: profile returned")
    elif not (resolution.unmatched and not resolution.matched):
        parts.append("no attribute asked: profile kept as a supplement")
    return "; ".join(parts)


def window_decision(session_id: str | None, running: bool, owner_ok: bool) -> Decision:
    """Include a running session's window, if it belongs to the subject read."""
    if session_id is None:
        return Decision(False, "no session_id given")
    if not running:
        return Decision(False, f"no running session {session_id!r} for this subject")
    if not owner_ok:
        return Decision(False, f"session {session_id!r} belongs to another subject")
    return Decision(True, f"session {session_id!r} is running: its window outranks summaries")


def summary_decision(
    analysis: QueryAnalysis,
    exact: ExactRead,
    exact_asked: bool,
    filter_ids: Sequence[IdentifierRef],
) -> Decision:
    """Ask the summary lane unless the exact lane answered a purely factual query."""
    context = analysis.context
    if context and exact.literal_spans:  # "favourite" in "favourite team" names a fact
        spans = [*(intent.span for intent in analysis.intents), *exact.literal_spans]
        context = context_beyond(analysis.query, spans)
    if exact.answered and not context and not analysis.workflow:
        return Decision(False, "exact lane answered: no other lane asked, no embedding computed")
    if context:
        why = "the query asks about context, preferences or past episodes"
    elif analysis.workflow:
        why = "the query asks how a task is done: past episodes may help"
    elif filter_ids and exact_asked:
        why = "the exact lane holds no such identifier for this subject"
    elif exact_asked and exact.asked:
        why = f"exact lane has no value for {', '.join(exact.asked)}"
    elif exact_asked:
        why = "no attribute asked: searching what was said"
    else:
        why = "no subject: searching the whole tenant"
    if filter_ids:
        why += f"; only items naming {_refs(filter_ids)} exactly"
    if analysis.period is not None:
        why += f"; items from {', '.join(t.text for t in analysis.times)} (its years) first"
    return Decision(True, why)


def workflow_decision(analysis: QueryAnalysis, available: bool) -> Decision:
    """Ask the workflow lane for how-to questions, when one is attached."""
    if not available:
        return Decision(False, "workflow lane not available")
    if not analysis.workflow:
        return Decision(False, "the query does not ask how a task is done")
    return Decision(True, "the query asks how a task is done")


def _resolved_how(resolution: Resolution) -> str:
    if not resolution.matched:
        return "from the running session"
    refs = [ref for refs in resolution.matched.values() for ref in refs]
    return f"from {_refs(refs)}"


def _refs(refs: Sequence[IdentifierRef]) -> str:
    return ", ".join(f"{ref.attribute} {ref.values[0]}" for ref in dict.fromkeys(refs))
