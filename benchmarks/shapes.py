"""Small procedures with the shape of real rules, for overhead measurements."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from warroom.engine.context import Dice
from warroom.engine.procedure import Params, outcome, procedure
from warroom.engine.registry import GameSystem

# a 2d6 result table (final DR <= 0 .. >= 12), like one IFT column
TABLE = ("KIA", "K/1", "1MC", "1MC", "NMC", "PTC", "-", "-", "-", "-", "-", "-", "-")
RESULTS = tuple(sorted(set(TABLE)))


class LookupParams(Params):
    drm: int = Field(0, ge=-6, le=6, description="total modifier")


@procedure(
    "shape.lookup",
    title="2d6 table lookup",
    summary="Roll 2d6, add a modifier, read a table row.",
    params=LookupParams,
    outcome=outcome(("result", "str"), ("final_dr", "int")),
)
def lookup(p: LookupParams, d: Dice) -> dict[str, Any]:
    dr = d.dice(2, rule="shape.dr", what="DR", view="sum")
    final = dr + p.drm
    return {"result": TABLE[max(0, min(12, final))], "final_dr": final}


def lookup_system() -> GameSystem:
    return GameSystem("shape", "Shapes", (lookup,))
