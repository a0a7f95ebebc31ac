"""Artillery bombardments (reference card): range in, roll to hit each team under the
template, saves with top armour, and every platoon hit is pinned down."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from warroom.engine.context import Dice
from warroom.engine.messages import msg
from warroom.engine.procedure import outcome, procedure
from warroom.engine.steps import Target
from warroom.games.fow.common import (
    RANGE_IN,
    SKILL_TEST,
    HitSpec,
    Skill,
    TargetType,
    resolve_one_each,
)
from warroom.games.fow.special_rules.params import RulesParams


class ArtilleryParams(RulesParams):
    target_skill: Skill = Field("trained", description="the target platoon's skill")
    concealed: bool = Field(False, description="the target is concealed (e.g. in a wood)")
    gone_to_ground: bool = Field(False, description="the target has gone to ground")
    observer_hq: bool = Field(False, description="the company command team observes: "
                              "+1 to range in")
    mortar: bool = Field(False, description="mortars: re-roll the first failed attempt")
    rocket: bool = Field(False, description="rocket launchers: no to-hit penalty for "
                         "ranging in on the second or third attempt")
    battery_skill: Skill = Field("trained", description="the firing battery's skill")
    guns: int = Field(4, ge=1, le=12, description="guns firing")
    teams: int = Field(3, ge=0, le=20, description="target teams under the template")
    target: TargetType = Field("infantry", description="tank, infantry, gun or soft")
    armour: int = Field(0, ge=0, le=15, description="tanks: top armour")
    at: int = Field(2, ge=0, le=20, description="the bombardment's anti-tank rating")
    firepower: int = Field(4, ge=1, le=6, description="the N of the firepower N+")
    dug_in: bool = Field(False, description="dug in or in bulletproof cover")
    repeat: bool = Field(False, description="All Guns Repeat: the battery fires again at "
                         "the same place without ranging in")

    @model_validator(mode="after")
    def _consistent(self) -> ArtilleryParams:
        if self.dug_in and self.target in ("tank", "soft"):
            raise ValueError("only infantry and guns can be dug in or in bulletproof cover")
        return self


def range_in_target(p: ArtilleryParams) -> Target:
    t = Target.of(RANGE_IN[p.target_skill], msg("target is {skill}", skill=msg(p.target_skill)))
    t = t.plus(1 if p.concealed else 0, msg("concealed"))
    t = t.plus(1 if p.gone_to_ground else 0, msg("gone to ground"))
    if p.observer_hq and not p.has("under_command"):
        t = t.plus(1, msg("company command team observing"))
    return t


def battery_reroll(guns: int) -> Literal["hits", "none", "misses"]:
    return "hits" if guns <= 2 else "misses" if guns >= 6 else "none"


@procedure(
    "fow.artillery", title="Artillery bombardment",
    summary="Range in on the target's skill (up to three attempts), hit each team under "
            "the template on the battery's skill, then saves with top armour; any hit pins.",
    params=ArtilleryParams,
    outcome=outcome(("ranged_in", "int", "attempt that ranged in (0: all three failed)"),
                    ("hits", "int", "teams hit"),
                    ("destroyed", "int", "teams destroyed"),
                    ("bailed_out", "int", "tanks bailed out"),
                    ("pinned", "bool", "the target platoon is pinned down")),
    source="seed 000 (reference card: artillery); seed 002 special-rule articles",
    note="Ranging in: 2+/3+/4+ by the target's skill, +1 concealed, +1 gone to ground, "
         "+1 when the company command team observes (Under Command removes it). To hit: "
         "battery skill 5+/4+/3+, +1 if ranged in on the second attempt, +2 on the third "
         "(not for rockets), +1 for a single gun; 1-2 guns re-roll hits, 6+ re-roll "
         "misses. A repeated bombardment (All Guns Repeat) rolls no ranging-in and counts "
         "as the first attempt: our reading of the published rules, as the card is silent. "
         "Time on Target (first-attempt range-in, not on a repeat, per the US article; the "
         "card ties it to All Guns Repeat) and Mike Target (on a repeat) force successful "
         "saves to be re-rolled; Mike Target also re-rolls the first failed ranging "
         "attempt. Mixed Battalions: 3+ guns (122 mm howitzers) give AT 4, firepower 4+. "
         "Big Battalions (9+ guns, double template) only changes the teams under it. "
         "Rounds on the Ground: we take the re-roll of missed hits (the card's other "
         "choice, a double-width template, is the teams parameter).")
def artillery(p: ArtilleryParams, d: Dice) -> dict[str, Any]:
    attempt = 0
    if p.repeat:
        attempt = 1
        d.note("fow.artillery.range_in", "repeated bombardment: no ranging-in roll needed")
    else:
        rt = range_in_target(p)
        for k in (1, 2, 3):
            again = k == 1 and (p.mortar or p.has("mike_target"))
            if d.test(rt, rule="fow.artillery.range_in", what=f"ranging in, attempt {k}",
                      reroll=again):
                attempt = k
                break
    if not attempt:
        d.note("fow.artillery.range_in", "failed to range in: the bombardment misses")
        return {"ranged_in": 0, "hits": 0, "destroyed": 0, "bailed_out": 0, "pinned": False}
    t = Target.of(SKILL_TEST[p.battery_skill], msg("{skill} battery", skill=msg(p.battery_skill)))
    if not p.rocket:
        t = t.plus(attempt - 1, msg("ranged in on attempt {k}", k=attempt))
    t = t.plus(1 if p.guns == 1 else 0, msg("only one gun"))
    reroll = battery_reroll(p.guns)
    if p.has("rounds_on_the_ground"):
        reroll = "misses"
        d.note("fow.artillery.to_hit", "Rounds on the Ground: both troops fire, misses are "
               "re-rolled")
    hits = d.pool(p.teams, t, rule="fow.artillery.to_hit", what="to hit, one die per team",
                  reroll=reroll)
    at, fp = p.at, p.firepower
    if p.has("mixed_battalions") and p.guns >= 3:
        at, fp = max(at, 4), min(fp, 4)
        d.note("fow.artillery.mixed", "Mixed Battalions: AT {at}, firepower {fp}+", at=at, fp=fp)
    tot = p.has("time_on_target") and attempt == 1 and not p.repeat
    mike = p.has("mike_target") and p.repeat
    if tot or mike:
        d.note("fow.artillery.reroll_saves", "{name}: successful saves must be re-rolled",
               name=msg("Time on Target" if tot else "Mike Target"))
    heavy = fp >= 5
    spec = HitSpec(target=p.target, armour=p.armour, at=at, firepower=fp, dug_in=p.dug_in,
                   gone_to_ground=p.gone_to_ground, reroll_saves=tot or mike,
                   improvised_armour=p.target_has("improvised_armour") and heavy,
                   rule="fow.artillery")
    destroyed, bailed = resolve_one_each(d, hits, spec)
    return {"ranged_in": attempt, "hits": hits, "destroyed": destroyed, "bailed_out": bailed,
            "pinned": hits >= 1}


PROCEDURES = (artillery,)
