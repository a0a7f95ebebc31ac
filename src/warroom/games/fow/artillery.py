"""Artillery bombardments (reference card): range in, roll to hit each team under the
template, saves with top armour, and every platoon hit is pinned down."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal, NamedTuple

from pydantic import AfterValidator, Field, model_validator

from warroom.dice.weights import Reroll
from warroom.engine.context import Dice
from warroom.engine.messages import Msg, msg, nmsg
from warroom.engine.procedure import outcome, procedure
from warroom.engine.steps import Target
from warroom.errors import UsageError
from warroom.games.fow.common import (
    RANGE_IN,
    SKILL_TEST,
    ExtraSaves,
    HitSpec,
    Skill,
    TargetType,
    resolve_one_each,
)
from warroom.games.fow.mixed import GROUP_NAMES, parse_teams
from warroom.games.fow.special_rules.params import RulesParams


class BombardmentParams(RulesParams):
    """What every bombardment needs: ranging in, the battery, its weapon."""

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
    at: int = Field(2, ge=0, le=20, description="the bombardment's anti-tank rating")
    firepower: int = Field(4, ge=1, le=6, description="the N of the firepower N+")
    repeat: bool = Field(False, description="All Guns Repeat: the battery fires again at "
                         "the same place without ranging in")


class ArtilleryParams(BombardmentParams):
    teams: int = Field(3, ge=0, le=20, description="target teams under the template")
    target: TargetType = Field("infantry", description="tank, infantry, gun or soft")
    armour: int = Field(0, ge=0, le=15, description="tanks: top armour")
    dug_in: bool = Field(False, description="dug in or in bulletproof cover")

    @model_validator(mode="after")
    def _consistent(self) -> ArtilleryParams:
        if self.dug_in and self.target in ("tank", "soft"):
            raise ValueError("only infantry and guns can be dug in or in bulletproof cover")
        return self


def range_in_target(p: BombardmentParams) -> Target:
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
    source="FoW reference card, artillery; FoW special-rule articles",
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
    attempt = range_in(p, d)
    if not attempt:
        return MISSED
    t, reroll = battery_to_hit(p, d, attempt)
    hits = d.pool(p.teams, t, rule="fow.artillery.to_hit", what="to hit, one die per team",
                  reroll=reroll)
    spec = bombard_spec(p, d, attempt).spec_for(p.target, p.armour, p.dug_in,
                                                        p.gone_to_ground)
    destroyed, bailed = resolve_one_each(d, hits, spec)
    return {"ranged_in": attempt, "hits": hits, "destroyed": destroyed, "bailed_out": bailed,
            "pinned": hits >= 1}


MISSED: dict[str, Any] = {"ranged_in": 0, "hits": 0, "destroyed": 0, "bailed_out": 0,
                          "pinned": False}


def range_in(p: BombardmentParams, d: Dice) -> int:
    """Up to three attempts to range in (none on a repeat): the attempt that did, or 0."""
    if p.repeat:
        d.note("fow.artillery.range_in", "repeated bombardment: no ranging-in roll needed")
        return 1
    rt = range_in_target(p)
    for k in (1, 2, 3):
        again = k == 1 and (p.mortar or p.has("mike_target"))
        if d.test(rt, rule="fow.artillery.range_in", what=f"ranging in, attempt {k}",
                  reroll=again):
            return k
    d.note("fow.artillery.range_in", "failed to range in: the bombardment misses")
    return 0


def battery_to_hit(p: BombardmentParams, d: Dice, attempt: int
                   ) -> tuple[Target, Literal["hits", "none", "misses"]]:
    """The battery's to-hit number and re-rolls, once ranged in on ``attempt``."""
    t = Target.of(SKILL_TEST[p.battery_skill], msg("{skill} battery", skill=msg(p.battery_skill)))
    if not p.rocket:
        t = t.plus(attempt - 1, msg("ranged in on attempt {k}", k=attempt))
    t = t.plus(1 if p.guns == 1 else 0, msg("only one gun"))
    reroll = battery_reroll(p.guns)
    if p.has("rounds_on_the_ground"):
        reroll = "misses"
        d.note("fow.artillery.to_hit", "Rounds on the Ground: both troops fire, misses are "
               "re-rolled")
    return t, reroll


class Bombard(NamedTuple):
    """The bombardment's weapon and forced re-rolls, before the team it hits is known."""

    at: int
    firepower: int
    reroll_saves: bool
    improvised_armour: bool

    def spec_for(self, target: str, armour: int, dug_in: bool, gtg: bool,
                        rule: str = "fow.artillery") -> HitSpec:
        return HitSpec(target=target, armour=armour, at=self.at, firepower=self.firepower,
                       dug_in=dug_in, gone_to_ground=gtg, reroll_saves=self.reroll_saves,
                       improvised_armour=self.improvised_armour, rule=rule)


def bombard_spec(p: BombardmentParams, d: Dice, attempt: int) -> Bombard:
    at, fp = p.at, p.firepower
    if p.has("mixed_battalions") and p.guns >= 3:
        at, fp = max(at, 4), min(fp, 4)
        d.note("fow.artillery.mixed", "Mixed Battalions: AT {at}, firepower {fp}+", at=at, fp=fp)
    tot = p.has("time_on_target") and attempt == 1 and not p.repeat
    mike = p.has("mike_target") and p.repeat
    if tot or mike:
        d.note("fow.artillery.reroll_saves", "{name}: successful saves must be re-rolled",
               name=msg("Time on Target") if tot else msg("Mike Target"))
    # top armour: Schürzen never (it guards the side)
    return Bombard(at, fp, tot or mike,
                   ExtraSaves.of(p.target_rules, False).against(fp)["improvised_armour"])


def template_teams(v: str) -> str:
    """The ``teams`` under a template: kinds, armour and the flags gtg and dug only."""
    for team in parse_teams(v):
        if team.out or team.far or team.gt or team.shield or team.hull != team.turret:
            raise UsageError("{team}: under a template give a tank's top armour (tank:1) "
                             "and only the flags gtg and dug", team=team.label())
    return v


TemplateTeams = Annotated[str, AfterValidator(template_teams)]
"""The ``teams`` text of a template's procedures (fow.artillery_mixed, fow.air_mixed)."""


ARTILLERY_TEAMS_HELP = (
    "the teams under the template, comma-separated, each kind[:armour][:flags]: tank with "
    "its top armour (tank:1), infantry, gun or soft (unarmoured vehicle); flags gtg (gone "
    "to ground: guns save on 3+) and dug (infantry or guns dug in or in bulletproof "
    "cover). Example: tank:1,infantry,infantry:dug,gun:gtg,soft")


class MixedArtilleryParams(BombardmentParams):
    teams: TemplateTeams = Field("tank:1,infantry,infantry,soft",
                                 description=ARTILLERY_TEAMS_HELP,
                                 examples=["tank:1,infantry,infantry,soft",
                                           "infantry:dug,gun:gtg", "tank:2,tank:0,soft",
                                           "gun,gun:dug,infantry:gtg"])


@procedure(
    "fow.artillery_mixed", title="Artillery bombardment on a mixed platoon",
    summary="Range in once, then every team under the template rolls to hit and saves by "
            "its own kind: tanks on top armour, infantry, guns, unarmoured vehicles; any hit "
            "pins.",
    params=MixedArtilleryParams,
    outcome=outcome(("ranged_in", "int", "attempt that ranged in (0: all three failed)"),
                    ("hits", "int", "teams hit"),
                    ("destroyed", "int", "teams destroyed"),
                    ("bailed_out", "int", "tanks bailed out"),
                    ("pinned", "bool", "the target platoon is pinned down")),
    source="FoW reference card, artillery; FoW article on the effects of hits",
    note="Ranging in, the battery's to-hit number and its special rules are fow.artillery's. "
         "The card rolls one die for every team under the template, so each team takes at "
         "most one hit and there is nothing to allocate: each rolls its save by its own "
         "kind, as fow.artillery does for one kind (tanks their top armour against the AT "
         "and a firepower test; infantry 3+; guns 3+ gone to ground, else 5+; unarmoured "
         "vehicles 5+; dug in or bulletproof cover: a firepower test after a failed save). "
         "Teams alike roll together. gone_to_ground is the platoon's, for ranging in.")
def artillery_mixed(p: MixedArtilleryParams, d: Dice) -> dict[str, Any]:
    attempt = range_in(p, d)
    if not attempt:
        return MISSED
    t, reroll = battery_to_hit(p, d, attempt)
    if t.final > 6:
        d.note("fow.artillery.to_hit", "the battery needs {n}+ to hit: no die can roll it",
               n=t.final)
        return {**MISSED, "ranged_in": attempt}
    bombard = bombard_spec(p, d, attempt)
    hits, destroyed, bailed = each_team_hit(d, p.teams, t, reroll, bombard.spec_for,
                                            "fow.artillery.to_hit")
    return {"ranged_in": attempt, "hits": hits, "destroyed": destroyed, "bailed_out": bailed,
            "pinned": hits >= 1}


def each_team_hit(d: Dice, teams: str, t: Target, reroll: Reroll,
                  spec_for: Callable[[str, int, bool, bool], HitSpec], rule: str
                  ) -> tuple[Any, Any, Any]:
    """One die for every team under a template (a bombardment, an air attack): each team
    hit at most once, nothing to allocate; each saves by its own kind (``spec_for(kind,
    armour, dug in, gone to ground)``). Teams alike roll together. Returns (hits,
    destroyed, bailed out)."""
    groups: dict[tuple[str, int, bool, bool], int] = {}
    first: dict[tuple[str, int, bool, bool], Msg] = {}
    for team in parse_teams(teams):  # teams alike roll together
        key = (team.kind, team.hull, team.dug, team.gtg)
        groups[key] = groups.get(key, 0) + 1
        first.setdefault(key, team.label())
    hits: Any = 0
    destroyed: Any = 0
    bailed: Any = 0
    rolled = []
    for group, count in groups.items():
        kind, armour, dug, gtg = group
        name = nmsg(*GROUP_NAMES[kind], n=count) if count > 1 else first[group]
        got = d.pool(count, t, rule=rule, reroll=reroll, what=msg("to hit: {teams}",
                                                                 teams=name))
        rolled.append((got, spec_for(kind, armour, dug, gtg)))
        hits = hits + got
    for got, spec in rolled:
        dead, out = resolve_one_each(d, got, spec)
        destroyed = destroyed + dead
        bailed = bailed + out
    return hits, destroyed, bailed


PROCEDURES = (artillery, artillery_mixed)
