"""The JSON API under ``/api``: the same answers as ``warroom ... --json``.

Every mistake in the input is a 422 whose ``detail`` names the parameter (and whose
``parameter`` field holds it when there is one); nothing a caller sends gives a 500.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr

from warroom import api, i18n
from warroom.errors import UsageError

router = APIRouter(prefix="/api", tags=["api"])

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


@router.get("/rules", summary="Game systems, procedures, parameters and tables")
def rules(game: Annotated[str | None, Query(description="fow, asl, bkc, cwc or demo")] = None
          ) -> list[dict[str, Any]]:
    return api.rules(game or None)


@router.post("/odds", summary="Exact odds of every outcome (warroom odds --json)")
def odds(body: OddsRequest) -> dict[str, Any]:
    return api.odds(body.procedure, body.params).to_json(exact=body.exact)


@router.post("/roll", summary="One resolution with virtual or typed dice, step by step")
def roll(body: RollRequest) -> dict[str, Any]:
    if body.dice is not None and body.seed is not None:
        raise UsageError("give either dice or seed, not both")
    entered = entered_dice(body.dice)
    res = api.roll(body.procedure, body.params, seed=body.seed, entered=entered)
    return res.to_json(i18n.translator(body.lang or "en"))


@router.post("/simulate", summary="Monte Carlo estimate with 95% intervals")
def simulate(body: SimulateRequest) -> dict[str, Any]:
    return api.simulate(body.procedure, body.params, samples=body.samples,
                        seed=body.seed).to_json()
