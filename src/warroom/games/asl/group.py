"""asl.fire_group (a fire group's attack resolved on the target stack in one answer) and
asl.rally (a broken unit's rally attempt, ASLRB A10.6)."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from functools import lru_cache
from typing import Any, Literal, NamedTuple

from pydantic import Field, field_validator, model_validator

from warroom.engine.context import Dice
from warroom.engine.messages import Msg, msg
from warroom.engine.procedure import OutcomeField, Params, outcome, procedure
from warroom.errors import UsageError
from warroom.games.asl.counters import UNITS_HELP, Unit, parse_sw, parse_units, unit_msg
from warroom.games.asl.ift import (
    RESULT_FIELD,
    IftParams,
    Terrain,
    assault_fire_fp,
    compiled,
    fmt_fp,
    resolve_ift,
)
from warroom.games.asl.stack import (
    BROKEN,
    STACK_OUTCOME,
    LeaderLoss,
    LltcFail,
    Readings,
    StackParams,
    WoundedTwelve,
    casualty,
    finish_result,
    initial,
    joint_size,
    morale_of,
    state_name,
)

_IFT = {k: f.description or "" for k, f in IftParams.model_fields.items()}
_STACK = {k: f.description or "" for k, f in StackParams.model_fields.items()}

Phase = Literal["pfph", "dfph", "afph", "defensive_first_fire", "marked_first_fire",
                "final_fire", "first_fire"]

HALVED_PHASES: dict[str, Msg] = {"marked_first_fire": Msg("x1/2 already marked First Fire"),
                                 "first_fire": Msg("x1/2 already marked First Fire"),
                                 "final_fire": Msg("x1/2 Final Fire")}
"""Phases whose fire is area fire (card: the firer already bears a First Fire/Final
Fire marker; ASLRB A8.3, A8.31: Subsequent First Fire and Final Fire). A unit's first
Defensive First Fire is at full FP. ``first_fire`` is the old name of
``marked_first_fire``, kept so that battles recorded with it replay the same."""


class FireGroupParams(Params):
    firers: str = Field(
        "4-6-7,4-6-7,8-1",
        description="the firing units as counters (squads and half-squads FP-range-morale, "
                    "a leader to direct them, support weapons as name FP-range and "
                    "breakdown number: MMG 4-10 B11, one per squad); flags: pinned, af "
                    "(assault fire, for the AFPh; not for a support weapon), lr (this "
                    "firer is at long range: FP halved, A7.22)",
        examples=["4-6-7,4-6-7,8-1", "6-6-6:af,6-6-6:af", "4-6-7:pinned,2-4-8",
                  "4-4-7,9-2", "4-6-7,4-6-7,MMG 4-10 B11"])
    target: str = Field("4-4-7,8-0", description=UNITS_HELP,
                        examples=["4-4-7,8-0", "4-4-7,4-4-7,2-3-7", "4-4-7:broken,9-1"])
    phase: Phase = Field("pfph", description="when the group fires: pfph, dfph and "
                         "defensive_first_fire (its first shot in the MPh) at full FP; afph "
                         "halves (assault fire then rounds up and adds +1 per af unit); "
                         "marked_first_fire (already marked First Fire: Subsequent First "
                         "Fire) and final_fire halve (A8.3, A8.31); first_fire is the old "
                         "name of marked_first_fire")
    pbf: bool = Field(False, description=_IFT["pbf"])
    long_range: bool = Field(False, description="beyond normal range: FP halved, no "
                                                "assault fire")
    area_fire: int = Field(0, ge=0, le=2, description="further area-fire halvings (e.g. "
                                                      "against concealed units)")
    terrain: Terrain | None = Field(None, description=_IFT["terrain"])
    hindrance: int = Field(0, ge=0, le=6, description=_IFT["hindrance"])
    ffmo: bool = Field(False, description=_IFT["ffmo"])
    ffnam: bool = Field(False, description=_IFT["ffnam"])
    drm: int = Field(0, ge=-6, le=6, description=_IFT["drm"])
    elr: int | None = Field(None, ge=0, le=5, description=_STACK["elr"])
    lltc_fail: LltcFail = Field("pinned", description=_STACK["lltc_fail"])
    leader_loss: LeaderLoss = Field("worst", description=_STACK["leader_loss"])
    wounded_12: WoundedTwelve = Field("before", description=_STACK["wounded_12"])
    support_weapons: int = Field(0, ge=0, le=10, description="how many support weapons "
                                 "fire among the firers: counted from firers for you (a "
                                 "value given is checked against them)")

    @model_validator(mode="before")
    @classmethod
    def _count_weapons(cls, data: Any) -> Any:
        # support_weapons is read from the firers: it says when sw_broken can be other
        # than 0 (battles recorded before support weapons fired have no such parameter)
        if not isinstance(data, dict):
            return data
        firers = data.get("firers", cls.model_fields["firers"].default)
        n = len(_group(firers)[1]) if isinstance(firers, str) else 0
        given = data.get("support_weapons")
        if given is not None and str(given) != str(n):
            raise UsageError("support_weapons is counted from the firers: {n}, not "
                             "{given!r}", n=n, given=given)
        return {**data, "support_weapons": n}

    @field_validator("firers")
    @classmethod
    def _firers(cls, v: str) -> str:
        _group(v)
        return v

    @field_validator("target")
    @classmethod
    def _target(cls, v: str) -> str:
        parse_units(v)
        return v

    @model_validator(mode="after")
    def _both(self) -> FireGroupParams:
        parse_units(self.target, self.elr)
        return self


class Weapon(NamedTuple):
    """A support weapon firing in the group (ASLRB A9.1: FP-range on the counter)."""

    label: str  # as written: MMG 4-10 B11
    fp: int
    breakdown: int | None  # B#: an original IFT DR at least this breaks it down (A9.7)
    pinned: bool  # the squad firing it is pinned
    long: bool  # beyond its normal range (A7.22)


def _weapon(item: str) -> Weapon | None:
    """``MMG 4-10 B11`` or ``MMG 4-10 B11:pinned`` as a firing support weapon, or None
    when ``item`` is not one."""
    head, *flags = (f.strip() for f in item.split(":"))
    c = parse_sw(head)
    if c is None:
        return None
    for f in flags:
        if f.lower() == "af":
            raise UsageError("{item!r}: assault fire's +1 is for a unit's own FP, not a "
                             "support weapon's (A7.36)", item=item.strip())
        if f.lower() not in ("pinned", "lr"):
            raise UsageError("{item!r}: unknown flag {flag!r} for a support weapon "
                             "(pinned: the squad firing it is pinned; lr: long range)",
                             item=item.strip(), flag=f)
    low = {f.lower() for f in flags}
    return Weapon(c.text, c.fp, c.breakdown, "pinned" in low, "lr" in low)


@lru_cache(maxsize=256)
def _group(text: str) -> tuple[tuple[tuple[Unit, bool, bool], ...], tuple[Weapon, ...]]:
    """The firing units with their assault-fire and long-range flags (``:af``,
    ``:lr``), and the support weapons; a usage
    error for a broken firer, a group without a squad or half-squad, or more support
    weapons than squads to fire them."""
    weapons: list[Weapon] = []
    items: list[list[str]] = []
    for item in text.split(","):
        if not item.strip():
            continue
        w = _weapon(item)
        if w is None:
            items.append(item.split(":"))
        else:
            weapons.append(w)
    own = ("af", "lr")  # the fire group's flags, not the unit's
    flags = [[any(f.strip().lower() == o for f in fields) for o in own] for fields in items]
    units = parse_units(",".join(":".join(f for f in fields if f.strip().lower() not in own)
                                 for fields in items))
    for u in units:
        if u.broken:
            raise UsageError("{item!r}: a broken unit cannot fire", item=u.label)
    if not any(u.kind != "leader" for u in units):
        raise UsageError("a fire group needs a squad or half-squad, got {units!r}",
                         units=text)
    squads = sum(u.kind == "squad" for u in units)
    if len(weapons) > squads:
        raise UsageError("{firers!r}: more support weapons than squads. A squad fires one "
                         "support weapon at no cost to its own FP (A9.11); a half-squad "
                         "firing one, or a squad firing two, gives up its own FP, which "
                         "is not modelled: fire those with asl.ift", firers=text)
    return (tuple((u, af, lr) for u, (af, lr) in zip(units, flags, strict=True)),
            tuple(weapons))


def _halvings(p: FireGroupParams, u: Unit | Weapon, long: bool) -> tuple[Msg, ...]:
    """Each area-fire halving of one firer's FP (A7.5, A8.3), in order; a support
    weapon's as its squad's (A9.1). ``long``: this firer is at long range."""
    return tuple(why for why, on in (
        (Msg("x1/2 AFPh"), p.phase == "afph"),
        (HALVED_PHASES.get(p.phase, Msg("")), p.phase in HALVED_PHASES),
        (Msg("x1/2 long range"), p.long_range or long),
        (Msg("x1/2 pinned"), u.pinned),
        *((Msg("x1/2 area fire"), True) for _ in range(p.area_fire))) if on)


@lru_cache(maxsize=256)
def plan(p: FireGroupParams) -> tuple[IftParams, tuple[Msg, ...]]:
    """The group's total FP (each unit's FP modified on its own, as A7.5 has it) and the
    IFT attack it makes, with the steps saying how."""
    notes: list[Msg] = []
    total = Fraction(0)
    afph = p.phase == "afph"
    leaders = []
    units, weapons = _group(p.firers)
    firing: list[tuple[Unit | Weapon, Msg | str, bool, bool]] = []
    for u, af, lr in units:
        if u.kind == "leader":
            leaders.append(u)
        else:
            long = p.long_range or lr
            firing.append((u, unit_msg(u.name), af and afph and not long, lr))
    firing += [(w, w.label, False, w.long) for w in weapons]
    for who, name, af, lr in firing:
        mods = list(_halvings(p, who, lr))
        fp = Fraction(who.fp) / 2 ** len(mods)
        if p.pbf:
            fp *= 2
            mods.append(Msg("x2 PBF"))
        if af:
            fp = assault_fire_fp(fp)
            mods.append(Msg("assault fire: rounded up, +1"))
        if mods:
            notes.append(msg("{unit}: {base} FP {mods} = {fp} FP", unit=name,
                             base=who.fp, mods=mods, fp=fmt_fp(fp)))
        else:
            notes.append(msg("{unit}: {fp} FP", unit=name, fp=fmt_fp(fp)))
        total += fp
    directing = [u for u in leaders if not u.pinned]
    lead = min((u.leadership + (1 if u.wounded else 0) for u in directing), default=0)
    if directing:
        notes.append(msg("the best leader directs the fire: {v:+d}", v=lead))
    notes.append(msg("the group fires with {fp} FP", fp=fmt_fp(total)))
    ift_p = IftParams(fp=min(total, Fraction(200)), terrain=p.terrain,
                      hindrance=p.hindrance, ffmo=p.ffmo, ffnam=p.ffnam, drm=p.drm,
                      leader_drm=lead, leader_directed=bool(directing))
    return ift_p, tuple(notes)


@procedure(
    "asl.fire_group",
    title="Fire group on a stack",
    summary="Several units (and a leader directing them) fire together: their FP "
            "modified unit by unit and totalled, the IFT attack, and its result on every "
            "unit fired on, in one answer.",
    params=FireGroupParams,
    outcome=outcome(RESULT_FIELD,
                    ("column", "int", "FP column used after cowering (0: no effect)"),
                    ("final_dr", "int", "the modified IFT DR"),
                    *STACK_OUTCOME,
                    OutcomeField("sw_broken", "int", "support weapons that broke down: "
                                 "the original IFT DR at least their breakdown number "
                                 "(A9.7)", shown_if="support_weapons")),
    cost=lambda p: 30 * joint_size(parse_units(p.target, p.elr), "NMC"),
    source="ASL reference card: IFT, IFT DRM, IFT FP modifications; ASLRB A7.5, A7.36, "
           "A9.1, A9.11, A9.7",
    note="Each firer's FP is halved for the AFPh, a firer already marked First Fire "
         "(Subsequent First Fire) or in Final Fire (A8.3, A8.31; a first Defensive First "
         "Fire is at full FP), long range, a pinned firer and each further area-fire "
         "halving, doubled by point-blank fire, then "
         "an assault-fire unit (flag :af) in the AFPh rounds up and adds +1 (A7.36): two "
         "6-6-6 in the AFPh are 3+1 and 3+1 = 8 FP. A firer flagged :lr alone is at "
         "long range (halved, no assault fire; A7.22). The best unpinned leader directs the "
         "fire (his DRM; no cowering). The result is applied to the target as "
         "asl.ift_on_stack does. A support weapon (MMG 4-10 B11) adds its FP, halved "
         "and doubled as its squad's (A9.1; no assault fire), one per squad (A9.11); "
         "it breaks down when the original IFT DR, before any DRM and whatever cowering "
         "does to the column, is at least its breakdown number (A9.7): sw_broken. "
         "Sustained fire, multiple ROF and repair are not modelled.",
)
def fire_group(p: FireGroupParams, d: Dice) -> Mapping[str, Any]:
    ift_p, notes = plan(p)
    for note in notes:
        d.note("asl.fire_group", note)
    result, column, final = resolve_ift(ift_p, d)
    # sw_broken is 0 without support weapons; battles recorded before it existed have
    # no support_weapons parameter, so their replay leaves it out (shown_if)
    extra: dict[str, Any] = {"result": result, "column": column, "final_dr": final,
                             "sw_broken": _breakdowns(p, ift_p, final, d)
                             if p.support_weapons else 0}
    units = parse_units(p.target, p.elr)
    return finish_result(d, result, units, 0, Readings(p.lltc_fail, p.leader_loss,
                                                       p.wounded_12), extra)


def _breakdowns(p: FireGroupParams, ift_p: IftParams, final: int, d: Dice) -> int:
    """How many of the group's support weapons break down (A9.7): the original IFT DR
    (the final DR less the attack's DRM) at least a weapon's B#. No DR, no breakdown
    (less than 1 FP: nothing is rolled)."""
    pl = compiled(ift_p)[0]
    if not pl.column:
        return 0
    original = final - pl.drm
    broken = 0
    for w in _group(p.firers)[1]:
        if w.breakdown is None:
            continue
        if original >= w.breakdown:
            broken += 1
            d.note("asl.fire_group.breakdown", msg(
                "{sw}: original DR {dr} is at least B{b}: it breaks down (malfunctions)",
                sw=w.label, dr=original, b=w.breakdown))
        else:
            d.note("asl.fire_group.breakdown", msg(
                "{sw}: original DR {dr} is below B{b}: no breakdown", sw=w.label,
                dr=original, b=w.breakdown))
    return broken


# ----------------------------------------------------------------------------- rally
RallyTerrain = Literal["open", "woods", "building", "entrenchment"]


class RallyParams(Params):
    unit: str = Field("4-6-7:broken", description="the broken unit as a counter (4-6-7, "
                      "2-4-8, 8-1; it rallies on its broken side's morale: 4-6-7/8, "
                      "left out as in the units of asl.ift_on_stack) or kind:morale",
                      examples=["4-6-7:broken", "2-4-8", "8-1", "squad:7"])
    dm: bool = Field(False, description="the unit is under Desperation Morale: +4")
    self_rally: bool = Field(False, description="it rallies itself, with no leader: +1 "
                                                "(a leader rallying himself too)")
    leader: str | None = Field(None, description="the leader rallying it, as a counter "
                               "(9-2; wounded one worse): his leadership DRM",
                               examples=["8-1", "9-2", "9-2:wounded", None])
    terrain: RallyTerrain = Field("open", description="woods, building or entrenchment: "
                                                      "-1 (A10.61)")
    drm: int = Field(0, ge=-4, le=6, description=_IFT["drm"])

    @field_validator("unit", "leader")
    @classmethod
    def _one(cls, v: str | None) -> str | None:
        if v is not None:
            parse_units(v, None, 1)
        return v

    @model_validator(mode="after")
    def _who(self) -> RallyParams:
        if self.leader is not None and self.self_rally:
            raise UsageError("a unit rallied by a leader does not self-rally: give leader "
                             "or self_rally, not both")
        if self.leader is not None and parse_units(self.leader)[0].kind != "leader":
            raise UsageError("{who!r} is not a leader", who=self.leader)
        if self.leader is not None and parse_units(self.leader)[0].broken:
            raise UsageError("{who!r}: a broken leader rallies no one but himself (A10.6)",
                             who=self.leader)
        return self


@procedure(
    "asl.rally",
    title="Rally attempt",
    summary="A broken unit tries to rally in the Rally Phase: 2d6 plus DRM at most its "
            "morale; an original 12 costs casualty reduction.",
    params=RallyParams,
    outcome=outcome(
        ("rallied", "bool", "the unit is in good order again"),
        ("casualty_reduction", "bool", "an original 12: casualty reduction"),
        ("eliminated", "bool", "the casualty reduction eliminated it"),
        OutcomeField("state", "str", "the unit afterwards",
                     ("ok", "broken", "reduced+broken", "wounded+broken", "eliminated")),
    ),
    source="ASLRB A10.6",
    note="Following ASLRB A10.6: a broken unit rallies on a final DR at most its "
         "broken side's morale (4-6-7/8; a 4-6-7 8, a 6-5-8 9 when left out) "
         "(an original 12 always fails and costs casualty reduction). DRMs: +4 under "
         "Desperation Morale, +1 when rallying itself without a leader, the rallying "
         "leader's DRM (a wounded leader's one worse, A17.3), -1 in woods, a building or "
         "an entrenchment. Other DRMs (e.g. a leader's self-rally rules, Heat of Battle) "
         "can be given as drm.",
)
def rally(p: RallyParams, d: Dice) -> dict[str, Any]:
    u = parse_units(p.unit, None, 1)[0]
    total = 0
    mods: list[Msg] = []

    def add(v: int, why: Msg) -> None:
        nonlocal total
        if v:
            total += v
            mods.append(msg("{v:+d} {why}", v=v, why=why))

    add(4 if p.dm else 0, Msg("Desperation Morale"))
    add(1 if p.self_rally else 0, Msg("self-rally"))
    if p.leader is not None:
        ld = parse_units(p.leader)[0]
        add(ld.leadership + (1 if ld.wounded else 0), Msg("leadership"))
    add(-1 if p.terrain != "open" else 0, msg("terrain ({terrain})", terrain=Msg(p.terrain)))
    add(p.drm, Msg("DRM"))
    morale = morale_of(u, initial(u) | BROKEN)  # the broken side's, wounded -1
    original = d.dice(2, view="sum", rule="asl.rally", what="rally DR")
    final = original + total
    rallied = final <= morale and original != 12
    if mods:
        d.note("asl.rally", "final DR {final} = original DR {orig} {mods}", final=final,
               orig=original, mods=mods)
    d.note("asl.rally", "final DR {final} against morale {morale}",
           Msg("rallied") if rallied else Msg("an original 12: casualty reduction")
           if original == 12 else Msg("still broken"), final=final, morale=morale)
    s = initial(u) | BROKEN
    if original == 12:
        s = casualty(d, u, s)
    state = "ok" if rallied else state_name(s)
    return {"rallied": rallied, "casualty_reduction": original == 12,
            "eliminated": state == "eliminated", "state": state}

