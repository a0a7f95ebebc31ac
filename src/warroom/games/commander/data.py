"""The data of one Commander rule set (``bkc.toml`` or ``cwc.toml``), validated.

Everything that differs between Blitzkrieg Commander and Cold War Commander lives in
the TOML files; the procedures in :mod:`warroom.games.commander.core` read it from here.
"""

from __future__ import annotations

import tomllib
from functools import cache
from importlib import resources
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ModSpec(_Model):
    """One parameter of a test and what it does to the target (or dice) number.

    ``flag``: ``value`` when true. ``count``: ``value`` for every ``per`` beyond ``free``
    (rounded down, or up for "each started group"), nothing when an ``exempt_by`` flag
    is set. Flags sharing a ``group`` count once. ``value = 0`` only declares a
    parameter that another step (deviation) reads.
    """

    param: str
    kind: Literal["flag", "count"]
    value: int = 0
    free: int = 0
    per: int = Field(1, ge=1)
    round: Literal["down", "up"] = "down"
    minimum: int = 0
    maximum: int = 10
    default: int = 0
    exempt_by: tuple[str, ...] = ()
    group: str = ""
    per_order: bool = False
    label: str
    help: str

    def amount(self, values: dict[str, Any]) -> int:
        raw = values[self.param]
        if self.kind == "flag":
            return self.value if raw else 0
        if any(values.get(name) for name in self.exempt_by):
            return 0
        extra = max(0, int(raw) - self.free)
        steps = -(-extra // self.per) if self.round == "up" else extra // self.per
        return self.value * steps


class Deviation(_Model):
    method: Literal["fixed", "per_distance"]
    dice: int = 3
    double_if: str = ""
    distance_param: str = ""
    per_cm: int = 20
    extra_die_if: str = ""
    fewer_die_if: str = ""
    on_bonus: Literal["halve", "none"]


class Call(_Model):
    """A command test: an order, an FAO's or an FAC's call."""

    blunder_table: str
    bonus: str
    area: str = ""
    modifiers: tuple[ModSpec, ...]
    deviation: Deviation | None = None


class BlunderEntry(_Model):
    faces: tuple[int, ...]
    title: str
    text: str


class DamageEntry(_Model):
    faces: tuple[int, ...]
    key: str
    text: str


class Flag(_Model):
    param: str
    help: str


class Fire(_Model):
    cover: dict[str, int]
    recce_cover_shift: int = 0
    hq_score: int = 6
    hq_help: str = "the target is an HQ (always hit on 6)"
    indirect_full_armour: int = 6
    indirect_open_topped: int = 5
    suppressive_score: int | None = None
    flamer_score: int | None = None
    armoured_save_worse: tuple[str, ...] = ()
    damage_threshold: int = 0
    damage: tuple[DamageEntry, ...] = ()
    retreat_limit_cm: int = 10
    flags: tuple[Flag, ...] = ()
    modifiers: tuple[ModSpec, ...] = ()

    @model_validator(mode="after")
    def _damage_faces(self) -> Fire:
        if self.damage:
            _check_faces([e.faces for e in self.damage], "fire.damage")
        return self


class AA(_Model):
    hit_score: int
    abort_score: int
    who: str


class Assault(_Model):
    values: dict[str, int]
    default_attacker: str
    default_defender: str
    armour_types: tuple[str, ...]
    anti_armour_types: tuple[str, ...]
    # "open_afv": only against an open AFV, a reading the player can switch
    anti_armour_needs: Literal["none", "open_afv"] = "none"
    open_cover: str = "open"
    rout_cover: tuple[str, ...] = ()
    support: Literal["extra_hit", "attack_die"]
    # flags naming units that may not support (CWC: HQs, recce, snipers, beyond 10 cm,
    # out of sight): given, they are usage errors
    support_bars: tuple[str, ...] = ()
    draw: Literal["fall_back_3d6", "another_round"]
    double_eliminates: bool
    loser_retreat: Literal["difference", "unstated"]
    rout_limit_cm: int = 10
    modifiers: tuple[ModSpec, ...] = ()


class Crossfire(_Model):
    """The command blunder that attacks the three units nearest the HQ."""

    attacks_roll: Literal["none", "2d6"] = "none"
    attacks: int = 0
    acted_skips_suppression: bool = False
    targets_help: str
    note: str


class Strike(_Model):
    """The air strike chain: what the card says of an attack on one chosen target."""

    one_target_help: str
    note: str


class Rules(_Model):
    id: str
    title: str
    description: str
    source: str
    command: Call
    artillery: Call
    air: Call
    aa: AA
    fire: Fire
    assault: Assault
    crossfire: Crossfire
    strike: Strike
    blunders: dict[str, tuple[BlunderEntry, ...]]
    tables: dict[str, Any]

    @model_validator(mode="after")
    def _check(self) -> Rules:
        for name, entries in self.blunders.items():
            _check_faces([e.faces for e in entries], f"blunders.{name}")
        for call in (self.command, self.artillery, self.air):
            if call.blunder_table not in self.blunders:
                raise ValueError(f"no blunder table {call.blunder_table!r}")
        return self

    def __hash__(self) -> int:  # one rule set per game id: procedures memoise on it
        return hash(self.id)

    def blunder(self, table: str, face: int) -> BlunderEntry:
        return next(e for e in self.blunders[table] if face in e.faces)


def _check_faces(groups: list[tuple[int, ...]], where: str) -> None:
    faces = sorted(f for g in groups for f in g)
    if faces != [1, 2, 3, 4, 5, 6]:
        raise ValueError(f"{where} must cover faces 1-6 exactly once, got {faces}")


@cache
def load(game: str) -> Rules:
    """The validated rule data of ``bkc`` or ``cwc``."""
    text = resources.files(__package__).joinpath(f"{game}.toml").read_text(encoding="utf-8")
    return Rules.model_validate(tomllib.loads(text))
