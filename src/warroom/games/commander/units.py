"""Blitzkrieg Commander / Cold War Commander unit profiles: attack values (``5``,
``3*`` cannot hit armour, ``2#`` cannot hit soft targets), hits, save, armoured or not,
the unit's type (an HQ with its command value)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from warroom.engine.game import Builder, Takes
from warroom.engine.game import takes as make_takes
from warroom.engine.messages import Msg, msg, nmsg
from warroom.errors import UsageError
from warroom.units.base import Profile, Situation

UnitType = Literal["infantry", "engineers", "afv", "ifv", "artillery", "at_gun", "hq",
                   "recce", "sniper"]
_ATTACK = re.compile(r"^(\d{1,2})\s*([*#]?)$")


def parse_attack(text: str) -> tuple[int, str]:
    """``"3*"`` -> ``(3, "*")``; ``"5"`` -> ``(5, "none")``."""
    m = _ATTACK.match(str(text).strip())
    if not m or int(m.group(1)) > 30:
        raise UsageError("{text!r} is not an attack value: a number 0 to 30, then * "
                         "(cannot hit armour) or # (cannot hit soft targets) if marked",
                         text=text)
    return int(m.group(1)), m.group(2) or "none"


class CommanderUnit(Profile):
    """One BKC/CWC unit (``count`` identical units, e.g. three tanks)."""

    name: str = Field(min_length=1)
    type: UnitType
    count: int = Field(1, ge=1, le=12)
    attack: tuple[str, ...] = ()
    hits: int = Field(ge=1, le=10)
    save: int = Field(0, ge=0, le=6, description="save N+ (0: none)")
    armoured: bool = False
    cv: int | None = Field(None, ge=2, le=12, description="command value (HQs)")

    @field_validator("attack", mode="before")
    @classmethod
    def _attack(cls, v: Any) -> Any:
        items = [v] if isinstance(v, (str, int)) else v
        for a in items:
            parse_attack(str(a))
        return tuple(str(a) for a in items)

    @model_validator(mode="after")
    def _hq(self) -> CommanderUnit:
        if (self.cv is None) != (self.type != "hq"):
            raise UsageError("an HQ has a command value cv; other units have none")
        return self

    def summary(self) -> list[tuple[str, str]]:
        text = (f"{self.count}x {self.type}, attack {' / '.join(self.attack) or '-'}, "
                f"hits {self.hits}, save {f'{self.save}+' if self.save else '-'}"
                f"{', armoured' if self.armoured else ''}"
                f"{f', CV {self.cv}' if self.cv else ''}")
        return [("", text)]


def _value(attacker: CommanderUnit, target: CommanderUnit, own: Situation
           ) -> tuple[int, str, str]:
    """(value, marker, as written) of the attack value ``attacker`` fires at ``target``:
    the first listed without ``*`` against armour, without ``#`` against soft targets;
    ``weapon=N`` (its own situation) picks the Nth."""
    values = [parse_attack(a) for a in attacker.attack]
    pick = own.int("weapon")
    if pick is not None:
        if not 1 <= pick <= len(values):
            raise UsageError("{unit}: weapon={n}, but it has {count} attack values",
                             unit=attacker.name, n=pick, count=len(values))
        index = pick - 1
    else:
        bad = "*" if target.armoured else "#"
        index = next((i for i, (_, m) in enumerate(values) if m != bad), -1)
        if index < 0:
            raise UsageError("{unit} has no attack value that can hit {target}",
                             unit=attacker.name, target=target.name)
    return (*values[index], attacker.attack[index])


def fire_params(attackers: Sequence[tuple[CommanderUnit, Situation]],
                target: CommanderUnit, s: Situation, names: frozenset[str]
                ) -> tuple[dict[str, Any], dict[str, Msg]]:
    """``bkc.fire`` / ``cwc.fire``: each attacking unit's attack value that can hit the
    target (several units, or a unit of ``count`` > 1: combined fire, ``attackers``),
    the target's save, hits and type. ``names`` are the procedure's parameters (the two
    games differ)."""
    out: dict[str, Any] = {}
    src: dict[str, Msg] = {}
    chosen = [(a, own, *_value(a, target, own)) for a, own in attackers]
    markers = {m for _, _, _, m, _ in chosen}
    if len(markers) > 1:  # a * on a soft target or a # on armour changes nothing
        bad = "*" if target.armoured else "#"
        markers = {m if m == bad else "none" for m in markers}
    if len(markers) > 1:
        raise UsageError("combined fire takes the same * or # marking on every attack "
                         "value; {units} differ: fire them one by one",
                         units=", ".join(a.name for a, *_ in chosen))
    marker = markers.pop()
    said = [msg("{unit}, attack {value}", unit=a.name, value=text) if a.count == 1 else
            nmsg("{unit}, attack {value}, {n} unit", "{unit}, attack {value}, {n} units",
                 unit=a.name, value=text, n=a.count)
            for a, _, _, _, text in chosen]
    values = [v for a, _, v, _, _ in chosen for _ in range(a.count)]
    joined = said[0]
    for part in said[1:]:
        joined = msg("{a}; {b}", a=joined, b=part)
    if len(values) > 1:
        out["attackers"], src["attackers"] = ",".join(map(str, values)), joined
    else:
        out["attacks"], src["attacks"] = values[0], joined
    if marker != "none":
        out["attack_marker"], src["attack_marker"] = marker, joined
    if target.armoured:
        out["armoured"], src["armoured"] = True, msg("{unit}, armoured", unit=target.name)
    if target.save:
        out["save"], src["save"] = target.save, msg("{unit}, save", unit=target.name)
    out["hits_value"], src["hits_value"] = target.hits, msg("{unit}, hits", unit=target.name)
    kind = {"hq": "target_hq", "recce": "target_recce", "at_gun": "anti_tank"}
    if target.type == "sniper" and "flamethrower_or_sniper" in names:
        kind["sniper"] = "target_hq"  # CWC: HQs and snipers are hit on 6
    if target.type in kind and kind[target.type] in names:
        out[kind[target.type]] = True
        src[kind[target.type]] = msg("{unit}, type {type}", unit=target.name, type=target.type)
    hits = s.int("hits")
    if hits:
        out["existing_hits"] = hits
        src["existing_hits"] = msg("{unit}: hits marker", unit=target.name)
    if "afv_vs_soft_20" in names and not target.armoured:
        close = [a.armoured and (r := own.int("range_cm")) is not None and r <= 20
                 for a, own, *_ in chosen]
        if all(close):
            first = chosen[0]
            out["afv_vs_soft_20"] = True
            src["afv_vs_soft_20"] = msg("{unit} armoured, {target} soft, {range} cm",
                                        unit=", ".join(a.name for a, *_ in chosen),
                                        target=target.name,
                                        range=first[1].int("range_cm"))
        elif any(close):
            raise UsageError("+1 for armour within 20 cm of a soft target applies to "
                             "every unit of a combined fire; {units} differ: fire them "
                             "one by one", units=", ".join(a.name for a, *_ in chosen))
    return out, src


def _hq(actors: Sequence[tuple[CommanderUnit, Situation]], what: Msg
        ) -> tuple[dict[str, Any], dict[str, Msg]]:
    """The command value of the HQ giving an order or calling support."""
    if not actors:
        raise UsageError("{what} needs the HQ: --from FILE:UNIT", what=what)
    hq, _ = actors[0]
    if hq.cv is None:
        raise UsageError("{unit} is not an HQ: {what} takes the command value of the HQ "
                         "giving it", unit=hq.name, what=what)
    return {"cv": hq.cv}, {"cv": msg("{unit}, command value", unit=hq.name)}


def command_params(actors: Sequence[tuple[CommanderUnit, Situation]], target: Any,
                   s: Situation, names: frozenset[str]
                   ) -> tuple[dict[str, Any], dict[str, Msg]]:
    """``command``, ``orders``, ``artillery_call``, ``air_call``: the HQ's command
    value; the unit ordered (``--at``, optional): ``recce`` when it is a recce unit."""
    del s
    out, src = _hq(actors, msg("an order or a call"))
    if target is not None and target.type == "recce" and "recce" in names:
        out["recce"] = True
        src["recce"] = msg("{unit}, type {type}", unit=target.name, type=target.type)
    return out, src


def _target_side(target: CommanderUnit, s: Situation, names: frozenset[str],
                 out: dict[str, Any], src: dict[str, Msg]) -> None:
    """What the unit hit brings: armoured, save, hits, HQ or recce, its hits and
    suppressed markers."""
    if target.armoured and "armoured" in names:
        out["armoured"], src["armoured"] = True, msg("{unit}, armoured", unit=target.name)
    if target.save:
        out["save"], src["save"] = target.save, msg("{unit}, save", unit=target.name)
    out["hits_value"], src["hits_value"] = target.hits, msg("{unit}, hits", unit=target.name)
    kind = {"hq": "target_hq", "recce": "target_recce"}.get(target.type)
    if kind is not None and kind in names:
        out[kind] = True
        src[kind] = msg("{unit}, type {type}", unit=target.name, type=target.type)
    hits = s.int("hits")
    if hits and "existing_hits" in names:
        out["existing_hits"] = hits
        src["existing_hits"] = msg("{unit}: hits marker", unit=target.name)
    if s.flag("suppressed") and "suppressed" in names:
        out["suppressed"] = True
        src["suppressed"] = msg("{unit}: suppressed marker", unit=target.name)


def air_strike_params(actors: Sequence[tuple[CommanderUnit, Situation]], target: Any,
                      s: Situation, names: frozenset[str]
                      ) -> tuple[dict[str, Any], dict[str, Msg]]:
    """``air_strike``: the calling HQ's command value and the unit struck."""
    out, src = _hq(actors, msg("an air strike"))
    _target_side(target, s, names, out, src)
    return out, src


def crossfire_params(actors: Sequence[tuple[CommanderUnit, Situation]], target: Any,
                     s: Situation, names: frozenset[str]
                     ) -> tuple[dict[str, Any], dict[str, Msg]]:
    """``crossfire``: the save and hits of the unit caught."""
    del actors
    out: dict[str, Any] = {}
    src: dict[str, Msg] = {}
    _target_side(target, s, names, out, src)
    return out, src


SUPPRESSED_SUPPORT = ("none", "counts")
"""Whether a suppressed unit supports an assault (a reading, the situation key
``suppressed_support``): ``none`` (default; the rulebooks' reading: a suppressed unit
gives no support), ``counts`` (it supports like any other: the cards name only HQs,
recce and snipers as units that may not)."""


def assault_builder(values: Sequence[str], armour: str, bars: Sequence[str] = ()
                    ) -> Builder:
    """``assault``: each side's assault type (from its unit type; armoured units
    fight as the game's armour type), its save and its suppressed marker; the acting
    units after the first support the attacker (``attacker_supporting``), the target's
    supporting units (the situation's ``support``) the defender (``defender_supporting``):
    one entry a unit of ``count``, the card's bars (``bars``: HQ, recce, sniper) named so
    the procedure refuses them. Their live state: an eliminated unit gives no support;
    a suppressed one none either by the reading ``suppressed_support=none`` (the
    default), else (``counts``) it supports, with ``:suppressed`` when the support
    reading lets each fight. The situation's ``cover`` (the defender's) and
    ``own_cover`` (the attacker's) give the two sides' cover."""

    def kind(unit: CommanderUnit) -> str:
        if unit.type in values:
            return unit.type
        if unit.armoured or unit.type in ("afv", "ifv"):
            return armour
        return "other"

    def build(actors: Sequence[tuple[CommanderUnit, Situation]], target: Any,
              s: Situation, names: frozenset[str]
              ) -> tuple[dict[str, Any], dict[str, Msg]]:
        del names
        unit, own = actors[0]
        out: dict[str, Any] = {}
        src: dict[str, Msg] = {}
        for role, u, suppressed in (("attacker", unit, own.flag("own_suppressed")),
                                    ("defender", target, s.flag("suppressed"))):
            out[role] = kind(u)
            src[role] = msg("{unit}, type {type}", unit=u.name, type=u.type)
            if u.save:
                out[f"{role}_save"] = u.save
                src[f"{role}_save"] = msg("{unit}, save", unit=u.name)
            if suppressed:
                out[f"{role}_suppressed"] = True
                src[f"{role}_suppressed"] = msg("{unit}: suppressed marker", unit=u.name)
        reading = s.text("suppressed_support") or "none"
        if reading not in SUPPRESSED_SUPPORT:
            raise UsageError("suppressed_support: one of {valid}, not {value!r}",
                             valid=", ".join(SUPPRESSED_SUPPORT), value=reading)

        def supporting(role: str, units: Sequence[tuple[CommanderUnit, Situation]],
                       suppressed_key: str) -> None:
            """``{role}_supporting`` from the supporting units and their live state."""
            entries: list[str] = []
            said: list[Msg] = []
            for u, mine in units:
                if mine.flag("eliminated"):
                    said.append(msg("{unit}: eliminated, gives no support", unit=u.name))
                    continue
                suppressed = mine.flag(suppressed_key)
                if suppressed and reading == "none":
                    said.append(msg("{unit}: suppressed, gives no support "
                                    "(suppressed_support=none)", unit=u.name))
                    continue
                flags: list[str] = [u.type] if u.type in bars else []
                if suppressed and s.text("support_reading") == "each_fights":
                    flags.append("suppressed")
                entries += [":".join([kind(u), *flags])] * u.count
                said.append(msg("{unit}, type {type}", unit=u.name, type=u.type)
                            if u.count == 1 else
                            nmsg("{unit}, type {type}, {n} unit",
                                 "{unit}, type {type}, {n} units",
                                 unit=u.name, type=u.type, n=u.count))
            if said:
                joined = said[0]
                for part in said[1:]:
                    joined = msg("{a}; {b}", a=joined, b=part)
                out[f"{role}_supporting"], src[f"{role}_supporting"] = ",".join(entries), joined

        supporting("attacker", actors[1:], "own_suppressed")
        supporting("defender", s.support, "suppressed")
        for key, role, u in (("cover", "defender", target), ("own_cover", "attacker", unit)):
            cover = s.text(key)
            if cover is not None:
                out[f"{role}_cover"] = cover
                src[f"{role}_cover"] = msg("{unit}: in {cover}", unit=u.name, cover=cover)
        return out, src

    return build


def takes(game: str, assault_types: Sequence[str] = (), armour: str = "armour",
          support_bars: Sequence[str] = ()) -> dict[str, Takes]:
    """How each BKC or CWC procedure takes units (the game object's ``takes``)."""
    fire = make_takes(fire_params, target=True, situation=("weapon", "hits", "range_cm"),
                      several=("weapon", "range_cm"))
    marks = ("hits", "suppressed", "own_suppressed")
    order = make_takes(command_params)
    return {f"{game}.fire": fire, f"{game}.engagement": fire,
            f"{game}.command": order, f"{game}.orders": order,
            f"{game}.artillery_call": order, f"{game}.air_call": order,
            f"{game}.air_strike": make_takes(air_strike_params, target=True,
                                             situation=marks),
            f"{game}.crossfire": make_takes(crossfire_params, actor=False, target=True,
                                            situation=marks),
            f"{game}.assault": make_takes(
                assault_builder(assault_types, armour, support_bars), target=True,
                situation=(*marks, "cover", "own_cover", "suppressed_support"),
                several=("own_suppressed", "eliminated"),
                supported=("suppressed", "eliminated"))}
