"""``/docs``: Swagger UI served from the package's own assets, so it works offline.

The assets come from ``swagger-ui-bundle-v2`` (part of the ``server`` extra). Without it,
``/docs`` is off: FastAPI's default page would load Swagger UI from a CDN, and show nothing
on a machine without internet access.
"""

from __future__ import annotations

import importlib
from pathlib import Path

from fastapi import APIRouter
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse, Response

from memlane.server.errors import not_found

DOCS_URL = "/docs"
ASSETS = {
    "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
    "swagger-ui.css": "text/css; charset=utf-8",
    "favicon-32x32.png": "image/png",
}
"""The Swagger UI files the page loads, and how they are served."""


def swagger_assets() -> Path | None:
    """The folder of the installed Swagger UI files, or ``None`` if none are installed."""
    try:
        bundle = importlib.import_module("swagger_ui_bundle")
    except ImportError:
        return None
    folder = getattr(bundle, "swagger_ui_path", None)
    if folder is None or not all(Path(str(folder), name).is_file() for name in ASSETS):
        return None
    return Path(str(folder))


def docs_router(folder: Path, openapi_url: str, title: str) -> APIRouter:
    """The routes of ``/docs`` and its assets, read from ``folder``."""
    router = APIRouter(include_in_schema=False)

    @router.get(DOCS_URL)
    def docs() -> HTMLResponse:
        """The interactive API description."""
        return get_swagger_ui_html(
            openapi_url=openapi_url,
            title=f"{title} - API",
            swagger_js_url=f"{DOCS_URL}/static/swagger-ui-bundle.js",
            swagger_css_url=f"{DOCS_URL}/static/swagger-ui.css",
            swagger_favicon_url=f"{DOCS_URL}/static/favicon-32x32.png",
        )

    @router.get(DOCS_URL + "/static/{name}")
    def asset(name: str) -> Response:
        """One of the Swagger UI files (404 for anything else)."""
        if name not in ASSETS:
            raise not_found()
        return Response((folder / name).read_bytes(), media_type=ASSETS[name])

    return router
