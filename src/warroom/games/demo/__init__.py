"""A tiny built-in system that exercises the core before any real game is involved."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from warroom.engine.context import Dice
from warroom.engine.game import Phase
from warroom.engine.procedure import Params, outcome, procedure
from warroom.engine.registry import GameSystem
from warroom.engine.steps import Target


class PoolParams(Params):
    dice: int = Field(6, ge=0, le=200, description="how many dice are rolled")
    at: int = Field(4, ge=1, le=7, description="the X of X+: the lowest face that succeeds")
    reroll: Literal["none", "misses", "hits"] = Field(
        "none", description="re-roll every miss once, or force every success to be re-rolled")


@procedure(
    "demo.pool",
    title="Dice pool",
    summary="Roll some dice needing X+ each and count the successes.",
    params=PoolParams,
    outcome=outcome(("successes", "int", "dice that succeeded")),
    vectorize=True,
)
def pool(p: PoolParams, d: Dice) -> dict[str, Any]:
    target = Target.of(p.at, "the X+ you chose")
    return {"successes": d.pool(p.dice, target, reroll=p.reroll, rule="demo.pool",
                                what="dice")}


def system() -> GameSystem:
    return GameSystem("demo", "Demo", (pool,),
                      description="A generic dice pool for trying warroom.",
                      phases=PHASES, markers={"pinned": "flag", "hits": "count"})


PHASES: tuple[Phase, ...] = (
    Phase("act", "Action phase", ("Roll what needs rolling",)),
    Phase("end", "End phase", ("Tidy up the markers",)),
)
"""The generic two-phase sequence (also of a game without its own list)."""
