"""Parameter classes built per game from the data: a parameter exists only where its
game's card has the rule. The typed bases hold what both games share."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Literal

from pydantic import Field, create_model, field_validator, model_validator

from warroom.engine.procedure import Params
from warroom.games.commander.data import Flag, ModSpec

MAX_DICE = 60
ATTACKERS_HELP = ("the attack values of several units firing together at this target, "
                  "comma-separated (3,3,3); the fire modifiers apply to each unit. Instead "
                  "of attacks")


def parse_attackers(text: str) -> tuple[int, ...]:
    """'3,3,3' -> (3, 3, 3): each unit's attack value, 0 to 30, at most 12 units."""
    parts = [x.strip() for x in text.split(",")] if text.strip() else []
    if len(parts) > 12:
        raise ValueError("attackers lists at most 12 units")
    out = []
    for x in parts:
        if not x.isdigit() or int(x) > 30:
            raise ValueError("attackers: each attack value is a whole number from 0 to 30")
        out.append(int(x))
    return tuple(out)


class CommandBase(Params):
    cv: int = Field(8, ge=2, le=12, description="command value of the HQ or officer")


class CallBase(Params):
    cv: int = Field(8, ge=2, le=12, description="command value of the FAO or FAC")

    @model_validator(mode="after")
    def _rockets(self) -> CallBase:
        units = getattr(self, "units", None)
        rockets = getattr(self, "rocket_naval_units", None)
        if units is not None and rockets is not None and rockets > units:
            raise ValueError("rocket_naval_units counts some of the units ordered: it cannot "
                             "be more than units")
        if getattr(self, "rockets", False) and not rockets:
            raise ValueError("rockets=true needs at least one rocket unit among "
                             "rocket_naval_units")
        return self


class OrdersBase(CommandBase):
    orders: int = Field(3, ge=1, le=8,
                        description="successive orders to try on the same unit or group")


class AABase(Params):
    attacks: int = Field(3, ge=0, le=30, description="AA attack dice fired at the aircraft")
    hits_value: int = Field(2, ge=1, le=8, description="the aircraft's hits value")
    aircraft_attack: int = Field(4, ge=0, le=20, description="the aircraft's attack value")


class FireBase(Params):
    attacks: int = Field(3, ge=0, le=MAX_DICE, description=(
        "the attack value of one attacking unit (any modifiers not given below already "
        "added); several units firing together: attackers"))
    attackers: str = Field("", description=ATTACKERS_HELP,
                           examples=["", "3,3,3", "4,2", "5,1,1,1", "2,0"])
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
        if self.attackers.strip():
            if "attacks" in self.model_fields_set or self.attacks_roll != "none":
                raise ValueError("give either attacks (one unit) or attackers (several "
                                 "units), not both")
            if sum(parse_attackers(self.attackers)) > MAX_DICE:
                raise ValueError("attackers: the attack values add up to more than 60")
        return self

    @field_validator("attackers")
    @classmethod
    def _attackers(cls, v: str) -> str:
        parse_attackers(v)
        return v

    def units(self) -> tuple[int, ...]:
        """The attack value of each attacking unit (one unit when attackers is empty)."""
        return parse_attackers(self.attackers) or (self.attacks,)


class AssaultBase(Params):
    attacker_save: int = Field(0, ge=0, le=6, description="attacker's save N (of N+); 0 = none")
    defender_save: int = Field(0, ge=0, le=6, description="defender's save N (of N+); 0 = none")
    attacker_suppressed: bool = Field(False, description="the attacker is suppressed (-1)")
    defender_suppressed: bool = Field(False, description="the defender is suppressed (-1)")
    attacker_flanked: int = Field(0, ge=0, le=3, description=(
        "enemies fighting the attacker from its flank or rear (-1 each)"))
    defender_flanked: int = Field(0, ge=0, le=3, description=(
        "enemies fighting the defender from its flank or rear (-1 each)"))
    attacker_support: int = Field(0, ge=0, le=10, description="units supporting the attacker")
    defender_support: int = Field(0, ge=0, le=10, description="units supporting the defender")
    defender_dug_in: bool = Field(False, description=(
        "the defender is an unlimbered gun, dug-in armour or a unit in fortifications: "
        "eliminated if it loses and must rout"))
    attacker_carries_infantry: bool = Field(False, description=(
        "the attacking armour carries infantry or engineers, so it may assault outside "
        "open terrain (they dismount on contact and take the enemy's hits)"))


def choice(values: Iterable[str]) -> Any:
    """A Literal type of the given names."""
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
    return (choice(names), Field(default, description=description))


def type_field(types: Iterable[str], default: str, description: str) -> Any:
    return (choice(types), Field(default, description=description))


def build(name: str, base: type[Params], fields: dict[str, Any],
          check: Callable[[Any], None] | None = None) -> type[Params]:
    """A frozen, strict parameter class: ``base`` plus the game's own fields, and
    ``check`` (raising ValueError) run on the whole set once it is valid."""
    validators: dict[str, Any] = {}
    if check is not None:
        def _check(self: Any) -> Any:
            check(self)
            return self
        validators["_game_check"] = model_validator(mode="after")(_check)
    model: type[Params] = create_model(name, __base__=base, __validators__=validators,
                                       **fields)
    return model
