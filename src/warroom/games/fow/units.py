"""Flames of War unit profiles: a platoon of teams with their armour and weapons.

A profile is what a player reads off a unit card; :func:`shoot_params` and
:func:`mixed_params` turn two profiles and the situation into the parameters of
``fow.shoot`` and ``fow.shoot_mixed``, saying where each value came from.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from warroom.engine.game import Takes, one_actor
from warroom.engine.game import takes as make_takes
from warroom.engine.messages import Msg, msg
from warroom.errors import UsageError
from warroom.games.fow.common import Motivation, Skill
from warroom.games.fow.special_rules import catalog
from warroom.units.base import Profile, Situation

TeamType = Literal["tank", "infantry", "gun", "soft"]
LONG_RANGE_CM = 40
SITUATION = msg("situation")


class FowWeapon(Profile):
    """One weapon line: range, ROF halted and moving, anti-tank and firepower."""

    name: str = Field(min_length=1)
    range_cm: int = Field(ge=0, le=400)
    rof_halted: int = Field(ge=0, le=10)
    rof_moving: int = Field(ge=0, le=10)
    at: int = Field(ge=0, le=20)
    firepower: int = Field(ge=1, le=6, description="the N of firepower N+")
    no_he: bool = False
    bunker_buster: bool = False
    notes: str = ""


class FowTeam(Profile):
    """Teams of one kind in the platoon (``count`` of them)."""

    type: TeamType
    count: int = Field(1, ge=1, le=20)
    name: str = ""
    front: int = Field(0, ge=0, le=15)
    side: int = Field(0, ge=0, le=15)
    top: int = Field(0, ge=0, le=15)
    weapons: tuple[FowWeapon, ...] = ()

    @model_validator(mode="after")
    def _armour(self) -> FowTeam:
        if self.type != "tank" and (self.front or self.side or self.top):
            raise UsageError("only tanks have armour (front, side, top)")
        return self


class FowPlatoon(Profile):
    """A Flames of War platoon: skill, motivation, special rules and its teams."""

    name: str = Field(min_length=1)
    skill: Skill = "trained"
    motivation: Motivation = "confident"
    rules: tuple[str, ...] = ()
    teams: tuple[FowTeam, ...] = Field(min_length=1)

    @field_validator("rules", mode="before")
    @classmethod
    def _rules(cls, value: Any) -> tuple[str, ...]:
        return catalog.parse_rule_list(value)

    @property
    def team_count(self) -> int:
        return sum(t.count for t in self.teams)

    def summary(self) -> list[tuple[str, str]]:
        """(label, text) rows for ``warroom force show``."""
        rows = [("", f"{self.skill}, {self.motivation}; {self.team_count} teams"
                 + (f"; rules: {', '.join(self.rules)}" if self.rules else ""))]
        for t in self.teams:
            armour = f" armour {t.front}/{t.side}/{t.top}" if t.type == "tank" else ""
            rows.append((f"{t.count}x {t.name or t.type}", f"{t.type}{armour}"))
            for w in t.weapons:
                flags = [f for f, on in (("no HE", w.no_he),
                                         ("bunker buster", w.bunker_buster)) if on]
                rows.append(("", f"{w.name}: {w.range_cm} cm, ROF {w.rof_halted}/"
                             f"{w.rof_moving}, AT {w.at}, FP {w.firepower}+"
                             + (f" ({', '.join(flags)})" if flags else "")))
        return rows


def _weapon(team: FowTeam, name: str | None, unit: str) -> tuple[FowWeapon, bool]:
    """The weapon a team fires (the named one, else its first) and whether it is the
    main gun (the first listed)."""
    if not team.weapons:
        raise UsageError("{unit} has no weapons", unit=unit)
    if name is None:
        return team.weapons[0], True
    for i, w in enumerate(team.weapons):
        if w.name.lower() == name.lower():
            return w, i == 0
    raise UsageError("{unit}: no weapon named {name!r} (it has: {valid})", unit=unit,
                     name=name, valid=", ".join(w.name for w in team.weapons))


def _target_type(target: FowPlatoon) -> FowTeam:
    """The teams shot at: fow.shoot takes one kind, so the platoon's most numerous."""
    return max(target.teams, key=lambda t: t.count)


def shoot_params(attacker: FowPlatoon, target: FowPlatoon, s: Situation
                 ) -> tuple[dict[str, Any], dict[str, Msg]]:
    """``fow.shoot`` parameters: every shooting team fires its chosen weapon (the first
    listed, or ``weapon=``) at the target platoon (``lost=N``: the shooters' teams
    already destroyed; ``destroyed=N``: the target's)."""
    out: dict[str, Any] = {}
    src: dict[str, Msg] = {}
    moved, pinned = s.flag("moved"), s.flag("pinned")
    fired = [(t, *_weapon(t, s.text("weapon"), attacker.name))
             for t in alive_teams(attacker, s.int("lost") or 0) if t.weapons]
    if not fired:
        raise UsageError("{unit} has no weapons", unit=attacker.name)
    _, weapon, main = fired[0]
    same = [f for f in fired if f[1] == weapon]
    rof = 1 if pinned else (weapon.rof_moving if moved else weapon.rof_halted)
    out["dice"] = sum(t.count for t, _, _ in same) * rof
    why = msg("ROF 1, pinned down") if pinned else (
        msg("ROF {rof} moving", rof=rof) if moved else msg("ROF {rof} halted", rof=rof))
    src["dice"] = msg("{unit}: {n} x {weapon}, {why}", unit=attacker.name,
                      n=sum(t.count for t, _, _ in same), weapon=weapon.name, why=why)
    uw = {"unit": attacker.name, "weapon": weapon.name}
    range_cm = s.int("range_cm")
    if range_cm is not None and range_cm > weapon.range_cm:
        raise UsageError("{unit}: {weapon} reaches {max} cm, the target is at {range} cm",
                         unit=attacker.name, weapon=weapon.name, max=weapon.range_cm,
                         range=range_cm)
    tt = _target_type(target)
    if weapon.no_he and tt.type not in ("tank", "soft"):
        raise UsageError("{unit}: {weapon} has no HE and can only hit vehicles",
                         unit=attacker.name, weapon=weapon.name)
    out["at"], src["at"] = weapon.at, msg("{unit}, {weapon} AT", **uw)
    out["firepower"] = weapon.firepower
    src["firepower"] = msg("{unit}, {weapon} firepower", **uw)
    if weapon.bunker_buster:
        out["bunker_buster"] = True
        src["bunker_buster"] = msg("{unit}, {weapon} bunker buster", **uw)
    out["main_gun"], src["main_gun"] = main, (
        msg("{unit}, {weapon} (the first weapon listed)", **uw) if main
        else msg("{unit}, {weapon} (not the first weapon listed)", **uw))
    if moved and rof == 1 and not pinned:
        out["moving_rof1"] = True
        src["moving_rof1"] = msg("{unit}, {weapon} ROF 1 moving", **uw)
    if pinned:
        out["pinned_rof1"] = True
        src["pinned_rof1"] = msg("{unit}: pinned down", unit=attacker.name)
    if attacker.rules:
        out["rules"] = ",".join(attacker.rules)
        src["rules"] = msg("{unit}, special rules", unit=attacker.name)
    out["target_skill"] = target.skill
    src["target_skill"] = msg("{unit}, skill", unit=target.name)
    out["target"], src["target"] = tt.type, msg("{unit}, team type", unit=target.name)
    out["teams"] = sum(1 for t in _left(target, s) if t.type == tt.type)
    if not out["teams"]:
        raise UsageError("{unit}: all its teams are destroyed", unit=target.name)
    src["teams"] = msg("{unit}, {kind} teams", unit=target.name, kind=tt.type)
    if tt.type == "tank":
        aspect = s.text("aspect") or "front"
        if aspect not in ("front", "side"):
            raise UsageError("aspect for direct fire is front or side, got {value!r}",
                             value=aspect)
        out["armour"] = tt.front if aspect == "front" else tt.side
        src["armour"] = (msg("{unit}, front armour", unit=target.name) if aspect == "front"
                         else msg("{unit}, side armour", unit=target.name))
    if target.rules:
        out["target_rules"] = ",".join(target.rules)
        src["target_rules"] = msg("{unit}, special rules", unit=target.name)
    for marker in ("gone_to_ground", "concealed"):
        if s.flag(marker):
            out[marker], src[marker] = True, SITUATION
    return out, src


def alive_teams(platoon: FowPlatoon, lost: int) -> tuple[FowTeam, ...]:
    """The platoon's teams without the ``lost`` already destroyed (taken off the end of
    the list, the order of the force file)."""
    left = platoon.team_count - max(0, lost)
    if left <= 0:
        raise UsageError("{unit}: all its teams are destroyed", unit=platoon.name)
    out: list[FowTeam] = []
    for t in platoon.teams:
        n = min(t.count, left)
        left -= n
        if n:
            out.append(t if n == t.count else t.model_copy(update={"count": n}))
    return tuple(out)


def _left(target: FowPlatoon, s: Situation) -> list[FowTeam]:
    """The target's teams one by one, without the ``destroyed=N`` already destroyed."""
    return [t for t in alive_teams(target, s.int("destroyed") or 0) for _ in range(t.count)]


def mixed_params(attackers: Sequence[tuple[FowPlatoon, Situation]], target: FowPlatoon,
                 s: Situation) -> tuple[dict[str, Any], dict[str, Msg]]:
    """``fow.shoot_mixed`` parameters: one weapons entry per kind of shooting team of
    every shooting platoon, each with its own to-hit flags (``far`` over 40 cm,
    ``moved``, ``rof1``, ``pinned``, ``bb``: from that platoon's own situation); one
    teams entry per target team (armour of the aspect hit)."""
    weapons: list[str] = []
    said: list[Msg] = []
    all_moved = True
    for attacker, own in attackers:
        moved, pinned = own.flag("moved"), own.flag("pinned")
        all_moved = all_moved and moved
        range_cm = own.int("range_cm")
        far = range_cm is not None and range_cm > LONG_RANGE_CM
        parts: list[str] = []
        for t in alive_teams(attacker, own.int("lost") or 0):
            if not t.weapons:
                continue
            w, _ = _weapon(t, own.text("weapon"), attacker.name)
            if range_cm is not None and range_cm > w.range_cm:
                continue  # out of range: that team does not shoot
            rof = 1 if pinned else (w.rof_moving if moved else w.rof_halted)
            flags = [f for f, on in (("bb", w.bunker_buster), ("far", far),
                                     ("moved", moved),
                                     ("rof1", moved and rof == 1 and not pinned),
                                     ("pinned", pinned)) if on]
            weapons.append(":".join([str(t.count * rof), str(w.at), str(w.firepower),
                                     *flags]))
            parts.append(f"{t.count} x {w.name} ROF {rof}")
        if not parts:
            raise UsageError("{unit}: no weapon reaches {range} cm", unit=attacker.name,
                             range=range_cm)
        said.append(msg("{unit}: {weapons}", unit=attacker.name, weapons=", ".join(parts)))
    aspect = s.text("aspect") or "front"
    if aspect not in ("front", "side"):
        raise UsageError("aspect for direct fire is front or side, got {value!r}",
                         value=aspect)
    teams: list[str] = []
    gtg, out_n = s.flag("gone_to_ground"), s.int("bailed_out") or 0
    for t in _left(target, s):
        item: list[str] = [t.type]
        if t.type == "tank":
            item.append(str(t.front if aspect == "front" else t.side))
            if out_n > 0:
                item.append("out")
                out_n -= 1
        if gtg:
            item.append("gtg")
        teams.append(":".join(item))
    out: dict[str, Any] = {"weapons": ",".join(weapons), "teams": ",".join(teams),
                           "target_skill": target.skill, "aspect": aspect}
    joined = said[0]
    for part in said[1:]:
        joined = msg("{a}; {b}", a=joined, b=part)
    armour = any(t.type == "tank" for t in target.teams)  # only tanks have an armour
    src = {"weapons": joined,
           "teams": (msg("{unit}: its teams", unit=target.name) if not armour else
                     msg("{unit}: its teams, front armour", unit=target.name)
                     if aspect == "front" else
                     msg("{unit}: its teams, side armour", unit=target.name)),
           "target_skill": msg("{unit}, skill", unit=target.name), "aspect": SITUATION}
    if all_moved:
        out["moved"], src["moved"] = True, SITUATION
    rules = sorted({r for a, _ in attackers for r in a.rules})
    if rules:
        out["rules"] = ",".join(rules)
        src["rules"] = msg("{unit}, special rules",
                           unit=", ".join(a.name for a, _ in attackers if a.rules))
    if target.rules:
        out["target_rules"] = ",".join(target.rules)
        src["target_rules"] = msg("{unit}, special rules", unit=target.name)
    if s.flag("concealed"):
        out["concealed"], src["concealed"] = True, SITUATION
    return out, src


def _mixed(actors: Sequence[tuple[Any, Situation]], target: Any, s: Situation,
           names: frozenset[str]) -> tuple[dict[str, Any], dict[str, Msg]]:
    del names
    return mixed_params(actors, target, s)


def takes() -> dict[str, Takes]:
    """How the FoW shooting procedures take units; the game object's ``takes`` joins
    them to the rest (:func:`warroom.games.fow.builders.takes`)."""
    return {
        "fow.shoot": make_takes(one_actor(shoot_params), target=True,
                                situation=("weapon", "pinned", "destroyed", "lost")),
        "fow.shoot_mixed": make_takes(
            _mixed, target=True,
            situation=("weapon", "pinned", "range_cm", "gone_to_ground", "bailed_out",
                       "destroyed", "lost"),
            several=("weapon", "pinned", "range_cm", "moved", "lost")),
    }
