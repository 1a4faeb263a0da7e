"""The privacy suite is part of the backend contract: every test runs on every backend."""

from __future__ import annotations

import pytest


@pytest.fixture
def backend(every_backend: str) -> str:
    return every_backend
