"""The public operations, declared once, and the rules the adapters share.

* :mod:`~memlane.operations.spec` — how an operation is declared (:class:`Operation`,
  :class:`Param`);
* :mod:`~memlane.operations.catalog` — every public operation's declaration
  (:data:`OPERATIONS`), from which the HTTP routes, the MCP tools and the ``memlane``
  command are built;
* :mod:`~memlane.operations.rules` — what the MCP tools and CLI commands do alike (read one
  value or all by cardinality, typo hints, the unknown-subject check).
"""

from __future__ import annotations

from memlane.operations.catalog import OPERATIONS
from memlane.operations.rules import (
    attribute_hint,
    fact_values,
    require_subject,
    subject_known,
)
from memlane.operations.spec import REQUIRED, Operation, Param

__all__ = [
    "OPERATIONS",
    "REQUIRED",
    "Operation",
    "Param",
    "attribute_hint",
    "fact_values",
    "require_subject",
    "subject_known",
]
