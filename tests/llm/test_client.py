from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass
from typing import Annotated, Any, Literal

import pytest

from memlane.errors import InvalidInput, MemlaneError
from memlane.llm import ChatClient, ChatMessage, Length, LLMError, LLMStats, SchemaViolation
from tests.llm.conftest import API_KEY
from tests.support.openai_stub import OpenAIStub

MESSAGES: list[ChatMessage] = [
    {"role": "system", "content": "Answer in JSON."},
    {"role": "user", "content": "What is the colour?"},
]


@dataclass(frozen=True)
class Colour:
    name: Annotated[str, Length(1, 20)]
    shade: Literal["light", "dark"] = "light"


def fast_client(stub: OpenAIStub, **settings: Any) -> ChatClient:
    defaults: dict[str, Any] = {"timeout": 2.0, "max_retries": 2, "backoff": 0.01}
    defaults.update(settings)
    return ChatClient(stub.base_url, stub.model, **defaults)


def test_valid_answer_is_decoded_and_validated(stub: OpenAIStub, client: ChatClient) -> None:
    stub.reply('{"name": "teal", "shade": "dark"}')

    answer = client.complete_json(MESSAGES, Colour, purpose="test")

    assert answer == Colour("teal", "dark")
    assert client.stats == LLMStats(calls=1, requests=1)


def test_request_is_openai_chat_completions(stub: OpenAIStub, client: ChatClient) -> None:
    stub.reply('{"name": "teal"}')

    client.complete_json(MESSAGES, Colour, purpose="test")

    [request] = stub.chat_requests
    assert request.method == "POST"
    assert request.path == "/v1/chat/completions"
    assert request.json["model"] == stub.model
    assert request.json["temperature"] == 0
    assert request.json["response_format"] == {"type": "json_object"}
    assert request.messages == MESSAGES
    assert "authorization" not in request.headers


@pytest.mark.parametrize(
    "content",
    [
        '```json\n{"name": "teal"}\n```',
        'Sure! Here is the JSON you asked for:\n{"name": "teal"}\nHope this helps.',
        '<think>maybe {"name": "red"}?</think>\n{"name": "teal"}',
        '{"name": "teal",}',
    ],
    ids=["fenced", "prose", "thinking", "trailing-comma"],
)
def test_wrapped_json_is_found(stub: OpenAIStub, client: ChatClient, content: str) -> None:
    stub.reply(content)

    assert client.complete_json(MESSAGES, Colour, purpose="test") == Colour("teal")
    assert client.stats.retries == 0


def test_garbage_then_valid_retries_with_the_problem(stub: OpenAIStub, client: ChatClient) -> None:
    stub.reply("I think the colour is teal.", '{"name": "teal", "shade": "grey"}')
    stub.reply('{"name": "teal", "shade": "dark"}')

    answer = client.complete_json(MESSAGES, Colour, purpose="test")

    assert answer == Colour("teal", "dark")
    first, second, third = stub.chat_requests
    assert first.messages == MESSAGES
    # Each retry repeats the original conversation, the rejected answer and the problem.
    assert second.messages[:2] == MESSAGES
    assert second.messages[2] == {"role": "assistant", "content": "I think the colour is teal."}
    assert second.messages[3]["role"] == "user"
    assert "no JSON object" in second.messages[3]["content"]
    assert third.messages[2]["content"] == '{"name": "teal", "shade": "grey"}'
    assert "shade" in third.messages[3]["content"]
    assert '"light", "dark"' in third.messages[3]["content"]
    assert client.stats == LLMStats(calls=1, requests=3, retries=2, invalid_outputs=2)


def test_garbage_every_time_raises_llm_error(stub: OpenAIStub, client: ChatClient) -> None:
    stub.reply("no", "still no", "never")

    with pytest.raises(LLMError) as caught:
        client.complete_json(MESSAGES, Colour, purpose="colour/v1")

    message = str(caught.value)
    assert "colour/v1" in message
    assert "3 attempt(s)" in message
    assert "invalid answer" in message
    assert isinstance(caught.value, MemlaneError)
    assert caught.value.purpose == "colour/v1"
    assert client.stats == LLMStats(calls=1, requests=3, retries=2, invalid_outputs=3, failures=1)
    assert stub.pending == 0


def test_custom_validator_function_can_reject(stub: OpenAIStub, client: ChatClient) -> None:
    def even(data: Any) -> int:
        if not isinstance(data, dict) or not isinstance(data.get("n"), int):
            raise SchemaViolation("n", "expected an integer")
        if data["n"] % 2:
            raise SchemaViolation("n", "must be even")
        return int(data["n"])

    stub.reply('{"n": 3}', '{"n": 4}')

    assert client.complete_json(MESSAGES, even, purpose="test") == 4
    assert "n: must be even" in stub.chat_requests[1].messages[-1]["content"]


def test_server_errors_are_retried_with_backoff(stub: OpenAIStub, client: ChatClient) -> None:
    stub.fail(500, times=1).fail(503, times=1).reply('{"name": "teal"}')

    assert client.complete_json(MESSAGES, Colour, purpose="test") == Colour("teal")
    assert client.stats == LLMStats(calls=1, requests=3, retries=2)
    # A transient failure is not the model's fault: the retry asks the same thing again.
    assert [request.messages for request in stub.chat_requests] == [MESSAGES] * 3


def test_rate_limit_honours_retry_after(stub: OpenAIStub) -> None:
    stub.fail(429, headers={"Retry-After": "0.2"}).reply('{"name": "teal"}')
    with fast_client(stub, max_backoff=5.0) as client:
        started = time.perf_counter()
        assert client.complete_json(MESSAGES, Colour, purpose="test") == Colour("teal")
        assert time.perf_counter() - started >= 0.2


def test_server_errors_every_time_raise(stub: OpenAIStub, client: ChatClient) -> None:
    stub.fail(502, "bad gateway", times=3)

    with pytest.raises(LLMError, match="HTTP 502: bad gateway"):
        client.complete_json(MESSAGES, Colour, purpose="test")
    assert client.stats.failures == 1
    assert client.stats.requests == 3


def test_timeout_then_success(stub: OpenAIStub) -> None:
    stub.stall(1.0).reply('{"name": "teal"}')
    with fast_client(stub, timeout=0.2) as client:
        assert client.complete_json(MESSAGES, Colour, purpose="test") == Colour("teal")
        assert client.stats == LLMStats(calls=1, requests=2, retries=1)


def test_timeouts_every_time_raise(stub: OpenAIStub) -> None:
    stub.stall(1.0, times=2)
    with fast_client(stub, timeout=0.2, max_retries=1) as client:
        started = time.perf_counter()
        with pytest.raises(LLMError, match=r"timed out after 0\.2 s"):
            client.complete_json(MESSAGES, Colour, purpose="test")
        assert time.perf_counter() - started < 1.5
        assert client.stats.failures == 1


def test_unauthorized_is_not_retried(stub: OpenAIStub) -> None:
    stub.fail(401, f"Incorrect API key provided: {API_KEY}")
    with fast_client(stub, api_key=API_KEY) as client:
        with pytest.raises(LLMError) as caught:
            client.complete_json(MESSAGES, Colour, purpose="test")
        assert client.stats == LLMStats(calls=1, requests=1, failures=1)
    assert caught.value.status == 401
    assert "MEMLANE_LLM_API_KEY" in str(caught.value)
    assert API_KEY not in str(caught.value)
    assert "Incorrect API key provided: ***" in str(caught.value)
    assert stub.chat_requests[0].headers["authorization"] == f"Bearer {API_KEY}"


def test_api_key_is_checked_by_a_protected_server() -> None:
    with OpenAIStub(api_key=API_KEY) as stub:
        stub.reply('{"name": "teal"}')
        with fast_client(stub, api_key="sk-wrong") as client, pytest.raises(LLMError):
            client.complete_json(MESSAGES, Colour, purpose="test")
        with fast_client(stub, api_key=API_KEY) as client:
            assert client.complete_json(MESSAGES, Colour, purpose="test") == Colour("teal")


def test_unknown_model_gives_advice(stub: OpenAIStub, client: ChatClient) -> None:
    stub.fail(404, "model 'x' not found")

    with pytest.raises(LLMError, match="MEMLANE_LLM_MODEL") as caught:
        client.complete_json(MESSAGES, Colour, purpose="test")
    assert caught.value.status == 404
    assert client.stats.requests == 1


def test_server_without_json_mode_is_asked_again_without_it(
    stub: OpenAIStub, client: ChatClient
) -> None:
    stub.fail(400, "response_format is not supported by this server")
    stub.reply('{"name": "teal"}', '{"name": "navy"}')

    assert client.complete_json(MESSAGES, Colour, purpose="test") == Colour("teal")
    assert client.complete_json(MESSAGES, Colour, purpose="test") == Colour("navy")
    first, second, third = stub.chat_requests
    assert "response_format" in first.json
    assert "response_format" not in second.json
    assert "response_format" not in third.json


def test_malformed_body_is_retried(stub: OpenAIStub, client: ChatClient) -> None:
    stub.malformed(b"<html>proxy error</html>")
    stub.malformed(json.dumps({"choices": []}).encode())
    stub.reply('{"name": "teal"}')

    assert client.complete_json(MESSAGES, Colour, purpose="test") == Colour("teal")
    assert client.stats == LLMStats(calls=1, requests=3, retries=2)


def test_null_content_counts_as_invalid_output(stub: OpenAIStub, client: ChatClient) -> None:
    from tests.support.openai_stub import StubReply

    stub.enqueue(StubReply(content=None)).reply('{"name": "teal"}')

    assert client.complete_json(MESSAGES, Colour, purpose="test") == Colour("teal")
    assert client.stats.invalid_outputs == 1
    assert "empty" in stub.chat_requests[1].messages[-1]["content"]


def test_unreachable_server_raises_after_retries() -> None:
    with OpenAIStub() as stub:
        url = stub.base_url
    # The stub has stopped: nothing listens on its port any more.
    with ChatClient(url, "m", timeout=0.5, max_retries=1, backoff=0.01) as client:
        with pytest.raises(LLMError, match="connection failed"):
            client.complete_json(MESSAGES, Colour, purpose="test")
        assert client.stats == LLMStats(calls=1, requests=2, retries=1, failures=1)


def test_zero_retries_means_one_request(stub: OpenAIStub) -> None:
    stub.reply("garbage", '{"name": "teal"}')
    with fast_client(stub, max_retries=0) as client, pytest.raises(LLMError):
        client.complete_json(MESSAGES, Colour, purpose="test")
    assert stub.pending == 1


def test_api_key_never_reaches_the_logs(stub: OpenAIStub, caplog: pytest.LogCaptureFixture) -> None:
    stub.reply("garbage").fail(500, f"upstream rejected {API_KEY}").reply('{"name": "teal"}')
    stub.fail(401, f"bad key {API_KEY}")
    caplog.set_level(logging.DEBUG)
    with fast_client(stub, api_key=API_KEY) as client:
        client.complete_json(MESSAGES, Colour, purpose="test")
        with pytest.raises(LLMError):
            client.complete_json(MESSAGES, Colour, purpose="test")
        assert API_KEY not in repr(client)

    assert caplog.records, "expected the retries to be logged"
    for record in caplog.records:
        assert API_KEY not in record.getMessage()
    assert any(record.name == "memlane.llm" for record in caplog.records)


def test_content_is_logged_only_at_debug(
    stub: OpenAIStub, caplog: pytest.LogCaptureFixture
) -> None:
    secret = "my-diary-entry"
    stub.reply(f"I cannot answer about {secret}", f'{{"name": "{secret}", "shade": "odd"}}')
    stub.reply("still nothing")
    caplog.set_level(logging.DEBUG, logger="memlane.llm")
    messages: list[ChatMessage] = [{"role": "user", "content": f"Remember {secret}"}]
    with fast_client(stub) as client, pytest.raises(LLMError):
        client.complete_json(messages, Colour, purpose="test")

    above_debug = [r.getMessage() for r in caplog.records if r.levelno > logging.DEBUG]
    debug = [r.getMessage() for r in caplog.records if r.levelno == logging.DEBUG]
    assert above_debug and debug
    assert all(secret not in message for message in above_debug)
    assert any(secret in message for message in debug)


def test_from_env_reads_the_memlane_variables(stub: OpenAIStub) -> None:
    assert ChatClient.from_env({}) is None
    assert ChatClient.from_env({"MEMLANE_LLM_URL": "  "}) is None
    with pytest.raises(InvalidInput, match="MEMLANE_LLM_MODEL"):
        ChatClient.from_env({"MEMLANE_LLM_URL": stub.base_url})
    with pytest.raises(InvalidInput, match="MEMLANE_LLM_URL"):
        ChatClient.from_env({"MEMLANE_LLM_URL": "127.0.0.1:11434", "MEMLANE_LLM_MODEL": "m"})
    with pytest.raises(InvalidInput, match="MEMLANE_LLM_TIMEOUT"):
        ChatClient.from_env(
            {"MEMLANE_LLM_URL": stub.base_url, "MEMLANE_LLM_MODEL": "m", "MEMLANE_LLM_TIMEOUT": "x"}
        )

    env = {
        "MEMLANE_LLM_URL": stub.base_url + "/",
        "MEMLANE_LLM_MODEL": "qwen2.5:3b",
        "MEMLANE_LLM_API_KEY": API_KEY,
        "MEMLANE_LLM_MAX_RETRIES": "0",
    }
    client = ChatClient.from_env(env)
    assert client is not None
    with client:
        stub.reply('{"name": "teal"}')
        client.complete_json(MESSAGES, Colour, purpose="test")
        assert client.model == "qwen2.5:3b"
        assert client.endpoint == stub.base_url + "/chat/completions"
    [request] = stub.chat_requests
    assert request.json["model"] == "qwen2.5:3b"
    assert request.headers["authorization"] == f"Bearer {API_KEY}"


def test_module_from_env_uses_the_process_environment(
    monkeypatch: pytest.MonkeyPatch, stub: OpenAIStub
) -> None:
    import memlane.llm

    monkeypatch.delenv("MEMLANE_LLM_URL", raising=False)
    assert memlane.llm.from_env() is None
    monkeypatch.setenv("MEMLANE_LLM_URL", stub.base_url)
    monkeypatch.setenv("MEMLANE_LLM_MODEL", "m")
    client = memlane.llm.from_env()
    assert client is not None
    client.close()


@pytest.mark.parametrize(
    ("settings", "field"),
    [
        ({"base_url": "localhost:11434/v1"}, "base_url"),
        ({"model": " "}, "model"),
        ({"timeout": 0}, "timeout"),
        ({"max_retries": -1}, "max_retries"),
        ({"base_url": "http://[::1/v1"}, "base_url"),
        ({"api_key": "sk-ключ"}, "api_key"),
    ],
)
def test_bad_settings_are_refused(settings: dict[str, Any], field: str) -> None:
    arguments: dict[str, Any] = {"base_url": "http://127.0.0.1:1/v1", "model": "m"}
    arguments.update(settings)
    with pytest.raises(InvalidInput) as caught:
        ChatClient(**arguments)
    assert caught.value.field == field


def test_credentials_in_the_url_are_not_shown() -> None:
    with ChatClient("http://user:hunter2@127.0.0.1:9/v1", "m") as client:
        assert "hunter2" not in repr(client)
        assert client.endpoint == "http://127.0.0.1:9/v1/chat/completions"
