"""Jinja2 templates shared by every page (the battle pages extend ``base.html`` too).

``render(request, "page.html", {...})`` fills in the page language, the translator
``_`` and the language switch, and remembers a ``?lang=`` choice in a cookie.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates
from jinja2 import pass_context

from warroom import i18n
from warroom.web import lang as langs

TEMPLATES = Path(__file__).parent / "templates"
STATIC = Path(__file__).parent / "static"


@cache
def templates() -> Jinja2Templates:
    tpl = Jinja2Templates(directory=str(TEMPLATES))
    tpl.env.add_extension("jinja2.ext.i18n")
    tpl.env.globals["LANGUAGES"] = langs.LANGUAGE_NAMES
    from warroom.engine.results import cell
    from warroom.engine.steps import says_target, target_label
    from warroom.i18n.formats import (
        fmt_count,
        fmt_number,
        fmt_percentile,
        fmt_sources,
        fmt_unit,
    )
    from warroom.web.charts import bar_chart, fmt_pct, fmt_value

    tpl.env.globals["bar_chart"] = bar_chart
    tpl.env.globals["target_label"] = target_label
    tpl.env.globals["says_target"] = says_target
    # in the page's language: the filters take the request's translator from the context
    tpl.env.filters["pct"] = pass_context(lambda ctx, p: fmt_pct(p, ctx.get("_")))
    tpl.env.filters["value"] = fmt_value
    tpl.env.filters["sources"] = pass_context(lambda ctx, text: fmt_sources(text, ctx.get("_")))
    tpl.env.filters["unit"] = pass_context(lambda ctx, name: fmt_unit(name, ctx.get("_")))
    tpl.env.filters["count"] = pass_context(lambda ctx, n: fmt_count(n, ctx.get("_")))
    tpl.env.filters["points"] = pass_context(  # percentage points, one decimal
        lambda ctx, x: fmt_number(x * 100, ctx.get("_"), 1))
    tpl.env.filters["percentile"] = pass_context(
        lambda ctx, p, estimate=False, margin=None: fmt_percentile(p, estimate, margin,
                                                                   ctx.get("_")))
    tpl.env.globals["cell"] = cell
    from warroom.battle.state import MAX_BATTLE_NAME, MAX_NAME, MAX_STAT, MAX_WORD
    from warroom.web.unit_forms import LONGEST

    # the forms' maxlength: the same limits the battle's models and the form readers hold
    tpl.env.globals["LIMITS"] = {"battle_name": MAX_BATTLE_NAME, "name": MAX_NAME,
                                 "stat": MAX_STAT, "word": MAX_WORD, "field": LONGEST}
    return tpl


def page_lang(request: Request) -> str:
    """The language of this request: ``?lang=``, the cookie, then Accept-Language."""
    return langs.choose(request.query_params.get("lang"), request.cookies.get(langs.COOKIE),
                        request.headers.get("accept-language"))


def render(request: Request, name: str, context: Mapping[str, Any] | None = None,
           status_code: int = 200) -> HTMLResponse:
    """Render a template in the request's language."""
    lang = page_lang(request)
    tr = langs.translator(lang)
    # jinja2.ext.i18n: {% trans %} and _() use the request's gettext and ngettext
    ctx: dict[str, Any] = {"lang": lang, "_": tr, "gettext": tr, "ngettext": tr.ngettext,
                           "request": request}
    ctx.update(context or {})
    proc = ctx.get("proc")
    scope = str(getattr(proc, "id", "") or "")
    ctx.setdefault("label", lambda name, where=scope: i18n.label(tr, str(name), where))
    response = templates().TemplateResponse(request, name, ctx, status_code=status_code)
    asked = request.query_params.get("lang")
    if asked and lang == i18n.negotiate([asked]):
        response.set_cookie(langs.COOKIE, lang, max_age=365 * 24 * 3600, samesite="lax")
    return response
