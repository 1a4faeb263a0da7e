"""Errors of the HTTP API: one JSON shape, stable codes, no memory content in messages.

Every error body reads ``{"error": {"code": ..., "message": ..., "field": ...}}``.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException

from memlane.errors import ConflictError, InvalidInput, StorageError

log = logging.getLogger("memlane.server")

CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "payload_too_large",
    422: "invalid_input",
    500: "internal",
    503: "unavailable",
}
"""The code of each status the API answers with."""

WHEN = {
    400: "The body is not JSON.",
    401: "No key, or a malformed, unknown or revoked key.",
    403: "The key's role does not allow this route.",
    404: "No such subject, fact, running session or key in this tenant.",
    409: "The write conflicts with stored data (a constraint was violated).",
    413: "The request body is larger than the server's limit.",
    422: "Invalid input; `field` names the culprit.",
    503: "The database is unavailable (e.g. locked past the busy timeout).",
}
"""When each error status is answered, as the OpenAPI document says it."""


METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"})
"""The HTTP methods an OpenAPI path item may list."""


class ErrorDetail(BaseModel):
    """What went wrong: a stable code, a message, and the field at fault (if one is)."""

    code: str
    message: str
    field: str | None


class ErrorBody(BaseModel):
    """The body of every error answer."""

    error: ErrorDetail


def documented(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The OpenAPI ``responses`` entry of these error statuses (all with :class:`ErrorBody`)."""
    return {status: {"model": ErrorBody, "description": WHEN[status]} for status in statuses}


API_ERRORS = documented(400, 401, 403, 404, 409, 413, 422, 503)
"""The errors any ``/v1`` route may answer with."""


class ApiError(Exception):
    """An error the API answers on purpose, with a status and a stable code."""

    def __init__(self, status: int, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = CODES.get(status, "error")
        self.message = message
        self.field = field


NOT_FOUND = "not found"
"""The one message of every 404: unknown and foreign subjects read the same."""


def not_found() -> ApiError:
    """The 404 of a subject, fact, session or key this tenant does not have."""
    return ApiError(404, NOT_FOUND)


def error_response(
    status: int, message: str, field: str | None = None, headers: Mapping[str, str] | None = None
) -> JSONResponse:
    """The JSON error body with ``status``."""
    body = {"error": {"code": CODES.get(status, "error"), "message": message, "field": field}}
    return JSONResponse(body, status_code=status, headers=headers)


def install(app: FastAPI) -> None:
    """Map every exception the routes may raise to the JSON error shape."""

    async def api_error(_: Request, error: Exception) -> JSONResponse:
        assert isinstance(error, ApiError)
        headers = {"WWW-Authenticate": "Bearer"} if error.status == 401 else None
        return error_response(error.status, error.message, error.field, headers)

    async def invalid_input(_: Request, error: Exception) -> JSONResponse:
        assert isinstance(error, InvalidInput)
        return error_response(422, _message(error), error.field)

    async def validation(_: Request, error: Exception) -> JSONResponse:
        assert isinstance(error, RequestValidationError)
        first: dict[str, Any] = dict(error.errors()[0]) if error.errors() else {}
        location = [str(part) for part in first.get("loc", ())]
        if location[:1] in (["body"], ["query"], ["path"], ["header"]):
            location = location[1:]  # where it was sent; the rest names the field
        cause = (first.get("ctx") or {}).get("error")
        # A rule of memlane.validation: its own words, not pydantic's wrapping of them.
        message = _message(cause) if isinstance(cause, InvalidInput) else first.get("msg")
        return error_response(422, str(message or "invalid request"), ".".join(location))

    async def http_error(request: Request, error: Exception) -> JSONResponse:
        assert isinstance(error, StarletteHTTPException)
        headers = dict(error.headers or {})
        allowed = allowed_methods(request) if error.status_code == 405 else []
        if allowed:  # the router names one route's methods, not every method of the path
            headers["Allow"] = ", ".join(allowed)
        return error_response(error.status_code, str(error.detail), headers=headers)

    async def storage(_: Request, error: Exception) -> JSONResponse:
        assert isinstance(error, StorageError)
        if _conflict(error):  # a retry would fail the same way: not "unavailable"
            log.warning("storage conflict: %s", type(error).__name__)
            return error_response(409, "the write conflicts with stored data")
        log.error("storage error: %s", type(error).__name__)
        return error_response(503, "storage unavailable")

    async def internal(_: Request, error: Exception) -> JSONResponse:
        # The message may quote memory content: log only the exception's type.
        log.error("internal error: %s", type(error).__name__)
        return error_response(500, "internal error")

    app.add_exception_handler(ApiError, api_error)
    app.add_exception_handler(InvalidInput, invalid_input)
    app.add_exception_handler(RequestValidationError, validation)
    app.add_exception_handler(StarletteHTTPException, http_error)
    app.add_exception_handler(StorageError, storage)
    app.add_exception_handler(Exception, internal)


_PATH_PARAMETER = re.compile(r"\{[^/}]+\}")
"""A parameter in an OpenAPI path template (``{subject}``)."""


def allowed_methods(request: Request) -> list[str]:
    """The methods the OpenAPI document lists for the request's path (none: undocumented)."""
    path = request.url.path
    for template, item in request.app.openapi()["paths"].items():
        pattern = "[^/]+".join(re.escape(part) for part in _PATH_PARAMETER.split(template))
        if re.fullmatch(pattern, path):
            return sorted(method.upper() for method in item if method.upper() in METHODS)
    return []


def _message(error: InvalidInput) -> str:
    return str(error).removeprefix(f"{error.field}: ")


def _conflict(error: StorageError) -> bool:
    """True if ``error`` is a violated constraint rather than an unavailable database.

    Drivers follow PEP 249, whose name for a violated constraint is ``IntegrityError``.
    """
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, ConflictError):
            return True
        if any(kind.__name__ == "IntegrityError" for kind in type(seen).__mro__):
            return True
        seen = seen.__cause__ or seen.__context__
    return False
