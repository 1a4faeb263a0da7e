"""A client for OpenAI-compatible chat endpoints whose answers must be validated JSON.

Works with Ollama, vLLM, llama.cpp's server, LM Studio and OpenAI itself. Every answer is
decoded (fences and prose tolerated), validated, and on failure retried with the problem sent
back to the model; transient HTTP trouble is retried with backoff; what still fails raises
:class:`LLMError`, which callers turn into their offline fallback.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, TypeAlias, TypeVar, cast
from urllib.parse import urlsplit

import httpx

from memlane.errors import InvalidInput, MemlaneError
from memlane.llm.jsonout import NoJSONFound, extract_json
from memlane.llm.prompts import ChatMessage, correction
from memlane.llm.schema import SchemaViolation, validate
from memlane.llm.stats import Counters, LLMStats

T = TypeVar("T")

Messages: TypeAlias = Sequence[ChatMessage]
Schema: TypeAlias = type[T] | Callable[[Any], T]
"""A dataclass the answer must fit, or a function that checks and converts the JSON."""

_log = logging.getLogger("memlane.llm")

# Statuses worth asking again: the server is busy, restarting, or rate limiting us.
_TRANSIENT_STATUSES = frozenset({408, 409, 425, 429})
# Servers that reject response_format say so in a 400/422 naming the field.
_JSON_MODE_HINTS = ("response_format", "json_object")
# A rambling model can answer with many kilobytes; echoing all of it back wastes context.
_ECHO_MAX_CHARS = 4000
_SNIPPET_MAX_CHARS = 300


class LLMError(MemlaneError):
    """The chat model gave no usable answer (unreachable, refused, or invalid every time).

    Args:
        message: what failed and why; never contains the API key or memory content.
        purpose: the label of the call, e.g. ``fact_extraction/v1``.
        status: the HTTP status when the server refused the request, else ``None``.
    """

    def __init__(self, message: str, *, purpose: str = "", status: int | None = None) -> None:
        self.purpose = purpose
        self.status = status
        super().__init__(message)


class ChatModel(Protocol):
    """What memlane asks of a chat model: validated JSON answers (:class:`ChatClient` is one).

    Pass any object with this method as ``Memory(..., llm=...)``: a client for another API, a
    cache in front of one, or a fake in tests.
    """

    def complete_json(self, messages: Messages, schema: Schema[T], *, purpose: str) -> T:
        """Answer ``messages`` with JSON that ``schema`` accepts, or raise :class:`LLMError`."""
        ...


class _TransientError(Exception):
    """A failure worth retrying after a pause (timeout, connection error, 5xx, 429)."""

    def __init__(self, reason: str, retry_after: float | None = None) -> None:
        self.reason = reason
        self.retry_after = retry_after
        super().__init__(reason)


class _JSONModeRejectedError(Exception):
    """The server does not support ``response_format``; ask again without it."""


class ChatClient:
    """Talks to ``{base_url}/chat/completions`` and returns validated JSON answers.

    ``max_retries`` bounds the requests of one call at ``1 + max_retries``, whatever went
    wrong; ``backoff`` is the first pause after a transient failure (doubling up to
    ``max_backoff``). ``http_client`` lets a caller share or instrument an ``httpx.Client``;
    the client closes only one it made itself.

    >>> client = ChatClient("http://127.0.0.1:11434/v1", "qwen2.5:3b")  # doctest: +SKIP
    >>> client.complete_json(messages, MyReply, purpose="demo")  # doctest: +SKIP
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        timeout: float = 20.0,
        max_retries: int = 2,
        *,
        backoff: float = 0.5,
        max_backoff: float = 8.0,
        max_tokens: int = 1024,
        json_mode: bool = True,
        http_client: httpx.Client | None = None,
    ) -> None:
        _check_settings(base_url, model, timeout, max_retries, backoff, max_backoff)
        base = base_url.strip().rstrip("/")
        base = base.removesuffix("/chat/completions")
        self._endpoint = f"{base}/chat/completions"
        self._shown_endpoint = _display_url(self._endpoint)
        self._model = model
        if api_key is not None and not (api_key.isascii() and api_key.isprintable()):
            # Checked here because httpx would fail later, mid-request, with a UnicodeError.
            raise InvalidInput("api_key", "must be printable ASCII")
        self._api_key = api_key or None
        self._timeout = timeout
        self._max_retries = max_retries
        self._backoff = backoff
        self._max_backoff = max_backoff
        self._max_tokens = max_tokens
        self._json_mode = json_mode
        self._owns_http = http_client is None
        self._http = http_client or httpx.Client(timeout=httpx.Timeout(timeout))
        self._counters = Counters(LLMStats)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> ChatClient | None:
        """Build a client from ``MEMLANE_LLM_URL``, ``MEMLANE_LLM_MODEL``, ``MEMLANE_LLM_API_KEY``.

        Also reads ``MEMLANE_LLM_TIMEOUT`` (seconds) and ``MEMLANE_LLM_MAX_RETRIES``.
        Returns ``None`` when ``MEMLANE_LLM_URL`` is unset or empty: memlane then runs offline.

        Raises:
            InvalidInput: the URL is set but the model is not, or a number does not parse.
        """
        env = os.environ if environ is None else environ
        url = env.get("MEMLANE_LLM_URL", "").strip()
        if not url:
            return None
        model = env.get("MEMLANE_LLM_MODEL", "").strip()
        if not model:
            raise InvalidInput("MEMLANE_LLM_MODEL", "must be set when MEMLANE_LLM_URL is set")
        if urlsplit(url).scheme not in ("http", "https"):
            raise InvalidInput("MEMLANE_LLM_URL", f"must be an http(s) URL, got {url!r}")
        return cls(
            url,
            model,
            api_key=env.get("MEMLANE_LLM_API_KEY", "").strip() or None,
            timeout=_env_number(env, "MEMLANE_LLM_TIMEOUT", 20.0, float),
            max_retries=_env_number(env, "MEMLANE_LLM_MAX_RETRIES", 2, int),
        )

    @property
    def model(self) -> str:
        """The model name sent with every request."""
        return self._model

    @property
    def endpoint(self) -> str:
        """The chat-completions URL, without any credentials it was given."""
        return self._shown_endpoint

    @property
    def stats(self) -> LLMStats:
        """A snapshot of the counters since this client was made."""
        return self._counters.snapshot()

    def __repr__(self) -> str:
        return f"ChatClient({self._shown_endpoint!r}, model={self._model!r})"

    def close(self) -> None:
        """Close the HTTP connections (only those of a client this object made)."""
        if self._owns_http:
            self._http.close()

    def __enter__(self) -> ChatClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def complete_json(
        self,
        messages: Sequence[ChatMessage],
        schema: type[T] | Callable[[Any], T],
        *,
        purpose: str,
    ) -> T:
        """Send ``messages`` and return the model's answer, decoded and validated.

        ``schema`` is a dataclass (checked with :func:`memlane.llm.schema.validate`) or a
        function that takes the decoded JSON and returns the result, raising ``ValueError``
        (ideally :class:`~memlane.llm.schema.SchemaViolation`) to reject it. A rejected answer
        is retried with the problem appended to the conversation. ``purpose`` labels logs
        and errors.

        Raises:
            LLMError: no valid answer within ``1 + max_retries`` requests, or the server
                refused the request (bad key, unknown model: not retried).
        """
        check = _as_validator(schema)
        self._counters.add("calls")
        attempts = self._max_retries + 1
        conversation: list[ChatMessage] = list(messages)
        problem = "no request was sent"
        transient_failures = 0
        for attempt in range(1, attempts + 1):
            if attempt > 1:
                self._counters.add("retries")
            try:
                content = self._send(conversation, purpose)
            except _TransientError as error:
                transient_failures += 1
                problem = error.reason
                _log.info("%s: attempt %d/%d failed: %s", purpose, attempt, attempts, problem)
                if attempt < attempts:
                    time.sleep(self._pause(transient_failures, error.retry_after))
                continue
            except LLMError:
                self._counters.add("failures")
                raise
            try:
                return check(extract_json(content))
            except ValueError as error:
                self._counters.add("invalid_outputs")
                problem = f"invalid answer ({_describe(error)})"
                _log.info("%s: attempt %d/%d: %s", purpose, attempt, attempts, problem)
                _log.debug("%s: rejected answer %r because %s", purpose, content, error)
                conversation = [
                    *messages,
                    {"role": "assistant", "content": content[:_ECHO_MAX_CHARS]},
                    correction(str(error)),
                ]
        self._counters.add("failures")
        message = (
            f"{purpose}: no usable answer from model {self._model!r} at {self._shown_endpoint} "
            f"after {attempts} attempt(s); last problem: {problem}"
        )
        _log.warning("%s", message)
        raise LLMError(message, purpose=purpose)

    def _send(self, conversation: Sequence[ChatMessage], purpose: str) -> str:
        """POST one request and return the answer's content; classify every failure."""
        try:
            return self._post(conversation, purpose)
        except _JSONModeRejectedError:
            # Asked once per client: a server that rejects the option will keep rejecting it.
            self._json_mode = False
            _log.info("%s: server rejected response_format; asking without it", purpose)
            return self._post(conversation, purpose)

    def _post(self, conversation: Sequence[ChatMessage], purpose: str) -> str:
        payload: dict[str, Any] = {
            "model": self._model,
            "messages": list(conversation),
            "temperature": 0,
            "max_tokens": self._max_tokens,
            "stream": False,
        }
        if self._json_mode:
            payload["response_format"] = {"type": "json_object"}
        headers = {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}
        self._counters.add("requests")
        _log.debug("%s: request %r", purpose, conversation)
        try:
            response = self._http.post(self._endpoint, json=payload, headers=headers)
        except httpx.TimeoutException as error:
            raise _TransientError(f"timed out after {self._timeout:g} s") from error
        except httpx.RequestError as error:
            raise _TransientError(f"connection failed ({type(error).__name__})") from error
        if response.status_code != httpx.codes.OK:
            self._raise_for_status(response, purpose)
        content = _answer_content(response)
        _log.debug("%s: answer %r", purpose, content)
        return content

    def _raise_for_status(self, response: httpx.Response, purpose: str) -> None:
        status = response.status_code
        detail = self._redact(_error_detail(response))
        if status in _TRANSIENT_STATUSES or status >= httpx.codes.INTERNAL_SERVER_ERROR:
            raise _TransientError(f"HTTP {status}: {detail}", _retry_after(response))
        if (
            status in (httpx.codes.BAD_REQUEST, httpx.codes.UNPROCESSABLE_ENTITY)
            and self._json_mode
            and any(hint in detail for hint in _JSON_MODE_HINTS)
        ):
            raise _JSONModeRejectedError
        if status in (httpx.codes.UNAUTHORIZED, httpx.codes.FORBIDDEN):
            advice = "the server refused the API key; check MEMLANE_LLM_API_KEY"
        elif status == httpx.codes.NOT_FOUND:
            advice = (
                f"unknown endpoint or model {self._model!r}; check that MEMLANE_LLM_URL "
                "ends with /v1 and that MEMLANE_LLM_MODEL names a served model"
            )
        else:
            advice = "the server rejected the request"
        message = f"{purpose}: HTTP {status} from {self._shown_endpoint}: {advice} ({detail})"
        _log.warning("%s", message)
        raise LLMError(message, purpose=purpose, status=status)

    def _pause(self, transient_failures: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(retry_after, self._max_backoff)
        return float(min(self._backoff * 2 ** (transient_failures - 1), self._max_backoff))

    def _redact(self, text: str) -> str:
        return text.replace(self._api_key, "***") if self._api_key else text


def _check_settings(
    base_url: str, model: str, timeout: float, max_retries: int, backoff: float, max_backoff: float
) -> None:
    try:
        scheme = httpx.URL(base_url.strip()).scheme
    except httpx.InvalidURL:
        scheme = ""
    if scheme not in ("http", "https"):
        raise InvalidInput(
            "base_url",
            f"must be an http(s) URL such as http://127.0.0.1:11434/v1, got {base_url!r}",
        )
    if not model.strip():
        raise InvalidInput("model", "must not be empty")
    if not timeout > 0:
        raise InvalidInput("timeout", f"must be positive, got {timeout!r}")
    if max_retries < 0:
        raise InvalidInput("max_retries", f"must be 0 or more, got {max_retries!r}")
    if backoff < 0 or max_backoff < 0:
        raise InvalidInput("backoff", f"pauses must be 0 or more, got {backoff!r}, {max_backoff!r}")


def _env_number(env: Mapping[str, str], name: str, default: T, parse: Callable[[str], T]) -> T:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        return parse(raw)
    except ValueError as error:
        raise InvalidInput(name, f"expected a number, got {raw!r}") from error


def _display_url(url: str) -> str:
    """The URL without user name or password, for messages and logs."""
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return parts._replace(netloc=netloc).geturl()


def _as_validator(schema: type[T] | Callable[[Any], T]) -> Callable[[Any], T]:
    if isinstance(schema, type) and dataclasses.is_dataclass(schema):
        dataclass_schema = cast("type[T]", schema)

        def check(data: Any) -> T:
            return validate(data, dataclass_schema)

        return check
    return schema


def _describe(error: ValueError) -> str:
    """Say what was wrong with an answer without quoting it (logs stay free of content)."""
    if isinstance(error, SchemaViolation):
        return f"schema violation at {error.path or 'top level'}"
    if isinstance(error, NoJSONFound):
        return str(error)
    return type(error).__name__


def _answer_content(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError as error:
        raise _TransientError("the server's answer is not JSON") from error
    try:
        content = body["choices"][0]["message"].get("content")
    except (KeyError, IndexError, TypeError, AttributeError) as error:
        raise _TransientError("the server's answer has no choices[0].message") from error
    # A null content (refusal, tool call) counts as an empty, invalid answer.
    return content if isinstance(content, str) else ""


def _error_detail(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        text = response.text.strip()
    else:
        error = body.get("error") if isinstance(body, dict) else None
        if isinstance(error, dict):
            text = str(error.get("message") or error)
        elif error:
            text = str(error)
        else:
            text = str(body)
    text = " ".join(text.split()) or "no details"
    if len(text) > _SNIPPET_MAX_CHARS:
        text = text[: _SNIPPET_MAX_CHARS - 3] + "..."
    return text


def _retry_after(response: httpx.Response) -> float | None:
    raw = response.headers.get("retry-after", "")
    try:
        seconds = float(raw)
    except ValueError:
        return None
    return seconds if seconds >= 0 else None
