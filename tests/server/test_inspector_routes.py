"""The inspector without a browser: the static shell, its assets, and its /v1 routes."""

from __future__ import annotations

from typing import Any

import pytest

from memlane.server.ui import CONTENT_TYPES, asset
from tests.conftest import FakeClock

from .conftest import Api

TX1, TX2, TX3 = (
    "2026-03-02T00:00:00+00:00",
    "2026-07-04T00:00:00+00:00",
    "2026-07-10T00:00:00+00:00",
)


def seed_worked_example(api: Api, clock: FakeClock, key: str) -> None:
    """BITEMPORAL.md's story: Shanghai, then Beijing, then the Hangzhou correction."""
    writes: list[tuple[str, dict[str, Any]]] = [
        (TX1, {"value": "上海", "valid_from": "2026-03-01"}),
        (TX2, {"value": "北京", "valid_from": "2026-07-01", "reason": "用户说上周搬家了"}),
        (
            TX3,
            {
                "value": "杭州",
                "valid_from": "2026-05-01",
                "valid_to": "2026-06-01",
                "reason": "business posting, corrected by HR",
            },
        ),
    ]
    for tx, body in writes:
        clock.set(tx)
        answer = api.client.post(
            "/v1/facts/set",
            json={"subject": "U-001", "attribute": "location", **body},
            headers=api.headers(key),
        )
        assert answer.status_code == 200, answer.text


def test_ui_serves_the_shell_without_a_key(api: Api) -> None:
    assert api.client.get("/ui", follow_redirects=False).status_code == 307
    page = api.client.get("/ui/")
    assert page.status_code == 200
    assert page.headers["content-type"] == "text/html; charset=utf-8"
    assert "default-src 'self'" in page.headers["content-security-policy"]
    assert 'src="static/inspector.js"' in page.text
    # Nothing is loaded from another host: every asset ships in the package.
    assert "http://" not in page.text.replace("http://www.w3.org", "")
    assert "https://" not in page.text


@pytest.mark.parametrize(
    ("name", "content_type"),
    [
        ("inspector.js", "text/javascript; charset=utf-8"),
        ("chart.js", "text/javascript; charset=utf-8"),
        ("inspector.css", "text/css; charset=utf-8"),
        ("favicon.svg", "image/svg+xml"),
        ("favicon.ico", "image/x-icon"),
    ],
)
def test_static_assets_have_their_content_types(api: Api, name: str, content_type: str) -> None:
    answer = api.client.get(f"/ui/static/{name}")
    assert answer.status_code == 200
    assert answer.headers["content-type"] == content_type
    assert answer.headers["x-content-type-options"] == "nosniff"
    assert answer.content == asset(name)
    assert b"https://" not in answer.content


@pytest.mark.parametrize("name", ["missing.js", "..%2Fapp.py", "app.py", ".hidden.js", "ui.py"])
def test_anything_else_under_static_is_404(api: Api, name: str) -> None:
    assert api.client.get(f"/ui/static/{name}").status_code == 404


def test_favicon_is_served_without_a_key(api: Api) -> None:
    answer = api.client.get("/favicon.ico")
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "image/x-icon"
    # An ICO directory: reserved 0, type 1 (icon), at least one image.
    assert answer.content[:4] == b"\x00\x00\x01\x00"
    assert int.from_bytes(answer.content[4:6], "little") >= 1
    assert 'rel="icon" href="static/favicon.svg"' in api.client.get("/ui/").text
    assert b"<svg" in api.client.get("/ui/static/favicon.svg").content


def test_assets_ship_as_package_data() -> None:
    assert asset("index.html") is not None
    assert asset("../ui.py") is None
    assert set(CONTENT_TYPES) >= {".html", ".css", ".js"}


def test_whoami_names_the_key_role_and_tenant_and_the_server_now(
    api: Api, clock: FakeClock
) -> None:
    agent = api.mint("acme", "agent")
    me = api.client.get("/v1/whoami", headers=api.headers(agent)).json()
    assert me["tenant"] == "acme"
    assert me["role"] == "agent"
    assert agent.startswith(f"ml_{me['key_id']}_")
    assert me["permissions"] == ["read", "write"]
    assert me["now"] == clock().isoformat()
    assert me["index"] == {"pending": 0}
    assert api.client.get("/v1/whoami").status_code == 401


def test_versions_are_the_audit_minus_deleted_and_open_to_agents(
    api: Api, clock: FakeClock
) -> None:
    agent, compliance = api.mint("acme", "agent"), api.mint("acme", "compliance")
    seed_worked_example(api, clock, agent)
    query = {"subject": "U-001", "attribute": "location"}
    versions = api.client.get("/v1/facts/versions", params=query, headers=api.headers(agent))
    assert versions.status_code == 200
    audit = api.client.get("/v1/facts/audit", params=query, headers=api.headers(compliance))
    assert (
        api.client.get("/v1/facts/audit", params=query, headers=api.headers(agent)).status_code
        == 403
    )
    assert versions.json()["items"] == audit.json()["items"]
    items = versions.json()["items"]
    assert {"上海", "北京", "杭州"} == {f["value"] for f in items}
    assert any(f["tx_to"] is not None for f in items)
    assert [f["tx_from"] for f in items] == sorted(f["tx_from"] for f in items)

    clock.set("2026-08-01")
    forgot = api.client.post(
        "/v1/forget",
        json={"subject": "U-001", "attribute": "location", "reason": "test"},
        headers=api.headers(compliance),
    )
    assert forgot.status_code == 200
    after = api.client.get("/v1/facts/versions", params=query, headers=api.headers(agent))
    assert after.json()["items"] == []
    audited = api.client.get("/v1/facts/audit", params=query, headers=api.headers(compliance))
    assert len(audited.json()["items"]) == len(items)


@pytest.mark.parametrize("path", ["/v1/facts/versions", "/v1/summaries/sessions"])
def test_an_unknown_subject_is_404(api: Api, clock: FakeClock, path: str) -> None:
    agent = api.mint("acme", "agent")
    other = api.mint("other", "agent")
    seed_worked_example(api, clock, other)
    answer = api.client.get(path, params={"subject": "U-001"}, headers=api.headers(agent))
    assert answer.status_code == 404
    mine = api.client.get(path, params={"subject": "U-001"}, headers=api.headers(other))
    assert mine.status_code == 200


def test_sessions_list_the_latest_summary_of_each_session(api: Api, clock: FakeClock) -> None:
    agent = api.mint("acme", "agent")
    for session in ("s1", "s2"):
        for content in ("我住在上海。", "我喜欢喝龙井茶。"):
            clock.advance(minutes=1)
            turn = {"subject": "U-001", "session_id": session, "role": "user", "content": content}
            assert (
                api.client.post(
                    "/v1/sessions/turn", json=turn, headers=api.headers(agent)
                ).status_code
                == 200
            )
        ref = {"subject": "U-001", "session_id": session}
        assert (
            api.client.post("/v1/sessions/close", json=ref, headers=api.headers(agent)).status_code
            == 200
        )
    answer = api.client.get(
        "/v1/summaries/sessions", params={"subject": "U-001"}, headers=api.headers(agent)
    )
    assert answer.status_code == 200
    items = answer.json()["items"]
    assert [s["session_id"] for s in items] == ["s1", "s2"]
    for summary in items:
        assert {"topic", "facts", "open_items", "entities", "mood"} <= set(summary)


def test_workflows_route_lists_current_workflows(api: Api) -> None:
    agent = api.mint("acme", "agent")
    answer = api.client.get("/v1/workflows", headers=api.headers(agent))
    assert answer.status_code == 200
    assert answer.json() == {"items": [], "total": 0, "limit": 100, "offset": 0}
    state = api.client.app.state.memlane  # type: ignore[attr-defined]
    with state.memory("acme") as memory:
        for order in ("ORD-1", "ORD-2", "ORD-3"):
            steps = [{"action": "open", "args": {"order": order}}, {"action": "refund"}]
            memory.workflows.record(f"Refund order {order}", steps, task_type="refund")
        stored = memory.workflows.all()
    assert stored, "three successful runs induce a workflow"
    listed = api.client.get("/v1/workflows", headers=api.headers(agent)).json()
    assert listed["total"] == len(stored)
    assert [w["task_type"] for w in listed["items"]] == sorted(w.task_type for w in stored)
    assert listed["items"][0]["steps"] == [s.as_dict() for s in stored[0].steps]
    assert listed["items"][0]["tx_from"] is not None
    other = api.mint("other", "agent")
    assert api.client.get("/v1/workflows", headers=api.headers(other)).json()["total"] == 0
    assert api.client.get("/v1/workflows").status_code == 401
