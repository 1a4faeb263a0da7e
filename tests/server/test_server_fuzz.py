"""Property-based requests from the OpenAPI description: no input makes the server fail (5xx)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

schemathesis = pytest.importorskip("schemathesis")

from hypothesis import HealthCheck, given, settings  # noqa: E402

import memlane  # noqa: E402
from memlane.server.app import create_app  # noqa: E402
from tests.conftest import FakeClock  # noqa: E402


def test_no_request_makes_the_server_fail(tmp_path: Path) -> None:
    url = str(tmp_path / "fuzz.db")
    clock = FakeClock(datetime(2026, 3, 2, tzinfo=UTC))
    app = create_app(
        url,
        memory_factory=lambda tenant: memlane.Memory(
            url, tenant=tenant, clock=clock, embedder="hash"
        ),
        clock=clock,
    )
    admin = {"Authorization": "Bearer " + app.state.memlane.keys.create("acme", "admin")[1]}
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    checked = 0
    statuses: list[int] = []
    try:
        for result in schema.get_all_operations():
            operation = result.ok()

            @given(case=operation.as_strategy())
            @settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
            def no_failure(case: Any) -> None:
                response = case.call(headers=admin)
                statuses.append(response.status_code)
                assert response.status_code < 500, (case.method, case.path, response.text)
                if response.status_code >= 400:
                    assert response.json()["error"]["code"]

            no_failure()
            checked += 1
    finally:
        app.state.memlane.close()
    assert checked >= 25
    # Generated requests got past validation and auth, not only 4xx answers.
    assert sum(status < 400 for status in statuses) > 20, sorted(set(statuses))
