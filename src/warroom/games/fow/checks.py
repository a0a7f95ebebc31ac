"""Single-die tests of the Flames of War reference card: skill, motivation and firepower
tests, and the starting-step tests built on them (unpinning, remounting, unbogging),
bogging in difficult terrain, and platoon and company morale."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from warroom.engine.context import Dice
from warroom.engine.messages import msg
from warroom.engine.procedure import outcome, procedure
from warroom.engine.steps import Target
from warroom.errors import UsageError
from warroom.games.fow.common import (
    MOTIVATIONS,
    SKILLS,
    Motivation,
    Skill,
    firepower_target,
    motivation_target,
    skill_target,
)
from warroom.games.fow.special_rules.params import RulesParams

SOURCE_CARD = "FoW reference card"


# --------------------------------------------------------------------------- fow.test
class TestParams(RulesParams):
    kind: Literal["skill", "motivation", "firepower"] = Field(
        "skill", description="which test: skill, motivation or firepower")
    rating: str = Field(
        "trained", description="skill (conscript, trained, veteran), motivation (reluctant, "
        "confident, fearless) or the firepower number 1-6",
        examples=["trained", "veteran", "conscript", "confident", "fearless", "reluctant",
                  "4", "6"])
    reroll: bool = Field(False, description="a failed test is rolled once more "
                         "(e.g. the company command team is attached)")

    @model_validator(mode="after")
    def _rating_fits(self) -> TestParams:
        r = self.rating.strip().lower().rstrip("+")
        if self.kind == "skill" and r not in SKILLS:
            raise UsageError("a skill test needs rating {ratings}; got {rating!r}",
                             ratings=", ".join(SKILLS), rating=self.rating)
        if self.kind == "motivation" and r not in MOTIVATIONS:
            raise UsageError("a motivation test needs rating {ratings}; got {rating!r}",
                             ratings=", ".join(MOTIVATIONS), rating=self.rating)
        if self.kind == "firepower" and r not in {"1", "2", "3", "4", "5", "6"}:
            raise UsageError("rating of a firepower test must be 1-6; got {rating!r}",
                             rating=self.rating)
        return self

    def target(self) -> Target:
        r = self.rating.strip().lower().rstrip("+")
        if self.kind == "skill":
            return skill_target(r)
        if self.kind == "motivation":
            return motivation_target(r, self.rules)
        return firepower_target(int(r))


@procedure(
    "fow.test", title="Skill, motivation or firepower test",
    summary="One die against the unit's skill or motivation rating, or the weapon's "
            "firepower; optionally a failed test is rolled again.",
    params=TestParams,
    outcome=outcome(("passed", "bool", "the test was passed")),
    source=SOURCE_CARD,
    note="Skill: conscript 5+, trained 4+, veteran 3+. Motivation: reluctant 5+, confident "
         "4+, fearless 3+. Firepower N+ is passed on N or more. Shtraf companies and "
         "For the Fatherland! pass motivation tests on 2+.")
def test(p: TestParams, d: Dice) -> dict[str, Any]:
    passed = d.test(p.target(), rule=f"fow.test.{p.kind}", what=f"{p.kind} test",
                    reroll=p.reroll)
    return {"passed": passed}


# ----------------------------------------------------------------------- starting step
class MotivationParams(RulesParams):
    motivation: Motivation = Field("confident", description="the unit's motivation rating")
    reroll: bool = Field(False, description="company command team attached: re-roll a failure")


class UnpinParams(MotivationParams):
    pass


@procedure(
    "fow.unpin", title="Rallying a pinned-down platoon",
    summary="In the starting step a pinned-down platoon shakes it off with a motivation test.",
    params=UnpinParams,
    outcome=outcome(("unpinned", "bool", "the platoon is no longer pinned down")),
    source=SOURCE_CARD)
def unpin(p: UnpinParams, d: Dice) -> dict[str, Any]:
    ok = d.test(motivation_target(p.motivation, p.rules), rule="fow.unpin",
                what="motivation test to rally", reroll=p.reroll)
    return {"unpinned": ok}


class RemountParams(MotivationParams):
    pass


@procedure(
    "fow.remount", title="Remounting a bailed-out vehicle",
    summary="In the starting step the crew of a bailed-out vehicle gets back in with a "
            "motivation test.",
    params=RemountParams,
    outcome=outcome(("remounted", "bool", "the crew is back in the vehicle")),
    source=SOURCE_CARD,
    note="Protected Ammo lets a failed remount test be re-rolled (card, vehicle rules).")
def remount(p: RemountParams, d: Dice) -> dict[str, Any]:
    again = p.reroll or p.has("protected_ammo")
    ok = d.test(motivation_target(p.motivation, p.rules), rule="fow.remount",
                what="motivation test to remount", reroll=again)
    return {"remounted": ok}


WIDE_TRACKS_AT = 4


class UnbogParams(RulesParams):
    skill: Skill = Field("trained", description="the crew's skill rating")
    reroll: bool = Field(False, description="re-roll a failed test (e.g. a special rule)")


@procedure(
    "fow.unbog", title="Freeing a bogged-down vehicle",
    summary="In the starting step a bogged-down vehicle drives free with a skill test.",
    params=UnbogParams,
    outcome=outcome(("freed", "bool", "the vehicle is no longer bogged down"),
                    ("broken_down", "bool", "Unreliable: a 1 broke the vehicle down")),
    source=SOURCE_CARD,
    note="Unreliable vehicles break down on a roll of 1 when trying to unbog (card). "
         "Clever Hans! (Tiger Ace) re-rolls the failed skill test (German article); "
         "with a re-roll we count a 1 on the final die as the breakdown.")
def unbog(p: UnbogParams, d: Dice) -> dict[str, Any]:
    again = p.reroll or p.has("clever_hans")
    t = skill_target(p.skill)
    if p.has("wide_tracks") and t.final > WIDE_TRACKS_AT:
        # the rule frees the tank on 4+; a better crew keeps its own skill test
        t = Target.of(WIDE_TRACKS_AT, msg("Wide Tracks: frees itself on 4+"))
    if not p.has("unreliable"):
        ok = d.test(t, rule="fow.unbog", what="skill test to unbog", reroll=again)
        return {"freed": ok, "broken_down": False}
    face = d.die(rule="fow.unbog", what="skill test to unbog", target=t)
    if face < t.final and face != 1 and again:
        face = d.die(rule="fow.unbog", what="skill test to unbog (re-roll)", target=t)
    broken = face == 1
    if broken:
        d.note("fow.unbog.unreliable", "Unreliable: a 1 means the vehicle breaks down")
    return {"freed": face >= t.final and not broken, "broken_down": broken}


class BogParams(RulesParams):
    terrain: Literal["difficult", "very_difficult"] = Field(
        "difficult", description="difficult terrain (2+) or very difficult (a skill test)")
    skill: Skill = Field("trained", description="the crew's skill rating")
    reroll: bool = Field(False, description="re-roll a failed bogging check")


@procedure(
    "fow.bogging", title="Bogging check in difficult terrain",
    summary="A vehicle crossing difficult terrain avoids bogging down on 2+; in very "
            "difficult terrain it must pass a skill test.",
    params=BogParams,
    outcome=outcome(("bogged", "bool", "the vehicle is bogged down")),
    source=SOURCE_CARD,
    note="Overloaded vehicles bog on a 1 or 2 in difficult terrain, i.e. they need 3+ "
         "(card). Clever Hans! re-rolls failed bogging checks (German article). Wide "
         "Tracks: a tank that bogs rolls at once to free itself, on 4+ (German article, "
         "Clever Hans!: after the re-rolled check; card: frees itself on 4+); freed, it is "
         "not bogged down.")
def bogging(p: BogParams, d: Dice) -> dict[str, Any]:
    if p.terrain == "difficult":
        t = Target.of(2, msg("difficult terrain"))
        if p.has("overloaded"):
            t = t.plus(1, msg("Overloaded: bogs on 1 or 2"))
    else:
        t = skill_target(p.skill)
    ok = d.test(t, rule="fow.bogging", what="bogging check",
                reroll=p.reroll or p.has("clever_hans"))
    if not ok and p.has("wide_tracks"):
        ok = d.test(Target.of(WIDE_TRACKS_AT, msg("Wide Tracks: frees itself on 4+")),
                    rule="fow.bogging.wide_tracks", what="Wide Tracks: free itself at once")
    return {"bogged": not ok}


# --------------------------------------------------------------------------- morale
class MoraleParams(RulesParams):
    kind: Literal["platoon", "company"] = Field(
        "platoon", description="platoon morale (after losses) or company morale (start of turn)")
    motivation: Motivation = Field("confident", description="the motivation rating")
    start: int = Field(4, ge=1, le=60, description="teams (platoon) or platoons (company) "
                       "at the start of the game")
    left: int = Field(1, ge=0, le=60, description="teams or platoons still in good order")
    lost_this_phase: bool = Field(True, description="platoon morale: a team was destroyed "
                                  "or bailed out this phase")
    reroll: bool = Field(False, description="company command team attached: re-roll a failure")

    @model_validator(mode="after")
    def _left_le_start(self) -> MoraleParams:
        if self.left > self.start:
            raise UsageError("left ({left}) cannot exceed start ({start})", left=self.left,
                             start=self.start)
        return self


@procedure(
    "fow.morale", title="Platoon or company morale check",
    summary="A platoon that lost a team this phase and is below half strength, or a "
            "company that has lost more than half of its platoons, must pass a motivation "
            "test or break.",
    params=MoraleParams,
    outcome=outcome(("tested", "bool", "a test was needed"),
                    ("passed", "bool", "the unit holds (true when no test is needed)")),
    source=SOURCE_CARD,
    note="Platoon: a test is needed when a team was destroyed or bailed out this phase and "
         "fewer than half of the starting teams remain; failing destroys the platoon. "
         "Company: a test is needed when more than half the platoons are gone; failing loses "
         "the battle. Counting bailed-out vehicles as lost follows the published rules.")
def morale(p: MoraleParams, d: Dice) -> dict[str, Any]:
    if p.kind == "platoon":
        needed = p.lost_this_phase and 2 * p.left < p.start
        reason = msg("teams left: {left} of {start}", left=p.left, start=p.start)
    else:
        needed = 2 * (p.start - p.left) > p.start
        reason = msg("platoons left: {left} of {start}", left=p.left, start=p.start)
    if not needed:
        d.note(f"fow.morale.{p.kind}", "no morale test needed ({why})", why=reason)
        return {"tested": False, "passed": True}
    ok = d.test(motivation_target(p.motivation, p.rules), rule=f"fow.morale.{p.kind}",
                what=f"{p.kind} morale test", reroll=p.reroll)
    return {"tested": True, "passed": ok}


PROCEDURES = (test, unpin, remount, unbog, bogging, morale)
