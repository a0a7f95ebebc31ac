"""Flames of War builders beyond shooting: the parameters of the assault, the tests
(skill, motivation, rallying, remounting, bogging), platoon and company morale,
artillery, air support, passengers and engagements, taken from the platoons' profiles
and their live state, saying where each value came from.

Live state (from a battle's markers, or given as situation keys): ``lost`` (the acting
platoon's teams already destroyed), ``destroyed`` (the target's), ``bailed_out``
(the target's bailed-out tanks), ``pinned`` (the acting platoon), ``target_pinned``,
``own_bailed_out`` (the acting platoon's bailed-out tanks). Destroyed teams are taken
off the end of the platoon's list; bailed-out tanks neither fight nor count as in good
order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from warroom.engine.game import Actor, Builder, Built, Situation, Takes
from warroom.engine.game import takes as make_takes
from warroom.engine.messages import Msg, msg
from warroom.errors import UsageError
from warroom.games.fow.units import FowPlatoon, FowTeam, FowWeapon, alive_teams

MAX_WEAPON_LINES = 6
"""Weapon lines fow.shoot_mixed takes (its MAX_WEAPONS): past them, the one line with
the most dice."""
INFANTRY_AT, INFANTRY_FP = 2, 1
"""Infantry and gun teams against tanks in an assault: AT 2, firepower 1+ (FoW
reference card, assault; the procedure's defaults)."""


def _only(actors: Sequence[Actor], procedure: str | Msg) -> tuple[FowPlatoon, Situation]:
    if not actors:
        raise UsageError("{proc} needs the acting unit: --from FILE:UNIT", proc=procedure)
    unit, own = actors[0]
    return unit, own


def _fighting(unit: FowPlatoon, lost: int, bailed: int) -> list[FowTeam]:
    """The platoon's teams that can fight, one by one: not destroyed (``lost``, off the
    end of the list), and the first ``bailed`` tanks bailed out left out."""
    out: list[FowTeam] = []
    for t in alive_teams(unit, lost):
        for _ in range(t.count):
            if t.type == "tank" and bailed > 0:
                bailed -= 1
                continue
            out.append(t)
    return out


def _live(unit: FowPlatoon, lost: int, bailed: int) -> Msg:
    """Where a platoon's fighting teams came from: its teams, less the lost and
    bailed-out ones."""
    if lost and bailed:
        return msg("{unit}: its teams, {lost} destroyed, {bailed} bailed out",
                   unit=unit.name, lost=lost, bailed=bailed)
    if lost:
        return msg("{unit}: its teams, {lost} destroyed", unit=unit.name, lost=lost)
    if bailed:
        return msg("{unit}: its teams, {bailed} bailed out", unit=unit.name, bailed=bailed)
    return msg("{unit}: its teams", unit=unit.name)


def _kind(teams: Sequence[FowTeam], unit: FowPlatoon) -> str:
    """An assaulting or defending side fights as tanks when most of its teams are
    tanks, else as infantry (guns and soft vehicles fight as infantry do)."""
    if not teams:
        raise UsageError("{unit}: no team left to fight", unit=unit.name)
    tanks = sum(1 for t in teams if t.type == "tank")
    return "tank" if 2 * tanks > len(teams) else "infantry"


def _main(team: FowTeam) -> FowWeapon | None:
    return team.weapons[0] if team.weapons else None


def _side(unit: FowPlatoon, teams: list[FowTeam], role: str, live: Msg,
          out: dict[str, Any], src: dict[str, Msg]) -> str:
    """One side's teams, type, ratings, top armour and anti-tank in the assault."""
    kind = _kind(teams, unit)
    fighting = [t for t in teams if (t.type == "tank") == (kind == "tank")]
    out[f"{role}s"], src[f"{role}s"] = min(16, len(fighting)), live
    out[f"{role}_type"] = kind
    src[f"{role}_type"] = msg("{unit}, team type", unit=unit.name)
    out[f"{role}_skill"], src[f"{role}_skill"] = unit.skill, msg("{unit}, skill",
                                                                   unit=unit.name)
    out[f"{role}_motivation"] = unit.motivation
    src[f"{role}_motivation"] = msg("{unit}, motivation", unit=unit.name)
    if kind == "tank":
        first = fighting[0]
        out[f"{role}_top_armour"] = first.top
        src[f"{role}_top_armour"] = msg("{unit}, top armour", unit=unit.name)
        if role == "attacker":
            out["attacker_armour"] = first.side
            src["attacker_armour"] = msg("{unit}, side armour", unit=unit.name)
        weapon = _main(first)
        if weapon is not None:
            out[f"{role}_at"], out[f"{role}_firepower"] = weapon.at, weapon.firepower
            why = msg("{unit}, {weapon} (main gun; a reading: tanks fight tanks in an "
                      "assault with their main gun)", unit=unit.name, weapon=weapon.name)
            src[f"{role}_at"] = src[f"{role}_firepower"] = why
    else:
        out[f"{role}_at"], out[f"{role}_firepower"] = INFANTRY_AT, INFANTRY_FP
        src[f"{role}_at"] = src[f"{role}_firepower"] = msg(
            "{unit}: infantry and guns hit tanks in an assault with AT 2, firepower 1+",
            unit=unit.name)
    return kind


def assault_params(actors: Sequence[Actor], target: Any, s: Situation,
                   names: frozenset[str]) -> Built:
    """``fow.assault``: both sides' teams that can fight (destroyed and bailed-out ones
    left out), their type, ratings, top armour and anti-tank against tanks; the
    defenders' defensive fire (every fighting team's main weapon at full ROF, ROF 1
    when the defenders are pinned down)."""
    del names
    unit, own = _only(actors, "fow.assault")
    out: dict[str, Any] = {}
    src: dict[str, Msg] = {}
    lost, own_out = own.int("lost") or 0, own.int("own_bailed_out") or 0
    attackers = _fighting(unit, lost, own_out)
    _side(unit, attackers, "attacker", _live(unit, lost, own_out), out, src)
    dead, bailed = s.int("destroyed") or 0, s.int("bailed_out") or 0
    defenders = _fighting(target, dead, bailed)
    _side(target, defenders, "defender", _live(target, dead, bailed), out, src)
    pinned = s.flag("target_pinned")
    lines: dict[tuple[int, int], tuple[int, str]] = {}
    for t in defenders:
        weapon = _main(t)
        if weapon is None:
            continue
        rof = 1 if pinned else weapon.rof_halted
        dice, _ = lines.get((weapon.at, weapon.firepower), (0, weapon.name))
        lines[weapon.at, weapon.firepower] = (dice + rof, weapon.name)
    why = (msg("{unit}: every fighting team's main weapon, ROF 1 (pinned down)",
               unit=target.name) if pinned else
           msg("{unit}: every fighting team's main weapon at full ROF", unit=target.name))
    if 1 < len(lines) <= MAX_WEAPON_LINES and "automatic_rifles" not in target.rules:
        # several weapon lines: each with its own AT and firepower (fow.shoot_mixed's
        # fire), allocated over every charging team when they are of several kinds
        out["defensive_weapons"] = ",".join(f"{min(30, dice)}:{at}:{fp}" for (at, fp), (
            dice, _) in lines.items())
        src["defensive_weapons"] = why if pinned else msg(
            "{unit}: every fighting team's main weapon, each with its own AT and firepower",
            unit=target.name)
        if len({t.type for t in attackers}) > 1 and len(attackers) <= 16:
            out["attacker_teams"] = ",".join(
                f"tank:{t.side}" if t.type == "tank" else t.type for t in attackers)
            out["attackers"] = len(attackers)
            src["attacker_teams"] = src["attackers"] = msg(
                "{unit}: every team that can fight, side armour for tanks", unit=unit.name)
    elif lines:  # one line (or more than fow.shoot_mixed takes: the one with most dice)
        out["defensive_dice"] = min(30, sum(d for d, _ in lines.values()))
        (at, fp), (_, name) = max(lines.items(), key=lambda kv: kv[1][0])
        out["defensive_at"], out["defensive_firepower"] = at, fp
        src["defensive_dice"] = why
        weapon_said = msg("{unit}, {weapon}", unit=target.name, weapon=name)
        if len(lines) > 1:
            weapon_said = msg("{unit}, {weapon} (the weapon with the most dice; the "
                              "procedure takes one weapon line)", unit=target.name,
                              weapon=name)
        src["defensive_at"] = src["defensive_firepower"] = weapon_said
    _rules(unit, target, out, src)
    return out, src


def _rules(unit: FowPlatoon, target: FowPlatoon | None, out: dict[str, Any],
           src: dict[str, Msg]) -> None:
    if unit.rules:
        out["rules"] = ",".join(unit.rules)
        src["rules"] = msg("{unit}, special rules", unit=unit.name)
    if target is not None and target.rules:
        out["target_rules"] = ",".join(target.rules)
        src["target_rules"] = msg("{unit}, special rules", unit=target.name)


def test_params(actors: Sequence[Actor], target: Any, s: Situation,
                names: frozenset[str]) -> Built:
    """``fow.test``: the rating of the kind of test asked (``kind=skill`` by default,
    or ``motivation``) from the platoon; a firepower test has no rating of the unit."""
    del target, names
    unit, _ = _only(actors, "fow.test")
    kind = s.text("kind") or "skill"
    out: dict[str, Any] = {}
    src: dict[str, Msg] = {}
    if kind == "skill":
        out["rating"], src["rating"] = unit.skill, msg("{unit}, skill", unit=unit.name)
    elif kind == "motivation":
        out["rating"] = unit.motivation
        src["rating"] = msg("{unit}, motivation", unit=unit.name)
    _rules(unit, None, out, src)
    return out, src


def _rating(field: str, what: Msg) -> Builder:
    """A builder giving one rating of the acting platoon (``motivation``, ``skill``)."""
    def build(actors: Sequence[Actor], target: Any, s: Situation,
              names: frozenset[str]) -> Built:
        del target, s, names
        unit, _ = _only(actors, what)
        out: dict[str, Any] = {field: getattr(unit, field)}
        src: dict[str, Msg] = {field: msg("{unit}, skill", unit=unit.name)
                               if field == "skill" else
                               msg("{unit}, motivation", unit=unit.name)}
        _rules(unit, None, out, src)
        return out, src

    return build


motivation_params = _rating("motivation", msg("a motivation test"))
"""``fow.unpin``, ``fow.remount``, ``fow.passengers``: the platoon's motivation."""
skill_params = _rating("skill", msg("a skill test"))
"""``fow.unbog``, ``fow.bogging``: the crew's skill (the platoon's)."""


def morale_params(actors: Sequence[Actor], target: Any, s: Situation,
                  names: frozenset[str]) -> Built:
    """``fow.morale``. One platoon: platoon morale, its teams at the start and those
    still in good order (not destroyed, ``lost``; not bailed out, ``own_bailed_out``).
    Several platoons: company morale, the company's platoons and those with teams
    left; the motivation of the first (the company's)."""
    del target, names
    if not actors:
        raise UsageError("{proc} needs the acting unit: --from FILE:UNIT", proc="fow.morale")
    first, _ = actors[0]
    out: dict[str, Any] = {"motivation": first.motivation}
    src: dict[str, Msg] = {"motivation": msg("{unit}, motivation", unit=first.name)}
    kind = s.text("kind") or ("company" if len(actors) > 1 else "platoon")
    out["kind"] = kind
    if kind == "platoon":
        if len(actors) > 1:
            raise UsageError("platoon morale is one platoon's: give one unit")
        _, own = actors[0]
        lost, bailed = own.int("lost") or 0, own.int("own_bailed_out") or 0
        out["start"] = min(60, first.team_count)
        src["start"] = msg("{unit}: its teams", unit=first.name)
        left = first.team_count - lost
        left = len(_fighting(first, lost, bailed)) if left > 0 else 0
        out["left"] = left
        src["left"] = _live(first, lost, bailed)
        src["kind"] = msg("one platoon: platoon morale")
    else:
        out["start"] = len(actors)
        src["start"] = msg("the company's platoons: {units}",
                           units=", ".join(a.name for a, _ in actors))
        out["left"] = sum(1 for a, own in actors if (own.int("lost") or 0) < a.team_count)
        src["left"] = msg("its platoons with teams left")
        src["kind"] = msg("several platoons: company morale")
    _rules(first, None, out, src)
    return out, src


def _target_teams(target: FowPlatoon, s: Situation, out: dict[str, Any],
                  src: dict[str, Msg], top: bool) -> None:
    """The target platoon's teams left, its most numerous kind, skill and armour
    (``top``: top armour, as bombardments and aircraft hit it; else front)."""
    dead = s.int("destroyed") or 0
    left = alive_teams(target, dead)
    kind = max(left, key=lambda t: t.count)
    out["teams"] = sum(t.count for t in left if t.type == kind.type)
    src["teams"] = msg("{unit}, {kind} teams", unit=target.name, kind=kind.type)
    out["target"], src["target"] = kind.type, msg("{unit}, team type", unit=target.name)
    out["target_skill"] = target.skill
    src["target_skill"] = msg("{unit}, skill", unit=target.name)
    if kind.type == "tank":
        out["armour"] = kind.top if top else kind.front
        src["armour"] = (msg("{unit}, top armour", unit=target.name) if top
                         else msg("{unit}, front armour", unit=target.name))
    for marker in ("gone_to_ground", "concealed"):
        if s.flag(marker):
            out[marker] = True
            src[marker] = msg("situation")


def artillery_params(actors: Sequence[Actor], target: Any, s: Situation,
                     names: frozenset[str]) -> Built:
    """``fow.artillery``: the battery's guns (teams left), their weapon's anti-tank and
    firepower, its skill; the target's teams, type, skill and top armour."""
    del names
    unit, own = _only(actors, "fow.artillery")
    lost = own.int("lost") or 0
    guns = [t for t in _fighting(unit, lost, 0) if _main(t) is not None]
    if not guns:
        raise UsageError("{unit} has no weapons", unit=unit.name)
    weapon = _main(guns[0])
    assert weapon is not None
    out: dict[str, Any] = {"guns": len(guns), "at": weapon.at,
                           "firepower": weapon.firepower, "battery_skill": unit.skill}
    src: dict[str, Msg] = {"guns": _live(unit, lost, 0),
                           "at": msg("{unit}, {weapon} AT", unit=unit.name,
                                     weapon=weapon.name),
                           "firepower": msg("{unit}, {weapon} firepower", unit=unit.name,
                                            weapon=weapon.name),
                           "battery_skill": msg("{unit}, skill", unit=unit.name)}
    _target_teams(target, s, out, src, top=True)
    _rules(unit, target, out, src)
    return out, src


def air_params(actors: Sequence[Actor], target: Any, s: Situation,
               names: frozenset[str]) -> Built:
    """``fow.air``: the target's teams, type, skill and top armour (the aircraft are
    the support's, not a unit's)."""
    del actors, names
    out: dict[str, Any] = {}
    src: dict[str, Msg] = {}
    _target_teams(target, s, out, src, top=True)
    if target.rules:
        out["target_rules"] = ",".join(target.rules)
        src["target_rules"] = msg("{unit}, special rules", unit=target.name)
    return out, src


def engagement_params(actors: Sequence[Actor], target: Any, s: Situation,
                      names: frozenset[str]) -> Built:
    """``fow.engagement``: what ``fow.shoot`` takes, and the target's teams at the
    start and its motivation (its morale checks)."""
    del names
    from warroom.games.fow.units import shoot_params

    unit, own = _only(actors, "fow.engagement")
    out, src = shoot_params(unit, target, own)
    out["start_teams"] = target.team_count
    src["start_teams"] = msg("{unit}: its teams", unit=target.name)
    out["motivation"] = target.motivation
    src["motivation"] = msg("{unit}, motivation", unit=target.name)
    del s
    return out, src


LIVE = ("lost", "own_bailed_out", "pinned")
TARGET_LIVE = ("destroyed", "bailed_out", "target_pinned", "gone_to_ground", "concealed")


def takes() -> dict[str, Takes]:
    """How the FoW procedures beyond shooting take units."""
    return {
        "fow.assault": make_takes(assault_params, target=True,
                                  situation=(*LIVE, *TARGET_LIVE)),
        "fow.test": make_takes(test_params, situation=LIVE),
        "fow.unpin": make_takes(motivation_params, situation=LIVE),
        "fow.remount": make_takes(motivation_params, situation=LIVE),
        "fow.passengers": make_takes(motivation_params, situation=LIVE),
        "fow.unbog": make_takes(skill_params, situation=LIVE),
        "fow.bogging": make_takes(skill_params, situation=LIVE),
        "fow.morale": make_takes(morale_params, situation=LIVE,
                                 several=("lost", "own_bailed_out")),
        "fow.artillery": make_takes(artillery_params, target=True,
                                    situation=(*LIVE, *TARGET_LIVE)),
        "fow.air": make_takes(air_params, actor=False, target=True,
                              situation=TARGET_LIVE),
        "fow.engagement": make_takes(engagement_params, target=True,
                                     situation=("weapon", *LIVE, *TARGET_LIVE)),
    }
