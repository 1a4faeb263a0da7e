"""The HTTP API: roles, tenants, keys, errors, limits, and forgetting through every route."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from memlane.server.model import ROLE_PERMISSIONS, ROLES

from .conftest import Api

SUBJECT = "U-1"

# (method, path, query, body, permission): every /v1 route with a request it accepts.
ROUTES: list[tuple[str, str, dict[str, Any] | None, dict[str, Any] | None, str]] = [
    ("GET", "/v1/facts/get", {"subject": SUBJECT, "attribute": "location"}, None, "read"),
    ("GET", "/v1/facts/get_all", {"subject": SUBJECT, "attribute": "phone"}, None, "read"),
    ("GET", "/v1/facts/history", {"subject": SUBJECT, "attribute": "location"}, None, "read"),
    ("GET", "/v1/facts/lookup", {"attribute": "phone", "value": "13800001234"}, None, "read"),
    ("GET", "/v1/facts/profile", {"subject": SUBJECT}, None, "read"),
    ("GET", "/v1/facts/audit", {"subject": SUBJECT}, None, "audit"),
    (
        "POST",
        "/v1/facts/set",
        None,
        {"subject": SUBJECT, "attribute": "tier", "value": "gold"},
        "write",
    ),
    (
        "POST",
        "/v1/facts/add",
        None,
        {"subject": SUBJECT, "attribute": "phone", "value": "139-0000-0000"},
        "write",
    ),
    ("POST", "/v1/facts/retract", None, {"subject": SUBJECT, "attribute": "tier"}, "write"),
    ("POST", "/v1/facts/define", None, {"attribute": "email", "identifier": True}, "write"),
    ("POST", "/v1/remember", None, {"subject": SUBJECT, "text": "I like tea"}, "write"),
    ("POST", "/v1/recall", None, {"subject": SUBJECT, "query": "where does U-1 live?"}, "read"),
    ("GET", "/v1/summaries/search", {"subject": SUBJECT, "query": "tea"}, None, "read"),
    ("GET", "/v1/summaries/search_notes", {"subject": SUBJECT, "query": "tea"}, None, "read"),
    ("GET", "/v1/summaries/storyline", {"subject": SUBJECT}, None, "read"),
    ("GET", "/v1/views/active", {"subject": SUBJECT}, None, "read"),
    (
        "POST",
        "/v1/sessions/turn",
        None,
        {"subject": SUBJECT, "session_id": "s-1", "role": "user", "content": "hello"},
        "write",
    ),
    ("GET", "/v1/sessions/window", {"subject": SUBJECT, "session_id": "s-1"}, None, "read"),
    ("POST", "/v1/sessions/close", None, {"subject": SUBJECT, "session_id": "s-1"}, "write"),
    ("GET", "/v1/views/audit", {"subject": SUBJECT}, None, "audit"),
    ("GET", "/v1/views/compliance", None, None, "compliance"),
    ("POST", "/v1/forget", None, {"subject": SUBJECT, "attribute": "tier"}, "compliance"),
    ("POST", "/v1/purge", None, {"subject": SUBJECT}, "compliance"),
    ("GET", "/v1/keys", None, None, "keys"),
    ("POST", "/v1/keys", None, {"role": "agent"}, "keys"),
]


def _seed(api: Api, tenant: str = "acme") -> str:
    """Facts of U-1 in ``tenant``; returns an admin key of it."""
    admin = api.mint(tenant, "admin")
    headers = api.headers(admin)
    define = {"attribute": "phone", "cardinality": "many", "identifier": True}
    assert api.client.post("/v1/facts/define", json=define, headers=headers).status_code == 200
    for path, body in [
        ("/v1/facts/set", {"subject": SUBJECT, "attribute": "location", "value": "Paris"}),
        ("/v1/facts/add", {"subject": SUBJECT, "attribute": "phone", "value": "138-0000-1234"}),
    ]:
        assert api.client.post(path, json={**body}, headers=headers).status_code == 200
    return admin


def _call(api: Api, key: str | None, route: tuple[Any, ...]) -> Any:
    method, path, query, body, _ = route
    headers = {} if key is None else api.headers(key)
    return api.client.request(method, path, params=query, json=body, headers=headers)


@pytest.mark.parametrize("role", ROLES)
def test_each_role_gets_exactly_its_routes(api: Api, role: str) -> None:
    _seed(api)
    key = api.mint("acme", role)
    for route in ROUTES:
        response = _call(api, key, route)
        allowed = route[4] in ROLE_PERMISSIONS[role]  # type: ignore[index]
        if allowed:
            assert response.status_code < 400 or response.status_code == 404, (route, response)
        else:
            assert response.status_code == 403, (route, response.status_code)
            assert response.json()["error"]["code"] == "forbidden"


def test_revoke_route_only_for_admins_and_only_in_its_tenant(api: Api) -> None:
    admin = _seed(api)
    victim = api.mint("acme", "agent")
    victim_id = victim.split("_")[1]
    foreign_admin = api.mint("other", "admin")
    for role in ("agent", "auditor", "compliance"):
        denied = api.client.delete(
            f"/v1/keys/{victim_id}", headers=api.headers(api.mint("acme", role))
        )
        assert denied.status_code == 403
    # Another tenant's admin cannot even tell the key exists.
    foreign = api.client.delete(f"/v1/keys/{victim_id}", headers=api.headers(foreign_admin))
    unknown = api.client.delete("/v1/keys/0123456789ab", headers=api.headers(foreign_admin))
    assert foreign.status_code == unknown.status_code == 404
    assert foreign.json() == unknown.json()
    ok = api.client.delete(f"/v1/keys/{victim_id}", headers=api.headers(admin))
    assert ok.status_code == 200 and ok.json()["revoked_at"] is not None
    listed = api.client.get("/v1/keys", headers=api.headers(admin)).json()
    assert {k["tenant"] for k in listed["items"]} == {"acme"}
    assert all("secret_hash" not in k and "key" not in k for k in listed["items"])


def test_a_key_never_sees_another_tenant(api: Api) -> None:
    _seed(api, "acme")
    outsider = api.mint("other", "admin")
    for route in ROUTES:
        method, path, query, _, _ = route
        if query is None or "subject" not in query or method != "GET":
            continue
        stranger = {**query, "subject": "U-nobody"}
        foreign = _call(api, outsider, route)
        unknown = api.client.get(path, params=stranger, headers=api.headers(outsider))
        assert foreign.status_code == unknown.status_code, path
        assert foreign.status_code in (200, 404), path
        if foreign.status_code == 404:
            assert foreign.json() == unknown.json()
        else:
            assert "Paris" not in foreign.text and "1234" not in foreign.text, path
    recall = api.client.post(
        "/v1/recall", json={"subject": SUBJECT, "query": "phone?"}, headers=api.headers(outsider)
    )
    assert recall.status_code == 200 and recall.json()["items"] == []
    lookup = api.client.get(
        "/v1/facts/lookup",
        params={"attribute": "phone", "value": "13800001234"},
        headers=api.headers(outsider),
    )
    assert lookup.json()["items"] == []


@pytest.mark.parametrize(
    "authorization",
    [
        None,
        "Bearer ",
        "Bearer nonsense",
        "Basic dXNlcjpwYXNz",
        "Bearer ml_0123456789ab_" + "x" * 43,
    ],
    ids=["missing", "empty", "malformed", "basic", "unknown-id"],
)
def test_bad_keys_are_401(api: Api, authorization: str | None) -> None:
    _seed(api)
    headers = {} if authorization is None else {"Authorization": authorization}
    response = api.client.get("/v1/facts/profile", params={"subject": SUBJECT}, headers=headers)
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "unauthorized"
    assert response.headers["www-authenticate"] == "Bearer"


def test_wrong_secret_and_revoked_keys_are_401(api: Api) -> None:
    admin = _seed(api)
    key = api.mint("acme", "agent")
    forged = key[:-4] + ("AAAA" if not key.endswith("AAAA") else "BBBB")
    query = {"subject": SUBJECT}
    assert api.client.get("/v1/facts/profile", params=query, headers=api.headers(key)).is_success
    forged_response = api.client.get("/v1/facts/profile", params=query, headers=api.headers(forged))
    assert forged_response.status_code == 401
    api.client.delete(f"/v1/keys/{key.split('_')[1]}", headers=api.headers(admin))
    revoked = api.client.get("/v1/facts/profile", params=query, headers=api.headers(key))
    assert revoked.status_code == 401
    assert revoked.json() == forged_response.json()


def test_huge_body_is_413(api: Api) -> None:
    admin = _seed(api)
    text = "x" * (65 * 1024)
    response = api.client.post(
        "/v1/remember", json={"subject": SUBJECT, "text": text}, headers=api.headers(admin)
    )
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "payload_too_large"

    def chunks() -> Any:
        for _ in range(80):
            yield b"x" * 1024

    chunked = api.client.post("/v1/remember", content=chunks(), headers=api.headers(admin))
    assert chunked.status_code == 413


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        (
            "/v1/facts/set",
            {"subject": SUBJECT, "attribute": "x", "value": 1, "valid_from": "?"},
            "valid_from",
        ),
        ("/v1/facts/set", {"subject": " ", "attribute": "x", "value": 1}, "subject"),
        ("/v1/facts/set", {"subject": SUBJECT, "value": 1}, "attribute"),
        ("/v1/facts/set", {"subject": SUBJECT, "attribute": "x", "value": 1, "extra": 2}, "extra"),
        ("/v1/remember", {"subject": SUBJECT, "text": "   "}, "text"),
        ("/v1/recall", {"subject": SUBJECT, "query": "q", "k": 0}, "k"),
        ("/v1/keys", {"role": "root"}, "role"),
    ],
)
def test_invalid_input_is_422_with_code_and_field(
    api: Api, path: str, body: dict[str, Any], field: str
) -> None:
    admin = _seed(api)
    response = api.client.post(path, json=body, headers=api.headers(admin))
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert error["code"] == "invalid_input"
    assert error["field"] == field
    assert error["message"]


def test_pagination_of_list_routes(api: Api) -> None:
    admin = _seed(api)
    headers = api.headers(admin)
    for month in range(1, 6):
        body = {"subject": SUBJECT, "attribute": "city", "value": f"c{month}"}
        body["valid_from"] = f"2025-0{month}-01"
        assert api.client.post("/v1/facts/set", json=body, headers=headers).status_code == 200
    query = {"subject": SUBJECT, "attribute": "city", "limit": 2, "offset": 1}
    page = api.client.get("/v1/facts/history", params=query, headers=headers).json()
    assert [f["value"] for f in page["items"]] == ["c2", "c3"]
    assert (page["total"], page["limit"], page["offset"]) == (5, 2, 1)
    too_big = api.client.get("/v1/facts/history", params={**query, "limit": 5000}, headers=headers)
    assert too_big.status_code == 422 and too_big.json()["error"]["field"] == "limit"


def test_forget_then_no_read_route_shows_the_subject(api: Api) -> None:
    admin = _seed(api)
    headers = api.headers(admin)
    secret_text = "my email is kim@example.org"
    assert api.client.post(
        "/v1/remember", json={"subject": SUBJECT, "text": secret_text}, headers=headers
    ).is_success
    turn = {"subject": SUBJECT, "session_id": "s-9", "role": "user", "content": "I live in Paris"}
    assert api.client.post("/v1/sessions/turn", json=turn, headers=headers).is_success
    compliance = api.headers(api.mint("acme", "compliance"))
    forgotten = api.client.post(
        "/v1/forget", json={"subject": SUBJECT, "reason": "erasure"}, headers=compliance
    )
    assert forgotten.status_code == 200
    assert forgotten.json()["deletion"]["requested_by"].startswith("key:")
    agent = api.headers(api.mint("acme", "agent"))
    reads = [r for r in ROUTES if r[0] == "GET" and r[4] == "read"]
    reads.append(("POST", "/v1/recall", None, {"subject": SUBJECT, "query": "email?"}, "read"))
    reads.append(("POST", "/v1/recall", None, {"query": "who lives in Paris?"}, "read"))
    for method, path, query, body, _ in reads:
        response = api.client.request(method, path, params=query, json=body, headers=agent)
        assert response.status_code in (200, 404), (path, response.status_code)
        shown = response.json()
        if path == "/v1/recall":
            assert shown["items"] == [] and shown["text"] == "", shown
            continue
        for needle in ("Paris", "kim@example.org", "138", "I live"):
            assert needle not in response.text, (path, needle)
    log = api.client.get("/v1/views/compliance", headers=compliance).json()
    assert [d["subject"] for d in log["items"]] == [SUBJECT]
    purged = api.client.post(
        "/v1/purge", json={"subject": SUBJECT, "immediately": True}, headers=compliance
    )
    report = purged.json()["report"]
    assert report["deletions"] == [log["items"][0]["id"]]
    assert report["bytes_verified"] is True and report["held"] == []  # the files were scanned
    audit = api.client.get("/v1/views/audit", params={"subject": SUBJECT}, headers=compliance)
    assert audit.status_code == 404


def test_health_openapi_and_logs_without_content(
    api: Api, caplog: pytest.LogCaptureFixture
) -> None:
    assert api.client.get("/healthz").json() == {"status": "ok"}
    assert api.client.get("/readyz").json() == {"status": "ready", "pending": 0}
    paths = api.client.get("/openapi.json").json()["paths"]
    for _, path, *_ in ROUTES:
        assert path in paths
    admin = api.mint("acme", "admin")
    with caplog.at_level(logging.INFO, logger="memlane.server"):
        api.client.post(
            "/v1/remember",
            json={"subject": "U-secret", "text": "passport X1234567"},
            headers=api.headers(admin),
        )
        api.client.get(
            "/v1/facts/get",
            params={"subject": "U-secret", "attribute": "passport"},
            headers=api.headers(admin),
        )
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert "/v1/remember" in logged and "/v1/facts/get" in logged
    assert admin.split("_")[1] in logged
    for needle in ("U-secret", "X1234567", "passport", admin):
        assert needle not in logged


def test_anonymous_requests_get_401_before_their_body_is_read(api: Api) -> None:
    for content in (b"{not json", b"x" * (70 * 1024)):
        response = api.client.post(
            "/v1/facts/set", content=content, headers={"Content-Type": "application/json"}
        )
        assert response.status_code == 401
        assert response.json()["error"]["code"] == "unauthorized"
