"""Assaults (reference card): defensive fire, rounds of close combat, counterattack or
break off, until one side holds the ground."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pydantic import Field

from warroom.engine.context import Dice
from warroom.engine.messages import msg
from warroom.engine.procedure import OutcomeField, outcome, procedure
from warroom.engine.steps import Target
from warroom.games.fow.common import (
    TO_HIT,
    HitSpec,
    Motivation,
    Skill,
    motivation_target,
    resolve_spread,
    skill_target,
)
from warroom.games.fow.special_rules.params import RulesParams

Kind = Literal["infantry", "tank"]


@dataclass(frozen=True, slots=True)
class Side:
    name: str
    type: str
    skill: str
    motivation: str
    top: int
    at: int
    fp: int
    rules: tuple[str, ...]


class AssaultParams(RulesParams):
    attackers: int = Field(3, ge=1, le=8, description="assaulting teams in contact")
    attacker_type: Kind = Field("infantry", description="infantry (or guns) or tanks")
    attacker_skill: Skill = Field("trained", description="the assaulting platoon's skill")
    attacker_motivation: Motivation = Field("confident",
                                            description="the assaulting platoon's motivation")
    attacker_armour: int = Field(1, ge=0, le=15, description="assaulting tanks: side armour "
                                 "(defensive fire)")
    attacker_top_armour: int = Field(1, ge=0, le=15, description="assaulting tanks: top armour")
    attacker_at: int = Field(2, ge=0, le=20, description="anti-tank of the assaulting teams "
                             "against tanks (infantry: 2)")
    attacker_firepower: int = Field(1, ge=1, le=6, description="firepower N+ of the "
                                    "assaulting teams against tanks")
    defenders: int = Field(3, ge=1, le=8, description="defending teams in the fight")
    defender_type: Kind = Field("infantry", description="infantry (or guns) or tanks")
    defender_skill: Skill = Field("trained", description="the defending platoon's skill")
    defender_motivation: Motivation = Field("confident",
                                            description="the defending platoon's motivation")
    defender_top_armour: int = Field(1, ge=0, le=15, description="defending tanks: top armour")
    defender_at: int = Field(2, ge=0, le=20, description="anti-tank of the defending teams "
                             "against tanks in assault (infantry: 2)")
    defender_firepower: int = Field(1, ge=1, le=6, description="firepower N+ of the "
                                    "defending teams against tanks in assault")
    defensive_dice: int = Field(0, ge=0, le=8, description="defensive fire dice (full ROF)")
    defensive_at: int = Field(2, ge=0, le=20, description="defensive fire anti-tank rating")
    defensive_firepower: int = Field(6, ge=1, le=6, description="defensive fire firepower N+")
    max_rounds: int = Field(2, ge=1, le=4, description="rounds resolved before calling it "
                            "undecided")


def _pin_threshold(p: AssaultParams) -> int:
    # Quality of Quantity: a large assaulting Soviet company needs 10 defensive-fire hits
    return 10 if p.has("quality_of_quantity") else 5


def _close_combat_hits(d: Dice, me: Side, foe: Side, teams: int, rule: str
                       ) -> tuple[Any, Any]:
    """One side's to-hit rolls in a round: (hits, own teams lost to Improvised Tank
    Assault). Unarmed teams must re-roll their hits."""
    t = skill_target(me.skill)
    reroll: Literal["none", "hits"] = "hits" if "unarmed" in me.rules else "none"
    if not ("improvised_tank_assault" in me.rules and foe.type == "tank"):
        return d.pool(teams, t, rule=f"{rule}.to_hit", what=f"{me.name} to hit",
                      reroll=reroll), 0
    faces, need = range(1, 7), t.final
    roll = d.split(teams, {"one": [1], "miss": [f for f in faces if 1 < f < need],
                           "hit": [f for f in faces if f >= need]},
                   rule=f"{rule}.to_hit", what=f"{me.name} to hit", target=t)
    d.note(f"{rule}.improvised_tank_assault", "Improvised Tank Assault: a team that rolls "
           "a 1 is destroyed")
    hits = roll["hit"]
    if reroll == "hits":
        hits = d.pool(hits, t, rule=f"{rule}.to_hit", what=f"{me.name} hits re-rolled")
    return hits, roll["one"]


@procedure(
    "fow.assault", title="Assault",
    summary="Defensive fire at the charging teams, then rounds of close combat: hits on "
            "skill, saves on top armour, a motivation test to counterattack or break off.",
    params=AssaultParams,
    outcome=outcome(
        OutcomeField("winner", "str", "who holds the ground",
                     ("attacker", "defender", "undecided")),
        ("attacker_losses", "int", "assaulting teams destroyed or bailed out"),
        ("defender_losses", "int", "defending teams destroyed or bailed out"),
        ("repelled", "bool", "defensive fire pinned the assault and it fell back"),
        ("rounds", "int", "rounds of close combat fought")),
    source="seed 000 (reference card: assault step)",
    note="Defensive fire uses full ROF and hits on the attackers' skill (2+/3+/4+); tanks "
         "save it with side armour. 5 or more hits pin the assault and it falls back unless "
         "every attacker is a tank (10 with Quality of Quantity). In close combat every team "
         "rolls a skill test to hit; tanks save with top armour against the hitter's "
         "anti-tank (infantry 2) and firepower; infantry and guns hit in close combat are "
         "destroyed, as the card gives no save for them (our reading of the published "
         "rules). Infantry fighting tanks must pass a motivation test each round. A side "
         "that was hit must pass a motivation test to counterattack, otherwise it breaks "
         "off; a side with no team hit counterattacks without a test unless it would "
         "assault tanks. British Bulldog re-rolls the counterattack test; Automatic Rifles "
         "re-roll defensive-fire misses. Bailed-out tanks count as out of the fight. Unarmed "
         "teams re-roll their hits; Improvised Tank Assault destroys a team that rolls a 1 "
         "to hit a tank; Tank Assault is the attacker_at/defender_at value (card).")
def assault(p: AssaultParams, d: Dice) -> dict[str, Any]:
    att_left = p.attackers
    def_left = p.defenders
    att_lost: Any = 0
    # defensive fire
    if p.defensive_dice:
        t = Target.of(TO_HIT[p.attacker_skill], msg("assaulting teams are {skill}",
                                                    skill=msg(p.attacker_skill)))
        rr: Literal["none", "misses"] = "misses" if p.target_has("automatic_rifles") else "none"
        hits = d.pool(p.defensive_dice, t, rule="fow.assault.defensive_fire",
                      what="defensive fire", reroll=rr)
        spec = HitSpec(target="tank" if p.attacker_type == "tank" else "infantry",
                       armour=p.attacker_armour, at=p.defensive_at,
                       firepower=p.defensive_firepower, rule="fow.assault.defensive_fire")
        dead, bailed = resolve_spread(d, hits, p.attackers, spec, flat=False)
        att_lost = dead + bailed
        att_left = p.attackers - int(att_lost)
        if (hits >= _pin_threshold(p) and p.attacker_type != "tank") or att_left == 0:
            d.note("fow.assault.defensive_fire", "the assault is pinned down and falls back")
            return {"winner": "defender", "attacker_losses": att_lost, "defender_losses": 0,
                    "repelled": True, "rounds": 0}
    # rounds of close combat; side 0 attacks first, then roles swap on a counterattack
    sides = (
        Side("attacker", p.attacker_type, p.attacker_skill, p.attacker_motivation,
             p.attacker_top_armour, p.attacker_at, p.attacker_firepower, p.rules),
        Side("defender", p.defender_type, p.defender_skill, p.defender_motivation,
             p.defender_top_armour, p.defender_at, p.defender_firepower, p.target_rules),
    )
    start: Fight = (0, att_left, def_left, int(att_lost), 0, "undecided", 0)
    _, _, _, att_lost, def_lost, winner, rounds = d.iterate(
        start, lambda s, dice: _round(sides, s, dice), rounds=p.max_rounds, done=_decided)
    return {"winner": winner, "attacker_losses": att_lost, "defender_losses": def_lost,
            "repelled": False, "rounds": rounds}


Fight = tuple[int, int, int, int, int, str, int]
"""Between rounds: (side attacking next, teams left and teams lost on each side, the
winner so far, rounds fought)."""


def _decided(s: Fight) -> bool:
    return s[5] != "undecided"


def _round(sides: tuple[Side, Side], s: Fight, d: Dice) -> Fight:
    """One round of close combat: the active side hits, the other counterattacks or
    breaks off."""
    active, left_a, left_d, lost_a, lost_d, _, rounds = s
    left, lost = [left_a, left_d], [lost_a, lost_d]
    rounds += 1
    me, foe = sides[active], sides[1 - active]
    rule = f"fow.assault.round{rounds}"

    def won(winner: Side) -> Fight:
        return (0, left[0], left[1], lost[0], lost[1], winner.name, rounds)

    if me.type == "infantry" and foe.type == "tank" and not d.test(
            motivation_target(me.motivation, me.rules), rule=f"{rule}.tank_terror",
            what=f"{me.name} motivation to fight tanks"):
        d.note(rule, "{side} will not close with the tanks and breaks off", side=msg(me.name))
        return won(foe)
    hits, self_lost = _close_combat_hits(d, me, foe, left[active], rule)
    if self_lost:
        lost[active] += int(self_lost)
        left[active] -= int(self_lost)
    spec = HitSpec(target="tank" if foe.type == "tank" else "infantry",
                   armour=foe.top, at=me.at, firepower=me.fp,
                   no_save=True, rule=f"{rule}.saves")
    dead, bailed = resolve_spread(d, hits, left[1 - active], spec, flat=False)
    out = int(dead + bailed)
    lost[1 - active] += out
    left[1 - active] -= out
    for beaten in (1 - active, active):
        if left[beaten] == 0:
            d.note(rule, "{side} has no fighting teams left: {winner} takes the ground",
                   side=msg(sides[beaten].name), winner=msg(sides[1 - beaten].name))
            return won(sides[1 - beaten])
    was_hit = int(hits) > 0
    mt = motivation_target(foe.motivation, foe.rules)
    if not was_hit and me.type != "tank":
        d.note(rule, "{side} took no hits and counterattacks", side=msg(foe.name))
    elif not d.test(mt, rule=f"{rule}.counterattack",
                    what=f"{foe.name} motivation to counterattack",
                    reroll="british_bulldog" in foe.rules):
        d.note(rule, "{side} breaks off: {winner} takes the ground", side=msg(foe.name),
               winner=msg(me.name))
        return won(me)
    return (1 - active, left[0], left[1], lost[0], lost[1], "undecided", rounds)


PROCEDURES = (assault,)
