"""Parameter classes built per game from the data: a parameter exists only where its
game's card has the rule. The typed bases hold what both games share."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from pydantic import Field, create_model, model_validator

from warroom.engine.procedure import Params
from warroom.games.commander.data import Flag, ModSpec


class CommandBase(Params):
    cv: int = Field(8, ge=2, le=12, description="command value of the HQ or officer")


class CallBase(Params):
    cv: int = Field(8, ge=2, le=12, description="command value of the FAO or FAC")


class OrdersBase(CommandBase):
    orders: int = Field(3, ge=1, le=8,
                        description="successive orders to try on the same unit or group")


class AABase(Params):
    attacks: int = Field(3, ge=0, le=30, description="AA attack dice fired at the aircraft")
    hits_value: int = Field(2, ge=1, le=8, description="the aircraft's hits value")
    aircraft_attack: int = Field(4, ge=0, le=20, description="the aircraft's attack value")


class FireBase(Params):
    attacks: int = Field(3, ge=0, le=30, description="attack dice (the attack value, "
                         "with any modifiers not given below already added)")
    armoured: bool = Field(False, description="the target is armoured")
    indirect: bool = Field(False, description="indirect fire")
    target_hq: bool = Field(False, description="the target is an HQ (always hit on 6)")
    target_recce: bool = Field(False, description="the target is a recce unit")
    attack_marker: Literal["none", "*", "#"] = Field(
        "none", description="attack value marked * (cannot hit armour) or # (cannot hit soft)")
    save: int = Field(0, ge=0, le=6, description="the target's save N (of N+); 0 = none")
    hits_value: int = Field(3, ge=1, le=10, description="the target's hits value")
    existing_hits: int = Field(0, ge=0, le=9, description="hits already on it this turn")
    suppressed: bool = Field(False, description="the target is already suppressed")
    dug_in: bool = Field(False, description=(
        "dug in, or an unlimbered gun: eliminated by a retreat beyond 10 cm, else stays put"))
    attacks_roll: Literal["none", "d6", "2d6"] = Field(
        "none", description="roll the attack value instead of giving it (a blunder that "
        "attacks a unit with a d6 or 2d6 of dice); attacks is then not used")
    hit_on: int = Field(0, ge=0, le=6, description="a fixed hit score N+ where a blunder "
                        "names one (e.g. hit on 4+); 0 = from the target's cover")

    @model_validator(mode="after")
    def _alive(self) -> FireBase:
        if self.existing_hits >= self.hits_value:
            raise ValueError("existing_hits must be below hits_value: with that many hits "
                             "the unit is already destroyed")
        if self.hit_on == 1:
            raise ValueError("hit_on is a score from 2 to 6 (0: from the target's cover)")
        return self


class AssaultBase(Params):
    attacker_save: int = Field(0, ge=0, le=6, description="attacker's save N (of N+); 0 = none")
    defender_save: int = Field(0, ge=0, le=6, description="defender's save N (of N+); 0 = none")
    attacker_suppressed: bool = Field(False, description="the attacker is suppressed (-1)")
    defender_suppressed: bool = Field(False, description="the defender is suppressed (-1)")
    attacker_flanked: int = Field(0, ge=0, le=3, description=(
        "enemies fighting the attacker from its flank or rear (-1 each)"))
    defender_flanked: int = Field(0, ge=0, le=3, description=(
        "enemies fighting the defender from its flank or rear (-1 each)"))
    attacker_support: int = Field(0, ge=0, le=4, description="units supporting the attacker")
    defender_support: int = Field(0, ge=0, le=4, description="units supporting the defender")


def _choice(values: Iterable[str]) -> Any:
    return Literal[tuple(values)]


def spec_fields(specs: Iterable[ModSpec]) -> dict[str, Any]:
    """pydantic field definitions for data-declared parameters."""
    out: dict[str, Any] = {}
    for s in specs:
        if s.kind == "flag":
            out[s.param] = (bool, Field(False, description=s.help))
        else:
            out[s.param] = (int, Field(s.default, ge=s.minimum, le=s.maximum,
                                       description=s.help))
    return out


def flag_fields(flags: Iterable[Flag]) -> dict[str, Any]:
    return {f.param: (bool, Field(False, description=f.help)) for f in flags}


def cover_field(cover: Iterable[str], description: str, default: str = "open") -> Any:
    names = tuple(cover)
    return (_choice(names), Field(default, description=description))


def type_field(types: Iterable[str], default: str, description: str) -> Any:
    return (_choice(types), Field(default, description=description))


def build(name: str, base: type[Params], fields: dict[str, Any]) -> type[Params]:
    """A frozen, strict parameter class: ``base`` plus the game's own fields."""
    model: type[Params] = create_model(name, __base__=base, **fields)
    return model
