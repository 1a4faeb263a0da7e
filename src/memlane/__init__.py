"""memlane: long-term memory for AI agents.

>>> import memlane
>>> with memlane.Memory(":memory:") as mem:
...     mem.facts.define("phone", cardinality="many", identifier=True).normalizer
'phone'
"""

from memlane.errors import (
    ConflictError,
    InvalidInput,
    MemlaneError,
    SchemaError,
    StorageError,
)
from memlane.facts.model import AttributeDef, Fact
from memlane.memory import Memory
from memlane.privacy.model import AuditView, Deletion, PurgeReport
from memlane.router import LaneStep, Recall, RecallItem
from memlane.session import Session
from memlane.summaries.model import Note, NoteHit, Summary, SummaryContent, SummaryHit
from memlane.window.model import Turn

__all__ = [
    "AttributeDef",
    "AuditView",
    "ConflictError",
    "Deletion",
    "Fact",
    "InvalidInput",
    "LaneStep",
    "MemlaneError",
    "Memory",
    "Note",
    "NoteHit",
    "PurgeReport",
    "Recall",
    "RecallItem",
    "SchemaError",
    "Session",
    "StorageError",
    "Summary",
    "SummaryContent",
    "SummaryHit",
    "Turn",
]
__version__ = "0.1.0"
