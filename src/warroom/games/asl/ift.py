"""asl.ift: one attack on the Infantry Fire Table."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from math import ceil
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from warroom.engine.context import Dice
from warroom.engine.messages import Msg, msg, nmsg
from warroom.engine.procedure import OutcomeField, Params, outcome, procedure
from warroom.errors import UsageError
from warroom.games.asl import tables as T

Terrain = Literal["open", "road", "grain", "orchard", "woods", "wooden_building",
                  "stone_building"]


class IftParams(Params):
    fp: Fraction | None = Field(
        Fraction(8), ge=0, le=200,
        description="firepower of the attack before modifications; fractions allowed "
                    "(3.5 or 7/2). Give fp or gun_mm, not both (default 8 when neither)",
        examples=[1, 2, 3.5, 4, 8, 12, 20, 36, 40, None])
    gun_mm: int | None = Field(
        None, ge=1, le=600,
        description="gun calibre in mm: fires on the column under that calibre in the "
                    "IFT header (in between: the lower one). Instead of fp")
    drm: int = Field(0, ge=-10, le=10,
                     description="total DRM, or any DRM not covered by the parts below "
                                 "(added to them)")
    terrain: Terrain | None = Field(None, description="the target's terrain, for its TEM")
    tem: int | None = Field(None, ge=-1, le=5,
                            description="the target's TEM as a number, instead of terrain")
    hindrance: int = Field(0, ge=0, le=6, description="hindrance hexes: +1 each")
    ffmo: bool = Field(False, description="First Fire vs a unit moving in open ground: -1 "
                                          "(not with hindrance or positive TEM)")
    ffnam: bool = Field(False, description="First Fire vs non-assault movement: -1")
    leader_drm: int = Field(0, ge=-3, le=1,
                            description="leadership DRM of the leader directing the fire")
    ft_carried: int = Field(0, ge=0, le=3,
                            description="flamethrowers carried by the target: -1 each")
    area_fire: int = Field(0, ge=0, le=4,
                           description="how many area-fire halvings apply (pinned firer, "
                                       "AFPh, long range, a firer already marked First "
                                       "Fire or in Final Fire): x1/2 each")
    pbf: bool = Field(False, description="point-blank fire at an adjacent target: FP x2")
    assault_fire: int = Field(0, ge=0, le=10, description="assault-fire units firing in "
                              "the AFPh (not at long range), fp being theirs in equal shares "
                              "(fp=6 for two 3-4-7): each unit's share rounded up, then +1 "
                              "(A7.36; true means one). Units of different FP: asl.fire_group")
    leader_directed: bool = Field(False, description="a leader directs the fire (no "
                                                     "cowering)")
    inexperienced: bool = Field(False, description="inexperienced firer: cowers two "
                                                   "columns")

    @field_validator("assault_fire", mode="before")
    @classmethod
    def _yes_means_one(cls, v: Any) -> Any:
        if isinstance(v, bool):
            return int(v)
        if isinstance(v, str) and v.strip().lower() in ("true", "yes"):
            return 1
        if isinstance(v, str) and v.strip().lower() in ("false", "no"):
            return 0
        return v

    @model_validator(mode="before")
    @classmethod
    def _gun_instead_of_fp(cls, data: Any) -> Any:
        # a gun calibre stands in for fp; with neither, fp takes its default (8)
        if isinstance(data, dict) and "fp" not in data and data.get("gun_mm") is not None:
            return {**data, "fp": None}
        return data

    @model_validator(mode="after")
    def _check(self) -> IftParams:
        if (self.fp is None) == (self.gun_mm is None):
            raise ValueError("give exactly one of fp (firepower) or gun_mm (gun calibre)")
        if (self.terrain is not None and self.tem is not None
                and self.tem != T.TERRAIN_TEM[self.terrain]):
            raise UsageError("terrain {terrain} has TEM {own:+d} but tem={tem}: give one of them",
                             terrain=self.terrain, own=T.TERRAIN_TEM[self.terrain],
                             tem=self.tem)
        return self


RESULT_FIELD = OutcomeField("result", "str", "the IFT result", T.IFT_RESULTS)


@dataclass(frozen=True, slots=True)
class Plan:
    """Everything about an attack that does not depend on the dice."""

    column: int
    fp_notes: tuple[Msg, ...]
    drm: int
    mods: tuple[Msg, ...]
    cowers: bool  # doubles can make this attack cower
    shift: int  # columns lost when it does
    directed: bool


def fp_modified(fp: Fraction, area_fire: int, pbf: bool, assault_fire: int
                ) -> tuple[Fraction, list[Msg]]:
    """Firepower after the card's modifications, and how it got there."""
    notes: list[Msg] = []
    out = fp
    for i in range(area_fire):
        before, out = out, out / 2
        notes.append(msg("area fire #{i} halves the FP: {before} -> {after}",
                         i=i + 1, before=fmt_fp(before), after=fmt_fp(out)))
    if pbf:
        before, out = out, out * 2
        notes.append(msg("point-blank fire doubles the FP: {before} -> {after}",
                         before=fmt_fp(before), after=fmt_fp(out)))
    if assault_fire:
        before, out = out, assault_fire_fp(out / assault_fire) * assault_fire
        notes.append(nmsg("assault fire, {n} unit of {share} FP: rounded up, +1: "
                          "{before} -> {after}",
                          "assault fire, {n} units of {share} FP each: each rounded up, "
                          "+1: {before} -> {after}", n=assault_fire,
                          share=fmt_fp(before / assault_fire), before=fmt_fp(before),
                          after=fmt_fp(out)))
    return out, notes


def assault_fire_fp(fp: Fraction) -> Fraction:
    """One assault-fire unit's FP in the AFPh after every other modification (ASLRB
    A7.36, the card's line): fractions rounded up, then +1. Applied unit by unit: two
    3-4-7 in the AFPh are 1.5 -> 2 + 1 = 3 each, 6 FP."""
    return Fraction(ceil(fp) + 1)


def fmt_fp(x: Fraction) -> str:
    if x.denominator == 1:
        return str(x.numerator)
    whole, rest = divmod(x.numerator, x.denominator)
    if rest * 2 == x.denominator:
        return f"{whole}.5"
    return f"{x.numerator}/{x.denominator}"


def drm_parts(p: IftParams) -> tuple[int, list[Msg]]:
    """The DRMs of an IFT attack with their reasons."""
    mods: list[Msg] = []
    total = 0

    def add(value: int, why: Msg) -> None:
        nonlocal total
        if value:
            total += value
            mods.append(msg("{v:+d} {why}", v=value, why=why))

    tem = 0
    own = 0
    if p.terrain is not None:
        tem = T.TERRAIN_TEM[p.terrain]
        add(tem, msg("TEM ({terrain})", terrain=Msg(p.terrain.replace("_", " "))))
        own = T.TERRAIN_HINDRANCE.get(p.terrain, 0)
        add(own, msg("hindrance in the target's own hex ({terrain})",
                     terrain=Msg(p.terrain.replace("_", " "))))
    elif p.tem is not None:
        tem = p.tem
        add(tem, Msg("TEM"))
    add(p.hindrance, nmsg("hindrance ({n} hex)", "hindrance ({n} hexes)", n=p.hindrance))
    if p.ffmo:
        if p.hindrance or own or tem > 0:
            mods.append(Msg("(no FFMO: hindrance or positive TEM)"))
        else:
            add(-1, Msg("FFMO"))
    if p.ffnam:
        add(-1, Msg("FFNAM"))
    add(p.leader_drm, Msg("leader-directed fire"))
    add(-p.ft_carried, msg("flamethrower carried by the target (x{n})", n=p.ft_carried))
    add(p.drm, Msg("DRM"))
    return total, mods


@lru_cache(maxsize=512)
def plan(p: IftParams) -> Plan:
    notes: list[Msg] = []
    if p.gun_mm is not None:
        column, read = T.gun_column(p.gun_mm)
        if column:
            notes.append(msg("{mm}mm gun: read under {read}mm in the IFT header, the "
                             "{col} FP column", mm=p.gun_mm, read=read if read < 200 else
                             "200+", col=column))
        else:
            notes.append(msg("{mm}mm gun: below the smallest calibre in the IFT header "
                             "(20mm), no column", mm=p.gun_mm))
        if p.pbf:
            notes.append(Msg("point-blank fire does not double a gun's HE: ignored"))
        if p.assault_fire:
            notes.append(Msg("assault fire is for small arms, not a gun's HE: ignored"))
        if p.area_fire:
            notes.append(Msg("a gun's HE is not halved as infantry FP is (AFPh, long "
                             "range, pinned firer, First/Final Fire): ignored"))
    else:
        assert p.fp is not None
        fp, notes = fp_modified(p.fp, p.area_fire, p.pbf, p.assault_fire)
        column = T.fp_column(fp)
        if column == 0:
            notes.append(msg("{fp} FP is less than 1: no IFT column, the attack has no "
                             "effect", fp=fmt_fp(fp)))
        elif fp > 36:
            notes.append(msg("{fp} FP: above 36, fire on the 36 column", fp=fmt_fp(fp)))
        elif fp == column:
            notes.append(msg("{fp} FP: fire on the {col} FP column", fp=fmt_fp(fp), col=column))
        else:
            notes.append(msg("{fp} FP falls between columns: use the next lower, the {col} FP "
                             "column", fp=fmt_fp(fp), col=column))
    drm, mods = drm_parts(p)
    directed = p.leader_directed or p.leader_drm != 0
    cowers = column > 0 and p.gun_mm is None and not directed
    return Plan(column, tuple(notes), drm, tuple(mods), cowers,
                2 if p.inexperienced else 1, directed)


def meaning(result: str) -> Msg:
    """What an IFT result does to the units fired on, in a player's words."""
    if result.endswith("KIA"):
        return msg("{n} unit(s) fired on, chosen at random, are eliminated; the rest "
                   "break, or suffer casualty reduction if already broken", n=int(result[0]))
    if result.startswith("K/"):
        return msg("one unit at random suffers casualty reduction; every other unit takes "
                   "a morale check at +{n}", n=int(result[2]))
    if result == "NMC":
        return Msg("every unit fired on takes a normal morale check")
    if result.endswith("MC"):
        return msg("every unit fired on takes a morale check at +{n}", n=int(result[0]))
    if result == "PTC":
        return Msg("every unit fired on takes a pin task check")
    return Msg("no effect (a broken unit fired on may get DM)")


Note = tuple[str, Msg, Msg | None]
Table = dict[Any, tuple[tuple[str, int, int], tuple[Note, ...]]]


def _after_dr(pl: Plan, a: int, b: int, original: int
              ) -> tuple[tuple[str, int, int], tuple[Note, ...]]:
    """The result of one DR (``a``, ``b`` only matter for doubles) and its steps."""
    notes: list[Note] = []
    column = pl.column
    final = original + pl.drm
    if pl.mods:
        notes.append(("asl.ift.drm", msg("final DR {final} = original DR {orig} {mods}",
                                         final=final, orig=original, mods=pl.mods), None))
    else:
        notes.append(("asl.ift.drm", msg("no DRM: final DR {final}", final=final), None))
    if pl.cowers and a == b:
        new = T.shift_left(column, pl.shift)
        if not new:
            notes.append(("asl.ift.cowering", Msg(
                "doubles and no leader directing: the fire cowers off the left of the "
                "table, no effect"), None))
            return ("-", 0, final), tuple(notes)
        notes.append(("asl.ift.cowering", msg(
            "doubles and no leader directing: the fire cowers, {n} column(s) left, from "
            "{old} to {new}", n=pl.shift, old=column, new=new), None))
        column = new
    result = T.ift_lookup(column, final)
    notes.append(("asl.ift.result", msg("{col} FP column, final DR {dr}: {res}", col=column,
                                        dr=final, res=result), meaning(result)))
    return (result, column, final), tuple(notes)


@lru_cache(maxsize=512)
def dr_table(p: IftParams) -> Table:
    """Every DR the attack can see (sorted dice when it can cower, else the sum),
    worked out once per set of parameters: a roll is then a lookup."""
    pl = plan(p)
    table: Table = {}
    if pl.column == 0:  # no column: nothing is rolled
        return table
    for a in range(1, 7):
        for b in range(a, 7):
            if pl.cowers:
                table[(a, b)] = _after_dr(pl, a, b, a + b)
            elif a + b not in table:
                table[a + b] = _after_dr(pl, 0, 1, a + b)
    return table


_RECENT: dict[int, tuple[IftParams, Plan, Table]] = {}


def compiled(p: IftParams) -> tuple[Plan, Table]:
    """``plan`` and ``dr_table`` of ``p``, found by identity: the exact driver replays
    the procedure once per DR with the same parameters object, and hashing the
    parameters (fractions) would cost more than the lookup itself."""
    hit = _RECENT.get(id(p))
    if hit is not None and hit[0] is p:
        return hit[1], hit[2]
    pl, table = plan(p), dr_table(p)
    if len(_RECENT) >= 64:
        _RECENT.clear()
    _RECENT[id(p)] = (p, pl, table)
    return pl, table


def resolve_ift(p: IftParams, d: Dice) -> tuple[str, int, int]:
    """Roll one IFT attack: (result, column used, final DR)."""
    pl, table = compiled(p)
    for note in pl.fp_notes:
        d.note("asl.ift.column", note)
    if pl.column == 0:
        return "-", 0, 0
    key = d.dice(2, view="sorted" if pl.cowers else "sum", rule="asl.ift.dr",
                 what="IFT DR")
    out, notes = table[key]
    for rule, text, res in notes:
        d.note(rule, text, res)
    return out


@procedure(
    "asl.ift",
    title="Infantry Fire Table attack",
    summary="Resolve one attack on the IFT: FP column, DR with DRMs, cowering, result.",
    params=IftParams,
    outcome=outcome(
        RESULT_FIELD,
        ("column", "int", "FP column used after cowering (0: no column, no effect)"),
        ("final_dr", "int", "the modified DR (0 when no DR was needed)"),
    ),
    source="ASL reference card: Infantry Fire Table, IFT DRM, IFT FP modifications; "
           "ASLRB A7",
    note="Between columns the next lower one is used, above 36 the 36 column. Where the "
         "card is silent we follow the ASL Rulebook: less than 1 FP after modifications "
         "has no effect; cowering off the 1 column has no effect; assault fire rounds each"
         " assault-fire unit's share up and adds +1 FP to it (A7.36); grain and orchard "
         "are a +1 hindrance in the target's own hex, and FFMO does not apply where a "
         "hindrance or a positive TEM does (A4.6); a gun's HE (gun_mm) does not cower, is "
         "not doubled by PBF, helped by assault fire nor halved as infantry FP is (the "
         "halvings of A7.2x are for infantry; the ordnance cases of C are not modelled); a"
         " leader's DRM implies he directs the fire.",
)
def ift(p: IftParams, d: Dice) -> dict[str, Any]:
    result, column, final = resolve_ift(p, d)
    return {"result": result, "column": column, "final_dr": final}
