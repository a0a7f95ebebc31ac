"""An engagement over several turns: the same fire at one target platoon every turn,
with the platoon morale check after each shooting, until the platoon is gone or broken.

Each turn is two stages for :meth:`Dice.stages`: the shooting (``fow.shoot`` itself, on
the teams still fighting) and the platoon morale check (``fow.morale`` itself). The state
is only the teams left, whether the platoon lost a team this turn and whether it broke,
so platoons that reach the same count by different paths merge."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from pydantic import Field, model_validator

from warroom.engine.context import Dice, Stage, fixed
from warroom.engine.procedure import outcome, procedure
from warroom.errors import UsageError
from warroom.games.fow.checks import MoraleParams, morale
from warroom.games.fow.common import Motivation
from warroom.games.fow.shooting import FireParams, fire


class EngagementParams(FireParams):
    turns: int = Field(3, ge=1, le=10, description="turns of the same fire")
    teams: int = Field(3, ge=1, le=20, description="teams of the target platoon still "
                       "fighting when the fire begins")
    start_teams: int = Field(0, ge=0, le=60, description="teams of the target platoon at "
                             "the start of the game, for its morale (0: as many as teams)")
    motivation: Motivation = Field("confident", description="the target platoon's motivation")
    reroll: bool = Field(False, description="the target's company command team is attached: "
                         "a failed platoon morale test is re-rolled")

    @model_validator(mode="after")
    def _start(self) -> EngagementParams:
        if self.start_teams and self.start_teams < self.teams:
            raise UsageError("start_teams ({start}) cannot be fewer than teams ({teams})",
                             start=self.start_teams, teams=self.teams)
        return self


State = tuple[int, int, bool]
"""Between stages: (teams still fighting, teams lost in this turn's shooting, broken)."""


def _over(s: State) -> bool:
    return s[0] == 0 or s[2]


@procedure(
    "fow.engagement", title="Engagement over several turns",
    summary="The same fire at one target platoon turn after turn, each turn shot as in "
            "fow.shoot and followed by the platoon morale check: the odds that the platoon "
            "is destroyed or broken within the turns given.",
    params=EngagementParams,
    outcome=outcome(("destroyed", "bool", "no team of the platoon is left fighting"),
                    ("broken", "bool", "the platoon failed a platoon morale check and left "
                                       "the table"),
                    ("turn", "int", "the turn the engagement ended (the last turn when "
                                     "the platoon held)"),
                    ("teams_left", "int", "teams still fighting at the end")),
    source="FoW reference card, shooting steps and platoon morale checks",
    note="Every turn the shooters roll the same attack dice with the same to-hit "
         "modifiers as fow.shoot, spread over the teams still fighting; destroyed teams, "
         "and tanks bailed out (not remounted in our reading: they stay out of the "
         "engagement), are lost. After each shooting the platoon morale check of the card "
         "applies as in fow.morale: a platoon that lost a team in the shooting and has "
         "fewer than half its starting teams left (start_teams) passes a motivation test "
         "or breaks, which removes it from play. Pinning changes none of these odds and is "
         "not counted. Targets are worked out for the start: the shooters do not move "
         "closer, the target does not go to ground later.")
def engagement(p: EngagementParams, d: Dice) -> dict[str, Any]:
    end, turns = d.stages((p.teams, 0, False), _turn(p), rounds=p.turns, done=_over)
    left, _, broken = end
    return {"destroyed": left == 0, "broken": broken, "turn": turns, "teams_left": left}


@lru_cache(maxsize=256)
def _turn(p: EngagementParams) -> tuple[Stage[State], ...]:
    """A turn's two stages for one question, keyed by its parameters (frozen, hashable)
    so the exact driver memoises them across turns and replays."""
    start = p.start_teams or p.teams

    def shooting(s: State, d: Dice) -> State:
        res = fire(p.model_copy(update={"teams": s[0]}), d)
        lost = res["destroyed"] + res["bailed_out"]
        return (s[0] - lost, lost, False)

    def platoon_morale(s: State, d: Dice) -> State:
        left, lost = s[0], s[1]
        check = MoraleParams(kind="platoon", motivation=p.motivation, start=start,
                             left=left, lost_this_phase=lost > 0, reroll=p.reroll,
                             rules=p.target_rules)
        res = morale.run(check, d)
        return (left, 0, not res["passed"])

    key = ("fow.engagement", p)
    return (fixed(shooting, (*key, "shooting")), fixed(platoon_morale, (*key, "morale")))


PROCEDURES = (engagement,)
