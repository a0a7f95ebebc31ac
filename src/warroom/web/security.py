"""The web app's defences: security headers on every response, an Origin check on every
form or API post (no cross-site request can act on a battle), the one bound on request
bodies (:data:`BODY_LIMITS`), battle and database errors
with a machine-readable ``code`` (never SQL), and no ``/docs`` unless asked.

``install(app)`` wires all of it; nothing happens at import time.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from fastapi import FastAPI, Request
from fastapi.responses import Response
from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from warroom.errors import ErrorText

log = logging.getLogger("warroom.web")

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

BODY_LIMIT = 1_000_000
"""The largest request body accepted, in bytes (1 MB), on every route not in
:data:`BODY_LIMITS`: a question, a form or a battle action is a few kB at most."""

BODY_LIMITS: dict[tuple[str, str], int] = {
    ("POST", f"{prefix}/battles/import"): 8_000_000 for prefix in ("/api/v1", "/api")
}
"""The routes that take more (method, path): a battle's export, about 1.5 kB an event
with its steps, so some 5,000 events."""


REQUEST_SECONDS = 120.0
"""No request takes longer (the body's arrival included): past it the answer is a 503
``request_timeout`` and the route is cancelled (its jobs stop when nobody else waits for
them). The longest answers are well within it: the JSON API's odds wait 10 s for exact
odds, an estimate 5 s and its refinement 10 s more; no exact job runs past two minutes."""


def body_limit(method: str, path: str) -> int:
    """The largest body, in bytes, that ``method path`` accepts: the one place that says
    which routes take how much."""
    return BODY_LIMITS.get((method.upper(), path.rstrip("/") or "/"), BODY_LIMIT)


def _too_large(request: Request, limit: int) -> Response:
    return _refuse(request, 413, ErrorText("the request is too large (at most {most} MB)",
                                  most=f"{limit / 1_000_000:g}"), "body_too_large")


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
    origin = request.headers.get("origin")
    source = origin
    if not source or source == "null":
        source = request.headers.get("referer")
        if not source:
            # no Origin at all: not a browser; Origin null and nothing else: a sandboxed
            # frame or a page elsewhere hiding where it is, refused
            return origin != "null"
    host = request.headers.get("host", "")
    return urlsplit(source).netloc.lower() == host.lower()


def _refuse(request: Request, status: int, text: ErrorText, code: str) -> Response:
    from warroom.web.errors import json_error

    return json_error(request.url.path, status, code, str(text))


SAFE_METHODS = ("GET", "HEAD", "OPTIONS")

BODY_SECONDS = 30.0
"""A request body must arrive within this many seconds (else 408 ``body_timeout``): a
client that starts a post and never finishes it holds nothing for long."""

_ESCAPED_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]")
"""A JSON escape of half a character (a pair is fine; a lone one is checked further)."""


def json_bad_text(body: bytes) -> str | None:
    """Where a JSON body holds a lone surrogate (a field, key or value: its path), None
    when it holds none or is not JSON (the route says what is wrong with it then)."""
    from warroom.errors import bad_text

    if not _ESCAPED_SURROGATE.search(body):
        return None
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        return None
    return bad_text(data)


class Guard:
    """Plain ASGI middleware (not ``BaseHTTPMiddleware``, which would hide a client's
    going away from the routes that cancel abandoned work): refuses cross-site posts
    (403 ``cross_site``: another site's ``Origin``, or ``Origin: null`` with nothing
    else to go by) and posts to an unknown ``Host`` (403 ``unknown_host``, against DNS
    rebinding: ``app.state.allowed_hosts``), bodies over their route's bound
    (:func:`body_limit`: 413 ``body_too_large``) or slower than :data:`BODY_SECONDS`
    (408 ``body_timeout``), JSON bodies with text that is not valid Unicode (422
    ``invalid_text`` naming the field), stops a request past :data:`REQUEST_SECONDS`
    (503 ``request_timeout``), and adds the security headers to every response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        writes = request.method not in SAFE_METHODS
        refusal = _refusal(request) if writes else None
        limit = body_limit(request.method, scope.get("path", "/"))
        length = request.headers.get("content-length", "")
        if refusal is None and length.isdigit() and int(length) > limit:
            refusal = _too_large(request, limit)
        if refusal is not None:
            await _headers(refusal)(scope, receive, send)
            return
        seen = 0
        refused = False
        started = False
        private = _private(scope.get("path", "/"))

        async def counted() -> Message:
            nonlocal seen, refused
            if refused:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:  # answer now; the app sees a client that went away
                    await answer(_too_large(request, limit))
                    return {"type": "http.disconnect"}
            return message

        async def answer(response: Response) -> None:
            nonlocal refused
            if not (refused or started):
                refused = True
                await _headers(response)(scope, receive, send)

        async def send_with_headers(message: Message) -> None:
            nonlocal started
            if refused:
                return
            if message["type"] == "http.response.start":
                started = True
                headers = MutableHeaders(scope=message)
                for name, value in HEADERS.items():
                    if name not in headers:
                        headers[name] = value
                if private:
                    headers["Cache-Control"] = "no-store"
            await send(message)

        async def whole_body() -> list[Message] | None:
            """Every message of the body (None: refused, or the client went away)."""
            messages: list[Message] = []
            while True:
                message = await counted()
                if message["type"] != "http.request":
                    return None
                messages.append(message)
                if not message.get("more_body", False):
                    return messages

        async def handle() -> None:
            receiver = counted
            if writes:
                try:
                    messages = await asyncio.wait_for(whole_body(), BODY_SECONDS)
                except TimeoutError:
                    await answer(_refuse(request, 408, ErrorText(
                        "the request body did not arrive within {most} seconds",
                        most=f"{BODY_SECONDS:g}"), "body_timeout"))
                    return
                if messages is None:
                    return
                body = b"".join(m.get("body", b"") for m in messages)
                where = await asyncio.to_thread(json_bad_text, body) \
                    if _ESCAPED_SURROGATE.search(body) else None
                if where is not None:
                    from warroom.errors import InvalidTextError

                    error = InvalidTextError(where)
                    from warroom.web.errors import json_error

                    await answer(json_error(request.url.path, 422, error.code, str(error),
                                            error.parameter))
                    return
                queued = [{"type": "http.request", "body": body, "more_body": False}]

                async def replayed() -> Message:
                    if queued:
                        return queued.pop()
                    return await counted()

                receiver = replayed
            await self.app(scope, receiver, send_with_headers)

        try:
            await asyncio.wait_for(handle(), REQUEST_SECONDS)
        except TimeoutError:
            log.warning("%s %s passed its time cap of %g s", request.method,
                        scope.get("path", "/"), REQUEST_SECONDS)
            await answer(_refuse(request, 503, ErrorText(
                "the request took longer than {most} seconds and was stopped; ask "
                "again in a moment, or ask something smaller", most=f"{REQUEST_SECONDS:g}"),
                "request_timeout"))
        except Exception:
            if not refused:
                raise


def _private(path: str) -> bool:
    """Whether answers at ``path`` are a battle's (its pages, API answers and export):
    never kept by a browser's or a proxy's cache (``Cache-Control: no-store``)."""
    return path.startswith(("/battles", "/api/v1/battles", "/api/battles"))


def _refusal(request: Request) -> Response | None:
    if not same_origin(request):
        return _refuse(request, 403, ErrorText(
            "this request comes from another site; warroom only takes forms from its "
            "own pages"), "cross_site")
    if not known_host(request):
        return _refuse(request, 403, ErrorText(
            "this server does not answer to that address (Host); open it by an address "
            "it serves"), "unknown_host")
    return None


def known_host(request: Request) -> bool:
    """Whether the request's ``Host`` (its port left out) is one this server answers to:
    ``app.state.allowed_hosts`` (None: any, as in a library's own app; ``warroom serve``
    always sets it, :func:`allowed_hosts`). A page on another site that rebinds its own
    name to this computer's address still sends its own name: refused."""
    allowed = getattr(request.app.state, "allowed_hosts", None) if "app" in request.scope \
        else None
    if allowed is None:
        return True
    host = request.headers.get("host", "").strip().lower()
    name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
    return name in allowed or host in allowed


def allowed_hosts(host: str, extra: Iterable[str] = ()) -> frozenset[str]:
    """The ``Host`` names a server listening on ``host`` answers to: this computer's own
    names (localhost, 127.0.0.1, [::1]), the address it listens on, every address of this
    computer on its networks when it listens on all of them (the phones at the table
    type one), and ``extra`` (``--allowed-host``, ``WARROOM_ALLOWED_HOSTS``)."""
    import socket

    names = {"localhost", "127.0.0.1", "[::1]", "::1", host.lower()}
    if host in ("0.0.0.0", "::"):
        lan = lan_address()
        if lan:
            names.add(lan)
        try:
            for info in socket.getaddrinfo(socket.gethostname(), None):
                address = str(info[4][0])
                names.add(f"[{address}]" if ":" in address else address)
        except OSError:
            pass
        names.add(socket.gethostname().lower())
    names.update(h.strip().lower() for h in extra if h.strip())
    return frozenset(names)


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
        from warroom.errors import clip, error_message
        from warroom.web.errors import error_response, json_error, wants_html

        if wants_html(request):
            from warroom.web.lang import translator
            from warroom.web.templating import page_lang

            return error_response(request, exc.http_status,
                                  error_message(exc, translator(page_lang(request))), None)
        return json_error(request.url.path, exc.http_status, exc.code, error_message(exc),
                          clip(exc.parameter), **exc.details())

    from sqlalchemy.exc import IntegrityError, SQLAlchemyError

    @app.exception_handler(SQLAlchemyError)
    async def _database(request: Request, exc: SQLAlchemyError) -> Response:
        """A database error that got past the store (which turns its own into battle
        errors): a clear 409 or 503 with its code; neither the answer nor the log line
        carries the statement or its values."""
        from warroom.battle.errors import ConflictError, DatabaseBusyError

        error = ConflictError(_CONFLICT) if isinstance(exc, IntegrityError) else \
            DatabaseBusyError(_UNAVAILABLE)
        log.warning("database error on %s: %s", request.url.path, type(exc).__name__)
        return await _battle_error(request, error)

    @app.exception_handler(RecursionError)
    async def _too_deep(request: Request, _exc: RecursionError) -> Response:
        return _refuse(request, 422, ErrorText("the request body is nested too deeply"),
                       "too_deep")

    if os.environ.get(DOCS_ENV, "") not in ("1", "yes", "true"):
        hidden = {p for p in (app.docs_url, app.redoc_url, app.swagger_ui_oauth2_redirect_url)
                  if p}
        app.router.routes[:] = [r for r in app.router.routes
                                if getattr(r, "path", None) not in hidden]


_CONFLICT = ("the database refused the change: it clashes with what is already stored; "
             "nothing was recorded, try again")
_UNAVAILABLE = "the database is unavailable; try again (nothing was recorded)"


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
