"""Errors of the HTTP API: one JSON shape, stable codes, no memory content in messages.

Every error body reads ``{"error": {"code": ..., "message": ..., "field": ...}}``.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from memlane.errors import InvalidInput, StorageError

log = logging.getLogger("memlane.server")

CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    413: "payload_too_large",
    422: "invalid_input",
    500: "internal",
    503: "unavailable",
}
"""The code of each status the API answers with."""


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
    status: int, message: str, field: str | None = None, headers: dict[str, str] | None = None
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
        message = str(error).removeprefix(f"{error.field}: ")
        return error_response(422, message, error.field)

    async def validation(_: Request, error: Exception) -> JSONResponse:
        assert isinstance(error, RequestValidationError)
        first: dict[str, Any] = dict(error.errors()[0]) if error.errors() else {}
        location = [str(part) for part in first.get("loc", ()) if part not in ("body", "query")]
        return error_response(422, str(first.get("msg", "invalid request")), ".".join(location))

    async def http_error(_: Request, error: Exception) -> JSONResponse:
        assert isinstance(error, StarletteHTTPException)
        return error_response(error.status_code, str(error.detail))

    async def storage(_: Request, error: Exception) -> JSONResponse:
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
