"""The FastAPI application: ``create_app()`` builds it (nothing happens at import).

Routes: the JSON API under ``/api`` (:mod:`warroom.web.jsonapi`), the pages
(:mod:`warroom.web.pages`), the battle pages and API when :mod:`warroom.web.battles`
exists, and the vendored static files under ``/static`` (no CDN: works offline).
"""

from __future__ import annotations

import importlib
import logging
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles

from warroom.errors import (
    ErrorText,
    ParameterError,
    UnknownParameterError,
    UsageError,
    WarroomError,
)

log = logging.getLogger("warroom.web")


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
        return ErrorText("unknown field {where!r}", where=where), name
    if kind == "missing":
        return ErrorText("{where!r} is required", where=where), name
    if "input" in err and kind != "missing":
        return ErrorText("{where!r}: {value!r} is not valid: {reason}", where=where,
                         value=err["input"], reason=text), name
    return ErrorText("{where!r}: {reason}", where=where, reason=text), name


def create_app(database: str | Path | None = None) -> FastAPI:
    """The web app. ``database`` is the battle store's SQLite file (or URL), used by the
    battle routes when they are installed; ``None`` lets them pick their default."""
    from warroom.web import jsonapi, pages
    from warroom.web.templating import STATIC

    app = FastAPI(
        title="warroom",
        summary="An umpire for tabletop wargames: exact odds, explained resolutions.",
        description="The same answers as the `warroom` command line with `--json`. Invalid "
        "input gets a 422 whose `detail` names the parameter.",
        version="0.1.0",
    )
    app.state.database = database

    @app.exception_handler(UsageError)
    async def _usage(request: Request, exc: UsageError) -> Response:
        parameter: str | None = None
        if isinstance(exc, ParameterError):
            parameter = exc.parameter or None
        elif isinstance(exc, UnknownParameterError):
            parameter = exc.name
        message = str(exc)  # the JSON API's detail stays English
        if _wants_html(request):
            from warroom.web.lang import translator
            from warroom.web.templating import page_lang

            message = exc.translated(translator(page_lang(request)))
        return _error(request, exc.http_status, message, parameter)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> Response:
        text, parameter = validation_message(list(exc.errors()))
        message = str(text)  # the JSON API's detail stays English
        if _wants_html(request):
            from warroom.web.lang import translator
            from warroom.web.templating import page_lang

            message = text.render(translator(page_lang(request)))
        return _error(request, 422, message, parameter)

    @app.exception_handler(WarroomError)
    async def _internal(request: Request, exc: WarroomError) -> Response:
        log.error("warroom error on %s: %s", request.url.path, exc)
        return _error(request, 500, f"internal error in a rule: {exc}", None)

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
