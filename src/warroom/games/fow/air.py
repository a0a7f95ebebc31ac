"""Air support (reference card): the support roll, how many aircraft come, anti-aircraft
fire, approaching the target, to-hit by the aircraft's weapon and saves."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from pydantic import Field, model_validator

from warroom.dice.weights import Reroll
from warroom.engine.context import Dice
from warroom.engine.messages import msg, nmsg
from warroom.engine.procedure import outcome, procedure
from warroom.engine.steps import Target
from warroom.games.fow.artillery import TemplateTeams, each_team_hit
from warroom.games.fow.common import (
    RANGE_IN,
    ExtraSaves,
    HitSpec,
    Skill,
    TargetType,
    firepower_target,
    resolve_one_each,
    skill_target,
)
from warroom.games.fow.special_rules.params import RulesParams

SUPPORT_DICE = {"priority": 7, "limited": 5, "sporadic": 3}
ARRIVE_ON = {"ground_attack": 5, "interceptors": 6}
# how many aircraft arrive, by the die rolled once support comes: 1-2 one, 3-5 two, 6 three
AIRCRAFT_ON_DIE = {1: 1, 2: 1, 3: 2, 4: 2, 5: 2, 6: 3}

AIR_TEAMS_HELP = (
    "the teams under the aircraft, comma-separated, each kind[:armour][:flags]: tank with "
    "the armour the weapon hits (top against bombs and rockets, side against cannon), "
    "infantry, gun or soft (unarmoured vehicle); flags gtg (gone to ground: guns save on "
    "3+) and dug (infantry or guns dug in or in bulletproof cover). Example: "
    "tank:1,infantry,infantry:dug,soft")


class AirAttackParams(RulesParams):
    """What every air attack needs: the support roll, anti-aircraft fire, the approach
    and the aircraft's weapon (fow.air, fow.air_mixed)."""

    support: Literal["priority", "limited", "sporadic"] = Field(
        "limited", description="air support level: 7, 5 or 3 support dice")
    calls: int = Field(0, ge=0, le=7, description="earlier calls this game (one die fewer each)")
    aircraft_type: Literal["ground_attack", "interceptors"] = Field(
        "ground_attack", description="ground attack aircraft come on 5+, interceptors on 6")
    aa_dice: int = Field(0, ge=0, le=20, description="anti-aircraft dice (total ROF)")
    aa_skill: Skill = Field("trained", description="the anti-aircraft gunners' skill")
    aa_firepower: int = Field(4, ge=1, le=6, description="anti-aircraft firepower N+")
    friendly_within_40: bool = Field(False, description="own teams within 40 cm of the "
                                     "target point: the attack is called off")
    target_skill: Skill = Field("trained", description="the target platoon's skill")
    concealed: bool = Field(False, description="the target is concealed (e.g. in a wood)")
    gone_to_ground: bool = Field(False, description="the target has gone to ground")
    weapon: Literal["bombs", "rockets", "cannon"] = Field(
        "bombs", description="bombs and rockets hit top armour, cannon side armour")
    weapon_to_hit: int = Field(4, ge=2, le=6, description="the weapon's score to hit")
    at: int = Field(5, ge=0, le=20, description="the weapon's anti-tank rating")
    firepower: int = Field(4, ge=1, le=6, description="the weapon's firepower N+")


class AirParams(AirAttackParams):
    teams: int = Field(3, ge=0, le=12, description="target teams under the template")
    target: TargetType = Field("infantry", description="tank, infantry, gun or soft")
    armour: int = Field(0, ge=0, le=15, description="tanks: top armour (bombs, rockets) or "
                        "side armour (cannon)")
    dug_in: bool = Field(False, description="dug in or in bulletproof cover")

    @model_validator(mode="after")
    def _consistent(self) -> AirParams:
        if self.dug_in and self.target in ("tank", "soft"):
            raise ValueError("only infantry and guns can be dug in or in bulletproof cover")
        return self


def _nothing(**extra: Any) -> dict[str, Any]:
    out = {"arrived": False, "aircraft": 0, "approached": 0, "hits": 0, "destroyed": 0,
           "bailed_out": 0, "pinned": False}
    out.update(extra)
    return out

# what an air attack ends with (fow.air, fow.air_mixed)
AIR_OUTCOME = outcome(("arrived", "bool", "aircraft arrived"),
                      ("aircraft", "int", "aircraft left after anti-aircraft fire"),
                      ("approached", "int", "approach attempt that succeeded (0: none)"),
                      ("hits", "int", "teams hit"),
                      ("destroyed", "int", "teams destroyed"),
                      ("bailed_out", "int", "tanks bailed out"),
                      ("pinned", "bool", "the target platoon is pinned down"))


@procedure(
    "fow.air", title="Air support attack",
    summary="Roll the air support dice, see how many aircraft come, shoot at them with "
            "anti-aircraft weapons, approach the target, roll to hit and save.",
    params=AirParams,
    outcome=AIR_OUTCOME,
    source="FoW reference card, air support",
    note="The support pool starts at 7/5/3 dice and loses one die per earlier call; "
         "aircraft arrive if any die shows 5+ (ground attack) or 6 (interceptors). A die "
         "gives the flight size: 1-2 one aircraft, 3-5 two, 6 three. Each anti-aircraft "
         "hit (a skill test per die) that passes a firepower test downs one aircraft. Three "
         "approach attempts on the target's skill (+1 concealed, +1 gone to ground); the "
         "weapon's to-hit gets +1 on the second attempt, +2 on the third; one aircraft "
         "re-rolls hits, three re-roll misses. Every platoon hit is pinned (card); with "
         "Quality of Quantity we require 10 hits, since only bombardments keep the "
         "single-hit pin in the Soviet article.")
def air(p: AirParams, d: Dice) -> dict[str, Any]:
    def strike(t: Target, reroll: Reroll) -> tuple[Any, Any, Any]:
        hits = d.pool(p.teams, t, rule="fow.air.to_hit", what="to hit, one die per team",
                      reroll=reroll)
        # cannon hits the side armour (card), bombs and rockets the top
        spec = HitSpec(target=p.target, armour=p.armour, at=p.at, firepower=p.firepower,
                       dug_in=p.dug_in, gone_to_ground=p.gone_to_ground,
                       **ExtraSaves.of(p.target_rules, p.weapon == "cannon").against(
                           p.firepower), rule="fow.air")
        return (hits, *resolve_one_each(d, hits, spec))

    return attack(p, d, strike)


def attack(p: AirAttackParams, d: Dice,
           strike: Callable[[Target, Reroll], tuple[Any, Any, Any]]) -> dict[str, Any]:
    """An air attack: :func:`approach`, then ``strike(to-hit number, re-rolls)`` rolls
    at the teams and returns (hits, destroyed, bailed out). Every platoon hit is pinned
    (card); Quality of Quantity needs 10 hits."""
    early, planes, attempt = approach(p, d)
    if early is not None:
        return early
    hits, destroyed, bailed = strike(*weapon_to_hit(p, planes, attempt))
    pin_at = 10 if p.target_has("quality_of_quantity") else 1
    return {"arrived": True, "aircraft": planes, "approached": attempt, "hits": hits,
            "destroyed": destroyed, "bailed_out": bailed, "pinned": hits >= pin_at}


def weapon_to_hit(p: AirAttackParams, planes: int, attempt: int
                  ) -> tuple[Target, Literal["hits", "none", "misses"]]:
    """The weapon's to-hit number after approaching on ``attempt``, and the re-rolls of
    the flight's size (one aircraft re-rolls hits, three re-roll misses)."""
    t = Target.of(p.weapon_to_hit, msg("{weapon} to hit", weapon=msg(p.weapon)))
    t = t.plus(attempt - 1, msg("approached on attempt {k}", k=attempt))
    return t, "hits" if planes == 1 else "misses" if planes >= 3 else "none"


def approach(p: AirAttackParams, d: Dice) -> tuple[dict[str, Any] | None, int, int]:
    """The support roll, the flight, anti-aircraft fire and the approach: (the outcome
    when the attack ends there, else None; the aircraft left; the approach attempt)."""
    pool = max(SUPPORT_DICE[p.support] - p.calls, 0)
    d.note("fow.air.support", "{support} air support: {dice} after {calls}",
           support=msg(p.support),
           dice=nmsg("{n} die", "{n} dice", n=pool),
           calls=msg("one earlier call") if p.calls == 1
           else msg("{n} earlier calls", n=p.calls))
    come = ARRIVE_ON[p.aircraft_type]
    best = d.dice(pool, rule="fow.air.support", what="air support dice", view="max",
                  target=Target.of(come, msg("{kind} arrive", kind=msg(p.aircraft_type)))
                  ) if pool else 0
    if best < come:
        d.note("fow.air.support", "no aircraft come")
        return _nothing(), 0, 0
    planes = AIRCRAFT_ON_DIE[d.die(rule="fow.air.aircraft", what="number of aircraft")]
    d.note("fow.air.aircraft", nmsg("{n} aircraft arrives", "{n} aircraft arrive", n=planes))
    if p.aa_dice:
        skill, fp = skill_target(p.aa_skill), firepower_target(p.aa_firepower)

        def aa_die(dd: Dice) -> str:
            if not dd.test(skill, rule="fow.air.anti_aircraft", what="anti-aircraft to hit"):
                return "missed"
            ok = dd.test(fp, rule="fow.air.anti_aircraft", what="firepower test on aircraft")
            return "downed" if ok else "missed"

        downed = d.each(p.aa_dice, aa_die, ("downed", "missed"), rule="fow.air.anti_aircraft",
                        what="anti-aircraft die")["downed"]
        planes = max(planes - int(downed), 0)
        d.note("fow.air.anti_aircraft", nmsg("{n} aircraft left", "{n} aircraft left",
                                             n=planes))
    if not planes:
        return _nothing(arrived=True), 0, 0
    if p.friendly_within_40:
        d.note("fow.air.approach", "own teams within 40 cm of the target: attack called off")
        return _nothing(arrived=True, aircraft=planes), planes, 0
    at = Target.of(RANGE_IN[p.target_skill], msg("target is {skill}", skill=msg(p.target_skill)))
    at = at.plus(1 if p.concealed else 0, msg("concealed"))
    at = at.plus(1 if p.gone_to_ground else 0, msg("gone to ground"))
    attempt = 0
    for k in (1, 2, 3):
        if d.test(at, rule="fow.air.approach", what=f"approach, attempt {k}"):
            attempt = k
            break
    if not attempt:
        return _nothing(arrived=True, aircraft=planes), planes, 0
    return None, planes, attempt


class MixedAirParams(AirAttackParams):
    teams: TemplateTeams = Field("tank:1,infantry,infantry,soft", description=AIR_TEAMS_HELP,
                                 examples=["tank:1,infantry,infantry,soft",
                                           "infantry:dug,gun:gtg", "tank:2,tank:0,soft"])


@procedure(
    "fow.air_mixed", title="Air support attack on a mixed platoon",
    summary="The air attack of fow.air, then every team under the aircraft rolls to hit "
            "and saves by its own kind: tanks on top armour (side armour against cannon), "
            "infantry, guns, unarmoured vehicles.",
    params=MixedAirParams,
    outcome=AIR_OUTCOME,
    source="FoW reference card, air support; FoW article on the effects of hits",
    note="Support, the flight, anti-aircraft fire, the approach and the weapon's to-hit "
         "are fow.air's. As under a bombardment template one die is rolled for every "
         "team (fow.air and fow.artillery_mixed), so each team takes at most one hit and "
         "there is nothing to allocate: each saves by its own kind (tanks the armour given "
         "in teams: top against bombs and rockets, side against cannon, with Schürzen "
         "against cannon and Improvised Armour; infantry 3+; guns 3+ gone to ground, else "
         "5+; unarmoured vehicles 5+; dug in: a firepower test after a failed save). "
         "Teams alike roll together.")
def air_mixed(p: MixedAirParams, d: Dice) -> dict[str, Any]:
    extra = ExtraSaves.of(p.target_rules, p.weapon == "cannon").against(p.firepower)

    def spec_for(kind: str, armour: int, dug: bool, gtg: bool) -> HitSpec:
        return HitSpec(target=kind, armour=armour, at=p.at, firepower=p.firepower,
                       dug_in=dug, gone_to_ground=gtg, **extra, rule="fow.air")

    return attack(p, d, lambda t, reroll: each_team_hit(d, p.teams, t, reroll, spec_for,
                                                        "fow.air.to_hit"))


PROCEDURES = (air, air_mixed)
