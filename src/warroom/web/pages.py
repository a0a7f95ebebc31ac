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
from warroom.engine.procedure import Procedure
from warroom.engine.results import Distribution, Resolution
from warroom.errors import ExactTooLargeError, UsageError
from warroom.web.charts import FieldView, fmt_pct, joint_rows, views
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
    ``samples``, of a Monte Carlo estimate standing in for odds too large to work out."""

    dist: Distribution | None = None
    error: str = ""
    fields: list[FieldView] = field(default_factory=list)
    joint: list[tuple[dict[str, Any], Any]] = field(default_factory=list)
    samples: int = 0

    @property
    def margin(self) -> str:
        """Percentage points a chance of an estimate may be off by (95%, at worst)."""
        return f"{98 / self.samples ** 0.5:.1f}" if self.samples else ""


ESTIMATE_SAMPLES = 10_000
"""Simulated rolls behind the odds a page shows when exact odds would take too long
(a 95% interval of about ±1 percentage point), fewer if they would take more than
:data:`ESTIMATE_SECONDS`, never fewer than :data:`ESTIMATE_CHUNK`."""
ESTIMATE_CHUNK = 1_000
ESTIMATE_SECONDS = 1.5


def estimate(proc: Procedure, raw: Mapping[str, Any]) -> Distribution:
    """A Monte Carlo stand-in for exact odds, as counts over the samples: chunks of
    seeded samples (seeds 1, 2, ...) until :data:`ESTIMATE_SAMPLES` or the time is up.
    How many chunks fit depends on the machine; the same number of chunks always gives
    the same counts."""
    import time

    counts: dict[tuple[Any, ...], int] = {}
    start, samples, seed = time.perf_counter(), 0, 0
    est = None
    while samples < ESTIMATE_SAMPLES and (
            not samples or time.perf_counter() - start < ESTIMATE_SECONDS):
        seed += 1
        est = api.simulate(proc.id, raw, samples=ESTIMATE_CHUNK, seed=seed)
        for key, n in est.counts.items():
            counts[key] = counts.get(key, 0) + n
        samples += est.samples
    assert est is not None
    return Distribution(proc.id, est.params, est.fields, counts, samples, proc.orders)


def compute_odds(proc: Procedure, raw: Mapping[str, Any], tr: Tr | None = None
                 ) -> tuple[OddsView, dict[str, Any]]:
    """Exact odds for a form's values, and the values to show back in the form (an error
    in ``tr``'s language, English without it). Where exact odds would take too long, a
    Monte Carlo estimate, marked as one."""
    try:
        _, params = api.prepare(proc.id, raw)
        samples = 0
        try:
            dist = api.odds(proc.id, raw)
        except ExactTooLargeError:
            dist = estimate(proc, raw)
            samples = dist.denominator
    except UsageError as exc:
        return OddsView(error=exc.translated(tr)), dict(raw)
    joint = joint_rows(dist) if len(dist.fields) > 1 else []
    return OddsView(dist, "", views(dist), joint, samples), normalized(params)


def _procedure(proc_id: str) -> Procedure:
    return api.registry().procedure(proc_id)


def _proc_context(request: Request, proc: Procedure, form: Form) -> dict[str, Any]:
    tr = translator(page_lang(request))
    specs = api.param_specs(proc)
    raw = raw_params(specs, form)
    odds, shown = compute_odds(proc, raw, tr)
    return {
        "proc": proc,
        "system": api.registry().system(proc.game),
        "fields": form_fields(specs, shown, tr, scope=proc.id),
        "odds": odds,
        "dice_text": str(form.get("_dice") or ""),
        "seed_text": str(form.get("_seed") or ""),
    }


@router.get("/", response_class=HTMLResponse)
def index(request: Request) -> HTMLResponse:
    return render(request, "index.html", {"systems": list(api.registry().systems())})


@router.get("/p/{proc_id}", response_class=HTMLResponse)
def procedure_page(request: Request, proc_id: str) -> HTMLResponse:
    proc = _procedure(proc_id)
    return render(request, "procedure.html", _proc_context(request, proc, request.query_params))


@router.get("/p/{proc_id}/odds", response_class=HTMLResponse)
def odds_panel(request: Request, proc_id: str) -> HTMLResponse:
    proc = _procedure(proc_id)
    ctx = _proc_context(request, proc, request.query_params)
    return render(request, "_odds.html", ctx)


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
        return None, exc.translated(tr)


@router.post("/p/{proc_id}/roll", response_class=HTMLResponse)
async def roll_page(request: Request, proc_id: str) -> HTMLResponse:
    proc = _procedure(proc_id)
    form = await request.form()
    ctx = _proc_context(request, proc, form)
    specs = api.param_specs(proc)
    tr = translator(page_lang(request))
    result, error = do_roll(proc, raw_params(specs, form), ctx["dice_text"], ctx["seed_text"],
                            tr)
    ctx.update(roll=result.to_json(tr) if result else None, roll_error=error)
    if request.headers.get("hx-request"):
        return render(request, "_roll.html", ctx)
    return render(request, "procedure.html", ctx)


@dataclass
class CompareSet:
    index: int
    name: str
    fields: list[FieldForm]
    odds: OddsView


def _compare_context(request: Request, proc: Procedure) -> dict[str, Any]:
    tr = translator(page_lang(request))
    form = request.query_params
    try:
        n = int(form.get("n") or 2) + (1 if form.get("add") else 0)
    except ValueError:
        n = 2
    n = min(max(n, 2), MAX_SETS)
    specs = api.param_specs(proc)
    sets = []
    for i in range(n):
        prefix = f"s{i}."
        raw = raw_params(specs, form, prefix)
        odds, shown = compute_odds(proc, raw, tr)
        name = str(form.get(f"{prefix}_name") or "").strip() or f"{tr('Option')} {i + 1}"
        sets.append(CompareSet(i, name, form_fields(specs, shown, tr, prefix, proc.id), odds))
    return {"proc": proc, "system": api.registry().system(proc.game), "sets": sets, "n": n,
            "max_sets": MAX_SETS, "table": compare_table(sets)}


def compare_table(sets: Sequence[CompareSet]) -> list[dict[str, Any]]:
    """For every outcome field: one row per value, one cell per set (the chance of at
    least that value for numbers, of exactly it otherwise)."""
    good = [s for s in sets if s.odds.dist is not None]
    if not good:
        return []
    out = []
    for fi, name in enumerate(good[0].odds.dist.fields if good[0].odds.dist else ()):
        numeric = all(s.odds.fields[fi].numeric for s in good)
        values: list[Any] = []
        for s in good:
            for row in s.odds.fields[fi].rows:
                if row.value not in values:
                    values.append(row.value)
        if numeric:
            values.sort()
        rows = []
        for v in values:
            cells: list[Fraction | None] = []
            for s in sets:
                if s.odds.dist is None:
                    cells.append(None)
                    continue
                rows_f = s.odds.fields[fi].rows
                if numeric:
                    p: Any = sum((r.p for r in rows_f if r.value >= v), Fraction(0))
                else:
                    p = next((r.p for r in rows_f if r.value == v), Fraction(0))
                cells.append(p)
            rows.append({"value": v, "cells": cells})
        if numeric:
            rows = [r for r in rows if any(c is not None and c != 1 for c in r["cells"])]
        means = [s.odds.fields[fi].mean if s.odds.dist is not None else None for s in sets]
        out.append({"name": name, "numeric": numeric, "rows": rows[:40], "means": means})
    return out


@router.get("/compare/{proc_id}", response_class=HTMLResponse)
def compare_page(request: Request, proc_id: str) -> HTMLResponse:
    proc = _procedure(proc_id)
    return render(request, "compare.html", _compare_context(request, proc))


@router.get("/compare/{proc_id}/results", response_class=HTMLResponse)
def compare_results(request: Request, proc_id: str) -> HTMLResponse:
    proc = _procedure(proc_id)
    return render(request, "_compare.html", _compare_context(request, proc))


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
def roll_page_get(request: Request, proc_id: str) -> HTMLResponse:
    """The language switch on a roll result leads here: show the procedure page."""
    return procedure_page(request, proc_id)
