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


def _served(tmp_path: Path) -> tuple[Any, dict[str, str]]:
    """An app over a new database, and the headers of an admin key of tenant ``acme``."""
    url = str(tmp_path / "fuzz.db")
    clock = FakeClock(datetime(2026, 3, 2, tzinfo=UTC))
    app = create_app(
        url,
        memory=memlane.Memory(url, clock=clock, embedder="hash"),
    )
    admin = {"Authorization": "Bearer " + app.state.memlane.keys.create("acme", "admin")[1]}
    return app, admin


def test_no_request_makes_the_server_fail(tmp_path: Path) -> None:
    app, admin = _served(tmp_path)
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


@pytest.mark.parametrize("mode", ["positive", "negative"])
def test_the_server_keeps_every_promise_of_its_openapi_document(tmp_path: Path, mode: str) -> None:
    """Every check of ``schemathesis --checks all``.

    Documented statuses, content types, response schemas and headers hold for generated
    requests, requests that violate the published limits and patterns are refused, and
    requests within them are accepted — but for the rules JSON Schema cannot state
    (:data:`INEXPRESSIBLE`), which the 422 must then name.
    """
    from schemathesis.specs.openapi.checks import positive_data_acceptance

    app, admin = _served(tmp_path)
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    generation = schemathesis.GenerationMode(mode)
    checked = 0
    try:
        for result in schema.get_all_operations():
            operation = result.ok()
            if mode == "negative" and not operation.path.startswith("/v1/"):
                continue  # nothing to violate: no parameters, no body, no key

            @given(case=operation.as_strategy(generation_mode=generation))
            @settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
            def keeps_promises(case: Any) -> None:
                if mode == "negative" and _unsendable(case.query):
                    return  # such a parameter is simply absent from the URL
                # A negative case that leaves the key out must be sent without one.
                keyed = mode == "positive" or "Authorization" in (case.headers or {})
                headers = admin if keyed else None
                response = case.call(headers=headers)
                if response.status_code == 413:
                    return  # an oversized value made the body too large: refused all the same
                case.validate_response(
                    response, headers=headers, excluded_checks=[positive_data_acceptance]
                )
                if mode == "positive" and response.status_code == 422:
                    error = response.json()["error"]
                    assert _inexpressible(error), (case.method, case.path, case.body, error)

            keeps_promises()
            checked += 1
    finally:
        app.state.memlane.close()
    assert checked >= 25


INEXPRESSIBLE = (
    ("valid_to", "later than valid_from"),  # compares two fields, or one with "now"
    ("query", "no letters or digits"),  # "a letter of any script" has no portable pattern
    ("attribute", "-valued; use"),  # set/add/get against the stored cardinality
    ("attribute", "already holds data as"),  # define over stored data
)
"""Rules a schema-valid request may still break (field, words of the 422's message)."""


def _inexpressible(error: dict[str, Any]) -> bool:
    return any(
        error["field"] == field and words in error["message"] for field, words in INEXPRESSIBLE
    )


def _unsendable(query: dict[str, Any] | None) -> bool:
    """True if a query parameter is null, an object or an empty list: a URL cannot carry it."""
    return any(v is None or isinstance(v, dict) or v == [] for v in (query or {}).values())
