"""``GET /v1/subjects``: the inspector's list of subjects over HTTP, on every backend."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

import memlane
from memlane.server.app import create_app
from tests.conftest import FakeClock

from .conftest import Api


@pytest.fixture
def backend(every_backend: str) -> str:
    return every_backend


@pytest.fixture
def api(memory_url: str, clock: FakeClock) -> Iterator[Api]:
    """The HTTP API over a memory on the test's backend."""
    app = create_app(memory=memlane.Memory(memory_url, clock=clock, embedder="hash"))
    ring = app.state.memlane.keys
    with TestClient(app, raise_server_exceptions=True) as client:
        yield Api(client=client, mint=lambda tenant, role: ring.create(tenant, role)[1])


def listed(api: Api, key: str, **params: object) -> dict[str, object]:
    answer = api.client.get("/v1/subjects", params=params, headers=api.headers(key))
    assert answer.status_code == 200, answer.text
    body: dict[str, object] = answer.json()
    return body


def seed(api: Api, key: str, subjects: list[str]) -> None:
    for subject in subjects:
        body = {"subject": subject, "attribute": "tier", "value": "gold"}
        answer = api.client.post("/v1/facts/set", json=body, headers=api.headers(key))
        assert answer.status_code == 200, answer.text


def test_subjects_are_listed_paged_and_filtered(api: Api) -> None:
    agent = api.mint("acme", "agent")
    names = [f"U-{n:03d}" for n in range(1, 13)] + ["V-1", "张三"]
    seed(api, agent, names)
    assert listed(api, agent) == {"items": names, "total": 14, "limit": 100, "offset": 0}
    second = listed(api, agent, limit=5, offset=5)
    assert second == {"items": names[5:10], "total": 14, "limit": 5, "offset": 5}
    assert listed(api, agent, prefix="U-01")["items"] == ["U-010", "U-011", "U-012"]
    assert listed(api, agent, contains="u-00", limit=2)["total"] == 9
    assert listed(api, agent, contains="张")["items"] == ["张三"]
    other = api.mint("other", "agent")
    assert listed(api, other)["items"] == []


def test_forgotten_subjects_leave_the_list(api: Api) -> None:
    agent, compliance = api.mint("acme", "agent"), api.mint("acme", "compliance")
    seed(api, agent, ["U-1", "U-2"])
    forgot = api.client.post(
        "/v1/forget", json={"subject": "U-1", "reason": "test"}, headers=api.headers(compliance)
    )
    assert forgot.status_code == 200
    assert listed(api, agent)["items"] == ["U-2"]


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"limit": 0}, "limit"),
        ({"limit": 1001}, "limit"),
        ({"offset": -1}, "offset"),
        ({"offset": 2**70}, "offset"),
        ({"prefix": ""}, "prefix"),
        ({"contains": " x"}, "contains"),
        ({"subject": "U-1"}, "subject"),
    ],
)
def test_bad_parameters_are_422_naming_the_field(
    api: Api, params: dict[str, object], field: str
) -> None:
    agent = api.mint("acme", "agent")
    answer = api.client.get("/v1/subjects", params=params, headers=api.headers(agent))
    assert answer.status_code == 422, answer.text
    assert field in answer.text


def test_the_route_needs_a_key_and_is_in_the_openapi_document(api: Api) -> None:
    assert api.client.get("/v1/subjects").status_code == 401
    schema = api.client.get("/openapi.json").json()
    operation = schema["paths"]["/v1/subjects"]["get"]
    parameters = {p["name"]: p for p in operation["parameters"]}
    assert set(parameters) == {"prefix", "contains", "limit", "offset"}
    prefix = parameters["prefix"]["schema"]
    assert any(option.get("maxLength") == 512 for option in prefix.get("anyOf", [prefix]))
