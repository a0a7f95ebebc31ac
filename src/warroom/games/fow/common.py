"""Shared pieces of the Flames of War procedures: ratings, target numbers and the
per-team hit resolution (saves, armour tests, firepower tests).

The hit resolution is written as per-team chains for ``Dice.each``: a chain rolls what
one team needs for its ``k`` hits and returns the team's worst result. Teams with the
same number of hits are interchangeable, which keeps exact odds fast.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal, NamedTuple

from warroom.engine.context import Dice, fixed
from warroom.engine.messages import msg, nmsg
from warroom.engine.steps import Target
from warroom.games.fow.special_rules import catalog as special_rules

Skill = Literal["conscript", "trained", "veteran"]
Motivation = Literal["reluctant", "confident", "fearless"]
TargetType = Literal["tank", "infantry", "gun", "soft"]
Aspect = Literal["front", "side"]

SKILLS: tuple[str, ...] = ("conscript", "trained", "veteran")
MOTIVATIONS: tuple[str, ...] = ("reluctant", "confident", "fearless")



def _card() -> dict[str, Any]:
    """The card's numbers, written once in ``data/to_hit.toml`` (also shown as a table)."""
    import tomllib
    from importlib import resources

    text = (resources.files("warroom.games.fow") / "data" / "to_hit.toml").read_text(
        encoding="utf-8")
    return tomllib.loads(text)


_CARD = _card()
# the card: to hit a target by its skill; a skill test; a motivation test
TO_HIT: dict[str, int] = {skill: int(_CARD[skill]["base"]) for skill in SKILLS}
SKILL_TEST: dict[str, int] = dict(_CARD["tests"]["skill"])
MOTIVATION_TEST: dict[str, int] = dict(_CARD["tests"]["motivation"])
# ranging in (artillery) and approaching (aircraft) use the target's skill like to-hit
RANGE_IN: dict[str, int] = dict(_CARD["tests"]["range_in"])

LABELS: tuple[str, ...] = ("destroyed", "bailed_out", "unharmed")

# special rules that make a motivation test pass on 2+
MOTIVATION_2PLUS: tuple[str, ...] = ("shtraf", "for_the_fatherland")


def motivation_target(rating: str, rules: tuple[str, ...]) -> Target:
    """The motivation test target, with the rules that change it."""
    t = Target.of(MOTIVATION_TEST[rating], msg("{rating} motivation", rating=msg(rating)))
    for name in MOTIVATION_2PLUS:
        if name in rules:
            return t.plus(2 - t.final, msg("special rule {rule}: passes on 2+",
                                           rule=msg(special_rules.get(name).title)))
    return t


def skill_target(rating: str) -> Target:
    return Target.of(SKILL_TEST[rating], msg("{rating} skill", rating=msg(rating)))


def firepower_target(fp: int) -> Target:
    return Target.of(fp, msg("firepower {fp}+", fp=fp))


@dataclass(frozen=True, slots=True)
class HitSpec:
    """How one hit on one team is resolved."""

    target: str              # tank | infantry | gun | soft
    armour: int = 0          # tanks: the armour for the aspect hit (already with bonuses)
    at: int = 0
    firepower: int = 6
    dug_in: bool = False     # dug in or bulletproof cover: failed saves need firepower
    gone_to_ground: bool = False  # guns save on 3+ instead of 5+
    gun_shield: bool = False  # hit from the direction the gun shield faces
    bunker_buster: bool = False  # breakthrough gun / bunker buster: infantry gets no save
    reroll_saves: bool = False   # forced re-roll of successful saves (TOT, Mike Target)
    schurzen: bool = False        # side armour, FP 5 or 6: a 4+ save after a failed save
    improvised_armour: bool = False  # FP 5 or 6: a 5+ save after a failed save
    no_save: bool = False         # infantry and guns get no save (e.g. close combat)
    rule: str = "fow.hits"


class ExtraSaves(NamedTuple):
    """The target's extra saves after a failed armour save, against weapons of firepower
    5 or 6: Schürzen (4+) on a hit on the side armour (FoW article on German special
    rules, Schürzen: side hits only; the card also names the front) and Improvised
    Armour (5+) on any aspect (FoW reference card, Improvised Armour). Written once for
    direct fire, mixed fire, aircraft, bombardments and assault defensive fire."""

    schurzen: bool = False  # the target has Schürzen and the hit is on its side armour
    improvised_armour: bool = False

    @classmethod
    def of(cls, rules: tuple[str, ...], side: bool) -> ExtraSaves:
        """The extra saves of a target with special ``rules``, hit on its ``side``."""
        return cls("schurzen" in rules and side, "improvised_armour" in rules)

    def against(self, firepower: int) -> dict[str, bool]:
        """The :class:`HitSpec` fields for a hit of ``firepower`` (N of N+)."""
        heavy = 5 <= firepower <= 6
        return {"schurzen": self.schurzen and heavy,
                "improvised_armour": self.improvised_armour and heavy}


def save_target(spec: HitSpec) -> int:
    if spec.target == "infantry":
        return 3
    if spec.target == "gun":
        return 3 if spec.gone_to_ground else 5
    return 5  # unarmoured vehicles


def save_reason(spec: HitSpec) -> Any:
    if spec.target == "infantry":
        return msg("infantry save")
    if spec.target == "gun":
        return msg("gun gone to ground") if spec.gone_to_ground else msg("gun in the open")
    return msg("unarmoured vehicle save")


def armour_save(spec: HitSpec) -> tuple[dict[str, list[int]], Target]:
    """A tank's armour save: d6 + armour against AT, as face classes and a target."""
    need = spec.at - spec.armour  # a die above this beats the AT
    classes = {
        "higher": [f for f in range(1, 7) if f > need],
        "equal": [f for f in range(1, 7) if f == need],
        "lower": [f for f in range(1, 7) if f < need],
    }
    return classes, Target.of(need + 1, msg("armour {armour} against AT {at}",
                                            armour=spec.armour, at=spec.at))


@lru_cache(maxsize=256)
def armour_what(spec: HitSpec, n: int = 1) -> Any:
    """The name of ``n`` armour saves; a tank whose armour plus a 6 cannot beat the AT
    cannot save, and the story says so (its die still tells equal from below)."""
    if spec.at - spec.armour < 6:
        return "armour save" if n == 1 else "armour saves"
    if n == 1:
        return msg("armour save: armour {armour} cannot beat AT {at}, no save possible",
                   armour=spec.armour, at=spec.at)
    return msg("armour saves: armour {armour} cannot beat AT {at}, no save possible",
               armour=spec.armour, at=spec.at)


@lru_cache(maxsize=1024)
def team_chain(spec: HitSpec, k: int) -> Callable[[Dice], str]:
    """The rolls one team makes for ``k`` hits; returns its worst result. The same
    function for the same hits (cached, and :func:`fixed`), so the exact driver keys its
    distribution once."""

    def tank_hit(d: Dice) -> str:
        classes, t = armour_save(spec)
        s = d.split(1, classes, rule=f"{spec.rule}.armour", what=armour_what(spec), target=t)
        if spec.reroll_saves and s["higher"]:
            s = d.split(1, classes, rule=f"{spec.rule}.armour",
                        what="successful armour save re-rolled", target=t)
        if s["higher"]:
            return "unharmed"
        if spec.schurzen and d.test(Target.of(4, msg("Schürzen save")),
                                    rule=f"{spec.rule}.schurzen", what="Schürzen save"):
            return "unharmed"
        if spec.improvised_armour and d.test(Target.of(5, msg("improvised armour save")),
                                             rule=f"{spec.rule}.improvised_armour",
                                             what="improvised armour save"):
            return "unharmed"
        fp = firepower_target(spec.firepower)
        if s["lower"]:
            ok = d.test(fp, rule=f"{spec.rule}.firepower", what="firepower test (below AT)")
            return "destroyed" if ok else "bailed_out"
        ok = d.test(fp, rule=f"{spec.rule}.firepower", what="firepower test (equal to AT)")
        return "bailed_out" if ok else "unharmed"

    def tank(d: Dice) -> str:
        if k == 1:
            return tank_hit(d)
        res = d.each(k, tank_hit, LABELS, rule=f"{spec.rule}.hit", what="hit")
        if res["destroyed"]:
            return "destroyed"
        return "bailed_out" if res["bailed_out"] else "unharmed"

    fixed(tank_hit)

    def other(d: Dice) -> str:
        needs_fp = spec.dug_in or (spec.gun_shield and spec.target == "gun")
        if spec.no_save or (spec.bunker_buster and spec.target == "infantry") or (
                spec.gun_shield and spec.target == "soft"):
            failed = k  # no save at all
        else:
            st = Target.of(save_target(spec), save_reason(spec))
            saved = d.pool(k, st, rule=f"{spec.rule}.save", what="saves",
                           reroll="hits" if spec.reroll_saves else "none")
            failed = k - saved
        if not failed:
            return "unharmed"
        if needs_fp or (spec.gun_shield and spec.target == "soft"):
            fp = firepower_target(spec.firepower)
            return "destroyed" if d.pool(failed, fp, rule=f"{spec.rule}.firepower",
                                         what="firepower tests") else "unharmed"
        return "destroyed"

    return fixed(tank if spec.target == "tank" else other)


def _pass_fail(d: Dice, n: Any, at: int, *, rule: str, what: str, reason: Any
               ) -> tuple[Any, Any]:
    """``n`` dice needing ``at``+, returning (passed, failed) as plain counts, so both
    can feed later rolls and stay lazy under the exact driver."""
    if isinstance(n, int) and n == 0:
        return 0, 0  # nothing to roll (same in every driver: no dice, no step)
    faces = range(1, 7)
    res = d.split(n, {"passed": [f for f in faces if f >= at],
                      "failed": [f for f in faces if f < at]},
                  rule=rule, what=what, target=Target.of(at, reason))
    return res["passed"], res["failed"]


def resolve_single_hits(d: Dice, n: Any, spec: HitSpec) -> tuple[Any, Any]:
    """``n`` teams with one hit each, rolled together as the table does: all the saves,
    then the extra saves, then the firepower tests. Returns (destroyed, bailed_out)."""
    if spec.target == "tank":
        classes, t = armour_save(spec)
        s = d.split(n, classes, rule=f"{spec.rule}.armour", what=armour_what(spec, 2),
                    target=t)
        equal, lower = s["equal"], s["lower"]
        if spec.reroll_saves:
            again = d.split(s["higher"], classes, rule=f"{spec.rule}.armour",
                            what="successful armour saves re-rolled", target=t)
            equal = equal + again["equal"]
            lower = lower + again["lower"]
        for flag, at, name, reason in (
                (spec.schurzen, 4, "schurzen", msg("Schürzen save")),
                (spec.improvised_armour, 5, "improvised_armour",
                 msg("improvised armour save"))):
            if flag:
                _, equal = _pass_fail(d, equal, at, rule=f"{spec.rule}.{name}",
                                      what=f"{name} saves (equal)", reason=reason)
                _, lower = _pass_fail(d, lower, at, rule=f"{spec.rule}.{name}",
                                      what=f"{name} saves (lower)", reason=reason)
        reason = msg("firepower {fp}+", fp=spec.firepower)
        killed, survived = _pass_fail(d, lower, spec.firepower, rule=f"{spec.rule}.firepower",
                                      what="firepower tests (save below AT)", reason=reason)
        bailed, _ = _pass_fail(d, equal, spec.firepower, rule=f"{spec.rule}.firepower",
                               what="firepower tests (save equal to AT)", reason=reason)
        return killed, survived + bailed
    if spec.no_save or (spec.bunker_buster and spec.target == "infantry") or (
            spec.gun_shield and spec.target == "soft"):
        failed: Any = n
    else:
        saved, failed = _pass_fail(d, n, save_target(spec), rule=f"{spec.rule}.save",
                                   what="saves", reason=save_reason(spec))
        if spec.reroll_saves:
            _, again = _pass_fail(d, saved, save_target(spec), rule=f"{spec.rule}.save",
                                  what="successful saves re-rolled", reason=save_reason(spec))
            failed = failed + again
    if spec.dug_in or spec.gun_shield:
        killed, _ = _pass_fail(d, failed, spec.firepower, rule=f"{spec.rule}.firepower",
                               what="firepower tests", reason=msg("firepower {fp}+",
                                                                  fp=spec.firepower))
        return killed, 0
    return failed, 0


@lru_cache(maxsize=1024)
def _out_or_fighting(chain: Callable[[Dice], str]) -> Callable[[Dice], str]:
    def merged(d: Dice) -> str:
        return "fighting" if chain(d) == "unharmed" else "out"
    return fixed(merged)


def resolve_spread(d: Dice, hits: Any, teams: int, spec: HitSpec, *, flat: bool = True
                   ) -> tuple[Any, Any]:
    """Spread ``hits`` as evenly as possible over ``teams`` and resolve every team.

    Returns (destroyed, bailed_out) counts (lazy under the exact driver). ``flat`` rolls
    the teams with a single hit together (cheapest when the counts stay lazy); with
    ``flat=False`` every team is one chain, cheaper when the caller branches on the
    result: then a team's result is only "out" (destroyed or bailed out, returned as
    destroyed) or "fighting", which keeps the branching small."""
    if teams <= 0:
        return 0, 0
    q, r = divmod(int(hits), teams)  # branches on the number of hits: it must be known
    if q == 0 and r == 0:
        return 0, 0
    total = q * teams + r
    rule = f"{spec.rule}.allocate"
    if teams == 1:
        d.note(rule, nmsg("the only team takes the hit", "the only team takes all {n} hits",
                          n=total))
    elif total == 1:
        d.note(rule, nmsg("one hit, on the only team", "one hit, on one of the {n} teams",
                          n=teams))
    elif r == 0:
        d.note(rule, nmsg("{n} hit spread evenly: each of {teams} teams takes {q}",
                          "{n} hits spread evenly: each of {teams} teams takes {q}",
                          n=total, teams=teams, q=q))
    elif q == 0:
        d.note(rule, nmsg("{n} hit: {r} of {teams} teams takes one hit",
                          "{n} hits: {r} of {teams} teams take one hit each",
                          n=total, r=r, teams=teams))
    else:
        d.note(rule, nmsg("{n} hit spread over {teams} teams: {r} with {more} hits, {rest} "
                          "with {q}", "{n} hits spread over {teams} teams: {r} with {more} "
                          "hits, {rest} with {q}", n=total, teams=teams, r=r, more=q + 1,
                          rest=teams - r, q=q))
    destroyed: Any = 0
    bailed: Any = 0
    first = 1  # the number of the group's first team, counting on from the group before
    for count, k in ((r, q + 1), (teams - r, q)):
        first += max(count, 0)
        if count <= 0 or k <= 0:
            continue
        if k == 1 and (flat or spec.target != "tank"):
            dead, out = resolve_single_hits(d, count, spec)
            destroyed = destroyed + dead
            bailed = bailed + out
            continue
        what = nmsg("team with one hit", "team with {n} hits", n=k)
        # each team named by its number among all the teams and its hits
        names = tuple(nmsg("team {i} with {n} hit", "team {i} with {n} hits", n=k, i=i)
                      for i in range(first - count, first)) if d.explains and teams > 1 else ()
        if not flat:
            res = d.each(count, _out_or_fighting(team_chain(spec, k)), ("out", "fighting"),
                         rule=f"{spec.rule}.team", what=what, names=names)
            destroyed = destroyed + res["out"]
            continue
        res = d.each(count, team_chain(spec, k), LABELS, rule=f"{spec.rule}.team", what=what,
                     names=names)
        destroyed = destroyed + res["destroyed"]
        bailed = bailed + res["bailed_out"]
    return destroyed, bailed


def resolve_one_each(d: Dice, hits: Any, spec: HitSpec) -> tuple[Any, Any]:
    """Each hit is on a different team (a template hits each team once)."""
    return resolve_single_hits(d, hits, spec)
