"""The memory inspector: a static page at ``/ui`` that reads ``/v1`` with the user's key.

The shell (HTML, CSS, JS) needs no key; every datum comes from ``/v1`` with the key the
user pastes. Every asset ships in the package, so the page works offline (no CDN).
"""

from __future__ import annotations

from importlib import resources

from fastapi import APIRouter
from fastapi.responses import RedirectResponse, Response

from memlane.server.errors import not_found

router = APIRouter(include_in_schema=False)

CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".svg": "image/svg+xml",
    ".ico": "image/x-icon",
}
"""The asset kinds the inspector ships, and how they are served."""

# Only files of the package's own assets, and nothing reaching outside via the name.
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}


def asset(name: str) -> bytes | None:
    """The bytes of a shipped inspector asset, or ``None`` for anything else."""
    if "/" in name or "\\" in name or name.startswith(".") or _suffix(name) not in CONTENT_TYPES:
        return None
    found = resources.files("memlane.server").joinpath("ui", name)
    if not found.is_file():
        return None
    return found.read_bytes()


def _suffix(name: str) -> str:
    dot = name.rfind(".")
    return "" if dot < 0 else name[dot:]


@router.get("/ui")
def ui_root() -> RedirectResponse:
    """``/ui`` → ``/ui/`` so that relative asset links resolve."""
    return RedirectResponse("/ui/", status_code=307)


@router.get("/ui/")
def ui_index() -> Response:
    """The inspector's single page."""
    return _serve("index.html")


@router.get("/favicon.ico")
def favicon() -> Response:
    """The icon browsers ask every host for (the page itself links ``favicon.svg``)."""
    return _serve("favicon.ico")


@router.get("/ui/static/{name}")
def ui_static(name: str) -> Response:
    """One of the inspector's static assets (404 for anything not shipped)."""
    return _serve(name)


def _serve(name: str) -> Response:
    body = asset(name)
    if body is None:
        raise not_found()
    return Response(body, media_type=CONTENT_TYPES[_suffix(name)], headers=SECURITY_HEADERS)
