"""British and US special rules that are procedures of their own.

Tip and Run and British Bulldog (the FoW article on British rules; the FoW reference
card), and the US Tank Destroyers' Seek, Strike and Destroy deployment (US article,
LFTF May 2015 update).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator

from warroom.engine.context import Dice
from warroom.engine.messages import Msg, nmsg
from warroom.engine.procedure import OutcomeField, Procedure, outcome, procedure
from warroom.games.fow.special_rules.common import (
    Motivation,
    Skill,
    motivation_target,
    skill_target,
)
from warroom.games.fow.special_rules.params import RulesParams

SOURCE_GB = "FoW reference card, British rules; FoW article on British special rules"
SOURCE_US = "FoW reference card, US rules; FoW article on US special rules"

# --- Tip and Run --------------------------------------------------------------------


class TipAndRunParams(RulesParams):
    skill: Skill = Field("trained", description="the platoon's skill")
    shot: bool = Field(True, description="the platoon has just shot")


@procedure(
    "fow.tip_and_run",
    title="Tip and Run",
    summary="Right after shooting, a British platoon takes a skill test to move 10 cm away "
            "from the platoons it shot; trying it rules out assaulting this turn.",
    params=TipAndRunParams,
    outcome=outcome(
        ("allowed", "bool", "the platoon may try"),
        ("passed", "bool", "the skill test was passed"),
        ("move_cm", "int", "how far it may move away now (0 or 10)"),
        ("may_assault", "bool", "the platoon may still assault this turn"),
    ),
    source=SOURCE_GB,
    note="The article wins: the test is made right after the platoon shoots. The card's "
         "line describes breaking off an assault after defensive fire and pulling back "
         "10 cm, which is not what the article says.",
)
def tip_and_run(p: TipAndRunParams, d: Dice) -> dict[str, Any]:
    if not p.shot:
        d.note("fow.tip_and_run.allowed", "Tip and Run is made right after the platoon shoots.")
        return {"allowed": False, "passed": False, "move_cm": 0, "may_assault": True}
    passed = d.test(skill_target(p.skill), rule="fow.tip_and_run.test",
                    what="Tip and Run skill test")
    if passed:
        d.note("fow.tip_and_run.move",
               "Passed: the rest of the shooting step counts as a movement step; the platoon "
               "moves up to {cm} cm away from the platoons it shot at.", cm=10)
    else:
        d.note("fow.tip_and_run.move", "Failed: the platoon stays where it is.")
    d.note("fow.tip_and_run.no_assault",
           "Having tried Tip and Run, the platoon cannot assault this turn.")
    return {"allowed": True, "passed": passed, "move_cm": 10 if passed else 0,
            "may_assault": False}


# --- British Bulldog ----------------------------------------------------------------


class BulldogParams(RulesParams):
    motivations: tuple[Motivation, ...] = Field(
        ("confident",), description="the motivation of each British platoon testing to "
                                    "counterattack (one to six, comma-separated)")

    @field_validator("motivations", mode="before")
    @classmethod
    def _split(cls, value: Any) -> Any:
        if isinstance(value, str):
            return tuple(v.strip() for v in value.split(",") if v.strip())
        return value

    @field_validator("motivations")
    @classmethod
    def _count(cls, value: tuple[Motivation, ...]) -> tuple[Motivation, ...]:
        if not 1 <= len(value) <= 6:
            raise ValueError("give one to six platoons' motivations")
        return value


@procedure(
    "fow.british_bulldog",
    title="British Bulldog counterattack",
    summary="British platoons test motivation to counterattack; one re-roll is made and its "
            "result counts for every platoon that failed.",
    params=BulldogParams,
    outcome=outcome(
        ("counterattack", "int", "platoons that pass and counterattack"),
        ("break_off", "int", "platoons that still fail and break off"),
        ("rerolled", "bool", "the Bulldog re-roll was used"),
    ),
    source=SOURCE_GB,
    note="The article re-rolls the result of the original roll: one die decides the "
         "counterattack test of every platoon testing, each against its own motivation; "
         "if any failed, one re-rolled die counts for every platoon that failed. Platoons "
         "alike therefore all pass or all fail. Re-rolling cannot make a failed platoon "
         "worse, so it is always taken when any failed. The card's summary (re-roll failed "
         "counterattack tests) agrees.",
)
def british_bulldog(p: BulldogParams, d: Dice) -> dict[str, Any]:
    needs = [motivation_target(m, p.rules) for m in p.motivations]
    alike = len({t.final for t in needs}) == 1
    face = d.die(rule="fow.british_bulldog.test",
                 what="counterattack motivation test, one die for every platoon",
                 target=needs[0] if alike else None)
    passed = sum(1 for t in needs if face >= t.final)
    failed = len(needs) - passed
    if len(needs) == 1:
        if passed:
            d.note("fow.british_bulldog.test", "The roll of {face} passes.", face=face)
        else:
            d.note("fow.british_bulldog.test", "The roll of {face} fails.", face=face)
    else:
        d.note("fow.british_bulldog.test", "The roll of {face} passes {n} of {total} "
               "platoons.", face=face, n=passed, total=len(needs))
    if failed == 0:
        return {"counterattack": passed, "break_off": 0, "rerolled": False}
    again = d.die(rule="fow.british_bulldog.reroll",
                  what="British Bulldog re-roll for every platoon that failed",
                  target=needs[0] if alike else None)
    saved = sum(1 for t in needs if face < t.final <= again)
    d.note("fow.british_bulldog.result",
           nmsg("The re-roll of {face} turns {n} failed platoon into a counterattacker.",
                "The re-roll of {face} turns {n} failed platoons into counterattackers.",
                face=again, n=saved))
    return {"counterattack": passed + saved, "break_off": failed - saved, "rerolled": True}


# --- Tank Destroyers: Seek, Strike and Destroy --------------------------------------

TD_PROBLEMS = ("none", "not_in_command_of_security", "not_in_command_of_each_other",
               "within_10cm_of_enemy", "seen_within_40cm", "recce_within_20cm")


class TankDestroyerParams(RulesParams):
    in_command_of_security: bool = Field(
        True, description="every tank destroyer is within command distance of a security "
                          "section team (or of the marker where its commander fell)")
    in_command_of_each_other: bool = Field(
        True, description="once the security section is removed, the tank destroyers are "
                          "in command distance of each other")
    nearest_enemy_cm: int = Field(100, ge=0, le=500,
                                  description="distance to the nearest enemy team")
    nearest_seen_enemy_cm: int = Field(
        100, ge=0, le=500, description="distance to the nearest enemy team in line of sight "
                                       "that the tank destroyers are not concealed from")
    nearest_seen_recce_cm: int = Field(
        100, ge=0, le=500,
        description="distance to the nearest enemy reconnaissance team in line of sight "
                    "(not bogged down, bailed out or at the double)")
    security_at_double_or_reorganising: bool = Field(
        False, description="security section teams moved at the double or are reorganising "
                           "after disengaging")
    next_to_steady_security: bool = Field(
        False, description="placed within command distance of a security team that did "
                           "neither")
    security_commander_destroyed: bool = Field(
        False, description="the security section's commander is destroyed when the tank "
                           "destroyers are placed")


def _td_problem(p: TankDestroyerParams) -> str:
    if not p.in_command_of_security:
        return "not_in_command_of_security"
    if not p.in_command_of_each_other:
        return "not_in_command_of_each_other"
    if p.nearest_enemy_cm <= 10:
        return "within_10cm_of_enemy"
    if p.nearest_seen_enemy_cm <= 40:
        return "seen_within_40cm"
    if p.nearest_seen_recce_cm <= 20:
        return "recce_within_20cm"
    return "none"


_TD_TEXT = {
    "not_in_command_of_security": "each tank destroyer must be within command distance of a "
                                  "security section team",
    "not_in_command_of_each_other": "the tank destroyers must be in command distance of each "
                                    "other",
    "within_10cm_of_enemy": "no tank destroyer may be within 10 cm of an enemy team",
    "seen_within_40cm": "no tank destroyer may be within 40 cm of an enemy team that sees "
                        "it, unless concealed by terrain",
    "recce_within_20cm": "no tank destroyer may be within 20 cm of an enemy reconnaissance "
                         "team that sees it",
}


@procedure(
    "fow.tank_destroyers",
    title="Tank destroyer section arrives",
    summary="Checks where the tank destroyer section may replace its security section "
            "(Seek, Strike and Destroy), and whether it arrives reorganising.",
    params=TankDestroyerParams,
    outcome=outcome(
        ("legal", "bool", "the placement is allowed"),
        OutcomeField("problem", "str", "the first rule the placement breaks", TD_PROBLEMS),
        ("reorganising", "bool", "the section arrives reorganising"),
    ),
    source=SOURCE_US,
    note="Placed at the start of the player's turn, when ambushes are revealed; the "
         "security section then leaves the table for good and the tank destroyers move and "
         "fight normally that turn. If the whole security section is destroyed, mark where "
         "its commander fell: the tank destroyers arrive next turn as if he stood there. "
         "Platoon morale ignores destroyed security teams. 'Within' is taken as 'at that "
         "distance or less'. No dice.",
)
def tank_destroyers(p: TankDestroyerParams, d: Dice) -> dict[str, Any]:
    problem = _td_problem(p)
    if problem != "none":
        d.note("fow.tank_destroyers.place", "Not allowed: {reason}.",
               reason=Msg(_TD_TEXT[problem]))
        return {"legal": False, "problem": problem, "reorganising": False}
    d.note("fow.tank_destroyers.place",
           "Allowed: the tank destroyers replace the security section, which leaves the "
           "table.")
    reorganising = p.security_commander_destroyed or (
        p.security_at_double_or_reorganising and not p.next_to_steady_security)
    reason: Literal["", "commander", "security"] = ""
    if p.security_commander_destroyed:
        reason = "commander"
    elif reorganising:
        reason = "security"
    if reason == "commander":
        d.note("fow.tank_destroyers.reorganise",
               "The security commander is destroyed: the section arrives reorganising.")
    elif reason == "security":
        d.note("fow.tank_destroyers.reorganise",
               "The security section moved at the double or is reorganising, and no steady "
               "security team is in command distance: the section arrives reorganising.")
    return {"legal": True, "problem": "none", "reorganising": reorganising}


PROCEDURES: tuple[Procedure, ...] = (tip_and_run, british_bulldog, tank_destroyers)
