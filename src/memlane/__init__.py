"""memlane: long-term memory for AI agents.

>>> import memlane
>>> with memlane.Memory(":memory:") as mem:
...     mem.facts.define("phone", cardinality="many", identifier=True).normalizer
'phone'
"""

from memlane.errors import InvalidInput, MemlaneError, SchemaError, StorageError
from memlane.facts.model import AttributeDef, Fact
from memlane.memory import Memory

__all__ = [
    "AttributeDef",
    "Fact",
    "InvalidInput",
    "MemlaneError",
    "Memory",
    "SchemaError",
    "StorageError",
]
__version__ = "0.1.0"
