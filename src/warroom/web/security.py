"""The web app's defences: security headers on every response, an Origin check on every
form or API post (no cross-site request can act on a battle), a bound on request
bodies, battle errors with a machine-readable ``code``, and no ``/docs`` unless asked.

``install(app)`` wires all of it; nothing happens at import time.
"""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import urlsplit

from fastapi import FastAPI, Request
from fastapi.responses import Response
from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from warroom.errors import ErrorText

CSP = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
       "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
       "form-action 'self'; frame-ancestors 'none'")
"""No inline script, nothing from other sites, never inside a frame."""

HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",  # battle links carry their keys: never pass them on
    "Cross-Origin-Opener-Policy": "same-origin",
}

MAX_BODY = 8 * 1024 * 1024
"""The largest request body accepted (a long battle's export is well under it)."""

DOCS_ENV = "WARROOM_API_DOCS"
"""Set to 1 to serve ``/docs`` and ``/redoc`` (they load Swagger UI from a CDN)."""

def same_origin(request: Request) -> bool:
    """A post is allowed when the browser says it comes from this site. Browsers send
    ``Sec-Fetch-Site`` (trusted first: with ``Referrer-Policy: no-referrer`` a form's
    ``Origin`` is ``null`` even on its own site); older ones an ``Origin`` or ``Referer``
    to compare with ``Host``. A client that sends none of them (curl, a script) is not a
    browser a page elsewhere could have driven."""
    fetch_site = request.headers.get("sec-fetch-site")
    if fetch_site:
        return fetch_site in ("same-origin", "none")
    source = request.headers.get("origin")
    if not source or source == "null":
        source = request.headers.get("referer")
        if not source:
            return True
    host = request.headers.get("host", "")
    return urlsplit(source).netloc.lower() == host.lower()


def _refuse(request: Request, status: int, text: ErrorText, code: str) -> Response:
    from warroom.web.app import json_error

    return json_error(request.url.path, status, code, str(text))


class Guard:
    """Plain ASGI middleware (not ``BaseHTTPMiddleware``, which would hide a client's
    going away from the routes that cancel abandoned work): refuses cross-site and
    oversized posts, and adds the security headers to every response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        refusal = _refusal(request) if request.method not in ("GET", "HEAD", "OPTIONS") \
            else None
        if refusal is not None:
            await _headers(refusal)(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in HEADERS.items():
                    if name not in headers:
                        headers[name] = value
            await send(message)

        await self.app(scope, receive, send_with_headers)


def _refusal(request: Request) -> Response | None:
    if not same_origin(request):
        return _refuse(request, 403, ErrorText(
            "this request comes from another site; warroom only takes forms from its "
            "own pages"), "cross_site")
    length = request.headers.get("content-length", "")
    if length.isdigit() and int(length) > MAX_BODY:
        return _refuse(request, 413, ErrorText(
            "the request is too large (at most {most} MB)", most=MAX_BODY // 2**20),
            "too_large")
    return None


def _headers(response: Response) -> Response:
    for name, value in HEADERS.items():
        response.headers.setdefault(name, value)
    return response


def install(app: FastAPI) -> None:
    """Add the defences to ``app`` (call once, after its routes)."""
    from warroom.battle.errors import BattleError

    app.add_middleware(Guard)

    @app.exception_handler(BattleError)
    async def _battle_error(request: Request, exc: BattleError) -> Response:
        from warroom.web.app import _error, _wants_html, json_error

        if _wants_html(request):
            from warroom.web.lang import translator
            from warroom.web.templating import page_lang

            return _error(request, exc.http_status,
                          exc.translated(translator(page_lang(request))), None)
        return json_error(request.url.path, exc.http_status, exc.code, str(exc),
                          exc.parameter)

    @app.exception_handler(RecursionError)
    async def _too_deep(request: Request, _exc: RecursionError) -> Response:
        return _refuse(request, 422, ErrorText("the request body is nested too deeply"),
                       "too_deep")

    if os.environ.get(DOCS_ENV, "") not in ("1", "yes", "true"):
        hidden = {p for p in (app.docs_url, app.redoc_url, app.swagger_ui_oauth2_redirect_url)
                  if p}
        app.router.routes[:] = [r for r in app.router.routes
                                if getattr(r, "path", None) not in hidden]


def client_address(request: Request) -> str:
    """Who is asking, for the rate limits (the socket's peer: no proxy headers trusted)."""
    client: Any = request.client
    return str(client.host) if client is not None else "?"


def lan_address() -> str | None:
    """This computer's address on its local network (what a phone at the table types),
    found without sending anything; None when there is no network."""
    import socket

    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("192.0.2.1", 9))  # a documentation address: nothing is sent
            address = str(probe.getsockname()[0])
    except OSError:
        return None
    return None if address.startswith("127.") else address


def exposed_warning(host: str, port: int) -> str | None:
    """What ``warroom serve`` says when it listens on every interface."""
    if host not in ("0.0.0.0", "::"):
        return None
    lan = lan_address()
    where = f"http://{lan}:{port}/" if lan else f"this computer's address, port {port}"
    return (f"WARNING: anyone on your network can reach this server; a battle is guarded "
            f"only by its links. Phones at the table open {where}")
