"""The FastAPI application: ``create_app()`` builds it (nothing happens at import).

Routes: the JSON API under ``/api`` (:mod:`warroom.web.jsonapi`), the pages
(:mod:`warroom.web.pages`), the battle pages and API when :mod:`warroom.web.battles`
exists, and the vendored static files under ``/static`` (no CDN: works offline).

Exact odds and Monte Carlo run in worker processes with deadlines
(:class:`warroom.serving.Serving`, started with the app, stopped with it); responses are
gzip-compressed; a request body over its route's bound
(:func:`warroom.web.security.body_limit`) gets a 413.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.gzip import GZipMiddleware

from warroom.errors import (
    ErrorText,
    ParameterError,
    UnknownParameterError,
    UsageError,
    WarroomError,
)

log = logging.getLogger("warroom.web")

SHOWN = 40
"""At most this many characters of a value someone sent are echoed in an error."""


def clip(value: Any, most: int = SHOWN) -> Any:
    """A value someone sent, cut to a short prefix when it is long (errors echo it)."""
    if isinstance(value, str):
        return value if len(value) <= most else value[:most] + "…"
    if isinstance(value, bytes):
        return value if len(value) <= most else value[:most] + b"..."
    if isinstance(value, (list, tuple, dict, set)) and len(repr(value)) > most:
        return repr(value)[:most] + "…"
    return value


def error_message(exc: UsageError, tr: Any = None) -> str:
    """A usage error in ``tr``'s language (English without it), every value it echoes
    cut to a short prefix."""
    text = getattr(exc, "text", None)
    if not isinstance(text, ErrorText):
        return str(clip(str(exc), 300))
    return clipped(text).render(tr)


def clipped(text: ErrorText) -> ErrorText:
    """``text`` with every long value it echoes cut short (nested messages too; the
    list of valid names is kept)."""
    args = {k: (clipped(v) if isinstance(v, ErrorText) else v if k == "valid" else clip(v))
            for k, v in text.args.items()}
    return ErrorText(text.template, **args)


def _wants_html(request: Request) -> bool:
    return not request.url.path.startswith("/api") and "text/html" in request.headers.get(
        "accept", "")


def _error(request: Request, status: int, message: str, parameter: str | None) -> Response:
    if _wants_html(request):
        from warroom.web.templating import render

        return render(request, "error.html", {"message": message, "status": status},
                      status_code=status)
    return JSONResponse({"detail": message, "parameter": parameter}, status_code=status)


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
    from warroom.web import jsonapi, pages
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
        description="The same answers as the `warroom` command line with `--json`. Invalid "
        "input gets a 422 whose `detail` names the parameter.",
        version=__version__,
    )
    app.state.database = database
    app.state.serving = front
    app.add_middleware(GZipMiddleware, minimum_size=1000)

    @app.exception_handler(UsageError)
    async def _usage(request: Request, exc: UsageError) -> Response:
        parameter: str | None = None
        if isinstance(exc, ParameterError):
            parameter = exc.parameter or None
        elif isinstance(exc, UnknownParameterError):
            parameter = exc.name
        message = error_message(exc)  # the JSON API's detail stays English
        if _wants_html(request):
            from warroom.web.lang import translator
            from warroom.web.templating import page_lang

            message = error_message(exc, translator(page_lang(request)))
        return _error(request, exc.http_status, message, clip(parameter))

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> Response:
        text, parameter = validation_message(list(exc.errors()))
        message = str(text)  # the JSON API's detail stays English
        if _wants_html(request):
            from warroom.web.lang import translator
            from warroom.web.templating import page_lang

            message = text.render(translator(page_lang(request)))
        return _error(request, 422, message, parameter)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> Response:
        # a mistyped address on a page gets a page in its language with a way back;
        # the JSON API keeps FastAPI's JSON answer
        if not _wants_html(request) or exc.status_code < 400:
            return await http_exception_handler(request, exc)
        from warroom.web.lang import translator
        from warroom.web.templating import page_lang

        tr = translator(page_lang(request))
        message = (tr("There is no page at this address: the link may be mistyped.")
                   if exc.status_code == 404 and exc.detail == "Not Found" else tr(str(exc.detail)))
        return _error(request, exc.status_code, message, None)

    @app.exception_handler(WarroomError)
    async def _internal(request: Request, exc: WarroomError) -> Response:
        log.error("warroom error on %s: %s", request.url.path, exc)
        return _error(request, 500, f"internal error in a rule: {clip(str(exc), 300)}", None)

    @app.exception_handler(srv.WorkerLost)
    async def _worker_lost(request: Request, exc: srv.WorkerLost) -> Response:
        # not the rule's fault nor the caller's: a worker process died (twice); the pool
        # has replaced it, so asking again works
        log.warning("worker lost on %s: %s", request.url.path, exc)
        if _wants_html(request):
            from warroom.web.lang import translator
            from warroom.web.templating import page_lang

            return _error(request, exc.http_status, translator(page_lang(request))(
                "The worker working out this answer stopped (out of memory, or ended from "
                "outside). It has been replaced: try again in a moment."), None)
        return JSONResponse({"detail": str(exc), "parameter": None, "code": exc.code},
                            status_code=exc.http_status)

    @app.exception_handler(srv.ClientGone)
    async def _gone(request: Request, exc: srv.ClientGone) -> Response:
        return Response(status_code=499)  # nobody is listening any more

    app.include_router(jsonapi.router)
    app.include_router(pages.router)
    try:
        battles = importlib.import_module("warroom.web.battles")
    except ModuleNotFoundError as exc:
        if exc.name != "warroom.web.battles":
            raise
    else:
        app.include_router(battles.router)
    app.mount("/static", StaticFiles(directory=str(STATIC)), name="static")
    importlib.import_module("warroom.web.security").install(app)
    return app
