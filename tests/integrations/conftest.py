"""The adapters use only the public lanes, so their tests run on every backend.

The differential tests against the frameworks' own stores keep to SQLite in memory: they
compare semantics, and run many short memories.
"""

from __future__ import annotations

import pytest


@pytest.fixture
def backend(every_backend: str) -> str:
    return every_backend
