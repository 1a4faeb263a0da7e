from __future__ import annotations

import math

import httpx
import pytest

from tests.support.openai_stub import OpenAIStub, StubReply, stub_embedding


def test_lists_models_and_records_requests() -> None:
    with OpenAIStub(models=("a", "b")) as stub, httpx.Client() as http:
        response = http.get(f"{stub.base_url}/models")
        assert response.status_code == 200
        assert [model["id"] for model in response.json()["data"]] == ["a", "b"]
        assert [(r.method, r.path) for r in stub.requests] == [("GET", "/v1/models")]


def test_embeddings_are_deterministic_unit_vectors() -> None:
    with OpenAIStub(embedding_dim=12) as stub, httpx.Client() as http:
        url = f"{stub.base_url}/embeddings"
        first = http.post(url, json={"model": "e", "input": ["北京", "Berlin"]}).json()
        again = http.post(url, json={"model": "e", "input": "北京"}).json()
        wide = http.post(url, json={"input": "x", "dimensions": 40}).json()

    one, two = (item["embedding"] for item in first["data"])
    assert len(one) == 12
    assert math.isclose(sum(v * v for v in one), 1.0)
    assert one != two
    assert again["data"][0]["embedding"] == one == stub_embedding("北京", 12)
    assert len(wide["data"][0]["embedding"]) == 40


def test_scripted_embedding_errors() -> None:
    with OpenAIStub() as stub, httpx.Client() as http:
        stub.fail(503, "loading", endpoint="embeddings")
        url = f"{stub.base_url}/embeddings"
        assert http.post(url, json={"input": "x"}).status_code == 503
        assert http.post(url, json={"input": "x"}).status_code == 200


def test_unscripted_chat_and_unknown_routes_are_clear_errors() -> None:
    with OpenAIStub() as stub, httpx.Client() as http:
        chat = http.post(f"{stub.base_url}/chat/completions", json={"messages": []})
        assert chat.status_code == 418
        assert "no scripted chat reply" in chat.json()["error"]["message"]
        assert http.post(f"{stub.base_url}/nothing", json={}).status_code == 404


def test_responder_answers_when_the_queue_is_empty() -> None:
    with OpenAIStub() as stub, httpx.Client() as http:
        stub.reply("first")
        stub.responder = lambda request: StubReply(content=f"echo {len(request.messages)}")
        url = f"{stub.base_url}/chat/completions"
        body = {"messages": [{"role": "user", "content": "hi"}]}
        contents = [
            http.post(url, json=body).json()["choices"][0]["message"]["content"] for _ in range(2)
        ]
    assert contents == ["first", "echo 1"]


def test_stop_wakes_stalled_answers_quickly() -> None:
    stub = OpenAIStub().start()
    stub.stall(30.0)
    with httpx.Client(timeout=0.1) as http, pytest.raises(httpx.TimeoutException):
        http.post(f"{stub.base_url}/chat/completions", json={"messages": []})
    stub.stop()
    with pytest.raises(RuntimeError):
        _ = stub.base_url
