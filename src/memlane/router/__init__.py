"""The router: one planner that decides which lanes answer a query, then judges the answers.

``Memory.recall(subject, query, ...)`` is the entry point; ``Memory.router`` holds the
:class:`Router` and its attribute registry (``mem.router.synonyms``). How routing,
adjudication and rendering work: docs/recall.md.
"""

from memlane.router.analysis import analyze
from memlane.router.executor import Router
from memlane.router.lanes import WorkflowMatcher
from memlane.router.model import (
    AttributeIntent,
    IdentifierRef,
    LaneStep,
    QueryAnalysis,
    Recall,
    RecallItem,
    TimeRef,
)
from memlane.router.synonyms import DEFAULT_SYNONYMS, SynonymRegistry

__all__ = [
    "DEFAULT_SYNONYMS",
    "AttributeIntent",
    "IdentifierRef",
    "LaneStep",
    "QueryAnalysis",
    "Recall",
    "RecallItem",
    "Router",
    "SynonymRegistry",
    "TimeRef",
    "WorkflowMatcher",
    "analyze",
]
