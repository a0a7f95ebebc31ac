"""The web app's one error answer, shared by every router: an error page for a person
(a browser asking for HTML), else the JSON error body (:class:`warroom.schema.ErrorBody`).
"""

from __future__ import annotations

from typing import Any

from fastapi import Request
from fastapi.responses import JSONResponse, Response


def wants_html(request: Request) -> bool:
    """Whether the request is a person's (a page asking for HTML), not the API's."""
    return not request.url.path.startswith("/api") and "text/html" in request.headers.get(
        "accept", "")


API = "/api/v1"
"""The API's prefix."""
LEGACY_API = "/api"
"""The API's old prefix, deprecated: the same handlers, kept for one release."""


def legacy(path: str) -> bool:
    """Whether ``path`` is outside ``/api/v1``: there an error also carries the old
    top-level ``detail``, ``parameter`` and ``code`` keys."""
    return not (path == API or path.startswith(API + "/"))


def json_error(path: str, status: int, code: str, message: str,
               parameter: str | None = None, **more: Any) -> JSONResponse:
    """The one JSON error (:class:`warroom.schema.ErrorBody`) for a request to ``path``
    (``more``: fields a kind of error adds, such as a stale write's ``changes``)."""
    from warroom.schema import error_body

    body = error_body(code, message, parameter)
    body["error"].update(more)
    if legacy(path):
        body.update(detail=message, parameter=parameter, code=code)
    return JSONResponse(body, status_code=status)


def error_response(request: Request, status: int, message: str, parameter: str | None,
                   code: str = "invalid") -> Response:
    """An error page for a person, else the JSON error."""
    if wants_html(request):
        from warroom.web.templating import render

        return render(request, "error.html", {"message": message, "status": status},
                      status_code=status)
    return json_error(request.url.path, status, code, message, parameter)
