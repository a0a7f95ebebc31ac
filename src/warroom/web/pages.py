"""The HTML pages: pick a procedure, see live exact odds, roll, compare.

Every page works without JavaScript (plain GET/POST forms); htmx, when present,
refreshes only the odds, roll or comparison panel as the form changes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, HTMLResponse, Response
from starlette.datastructures import FormData, ImmutableMultiDict, QueryParams

from warroom import api, i18n
from warroom.engine.params import ParamSpec, normalized
from warroom.engine.procedure import Procedure, shown_fields
from warroom.engine.results import Column, Distribution, Resolution, columns
from warroom.errors import UsageError, error_message
from warroom.serving import Answer, Serving, unless_gone
from warroom.web.charts import JOINT_ROWS, FieldView, fmt_pct, joint_rows, views
from warroom.web.lang import translator
from warroom.web.templating import STATIC, page_lang, render

router = APIRouter(include_in_schema=False)

Tr = Callable[[str], str]
Form = FormData | QueryParams | ImmutableMultiDict[str, Any]
SUBMITTED = "_sent"
MAX_SETS = 4


@dataclass
class FieldForm:
    """One input of a generated form."""

    spec: ParamSpec
    key: str
    label: str
    description: str
    value: Any
    choices: list[tuple[str, str]] = field(default_factory=list)

    @property
    def widget(self) -> str:
        if self.spec.type == "bool":
            return "checkbox"
        if self.spec.type == "list":
            return "checkboxes" if self.spec.choices else "text"
        if self.spec.choices:
            return "select"
        if self.spec.type in ("int", "float"):
            return "number"
        return "text"

    @property
    def folded(self) -> bool:
        """Long lists of choices (special rules) fold away below the other inputs."""
        return self.widget == "checkboxes" and len(self.choices) > 8

    @property
    def count(self) -> int:
        return len(self.value) if isinstance(self.value, (list, tuple)) else 0

    @property
    def step(self) -> str:
        return "1" if self.spec.type == "int" else "any"

    def selected(self, choice: str) -> bool:
        if isinstance(self.value, (list, tuple)):
            return choice in [str(v) for v in self.value]
        return str(self.value) == choice

    @property
    def text_value(self) -> str:
        if self.value is None:
            return ""
        if isinstance(self.value, (list, tuple)):
            return ", ".join(str(v) for v in self.value)
        if isinstance(self.value, float) and self.value.is_integer():
            return str(int(self.value))
        return str(self.value)


def raw_params(specs: Sequence[ParamSpec], form: Form, prefix: str = "") -> dict[str, Any]:
    """The parameters a form sent: empty inputs keep their default; an unchecked box is
    ``false`` once the form has been sent; list parameters are lists."""
    sent = f"{prefix}{SUBMITTED}" in form
    out: dict[str, Any] = {}
    for spec in specs:
        key = prefix + spec.name
        if spec.type == "bool":
            if key in form:
                out[spec.name] = form.get(key) not in ("", "false", "0", "off")
            elif sent:
                out[spec.name] = False
        elif spec.type == "list":
            values = [str(v) for v in form.getlist(key) if str(v).strip()]
            if not spec.choices and len(values) == 1:
                values = [v.strip() for v in values[0].split(",") if v.strip()]
            if values or sent:
                out[spec.name] = values
        else:
            value = form.get(key)
            if isinstance(value, str) and value.strip():
                out[spec.name] = value.strip()
    return out


def form_fields(specs: Sequence[ParamSpec], values: Mapping[str, Any], tr: Tr,
                prefix: str = "", scope: str = "") -> list[FieldForm]:
    """Inputs for every parameter, filled with the current values (long lists last)."""
    out = []
    for spec in specs:
        value = values.get(spec.name, spec.to_dict()["default"])
        # labels are looked up under the procedure's qualified ids first (fow.shoot.target)
        choices = [(c, i18n.label(tr, f"{spec.name}={c}", scope, spec.title(c)))
                   for c in spec.choices]
        out.append(FieldForm(spec, prefix + spec.name, i18n.label(tr, spec.name, scope),
                             tr(spec.description) if spec.description else "", value, choices))
    return sorted(out, key=lambda f: f.folded)


@dataclass
class OddsView:
    """What a page shows of one exact distribution (or the error that stopped it); with
    ``samples``, of a Monte Carlo estimate standing in for exact odds: too large to work
    out (``pending`` False), or still being worked out (``pending``: the panel asks
    ``refresh`` for them and swaps them in)."""

    dist: Distribution | None = None
    error: str = ""
    fields: list[FieldView] = field(default_factory=list)
    joint: list[tuple[dict[str, Any], Any]] = field(default_factory=list)
    samples: int = 0
    estimate_margin: float = 0.0
    refining: bool = False  # an estimate cut short: the full one is coming (refresh)
    finer: float = 0.0
    """The 95% margin of a finer estimate being counted in the background (0: none is):
    the panel asks ``refresh`` for it and swaps it in."""
    pending: bool = False
    refresh: str = ""
    joint_total: int = 0
    all_url: str = ""
    joint_fields: list[Column] = field(default_factory=list)
    """The whole-outcome table's columns (:func:`joint_columns`), worked out once with
    the view: the template reads them for every row."""

    @property
    def deciding(self) -> list[FieldView]:
        """The fields the compact summary beside Roll shows: the first (the headline),
        then up to :data:`SUMMARY_FIELDS` - 1 more a player decides on, yes/no results
        first (pinned, passed), then counts (destroyed at least 1), in their declared
        order, each only when it can happen."""
        def can_happen(fv: FieldView) -> bool:
            return any(p for _kind, _value, p in fv.summary)

        rest = [fv for fv in self.fields[1:] if fv.summary and can_happen(fv)
                and (fv.numeric or {r.value for r in fv.rows} <= {True, False})]
        rest.sort(key=lambda fv: fv.numeric)  # stable: yes/no first, then counts
        return self.fields[:1] + rest[:SUMMARY_FIELDS - 1]


SUMMARY_FIELDS = 3
"""Outcome fields the compact summary beside Roll shows at most (:attr:`OddsView.deciding`)."""
PAGE_JOINT_ROWS = 1000
"""Whole outcomes a page lists with ``?all=1`` (most likely first; fewer where their
exact fractions are long, :data:`warroom.web.charts.JOINT_BYTES`); the JSON API with
``"all": true`` gives every one (pages stay under 300 KB)."""
PAGE_JOINT_CELLS = 8000
"""Cells of the whole-outcome table a page renders with ``?all=1``: fewer rows where there
are many columns (a six-unit stack's 1,000 likeliest outcomes in 11 columns made a
385 KB page that :func:`fitted` would render again and again on the event loop); the
page says how many it lists of how many."""
POLL_WAIT = 3.0
"""Seconds a follow-up request for pending exact odds waits for them (a long poll)."""
FINER = "_finer"
"""The query key of an odds panel's follow-up that shows the estimate while the finer one
is counted: it waits :data:`POLL_WAIT` for that (the first ask waits for nothing)."""


def varying_fields(dist: Distribution) -> list[str]:
    """The fields whose value varies across the whole outcomes (a stack's empty unit
    slots, always "-", say nothing and would only widen the page), less those repeating
    part of another (an ASL stack's unit1 ... unit10: :attr:`Distribution.leave_out`);
    all of its own when none varies. Read from each field's chances
    (:meth:`Distribution.parts`, which a worker hands over worked out): a field varies
    when it has more than one value, a field listing units when one of its units does.
    Never a pass over thousands of whole outcomes."""
    count: dict[str, int] = {}
    for name, chances in dist.parts():
        field_name = name.partition(": ")[0]
        count[field_name] = max(count.get(field_name, 0), len(chances))
    mine = [name for name in dist.fields if name not in dist.leave_out]
    return [name for name in mine if count.get(name, 0) > 1] or mine


def joint_columns(dist: Distribution) -> list[Column]:
    """The whole-outcome table's columns: the fields that vary (:func:`varying_fields`),
    a field listing units one column per unit (squad1, hs1: see :func:`columns`)."""
    return columns(dist, varying_fields(dist))


def odds_view(answer: Answer, everything: bool = False) -> OddsView:
    """The view of exact odds or of the estimate standing in for them."""
    dist = answer.dist
    est = answer.estimate
    joint: list[tuple[dict[str, Any], Any]] = []
    table = joint_columns(dist) if len(dist.fields) > 1 else []
    if table:
        joint = joint_rows(dist, min(PAGE_JOINT_ROWS, PAGE_JOINT_CELLS // len(table))
                           if everything else JOINT_ROWS)
    # fields certainly 0 for these parameters (shown_if) say nothing: left out
    keep = set(shown_fields(_procedure(dist.procedure).outcome, dist.params))
    shown = [v for v in views(dist) if v.name.partition(": ")[0] in keep]
    return OddsView(dist, "", shown, joint, est.samples if est else 0,
                    est.margin if est else 0.0, answer.pending,
                    joint_total=len(dist.weights) if len(dist.fields) > 1 else 0,
                    joint_fields=table if joint else [])


async def shared_view(srv: Serving, answer: Answer, everything: bool = False) -> OddsView:
    """:func:`odds_view`, kept in the cache beside the odds; each page gets its own copy.
    The chances per field come worked out from the worker; the rare list of every whole
    outcome is made in a thread."""
    from dataclasses import replace

    from starlette.concurrency import run_in_threadpool

    if not everything:
        return kept_view(srv, answer)
    kind = f"view:{'estimate' if answer.exact is None else 'exact'}:1"
    found = srv.cache.get(kind, answer.key)
    if found is None or found[0] is not (answer.exact or answer.estimate):
        found = (answer.exact or answer.estimate,
                 await run_in_threadpool(odds_view, answer, everything))
        srv.cache.put(kind, answer.key, found)
    shown: OddsView = replace(found[1], pending=answer.pending)
    return shown


def kept_view(srv: Serving, answer: Answer) -> OddsView:
    """:func:`odds_view` of the likeliest whole outcomes, made once per answer and kept
    in the cache beside it (every page, Roll included, gets its own copy)."""
    from dataclasses import replace

    kind = f"view:{'estimate' if answer.exact is None else 'exact'}:0"
    found = srv.cache.get(kind, answer.key)
    if found is None or found[0] is not (answer.exact or answer.estimate):
        found = (answer.exact or answer.estimate, odds_view(answer))
        srv.cache.put(kind, answer.key, found)
    shown: OddsView = replace(found[1], pending=answer.pending)
    return shown


def _serving(request: Request) -> Serving:
    return request.app.state.serving  # type: ignore[no-any-return]


def _query(form: Form, *, drop: tuple[str, ...] = (), **extra: str) -> str:
    """The form's values as a query string (without ``_wait``, ``all``, ``drop`` and the
    keys of ``extra``), plus ``extra``."""
    from urllib.parse import urlencode

    skip = {"_wait", FINER, "all", *drop, *extra}
    items = [(k, str(v)) for k, v in form.multi_items() if k not in skip and isinstance(v, str)]
    return urlencode(items + list(extra.items()))


async def compute_odds(request: Request, proc: Procedure, raw: Mapping[str, Any],
                       tr: Tr | None = None, *, refresh: str = "", wait: bool = False,
                       everything: bool = False, fine: bool = False
                       ) -> tuple[OddsView, dict[str, Any]]:
    """Odds for a form's values within the page's deadline, and the values to show back
    in the form (an error in ``tr``'s language, English without it). Past the deadline,
    or where exact odds would take too long, the Monte Carlo estimate, marked as one;
    while exact odds are still coming, the view asks ``refresh`` for them. With ``fine``
    (a page with ``refresh``), the estimate is refined in the background
    (:attr:`Serving.fine_margin`) and the view asks ``refresh`` for the finer one too
    (marked :data:`FINER`). A follow-up (``wait``) waits up to :data:`POLL_WAIT` (for
    the finer estimate only once the page shows the estimate: it shows that at once).
    The work stops if the client goes away."""
    srv = _serving(request)
    shown = request.query_params.get(FINER) == "1"
    try:
        _, params = api.prepare(proc.id, raw)
        answer = srv.cached(proc.id, raw)
        if answer is None:
            answer = await unless_gone(request.is_disconnected, srv.odds(
                proc.id, raw, deadline=POLL_WAIT if wait else srv.deadline,
                fine=(POLL_WAIT if wait and shown else 0.0) if fine and refresh else None))
    except UsageError as exc:
        return OddsView(error=error_message(exc, tr)), dict(raw)
    view = await shared_view(srv, answer, everything)
    view.refining = answer.refining
    view.finer = answer.finer
    if answer.pending or answer.refining:
        view.refresh = refresh
    elif answer.finer:
        view.refresh = f"{refresh}&{FINER}=1"
    return view, normalized(params)


def _procedure(proc_id: str) -> Procedure:
    return api.registry().procedure(proc_id)


async def _proc_context(request: Request, proc: Procedure, form: Form,
                        odds: bool = True) -> dict[str, Any]:
    """The procedure page's context; without ``odds`` (a roll), the odds only if they
    are in the cache, else an odds panel that asks for them."""
    tr = translator(page_lang(request))
    specs = api.param_specs(proc)
    raw = raw_params(specs, form)
    everything = form.get("all") == "1"
    refresh = f"/p/{proc.id}/odds?" + (_query(form, _wait="1", all="1") if everything
                                          else _query(form, _wait="1"))
    if odds:
        view, shown = await compute_odds(request, proc, raw, tr, refresh=refresh,
                                         wait=form.get("_wait") == "1", everything=everything,
                                         fine=True)
    else:
        view, shown = cached_view(request, proc, raw, tr, refresh)
    if view.joint_total > len(view.joint) and not everything:
        view.all_url = f"/p/{proc.id}?" + _query(form, all="1")
    return {
        "proc": proc,
        "system": api.registry().system(proc.game),
        "fields": form_fields(specs, shown, tr, scope=proc.id),
        "odds": view,
        "dice_text": str(form.get("_dice") or ""),
        "seed_text": str(form.get("_seed") or ""),
    }


@router.get("/", response_class=HTMLResponse)
def index(request: Request) -> HTMLResponse:
    return render(request, "index.html", {"systems": list(api.registry().systems())})


def cached_view(request: Request, proc: Procedure, raw: Mapping[str, Any], tr: Tr,
                 refresh: str) -> tuple[OddsView, dict[str, Any]]:
    """The odds from the cache, never computed: else an empty panel asking for them."""
    srv = _serving(request)
    try:
        _, params = api.prepare(proc.id, raw)
        answer = srv.cached(proc.id, raw)
    except UsageError as exc:
        return OddsView(error=error_message(exc, tr)), dict(raw)
    if answer is None:
        return OddsView(pending=True, refresh=refresh), normalized(params)
    return kept_view(srv, answer), normalized(params)


@router.get("/p/{proc_id}", response_class=HTMLResponse)
async def procedure_page(request: Request, proc_id: str) -> HTMLResponse:
    proc = _procedure(proc_id)
    return fitted(request, "procedure.html",
                  await _proc_context(request, proc, request.query_params))


@router.get("/p/{proc_id}/odds", response_class=HTMLResponse)
async def odds_panel(request: Request, proc_id: str) -> HTMLResponse:
    """The odds panel (htmx); ``_wait=1`` is a follow-up for pending exact odds."""
    proc = _procedure(proc_id)
    ctx = await _proc_context(request, proc, request.query_params)
    return fitted(request, "_odds.html", ctx)


PAGE_BYTES = 300_000
"""No page is larger: a long list of whole outcomes gives way to its likeliest ones."""


def fitted(request: Request, name: str, ctx: dict[str, Any]) -> HTMLResponse:
    """:func:`render`, listing fewer whole outcomes (the least likely left out, each
    time a third of them) while the page would pass :data:`PAGE_BYTES`: their exact
    fractions grow with a long fight (about 700 bytes a row for a 16-team assault)."""
    response = render(request, name, ctx)
    view: OddsView = ctx["odds"]
    while len(response.body) > PAGE_BYTES and len(view.joint) > 1:
        keep = sorted(range(len(view.joint)), key=lambda i: view.joint[i][1],
                      reverse=True)[:len(view.joint) * 2 // 3]
        view.joint = [view.joint[i] for i in sorted(keep)]
        response = render(request, name, ctx)
    return response


def do_roll(proc: Procedure, raw: Mapping[str, Any], dice_text: str, seed_text: str,
            tr: Tr | None = None) -> tuple[Resolution | None, str]:
    """Roll with typed dice, or virtual dice with a seed; a usage error is the message
    (in ``tr``'s language)."""
    from warroom.dice.sources import parse_dice

    try:
        seed: int | None = None
        dice = parse_dice(dice_text) if dice_text.strip() else None
        if dice is None and seed_text.strip():
            try:
                seed = int(seed_text.strip())
            except ValueError:
                raise UsageError("seed: {seed!r} is not a whole number",
                                 seed=seed_text.strip()) from None
        return api.roll(proc.id, raw, seed=seed, entered=dice), ""
    except UsageError as exc:
        return None, error_message(exc, tr)


@router.post("/p/{proc_id}/roll", response_class=HTMLResponse)
async def roll_page(request: Request, proc_id: str) -> HTMLResponse:
    """Roll only rolls: it never works out odds (the whole page shows them if they are in
    the cache, else its odds panel asks for them). One resolution runs in a thread."""
    from starlette.concurrency import run_in_threadpool

    proc = _procedure(proc_id)
    form = await request.form()
    ctx = await _proc_context(request, proc, form, odds=False)
    specs = api.param_specs(proc)
    tr = translator(page_lang(request))
    result, error = await run_in_threadpool(do_roll, proc, raw_params(specs, form),
                                            ctx["dice_text"], ctx["seed_text"], tr)
    roll = result.to_json(tr) if result else None
    if roll is not None:  # fields certainly 0 for these parameters are left out
        keep = shown_fields(proc.outcome, roll["params"])
        roll["outcome"] = {k: v for k, v in roll["outcome"].items() if k in keep}
    ctx.update(roll=roll, roll_error=error)
    if request.headers.get("hx-request"):
        return render(request, "_roll.html", ctx)
    return render(request, "procedure.html", ctx)


@dataclass
class CompareSet:
    index: int
    name: str
    fields: list[FieldForm]
    odds: OddsView


async def _compare_context(request: Request, proc: Procedure) -> dict[str, Any]:
    import asyncio

    tr = translator(page_lang(request))
    form = request.query_params
    try:
        n = int(form.get("n") or 2) + (1 if form.get("add") else 0)
    except ValueError:
        n = 2
    n = min(max(n, 2), MAX_SETS)
    specs = api.param_specs(proc)
    wait = form.get("_wait") == "1"
    raws = [raw_params(specs, form, f"s{i}.") for i in range(n)]
    answers = await asyncio.gather(*(compute_odds(request, proc, raw, tr, wait=wait)
                                     for raw in raws))
    sets = []
    for i, (odds, shown) in enumerate(answers):
        prefix = f"s{i}."
        name = str(form.get(f"{prefix}_name") or "").strip() or f"{tr('Option')} {i + 1}"
        sets.append(CompareSet(i, name, form_fields(specs, shown, tr, prefix, proc.id), odds))
    pending = any(s.odds.pending or s.odds.refining for s in sets)
    refresh = f"/compare/{proc.id}/results?" + _query(form, drop=("add",), n=str(n), _wait="1")
    return {"proc": proc, "system": api.registry().system(proc.game), "sets": sets, "n": n,
            "max_sets": MAX_SETS, "table": compare_table(sets),
            "refresh": refresh if pending else ""}


def compare_table(sets: Sequence[CompareSet]) -> list[dict[str, Any]]:
    """For every outcome field (or unit): one row per value, one cell per set (the
    chance of at least that value for numbers, of exactly it otherwise)."""
    good = [s for s in sets if s.odds.dist is not None]
    if not good:
        return []
    out = []
    for first in good[0].odds.fields:
        per_set = {s.index: next((f for f in s.odds.fields if f.name == first.name), None)
                   for s in good}
        present = [f for f in per_set.values() if f is not None]
        numeric = all(f.numeric for f in present)
        values: list[Any] = []
        for f in present:
            for row in f.rows:
                if row.value not in values:
                    values.append(row.value)
        if numeric:
            values.sort()
        rows = []
        for v in values:
            cells: list[Fraction | None] = []
            for s in sets:
                fv = per_set.get(s.index)
                if fv is None:
                    cells.append(None)
                    continue
                if numeric:
                    p: Any = sum((r.p for r in fv.rows if r.value >= v), Fraction(0))
                else:
                    p = next((r.p for r in fv.rows if r.value == v), Fraction(0))
                cells.append(p)
            rows.append({"value": v, "cells": cells})
        if numeric:
            rows = [r for r in rows if any(c is not None and c != 1 for c in r["cells"])]
        means = [per_set[s.index].mean if per_set.get(s.index) is not None else None  # type: ignore[union-attr]
                 for s in sets]
        out.append({"name": first.name, "numeric": numeric, "rows": rows[:40],
                    "means": means})
    return out


@router.get("/compare/{proc_id}", response_class=HTMLResponse)
async def compare_page(request: Request, proc_id: str) -> HTMLResponse:
    proc = _procedure(proc_id)
    return render(request, "compare.html", await _compare_context(request, proc))


@router.get("/compare/{proc_id}/results", response_class=HTMLResponse)
async def compare_results(request: Request, proc_id: str) -> HTMLResponse:
    proc = _procedure(proc_id)
    return render(request, "_compare.html", await _compare_context(request, proc))


__all__ = ["fmt_pct", "router"]


@router.get("/sw.js")
def service_worker() -> Response:
    """The service worker, from the site's root so it may keep every page; its cache is
    named after the static files' contents, so a new version replaces the old copy."""
    return Response(_service_worker(), media_type="text/javascript",
                    headers={"Cache-Control": "no-cache"})


@cache
def _service_worker() -> str:
    digest = hashlib.sha256()
    for path in sorted(STATIC.iterdir()):
        if path.is_file():
            digest.update(path.name.encode() + path.read_bytes())
    return (STATIC / "sw.js").read_text().replace("__VERSION__", digest.hexdigest()[:12])


@router.get("/favicon.ico")
def favicon() -> FileResponse:
    return FileResponse(STATIC / "favicon.ico", media_type="image/x-icon")


@router.get("/p/{proc_id}/roll", response_class=HTMLResponse)
async def roll_page_get(request: Request, proc_id: str) -> HTMLResponse:
    """The language switch on a roll result leads here: show the procedure page."""
    return await procedure_page(request, proc_id)
