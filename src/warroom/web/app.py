"""The FastAPI application: ``create_app()`` builds it (nothing happens at import).

Routes: the JSON API under ``/api/v1`` (:mod:`warroom.web.jsonapi`, and the battle API of
:mod:`warroom.web.battles` when it exists), the same handlers once more under ``/api``
(deprecated, kept for one release: their error bodies also carry the old ``detail``,
``parameter`` and ``code`` keys), the pages (:mod:`warroom.web.pages` and the battle
pages, left out of the OpenAPI document), and the vendored static files under
``/static`` (no CDN: works offline).

Every error a script can get is ``{"error": {"code", "message", "parameter"}}``
(:class:`warroom.schema.ErrorBody`), the same as ``warroom ... --json`` prints, with a
stable machine-readable ``code``; a page gets an error page in its language instead.

Exact odds and Monte Carlo run in worker processes with deadlines
(:class:`warroom.serving.Serving`, started with the app, stopped with it); responses are
gzip-compressed; a request body over its route's bound
(:func:`warroom.web.security.body_limit`) gets a 413.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from fastapi.routing import APIRoute
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.gzip import GZipMiddleware

from warroom.errors import (
    ErrorText,
    ParameterError,
    UnknownParameterError,
    UsageError,
    WarroomError,
    clip,
    error_message,
)
from warroom.web.errors import API, LEGACY_API, error_response, json_error, wants_html

log = logging.getLogger("warroom.web")

HTTP_CODES = {404: "not_found", 405: "method_not_allowed", 413: "body_too_large"}
"""Machine codes of the errors the routing itself answers."""
BODY_NOT_PARSED = "There was an error parsing the body"


def allowed_methods(request: Request) -> str | None:
    """The methods the OpenAPI document gives the request's path (Starlette's 405 names
    only those of the first route that matches the path, and two routes may share one:
    GET and POST ``/api/v1/battles``); where templates overlap, the most literal one
    names the resource (``/battles/import`` before ``/battles/{battle_id}``). None for a
    path the document does not describe."""
    import re

    path = request.url.path
    best: tuple[int, list[str]] | None = None
    for template, item in request.app.openapi()["paths"].items():
        pattern = "^" + re.sub(r"\\{[^/]+?\\}", "[^/]+", re.escape(template)) + "$"
        if re.match(pattern, path):
            params = template.count("{")
            if best is None or params < best[0]:
                best = (params, [m.upper() for m in item])
    if best is None:
        return None
    methods = best[1] + (["HEAD"] if "GET" in best[1] else [])
    return ", ".join(sorted(methods))


def validation_message(errors: list[Any]) -> tuple[ErrorText, str | None]:
    """One clear sentence from pydantic's list of request errors, naming the field
    (``str()`` of it is English; pages translate it)."""
    if not errors:
        return ErrorText("invalid request"), None
    err = errors[0]
    loc = [x for x in err.get("loc", ()) if x not in ("body", "query", "path")]
    kind = err.get("type", "")
    if kind == "json_invalid":
        return ErrorText("the request body is not valid JSON"), None
    if not loc and kind == "missing":
        return ErrorText('the request needs a JSON body, e.g. {"procedure": "demo.pool"}'), None
    if not loc and kind in ("model_attributes_type", "dict_type"):
        return ErrorText("the request body must be a JSON object"), None
    name = str(loc[0]) if loc else ""
    where = name + "".join(f"[{x}]" for x in loc[1:] if isinstance(x, int))
    text = str(err.get("msg", "invalid value"))
    if kind == "extra_forbidden":
        return ErrorText("unknown field {where!r}", where=clip(where)), clip(name)
    if kind == "missing":
        return ErrorText("{where!r} is required", where=clip(where)), clip(name)
    if "input" in err and kind != "missing":
        return ErrorText("{where!r}: {value!r} is not valid: {reason}", where=clip(where),
                         value=clip(err["input"]), reason=text), clip(name)
    return ErrorText("{where!r}: {reason}", where=clip(where), reason=text), clip(name)


def _operation_id(route: APIRoute) -> str:
    """A readable operation id: the route's name (``odds``, ``battle_do``)."""
    return route.name


def _legacy_id(route: APIRoute) -> str:
    return f"legacy_{route.name}"


def create_app(database: str | Path | None = None, *, deadline: float | None = None,
               workers: int | None = None, serving: Any = None) -> FastAPI:
    """The web app. ``database`` is the battle store's SQLite file (or URL), used by the
    battle routes when they are installed; ``None`` lets them pick their default.

    ``deadline``: seconds a page waits for exact odds before it shows the Monte Carlo
    estimate (default :data:`warroom.serving.DEADLINE`); ``workers``: worker processes
    for exact odds (default: one per core). ``serving`` replaces the whole
    :class:`warroom.serving.Serving` (tests)."""
    from warroom import __version__
    from warroom import serving as srv
    from warroom.web import battles, forces, jsonapi, pages, security
    from warroom.web.templating import STATIC

    front = serving if serving is not None else srv.Serving(
        workers=workers, deadline=srv.DEADLINE if deadline is None else deadline)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await front.start()
        try:
            yield
        finally:
            await front.stop()

    app = FastAPI(
        lifespan=lifespan,
        title="warroom",
        summary="An umpire for tabletop wargames: exact odds, explained resolutions.",
        description="The same answers as the `warroom` command line with `--json` (the "
        "same models, `warroom.schema`), under `/api/v1`. Every error is "
        '`{"error": {"code", "message", "parameter"}}` with a stable machine-readable '
        "`code`: 422 for invalid input (naming the parameter; `invalid_text` for text "
        "that is not valid Unicode), 404 for an unknown battle, a wrong key or a missing "
        "one (deliberately the same answer, `no_such_battle`, never 401 or 403: nobody "
        "can probe which battle ids exist), 403 for a link that may not do that, 409 "
        "when a write's `expect` is stale (`stale`) or the battle takes no writes "
        "(`ended`, `read_only`), 429 past a rate limit. Battle calls take the link's "
        "key as the `X-Battle-Key` header "
        "or the `key` query parameter. The old prefix `/api` answers the same and is "
        "deprecated: it goes in the next release.",
        version=__version__,
    )
    app.state.database = database
    app.state.serving = front
    # level 6, not Starlette's 9: a third of the time on the event loop for a big page
    # (9 ms against 24 ms for 385 kB of HTML), 3 % larger
    app.add_middleware(GZipMiddleware, minimum_size=1000, compresslevel=6)

    @app.exception_handler(UsageError)
    async def _usage(request: Request, exc: UsageError) -> Response:
        parameter: str | None = None
        if isinstance(exc, ParameterError):
            parameter = exc.parameter or None
        elif isinstance(exc, UnknownParameterError):
            parameter = exc.name
        message = error_message(exc)  # the JSON API's detail stays English
        if wants_html(request):
            from warroom.web.lang import translator
            from warroom.web.templating import page_lang

            message = error_message(exc, translator(page_lang(request)))
        return error_response(request, exc.http_status, message, clip(parameter), exc.code)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> Response:
        text, parameter = validation_message(list(exc.errors()))
        message = str(text)  # the JSON API's detail stays English
        if wants_html(request):
            from warroom.web.lang import translator
            from warroom.web.templating import page_lang

            message = text.render(translator(page_lang(request)))
        return error_response(request, 422, message, parameter, "invalid_request")

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> Response:
        # a mistyped address on a page gets a page in its language with a way back;
        # the JSON API keeps FastAPI's JSON answer
        if exc.status_code < 400:
            return await http_exception_handler(request, exc)
        if not wants_html(request):
            if exc.status_code == 400 and exc.detail == BODY_NOT_PARSED:
                # FastAPI's word for a body that is not JSON where the body is optional:
                # the same 422 as everywhere else
                return json_error(request.url.path, 422, "invalid_request",
                                  "the request body is not valid JSON")
            response = json_error(request.url.path, exc.status_code,
                                  HTTP_CODES.get(exc.status_code, "http_error"),
                                  str(exc.detail))
            response.headers.update(exc.headers or {})
            allowed = allowed_methods(request) if exc.status_code == 405 else None
            if allowed:
                response.headers["Allow"] = allowed
            return response
        from warroom.web.lang import translator
        from warroom.web.templating import page_lang

        tr = translator(page_lang(request))
        message = (tr("There is no page at this address: the link may be mistyped.")
                   if exc.status_code == 404 and exc.detail == "Not Found" else tr(str(exc.detail)))
        return error_response(request, exc.status_code, message, None)

    @app.exception_handler(WarroomError)
    async def _internal(request: Request, exc: WarroomError) -> Response:
        log.error("warroom error on %s: %s", request.url.path, exc)
        return error_response(request, 500,
                              f"internal error in a rule: {clip(str(exc), 300)}", None,
                              exc.code)

    @app.exception_handler(srv.WorkerLost)
    async def _worker_lost(request: Request, exc: srv.WorkerLost) -> Response:
        # not the rule's fault nor the caller's: a worker process died (twice); the pool
        # has replaced it, so asking again works
        log.warning("worker lost on %s: %s", request.url.path, exc)
        if wants_html(request):
            from warroom.web.lang import translator
            from warroom.web.templating import page_lang

            return error_response(request, exc.http_status, translator(page_lang(request))(
                "The worker working out this answer stopped (out of memory, or ended from "
                "outside). It has been replaced: try again in a moment."), None)
        return json_error(request.url.path, exc.http_status, exc.code, str(exc))

    @app.exception_handler(srv.ClientGone)
    async def _gone(request: Request, exc: srv.ClientGone) -> Response:
        return Response(status_code=499)  # nobody is listening any more

    api_routers = [jsonapi.router, battles.api, forces.api]
    page_routers = [pages.router, battles.router, forces.router]
    for prefix, old in ((API, False), (LEGACY_API, True)):
        for router in api_routers:  # the same handlers, mounted twice
            app.include_router(router, prefix=prefix, deprecated=True if old else None,
                               generate_unique_id_function=_legacy_id if old else _operation_id)
    for router in page_routers:
        app.include_router(router, include_in_schema=False)
    app.mount("/static", StaticFiles(directory=str(STATIC)), name="static")
    security.install(app)
    return app
