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

CONFIG = Path(__file__).resolve().parents[2] / "schemathesis.toml"
"""The repository's schemathesis configuration, which ``schemathesis run`` also reads."""


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
    (:data:`INEXPRESSIBLE`), which the 422 must then name. The operations that may answer so
    are those ``schemathesis.toml`` lets answer 422 to a schema-valid request.
    """
    app, admin = _served(tmp_path)
    schema = schemathesis.openapi.from_asgi("/openapi.json", app, config=_config())
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
                if mode == "negative" and _carried_as_text(case):
                    return  # a number in a text parameter arrives as text, which it may accept
                # A negative case that leaves the key out must be sent without one.
                keyed = mode == "positive" or "Authorization" in (case.headers or {})
                headers = admin if keyed else None
                response = case.call(headers=headers)
                if response.status_code == 413:
                    return  # an oversized value made the body too large: refused all the same
                case.validate_response(response, headers=headers)
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


def _takes_text(parameter: Any) -> bool:
    schema = parameter.definition.get("schema", {})
    return any(branch.get("type") == "string" for branch in schema.get("anyOf", [schema]))


def _carried_as_text(case: Any) -> bool:
    """True if a query parameter that takes text was given a number, a boolean or a list:
    the URL carries characters all the same (``[2.59e16]`` as ``subject=2.59e%2B16``), which
    may well be a valid text, so the case need not be refused."""
    takes_text = {parameter.name for parameter in case.operation.query if _takes_text(parameter)}
    return any(
        name in takes_text and not isinstance(value, str)
        for name, value in (case.query or {}).items()
    )


def _config() -> Any:
    return schemathesis.config.SchemathesisConfig.from_path(CONFIG)


MAY_REFUSE_VALID = {
    ("POST", "/v1/facts/set"),
    ("POST", "/v1/facts/add"),
    ("POST", "/v1/facts/retract"),
    ("GET", "/v1/facts/get"),
    ("POST", "/v1/facts/define"),
    ("POST", "/v1/recall"),
}
"""The operations where an :data:`INEXPRESSIBLE` rule applies."""


def test_only_the_operations_with_inexpressible_rules_may_refuse_valid_data(
    tmp_path: Path,
) -> None:
    app, _ = _served(tmp_path)
    try:
        schema = schemathesis.openapi.from_asgi("/openapi.json", app, config=_config())
        allowed = {}
        for result in schema.get_all_operations():
            operation = result.ok()
            checks = schema.config.checks_config_for(operation=operation)
            allowed[operation.method.upper(), operation.path] = "422" in (
                checks.positive_data_acceptance.expected_statuses
            )
    finally:
        app.state.memlane.close()
    assert len(allowed) >= 25
    assert {key for key, may in allowed.items() if may} == MAY_REFUSE_VALID


@pytest.mark.parametrize("configured", [True, False])
def test_an_empty_validity_interval_is_refused_as_the_configuration_allows(
    tmp_path: Path, configured: bool
) -> None:
    """``schemathesis run --checks all`` passes a 422 for ``valid_to == valid_from`` on
    ``facts/set`` because of ``schemathesis.toml``, and only because of it."""
    from schemathesis.core.failures import FailureGroup

    app, admin = _served(tmp_path)
    config = _config() if configured else schemathesis.config.SchemathesisConfig()
    schema = schemathesis.openapi.from_asgi("/openapi.json", app, config=config)
    operation = schema["/v1/facts/set"]["POST"]
    outcomes: list[int] = []
    try:

        @given(case=operation.as_strategy(generation_mode=schemathesis.GenerationMode.POSITIVE))
        @settings(max_examples=1, deadline=None, suppress_health_check=list(HealthCheck))
        def send(case: Any) -> None:
            case.body = {
                "subject": "U-1",
                "attribute": "city",
                "value": "Paris",
                "valid_from": "2026-01-01",
                "valid_to": "2026-01-01",
            }
            response = case.call(headers=admin)
            outcomes.append(response.status_code)
            case.validate_response(response, headers=admin)

        if configured:
            send()
        else:
            with pytest.raises(FailureGroup, match="accepted"):
                send()
    finally:
        app.state.memlane.close()
    assert outcomes and set(outcomes) == {422}
