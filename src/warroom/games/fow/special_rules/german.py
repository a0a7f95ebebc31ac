"""German special rules that are procedures of their own.

Stormtroopers, Tiger Ace (the skills table), Stuka zu Fuss (a bombardment from one
launcher), Kampfgruppe (the new platoon's ratings) and Armoured Rocket Launchers
(clearing the smoke trail). Sources: the German part of the card (the FoW reference card) and the
German article (the FoW article); where they differ the article wins and the note says so.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from warroom.engine.context import Dice
from warroom.engine.messages import Msg, msg, nmsg
from warroom.engine.procedure import OutcomeField, Procedure, outcome, procedure
from warroom.engine.steps import Target
from warroom.errors import UsageError, counted
from warroom.games.fow.special_rules.common import (
    BATTERY_TO_HIT,
    MOTIVATION_TEST,
    MOTIVATIONS,
    SKILL_TEST,
    SKILLS,
    TO_HIT,
    Motivation,
    Skill,
    skill_target,
)
from warroom.games.fow.special_rules.params import RulesParams

SOURCE = "FoW reference card, German rules; FoW article on German special rules"

# --- Stormtroopers ------------------------------------------------------------------


class StormtroopersParams(RulesParams):
    skill: Skill = Field("trained", description="the platoon's skill")
    has_commander: bool = Field(True, description="the platoon still has its commander")
    at_double: bool = Field(False, description="the platoon moved at the double this turn")
    pinned: bool = Field(False, description="the platoon is pinned down")
    armoured: bool = Field(False, description="the platoon is armoured vehicles "
                                              "(they may still move when pinned)")
    bogged_or_bailed: bool = Field(False, description="the team is bogged down or bailed out")
    gun_fired_or_immobile: bool = Field(
        False, description="a gun team that fired this turn, or an immobile gun")
    bombarded: bool = Field(False, description="the platoon fired an artillery bombardment")
    eyes_and_ears: bool = Field(
        False, description="the team used Eyes and Ears to reveal gone-to-ground enemy")


def _stormtrooper_bar(p: StormtroopersParams) -> str | None:
    if not p.has_commander:
        return "the platoon has no platoon commander"
    if p.at_double:
        return "it moved at the double"
    if p.pinned and not p.armoured:
        return "it is pinned down and is not armoured"
    if p.bogged_or_bailed:
        return "bogged-down or bailed-out vehicles cannot"
    if p.gun_fired_or_immobile:
        return "guns that fired this turn and immobile guns cannot"
    if p.bombarded:
        return "teams that fired a bombardment cannot"
    if p.eyes_and_ears:
        return "a team that used Eyes and Ears cannot"
    return None


@procedure(
    "fow.stormtroopers",
    title="Stormtroopers move",
    summary="A German platoon takes a skill test in the assault step to move 10 cm more; "
            "trying it rules out assaulting this turn.",
    params=StormtroopersParams,
    outcome=outcome(
        ("allowed", "bool", "the platoon may attempt the move"),
        ("passed", "bool", "the skill test was passed"),
        ("move_cm", "int", "how far the platoon may move now (0 or 10)"),
        ("may_assault", "bool", "the platoon may still assault this turn"),
    ),
    source=SOURCE,
    note="With the Tiger Ace skill Schnell! (rules=schnell) the test is passed on 2+. "
         "Teams may mount and dismount during the move as in the movement step.",
)
def stormtroopers(p: StormtroopersParams, d: Dice) -> dict[str, Any]:
    bar = _stormtrooper_bar(p)
    if bar is not None:
        d.note("fow.stormtroopers.allowed", "No Stormtrooper move: {reason}.",
               reason=Msg(bar))
        return {"allowed": False, "passed": False, "move_cm": 0, "may_assault": True}
    target = skill_target(p.skill, pass_on_2=p.has("schnell"), why="Schnell!")
    passed = d.test(target, rule="fow.stormtroopers.test", what="Stormtrooper skill test")
    if passed:
        d.note("fow.stormtroopers.move",
               "Passed: the platoon treats the assault step as a movement step and moves "
               "up to {cm} cm more, whatever its usual move.", cm=10)
    else:
        d.note("fow.stormtroopers.move", "Failed: the platoon stays where it is.")
    d.note("fow.stormtroopers.no_assault",
           "Having tried a Stormtrooper move, the platoon cannot assault this turn.")
    return {"allowed": True, "passed": passed, "move_cm": 10 if passed else 0,
            "may_assault": False}


# --- Armoured Rocket Launchers ------------------------------------------------------


class RocketLauncherParams(RulesParams):
    skill: Skill = Field("trained", description="the battery's skill")
    fired: bool = Field(True, description="the battery fired this turn")


@procedure(
    "fow.armoured_rocket_launchers",
    title="Armoured Rocket Launchers: clear the smoke trail",
    summary="A battery of armoured rocket launchers that fired may take a skill test in the "
            "assault step to remove its smoke trail markers.",
    params=RocketLauncherParams,
    outcome=outcome(
        ("allowed", "bool", "the battery may take the test"),
        ("smoke_removed", "bool", "the smoke trail markers are removed"),
    ),
    source=SOURCE,
    note="The article makes this test take the place of a Stormtrooper move or an assault; "
         "the card's line says the launchers may use the Stormtrooper move after firing. "
         "The article wins.",
)
def armoured_rocket_launchers(p: RocketLauncherParams, d: Dice) -> dict[str, Any]:
    if not p.fired:
        d.note("fow.armoured_rocket_launchers.allowed",
               "Only a battery that fired leaves a smoke trail to clear.")
        return {"allowed": False, "smoke_removed": False}
    passed = d.test(skill_target(p.skill), rule="fow.armoured_rocket_launchers.test",
                    what="skill test to clear the smoke trail")
    if passed:
        d.note("fow.armoured_rocket_launchers.result",
               "Passed: remove the smoke trail markers from every launcher.")
    else:
        d.note("fow.armoured_rocket_launchers.result",
               "Failed: the markers stay, leaving the battery open to counter-battery fire.")
    d.note("fow.armoured_rocket_launchers.no_assault",
           "Instead of a Stormtrooper move or an assault this turn.")
    return {"allowed": True, "smoke_removed": passed}


# --- Tiger Ace ----------------------------------------------------------------------

AceSkill = Literal["schnell", "clever_hans", "for_the_fatherland", "every_shot_counts",
                   "rapid_fire"]
# Faces 1-5 of the Tiger Ace skills table; a 6 is Top Ace!
ACE_SKILLS: tuple[AceSkill, ...] = ("schnell", "clever_hans", "for_the_fatherland",
                                    "every_shot_counts", "rapid_fire")
ACE_TITLES: dict[str, str] = {
    "schnell": "Schnell!", "clever_hans": "Clever Hans!",
    "for_the_fatherland": "For the Fatherland!", "every_shot_counts": "Every Shot Counts!",
    "rapid_fire": "Rapid Fire!", "top_ace": "Top Ace!", "none": "none",
}
DEFAULT_PREFERENCE: tuple[AceSkill, ...] = ("every_shot_counts", "rapid_fire",
                                            "for_the_fatherland", "schnell", "clever_hans")
_WHOLE_PLATOON = ("schnell", "clever_hans", "for_the_fatherland")


def _split_list(value: Any) -> Any:
    if isinstance(value, str):
        return tuple(v.strip() for v in value.replace(";", ",").split(",") if v.strip())
    return value


class TigerAceParams(RulesParams):
    preference: tuple[AceSkill, ...] = Field(
        DEFAULT_PREFERENCE,
        description="the skills you would choose, best first, when Top Ace! lets you "
                    "choose (the rest follow in the default order)")
    team: Literal["platoon", "commander"] = Field(
        "platoon", description="rolling for the platoon, or only for its commander or a hero")

    @field_validator("preference", mode="before")
    @classmethod
    def _split(cls, value: Any) -> Any:
        return _split_list(value)

    @field_validator("preference")
    @classmethod
    def _unique(cls, value: tuple[AceSkill, ...]) -> tuple[AceSkill, ...]:
        if len(set(value)) != len(value):
            raise ValueError("each skill may appear only once in the preference")
        return value

    def order(self) -> tuple[AceSkill, ...]:
        return (*self.preference, *[s for s in DEFAULT_PREFERENCE if s not in self.preference])


def _ace(face: int) -> str:
    return "top_ace" if face == 6 else ACE_SKILLS[face - 1]


@procedure(
    "fow.tiger_ace",
    title="Tiger Ace skills",
    summary="Roll on the Tiger Ace skills table before deployment; Top Ace! rolls again for "
            "the platoon and once more for an extra skill of the commander's tank.",
    params=TigerAceParams,
    outcome=outcome(
        ("top_ace", "bool", "the first roll was Top Ace!"),
        OutcomeField("skill", "str", "the skill of the platoon (or of the team rolled for)",
                     ACE_SKILLS),
        OutcomeField("commander_skill", "str",
                     "Top Ace!: the extra skill of the platoon commander's tank", ("none",
                                                                                  *ACE_SKILLS)),
        ("chose", "bool", "a skill was chosen from the preference instead of rolled"),
    ),
    source=SOURCE,
    note="Table order 1 Schnell!, 2 Clever Hans!, 3 For the Fatherland!, 4 Every Shot "
         "Counts!, 5 Rapid Fire!, 6 Top Ace!, as the article lists them and the published "
         "table numbers them. A skill rolled for a commander or hero alone belongs to that "
         "tank, except Schnell!, Clever Hans! and For the Fatherland!, which its whole platoon "
         "gets. A Kampfgruppe made only of Tiger Ace teams also rolls. Top Ace! rolled for a "
         "single team is resolved like the platoon's (the sources do not say otherwise).",
)
def tiger_ace(p: TigerAceParams, d: Dice) -> dict[str, Any]:
    first = d.die(rule="fow.tiger_ace.roll", what="Tiger Ace skill roll")
    skill = _ace(first)
    d.note("fow.tiger_ace.table", "A {face} on the table: {skill}.", face=first,
           skill=Msg(ACE_TITLES[skill]))
    if first < 6:
        _who(d, p, skill)
        return {"top_ace": False, "skill": skill, "commander_skill": "none", "chose": False}
    order = p.order()
    chose = False
    second = d.die(rule="fow.tiger_ace.top_ace", what="Top Ace: roll again for the platoon")
    if second == 6:
        skill = order[0]
        chose = True
        d.note("fow.tiger_ace.choose", "Another 6: you choose {skill}.",
               skill=Msg(ACE_TITLES[skill]))
    else:
        skill = ACE_SKILLS[second - 1]
        d.note("fow.tiger_ace.table", "A {face} on the table: {skill}.", face=second,
               skill=Msg(ACE_TITLES[skill]))
    third = d.die(rule="fow.tiger_ace.top_ace",
                  what="Top Ace: roll for the commander's extra skill")
    if third == 6 or ACE_SKILLS[third - 1] == skill:
        commander = next(s for s in order if s != skill)
        chose = True
        d.note("fow.tiger_ace.choose",
               "A 6 or the platoon's own skill: you choose {skill} for the commander's tank.",
               skill=Msg(ACE_TITLES[commander]))
    else:
        commander = ACE_SKILLS[third - 1]
        d.note("fow.tiger_ace.table",
               "A {face}: the commander's tank also has {skill}.", face=third,
               skill=Msg(ACE_TITLES[commander]))
    _who(d, p, skill)
    return {"top_ace": True, "skill": skill, "commander_skill": commander, "chose": chose}


def _who(d: Dice, p: TigerAceParams, skill: str) -> None:
    if p.team == "commander" and skill not in _WHOLE_PLATOON:
        d.note("fow.tiger_ace.scope", "{skill} applies to this tank only.",
               skill=Msg(ACE_TITLES[skill]))
    else:
        d.note("fow.tiger_ace.scope", "{skill} applies to the whole platoon.",
               skill=Msg(ACE_TITLES[skill]))


# --- Stuka zu Fuss ------------------------------------------------------------------

TargetKind = Literal["infantry", "gun", "tank", "soft"]


class StukaParams(RulesParams):
    target_skill: Skill = Field("trained", description="the target's skill (to range in)")
    concealed: bool = Field(False, description="the target is concealed")
    gone_to_ground: bool = Field(False, description="the target has gone to ground")
    observer_hq: bool = Field(False, description="the company HQ is the observer (+1)")
    battery_skill: Skill = Field("veteran", description="the launcher crew's skill")
    teams: int = Field(3, ge=0, le=20, description="teams under the template")
    target: TargetKind = Field("infantry", description="what the teams are: infantry, gun, "
                                                        "tank, or soft (unarmoured vehicle)")
    armour: int = Field(1, ge=0, le=15, description="tanks: top armour")
    at: int = Field(5, ge=0, le=20, description="the rockets' anti-tank value")
    firepower: int = Field(1, ge=1, le=6, description="the rockets' firepower (N of N+)")
    dug_in: bool = Field(False, description="dug in or in bulletproof cover: a failed save "
                                            "needs a firepower test to destroy")


def _firepower(p: StukaParams, d: Dice, n: int, what: str) -> int:
    """Firepower tests for ``n`` teams; firepower 1+ passes without rolling."""
    if p.firepower <= 1:
        return n
    fp = Target.of(p.firepower, msg("firepower {fp}+", fp=p.firepower))
    return d.pool(n, fp, rule="fow.stuka_zu_fuss.firepower", what=what)


def _save_tests(p: StukaParams, d: Dice, hits: int) -> tuple[int, int]:
    """Saves for the teams hit; returns (destroyed, bailed out)."""
    if p.target == "tank":
        higher = [f for f in range(1, 7) if f + p.armour > p.at]
        equal = [f for f in range(1, 7) if f + p.armour == p.at]
        lower = [f for f in range(1, 7) if f + p.armour < p.at]
        saves = d.split(hits, {"higher": higher, "equal": equal, "lower": lower},
                        rule="fow.stuka_zu_fuss.save",
                        what="armour saves: die + top armour against the AT")
        bailed_equal = _firepower(p, d, saves["equal"],
                                  "firepower tests for saves equal to the AT")
        destroyed = _firepower(p, d, saves["lower"], "firepower tests for saves below the AT")
        return destroyed, bailed_equal + (saves["lower"] - destroyed)
    if p.target == "infantry":
        need = 3
    elif p.target == "gun":
        need = 3 if p.gone_to_ground else 5
    else:
        need = 5
    saves = d.split(hits, {"saved": list(range(need, 7)), "failed": list(range(1, need))},
                    rule="fow.stuka_zu_fuss.save", what="saves",
                    target=Target.of(need, msg("{kind} save", kind=Msg(p.target))))
    if p.dug_in and p.target != "soft":
        destroyed = _firepower(p, d, saves["failed"], "firepower tests against dug-in teams")
        return destroyed, 0
    return saves["failed"], 0


@procedure(
    "fow.stuka_zu_fuss",
    title="Stuka zu Fuss bombardment",
    summary="One launcher's once-a-game bombardment as six guns: up to six ranging attempts, "
            "each failure firing one rocket wide, then the hits and saves.",
    params=StukaParams,
    outcome=outcome(
        ("ranged_in", "int", "the attempt (1-6) that ranged in; 0 if all six failed"),
        ("guns", "int", "guns the bombardment counts as (6 less one per failed attempt)"),
        ("hits", "int", "teams hit"),
        ("destroyed", "int", "teams destroyed"),
        ("bailed_out", "int", "tanks bailed out"),
        ("pinned", "bool", "the target is pinned (any bombardment hit pins)"),
    ),
    source=SOURCE,
    note="Ranging in uses the card's numbers (2+/3+/4+ by the target's skill, +1 each for "
         "concealed, gone to ground and a company HQ observer). The article does not say "
         "whether later attempts make hitting harder; as rocket launchers ignore that "
         "penalty on the card, none is applied. To hit: the crew's skill test number, +1 with "
         "a single gun; 1-2 guns re-roll hits, 6 guns re-roll misses. Tanks save with top "
         "armour. Several launchers of one platoon each place a template and range in "
         "separately: resolve one at a time. The default AT 5 and firepower 1+ are those "
         "of the heavy rockets; give your unit card's values.",
)
def stuka_zu_fuss(p: StukaParams, d: Dice) -> dict[str, Any]:
    t = (Target.of(TO_HIT[p.target_skill],
                   msg("range in on {rating} teams", rating=Msg(p.target_skill)))
         .plus(1 if p.concealed else 0, "target concealed")
         .plus(1 if p.gone_to_ground else 0, "target gone to ground")
         .plus(1 if p.observer_hq else 0, "company HQ observing"))
    ranged_in = 0
    if t.final > 6:
        d.note("fow.stuka_zu_fuss.range_in",
               "Ranging in would need {at}+: no attempt can succeed, all six rockets miss.",
               at=t.final)
    else:
        for attempt in range(1, 7):
            if d.test(t, rule="fow.stuka_zu_fuss.range_in",
                      what="Stuka zu Fuss ranging attempt"):
                ranged_in = attempt
                break
            d.note("fow.stuka_zu_fuss.range_in",
                   "Attempt {n} failed: that rocket is wasted, {guns} left.",
                   n=attempt, guns=6 - attempt)
    if ranged_in == 0:
        d.note("fow.stuka_zu_fuss.result",
               "All six rockets are spent without ranging in: no bombardment.")
        return {"ranged_in": 0, "guns": 0, "hits": 0, "destroyed": 0, "bailed_out": 0,
                "pinned": False}
    guns = 7 - ranged_in
    d.note("fow.stuka_zu_fuss.guns", nmsg(
        "Ranged in on attempt {attempt}: the bombardment counts as {n} gun; rockets suffer "
        "no penalty for later attempts.", "Ranged in on attempt {attempt}: the bombardment "
        "counts as {n} guns; rockets suffer no penalty for later attempts.", n=guns,
        attempt=ranged_in))
    hit_t = (Target.of(BATTERY_TO_HIT[p.battery_skill],
                       msg("{rating} crew", rating=Msg(p.battery_skill)))
             .plus(1 if guns == 1 else 0, "only one gun firing"))
    reroll: Literal["none", "misses", "hits"] = (
        "hits" if guns <= 2 else "misses" if guns >= 6 else "none")
    hits = d.pool(p.teams, hit_t, reroll=reroll, rule="fow.stuka_zu_fuss.hit",
                  what="to hit, one die per team under the template")
    destroyed, bailed = _save_tests(p, d, hits)
    return {"ranged_in": ranged_in, "guns": guns, "hits": hits, "destroyed": destroyed,
            "bailed_out": bailed, "pinned": hits >= 1}


# --- Kampfgruppe --------------------------------------------------------------------

_SKILL_ORDER = {s: i for i, s in enumerate(SKILLS)}        # conscript lowest
_MOTIVATION_ORDER = {m: i for i, m in enumerate(MOTIVATIONS)}  # reluctant lowest


def _parse_member(item: str) -> tuple[Skill, Motivation]:
    parts = [x.strip().lower() for x in item.replace(" ", "/").split("/") if x.strip()]
    skill = next((x for x in parts if x in SKILL_TEST), None)
    motivation = next((x for x in parts if x in MOTIVATION_TEST), None)
    if skill is None or motivation is None or len(parts) != 2:
        raise UsageError("member {item!r}: write skill/motivation, e.g. veteran/confident "
                         "(skills: {skills}; motivations: {motivations})", item=item,
                         skills=", ".join(SKILLS), motivations=", ".join(MOTIVATIONS))
    return skill, motivation  # type: ignore[return-value]


def _parse_donor(item: str) -> tuple[str, int, int]:
    parts = [x.strip().lower() for x in item.split(":")]
    if len(parts) != 3 or parts[0] not in ("tank", "other") or not all(
            x.isdigit() for x in parts[1:]):
        raise UsageError("donor {item!r}: write kind:teams:taken, kind tank or other, "
                         "e.g. tank:5:2", item=item)
    return parts[0], int(parts[1]), int(parts[2])


class KampfgruppeParams(RulesParams):
    members: tuple[str, ...] = Field(
        ..., description="the ratings of the teams' platoons, skill/motivation each, "
                         "comma-separated",
        examples=["veteran/confident,trained/fearless", "trained/confident",
                  "veteran/fearless,veteran/reluctant,conscript/fearless"])
    donors: tuple[str, ...] = Field(
        (), description="optional check of each platoon giving teams: kind:teams:taken "
                        "(kind tank or other)",
        examples=["", "tank:5:2,other:9:4", "other:7:3"])
    second_in_command: bool = Field(True, description="the company has a 2iC to lead it")

    @field_validator("members", "donors", mode="before")
    @classmethod
    def _split(cls, value: Any) -> Any:
        return _split_list(value)

    @field_validator("members")
    @classmethod
    def _members(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if not value:
            raise ValueError("give at least one member, e.g. veteran/confident")
        for item in value:
            _parse_member(item)
        return value

    @field_validator("donors")
    @classmethod
    def _donors(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for item in value:
            kind, teams, taken = _parse_donor(item)
            keep = 2 if kind == "tank" else 3
            if taken * 2 > teams:
                raise UsageError(counted(
                    "donor {item!r}: at most half of its {n} team may join (commander "
                    "included), not {taken}", "donor {item!r}: at most half of its {n} "
                    "teams may join (commander included), not {taken}", n=teams, item=item,
                    taken=taken))
            if teams - taken < keep and kind == "tank":
                raise UsageError(counted("donor {item!r}: must keep at least {n} tank",
                                         "donor {item!r}: must keep at least {n} tanks",
                                         n=keep, item=item))
            if teams - taken < keep:
                raise UsageError(counted("donor {item!r}: must keep at least {n} team",
                                         "donor {item!r}: must keep at least {n} teams",
                                         n=keep, item=item))
        return value

    @model_validator(mode="after")
    def _needs_2ic(self) -> KampfgruppeParams:
        if not self.second_in_command:
            raise ValueError("only a company with a second-in-command can form a "
                             "Kampfgruppe: the 2iC leads it")
        return self


@procedure(
    "fow.kampfgruppe",
    title="Kampfgruppe ratings",
    summary="A Kampfgruppe formed before deployment takes the lowest skill and the lowest "
            "motivation found among its teams; optionally checks what each platoon gave.",
    params=KampfgruppeParams,
    outcome=outcome(
        OutcomeField("skill", "str", "the Kampfgruppe's skill", SKILLS),
        OutcomeField("motivation", "str", "the Kampfgruppe's motivation", MOTIVATIONS),
        ("members", "int", "rated members given"),
    ),
    source=SOURCE,
    note="Each giving platoon keeps at least two tanks or three other teams and gives at "
         "most half its teams; transports of the teams taken go with them. No dice.",
)
def kampfgruppe(p: KampfgruppeParams, d: Dice) -> dict[str, Any]:
    parsed = [_parse_member(m) for m in p.members]
    for kind, teams, taken in (_parse_donor(x) for x in p.donors):
        d.note("fow.kampfgruppe.donor",
               "A {kind} platoon of {teams} gives {taken} and keeps {left}: allowed.",
               kind=Msg("tank") if kind == "tank" else Msg("other"), teams=teams, taken=taken,
               left=teams - taken)
    skill = min((s for s, _ in parsed), key=_SKILL_ORDER.__getitem__)
    motivation = min((m for _, m in parsed), key=_MOTIVATION_ORDER.__getitem__)
    d.note("fow.kampfgruppe.ratings",
           "The lowest ratings among the members: {skill} and {motivation}; the 2iC leads.",
           skill=Msg(skill), motivation=Msg(motivation))
    if p.has("tiger_ace"):
        d.note("fow.kampfgruppe.tiger_ace",
               "If it is made only of Tiger Ace teams, it rolls its own Tiger Ace skill.")
    return {"skill": skill, "motivation": motivation, "members": len(parsed)}


PROCEDURES: tuple[Procedure, ...] = (stormtroopers, tiger_ace, stuka_zu_fuss, kampfgruppe,
                                     armoured_rocket_launchers)
