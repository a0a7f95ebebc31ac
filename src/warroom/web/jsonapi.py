"""The JSON API under ``/api/v1`` (and the deprecated ``/api``): the same answers as
``warroom ... --json``, through the same models (:mod:`warroom.schema`).

Every mistake in the input is a 422 ``{"error": {"code", "message", "parameter"}}`` whose
message names the parameter (and whose ``parameter`` holds it when there is one); nothing
a caller sends gives a 500.

Odds and Monte Carlo run in the app's worker processes (:mod:`warroom.serving`); the
event loop only routes. Every answer comes within a time cap: exact odds that do not
come within :data:`warroom.serving.API_DEADLINE` seconds, or that are too large to work
out, give way to a Monte Carlo estimate (``"estimate": true`` with its 95% ``margin``);
``/api/simulate`` stops after :data:`warroom.serving.SIMULATE_SECONDS` with the samples
done (``"stopped_early": true``). A request whose client goes away is cancelled.

A battle's writes (``units``, ``edit``, ``mark``, ``do``, ``next``, ``undo``, ``end``...)
take an optional ``expect``: the state counter the caller last saw. The write is refused
(409, code ``stale``, nothing recorded) only when an event recorded since then changed
what the write reads: its units (the acting units and the target of ``do``, the unit it
adds, edits or marks), the turn and phase for ``next``, the latest event for ``undo``
(:mod:`warroom.battle.conflicts`). The error then lists those events under ``changes``
(each as the log records it). Any other change is no reason to refuse: the write is
recorded on the battle as it is, the events in between stay, and its event says
``"seen": N``, the counter it was based on. Virtual dice come from the state the roll is
recorded on, as always.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr

from warroom import api, i18n, schema
from warroom.errors import ErrorText, ParameterError, UsageError
from warroom.serving import Serving, unless_gone

ERRORS: dict[int, str] = {
    403: "The link may not do this (a spectator's key, the other side's unit or turn), "
         "or the request comes from another site",
    404: "No such battle here, or a wrong key (the two are not told apart)",
    409: "Stale: what the write reads (its units; the turn and phase for next; the latest "
         "event for undo) changed since the `expect` counter you sent, and `changes` lists "
         "the events that changed it; or the battle takes no writes (ended, read-only). "
         "Nothing was recorded",
    413: "The request body is too large",
    422: "Invalid input; `parameter` names the field or parameter when there is one",
    429: "Too many battles started from this address; wait",
    500: "A rule failed on these inputs (a bug in warroom, please report it); nothing "
         "was recorded",
    503: "The server cannot answer now: a worker process stopped (it has been replaced), "
         "the request took too long, or the battle store is busy or down; nothing was "
         "recorded, ask again",
}
"""Every error status the API answers, with what it means (all :class:`ErrorBody`)."""


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The ``responses`` of a route that may answer these error statuses."""
    return {status: {"model": schema.ErrorBody, "description": ERRORS[status]}
            for status in statuses}


router = APIRouter(tags=["odds"], responses=errors(413, 422, 500, 503))

MAX_WEB_SAMPLES = 200_000
MAX_DICE = 1000


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class OddsRequest(_Body):
    procedure: StrictStr = Field(description="game.procedure, e.g. demo.pool or asl.ift",
                                 examples=["demo.pool"])
    params: dict[str, Any] = Field(default_factory=dict,
                                   description="the procedure's parameters",
                                   examples=[{"dice": 8, "at": 4}])
    exact: StrictBool = Field(False, description="also give each chance as an exact fraction")
    all: StrictBool = Field(False, description="every whole outcome even when there are "
                            "thousands (else a long list is summarised per field and unit)")
    margin: float | None = Field(
        None, description="where odds would take too long, the 95% margin the estimate "
        "should reach: 0.005 (the default: half a percentage point) or 0.001 (a tenth of "
        "a point, 25 times the samples, counted in the background: until it is ready the "
        "answer is the half-point estimate with \"refining\": true and \"refining_to\": "
        "0.001; ask again)", examples=[0.001])


MARGINS = ("0.005", "0.001")
"""The estimates' 95% margins ``/odds`` takes (:attr:`OddsRequest.margin`)."""


def fine_wait(srv: Serving, margin: float | None) -> float | None:
    """How long ``/odds`` waits for the finer estimate ``margin`` asks for (None: the
    half-point estimate is enough). Any other margin is a 422 ``invalid_parameter``."""
    from warroom.engine.drivers import ESTIMATE_MARGIN

    if margin is None or margin == ESTIMATE_MARGIN:
        return None
    if margin != srv.fine_margin:
        raise ParameterError("margin", ErrorText("{value} is not a margin estimates are "
                                                 "counted to", value=f"{margin:g}"),
                             ", ".join(MARGINS))
    return srv.api_deadline


class RollRequest(_Body):
    procedure: StrictStr = Field(examples=["demo.pool"])
    params: dict[str, Any] = Field(default_factory=dict)
    dice: list[StrictInt | StrictStr] | StrictStr | None = Field(
        None, description="the dice on your table, in the order the steps roll them: "
        "[3, 5, 6] or \"3,5,6\"", max_length=MAX_DICE)
    seed: StrictInt | None = Field(None, description="seed for virtual dice")
    lang: Literal["en", "pl", "zh"] | None = Field(None, description="language of the steps")


class SimulateRequest(_Body):
    procedure: StrictStr = Field(examples=["demo.pool"])
    params: dict[str, Any] = Field(default_factory=dict)
    samples: StrictInt = Field(10_000, ge=1, le=MAX_WEB_SAMPLES,
                               description=f"how many resolutions (at most {MAX_WEB_SAMPLES})")
    seed: StrictInt | None = None


def entered_dice(dice: list[int | str] | str | None) -> list[object] | None:
    """Typed dice as a list (validated by the engine), or None for virtual dice."""
    if dice is None:
        return None
    if isinstance(dice, str):
        from warroom.dice.sources import parse_dice

        items: list[object] = list(parse_dice(dice))
    else:
        items = list(dice)
    if not items:
        raise UsageError("dice: give at least one die, e.g. 3,5,6 (or leave it out and "
                         "let warroom roll)")
    return items


@router.get("/rules", summary="Game systems, procedures, parameters and tables",
            response_model=list[schema.GameRules])
def rules(game: Annotated[str | None, Query(description="fow, asl, bkc, cwc or demo")] = None
          ) -> Response:
    return JSONResponse(schema.emit(list[schema.GameRules], api.rules(game or None)))


def _serving(request: Request) -> Serving:
    return request.app.state.serving  # type: ignore[no-any-return]


@router.post("/odds", summary="Exact odds of every outcome (warroom odds --json), or an "
             "estimate when they would take too long", response_model=schema.Odds)
async def odds(body: OddsRequest, request: Request) -> Response:
    srv = _serving(request)
    fine = fine_wait(srv, body.margin)
    answer = srv.cached(body.procedure, body.params)
    if answer is None:
        answer = await unless_gone(request.is_disconnected, srv.odds(
            body.procedure, body.params, deadline=srv.api_deadline,
            estimate_seconds=srv.api_estimate_seconds, fine=fine))
    if answer.exact is None:
        return JSONResponse(schema.emit(schema.Odds, answer.to_json(exact=body.exact,
                                                                    full=body.all)))
    # exact odds do not change: their JSON is made once and kept beside them
    kind = f"json:{int(body.exact)}:{int(body.all)}"
    found = srv.cache.get(kind, answer.key)
    if found is None or found[0] is not answer.exact:
        found = (answer.exact, JSONResponse(schema.emit(schema.Odds, answer.to_json(
            exact=body.exact, full=body.all))).body)
        srv.cache.put(kind, answer.key, found)
    return Response(found[1], media_type="application/json")


@router.post("/roll", summary="One resolution with virtual or typed dice, step by step",
             response_model=schema.RollResult)
def roll(body: RollRequest) -> Response:
    if body.dice is not None and body.seed is not None:
        raise UsageError("give either dice or seed, not both")
    entered = entered_dice(body.dice)
    res = api.roll(body.procedure, body.params, seed=body.seed, entered=entered)
    return JSONResponse(schema.emit(schema.RollResult,
                                    res.to_json(i18n.translator(body.lang or "en"))))


@router.post("/simulate", summary="Monte Carlo estimate with 95% intervals",
             response_model=schema.EstimatedOdds)
async def simulate(body: SimulateRequest, request: Request) -> Response:
    from warroom.dice.sources import new_seed
    from warroom.engine.params import normalized

    proc, p = api.prepare(body.procedure, body.params)
    if body.samples > MAX_WEB_SAMPLES:  # pragma: no cover - the model refuses it first
        raise ParameterError("samples", "too many", f"1 to {MAX_WEB_SAMPLES}")
    srv = _serving(request)
    seed = new_seed() if body.seed is None else body.seed
    est = await unless_gone(request.is_disconnected, srv.simulate(
        proc, body.params, normalized(p), body.samples, seed, srv.simulate_seconds))
    return JSONResponse(schema.emit(schema.EstimatedOdds, est.to_json()))
