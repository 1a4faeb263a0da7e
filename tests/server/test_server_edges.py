"""Hostile and careless input at the HTTP edge: a 4xx JSON body naming the field, never a 500.

Also what the OpenAPI document promises (every error status, the enforced limits), the
mapping of storage errors (a violated constraint is no "unavailable") and ``/docs`` offline.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

import pytest

import memlane
from memlane.errors import StorageError
from memlane.validation import MAX_NAME_CHARS, MAX_NOTE_CHARS, MAX_TURN_CHARS
from tests.server.conftest import Api


def _post(api: Api, key: str, path: str, raw: str) -> Any:
    """POST a raw JSON text (lone surrogates can only be sent as escapes in raw JSON)."""
    headers = {**api.headers(key), "Content-Type": "application/json"}
    return api.client.post(path, content=raw.encode(), headers=headers)


def _refused(response: Any, field: str) -> None:
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert error["code"] == "invalid_input"
    assert error["field"] == field, error


@pytest.mark.parametrize(
    ("subject", "says"),
    [
        ("U-TRAIL ", "white space"),
        ("U\\u0000NUL", "control characters"),
        ("U" * (MAX_NAME_CHARS + 1), f"longer than {MAX_NAME_CHARS}"),
        ("U\\ud800", "not valid Unicode"),
    ],
)
def test_what_remember_refuses_forget_refuses_too(api: Api, subject: str, says: str) -> None:
    key = api.mint("acme", "admin")
    for path, body in [
        ("/v1/remember", f'{{"subject": "{subject}", "text": "my e-mail is kim@example.org"}}'),
        (
            "/v1/sessions/turn",
            f'{{"subject": "{subject}", "session_id": "s-1", "role": "user", "content": "hi"}}',
        ),
        ("/v1/facts/set", f'{{"subject": "{subject}", "attribute": "email", "value": "k@x.org"}}'),
        ("/v1/forget", f'{{"subject": "{subject}"}}'),
        ("/v1/purge", f'{{"subject": "{subject}", "immediately": true}}'),
    ]:
        response = _post(api, key, path, body)
        _refused(response, "subject")
        assert says in response.json()["error"]["message"]
    decoded = json.loads(f'"{subject}"')
    for path in ("/v1/views/audit", "/v1/facts/audit"):
        if "\ud800" not in decoded:  # a URL cannot carry a lone surrogate
            got = api.client.get(path, params={"subject": decoded}, headers=api.headers(key))
            _refused(got, "subject")


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/v1/remember", '{"subject": "U-1", "text": "I live in \\ud800"}', "text"),
        ("/v1/remember", '{"subject": "U-1", "text": "hi", "source": "\\udfff"}', "source"),
        ("/v1/facts/set", '{"subject": "U-1", "attribute": "city", "value": "\\ud800"}', "value"),
        (
            "/v1/facts/set",
            '{"subject": "U-1", "attribute": "city", "value": {"a\\ud800": [1]}}',
            "value",
        ),
        (
            "/v1/facts/set",
            '{"subject": "U-1", "attribute": "ci\\ud800", "value": "x"}',
            "attribute",
        ),
        (
            "/v1/sessions/turn",
            '{"subject": "U-1", "session_id": "s-1", "role": "user", "content": "hi \\ud800"}',
            "content",
        ),
        (
            "/v1/sessions/turn",
            '{"subject": "U-1", "session_id": "s-1", "role": "user", "content": "a\\u0000b"}',
            "content",
        ),
        ("/v1/recall", '{"subject": "U-1", "query": "where \\ud800"}', "query"),
        (
            "/v1/remember",
            '{"subject": "U-1", "text": "' + "x" * (MAX_NOTE_CHARS + 1) + '"}',
            "text",
        ),
    ],
)
def test_surrogates_nul_and_oversize_fields_are_422_naming_the_field(
    api: Api, path: str, body: str, field: str
) -> None:
    _refused(_post(api, api.mint("acme", "admin"), path, body), field)


EDGES = ["0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-12:00", "0001-01-01"]


@pytest.mark.parametrize("instant", EDGES)
def test_calendar_edges_are_422_naming_the_field_never_500(api: Api, instant: str) -> None:
    key = api.mint("acme", "admin")
    _refused(
        _post(
            api,
            key,
            "/v1/sessions/turn",
            json.dumps(
                {
                    "subject": "U-1",
                    "session_id": "s-9",
                    "role": "user",
                    "content": "hi",
                    "at": instant,
                }
            ),
        ),
        "at",
    )
    # The failed first turn left no empty running session behind.
    window = api.client.get(
        "/v1/sessions/window",
        params={"subject": "U-1", "session_id": "s-9"},
        headers=api.headers(key),
    )
    assert window.status_code == 404
    body = {"subject": "U-1", "attribute": "city", "value": "Berlin", "valid_from": instant}
    _refused(_post(api, key, "/v1/facts/set", json.dumps(body)), "valid_from")
    _refused(
        _post(
            api, key, "/v1/remember", json.dumps({"subject": "U-1", "text": "hi", "at": instant})
        ),
        "at",
    )
    _refused(
        _post(api, key, "/v1/recall", json.dumps({"query": "where", "valid_at": instant})),
        "valid_at",
    )
    got = api.client.get(
        "/v1/facts/get",
        params={"subject": "U-1", "attribute": "city", "known_at": instant},
        headers=api.headers(key),
    )
    _refused(got, "known_at")


def test_deeply_nested_json_is_a_4xx(api: Api) -> None:
    response = _post(api, api.mint("acme", "admin"), "/v1/facts/set", "[" * 20_000 + "]" * 20_000)
    assert 400 <= response.status_code < 500
    assert response.json()["error"]["code"]


@pytest.mark.parametrize(
    ("cause", "status", "code"),
    [
        (sqlite3.IntegrityError("UNIQUE constraint failed: facts.id"), 409, "conflict"),
        (sqlite3.OperationalError("database is locked"), 503, "unavailable"),
    ],
)
def test_a_violated_constraint_is_409_and_only_unavailability_503(
    api: Api, monkeypatch: pytest.MonkeyPatch, cause: Exception, status: int, code: str
) -> None:
    def failing(*_: object, **__: object) -> None:
        raise StorageError(f"SQLite error: {cause}") from cause

    monkeypatch.setattr(memlane.Memory, "remember", failing)
    response = _post(
        api, api.mint("acme", "agent"), "/v1/remember", '{"subject": "U-1", "text": "hi"}'
    )
    assert response.status_code == status
    assert response.json()["error"]["code"] == code


def test_a_conflict_error_is_409(api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    def failing(*_: object, **__: object) -> None:
        raise memlane.ConflictError("two believed versions would overlap")

    monkeypatch.setattr(memlane.Memory, "remember", failing)
    response = _post(
        api, api.mint("acme", "agent"), "/v1/remember", '{"subject": "U-1", "text": "hi"}'
    )
    assert response.status_code == 409


def test_the_openapi_document_lists_every_error_status_and_the_limits(api: Api) -> None:
    spec = api.client.get("/openapi.json").json()
    operations = [
        (path, operation)
        for path, item in spec["paths"].items()
        if path.startswith("/v1/")
        for operation in item.values()
    ]
    assert len(operations) > 25
    for path, operation in operations:
        responses = operation["responses"]
        for status in ("401", "403", "404", "413", "422"):
            assert status in responses, (path, status)
            schema = responses[status]["content"]["application/json"]["schema"]
            assert schema == {"$ref": "#/components/schemas/ErrorBody"}, (path, status)
    schemas = spec["components"]["schemas"]
    assert schemas["Remember"]["properties"]["subject"]["maxLength"] == MAX_NAME_CHARS
    assert schemas["Remember"]["properties"]["text"]["maxLength"] == MAX_NOTE_CHARS
    assert schemas["TurnIn"]["properties"]["content"]["maxLength"] == MAX_TURN_CHARS
    assert "pattern" in schemas["ForgetRequest"]["properties"]["subject"]
    get = spec["paths"]["/v1/facts/get"]["get"]
    subject = next(p for p in get["parameters"] if p["name"] == "subject")
    assert subject["schema"]["maxLength"] == MAX_NAME_CHARS


def test_docs_are_served_from_local_files(api: Api) -> None:
    pytest.importorskip("swagger_ui_bundle")
    page = api.client.get("/docs")
    assert page.status_code == 200
    assert "https://" not in page.text and "http://" not in page.text
    assert "/docs/static/swagger-ui-bundle.js" in page.text
    script = api.client.get("/docs/static/swagger-ui-bundle.js")
    assert script.status_code == 200 and len(script.content) > 100_000
    assert api.client.get("/docs/static/../../etc/passwd").status_code == 404
    assert api.client.get("/docs/static/index.html").status_code == 404


def test_an_unknown_query_parameter_is_refused_not_dropped(api: Api) -> None:
    key = api.mint("acme", "admin")
    misspelt = {"subject": "U-1", "attribute": "city", "valid_att": "2026-01-01"}
    _refused(
        api.client.get("/v1/facts/get", params=misspelt, headers=api.headers(key)), "valid_att"
    )
    paged = {"subject": "U-1", "limit": 5, "offset": 0}
    api.client.post(
        "/v1/facts/set",
        json={"subject": "U-1", "attribute": "city", "value": "Oslo"},
        headers=api.headers(key),
    )
    assert (
        api.client.get("/v1/facts/versions", params=paged, headers=api.headers(key)).status_code
        == 200
    )


def test_a_405_allows_every_method_the_document_lists_for_the_path(api: Api) -> None:
    key = api.mint("acme", "admin")
    spec = api.client.get("/openapi.json").json()
    for path, probe in [("/v1/keys", "/v1/keys"), ("/v1/keys/{key_id}", "/v1/keys/abc")]:
        listed = sorted(method.upper() for method in spec["paths"][path])
        response = api.client.request("TRACE", probe, headers=api.headers(key))
        assert response.status_code == 405
        assert response.headers["Allow"] == ", ".join(listed)
    assert api.client.options("/healthz").headers["Allow"] == "GET"


def test_a_whole_number_written_with_a_point_is_an_integer(api: Api) -> None:
    """JSON Schema counts ``5.0`` as an integer; ``5.5`` is none."""
    key = api.mint("acme", "admin")
    turn = {"subject": "U-1", "session_id": "s-1", "role": "user", "content": "hi"}
    accepted = _post(api, key, "/v1/sessions/turn", json.dumps({**turn, "window": 3.0}))
    assert accepted.status_code == 200, accepted.text
    _refused(_post(api, key, "/v1/sessions/turn", json.dumps({**turn, "window": 3.5})), "window")
    _refused(_post(api, key, "/v1/sessions/turn", json.dumps({**turn, "window": True})), "window")


def test_what_the_document_says_of_values_and_normalizers_holds(api: Api) -> None:
    key = api.mint("acme", "admin")
    schemas = api.client.get("/openapi.json").json()["components"]["schemas"]
    assert schemas["FactWrite"]["properties"]["value"]["not"] == {"type": "null"}
    null = _post(api, key, "/v1/facts/set", '{"subject": "U-1", "attribute": "a", "value": null}')
    _refused(null, "value")
    rule = schemas["Definition"]["allOf"][0]
    assert rule["if"]["required"] == ["normalizer"]
    assert rule["then"]["properties"] == {"identifier": {"const": True}}
    loose = _post(api, key, "/v1/facts/define", '{"attribute": "sku", "normalizer": "code"}')
    _refused(loose, "normalizer")
    normalizers = schemas["Definition"]["properties"]["normalizer"]["anyOf"][0]["enum"]
    for normalizer in normalizers:  # every one the document offers is taken
        body = {"attribute": f"id-{normalizer}", "identifier": True, "normalizer": normalizer}
        defined = _post(api, key, "/v1/facts/define", json.dumps(body))
        assert defined.status_code == 200, (normalizer, defined.text)
