"""Close Combat: asl.cct (one attack on the Close Combat Table) and asl.ambush."""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Literal

from pydantic import Field, field_validator

from warroom.engine.context import Dice
from warroom.engine.messages import Msg, msg
from warroom.engine.procedure import OutcomeField, Params, outcome, procedure
from warroom.games.asl import tables as T
from warroom.games.asl.counters import Unit, parse_units, unit_msg
from warroom.games.asl.ift import fmt_fp

Side = Literal["none", "attacker", "defender"]
_YES = frozenset({"true", "yes", "1", "y"})
_NO = frozenset({"false", "no", "0", "n"})
Sides = Literal["none", "attacker", "defender", "both"]


class CctParams(Params):
    attack_fp: Fraction = Field(Fraction(4), ge=0, le=120,
                                description="the attackers' total CC FP (fractions allowed)")
    defense_fp: Fraction = Field(Fraction(4), ge=Fraction(1, 2), le=120,
                                 description="the defenders' total CC FP")
    drm: int = Field(0, ge=-6, le=6, description="total DRM, or any DRM not covered by the "
                                                 "parts below (added to them)")
    ambush: Side = Field("none", description="attacker: the attacker ambushed (-1); "
                                             "defender: the attacker was ambushed (+1); "
                                             "not in melee (yes/true means attacker)")
    attacking_broken: bool = Field(False, description="attacking broken units: -2")
    cx: Sides = Field("none", description="who is CX: a CX attacker +1, attacking a CX "
                                          "defender -1 (yes/true means attacker)")
    pinned: Sides = Field("none", description="who is pinned: a pinned attacker's FP is "
                                              "halved, a pinned defender's is not (A7.8; "
                                              "yes/true means attacker)")
    leader_drm: int = Field(0, ge=-3, le=1, description="leadership DRM of the attacking "
                                                        "leader (not for a leader alone)")
    inexperienced: bool = Field(False, description="card variant, not the ASL Rulebook: an "
                                                   "inexperienced attacker's CC DR +1")
    attackers: str | None = Field(
        None, description="the attacking units as counters (4-6-7,8-1; flags pinned, "
        "wounded...): their FP summed, a pinned unit's halved, the best leader's DRM "
        "applied; instead of attack_fp and leader_drm",
        examples=["4-6-7,4-6-7,8-1", "4-6-7:pinned,9-2", "2-4-8", None])
    defenders: str | None = Field(
        None, description="the defending units as counters: their FP summed (a pinned "
        "defender keeps its FP); instead of defense_fp",
        examples=["4-4-7", "4-4-7,2-3-7", "4-4-7:broken", None])

    @field_validator("attackers", "defenders")
    @classmethod
    def _counters(cls, v: str | None) -> str | None:
        # a bad counter is named with its parameter (attackers or defenders)
        if v is not None:
            parse_units(v)
        return v

    @field_validator("ambush", "cx", "pinned", mode="before")
    @classmethod
    def _yes_means_attacker(cls, v: Any) -> Any:
        # "cx=true", "pinned=yes", "ambush=1": the attacking side (false/no/0: none)
        if isinstance(v, bool):
            return "attacker" if v else "none"
        if isinstance(v, str) and v.strip().lower() in _YES:
            return "attacker"
        if isinstance(v, str) and v.strip().lower() in _NO:
            return "none"
        return v


def cc_drm(p: CctParams, leader_drm: int) -> tuple[int, list[Msg]]:
    total = 0
    mods: list[Msg] = []

    def add(value: int, why: str) -> None:
        nonlocal total
        if value:
            total += value
            mods.append(msg("{v:+d} {why}", v=value, why=Msg(why)))

    add({"attacker": -1, "defender": 1}.get(p.ambush, 0),
        "ambush" if p.ambush == "attacker" else "ambushed")
    add(-2 if p.attacking_broken else 0, "attacking broken units")
    add(1 if p.cx in ("attacker", "both") else 0, "CX attacker")
    add(-1 if p.cx in ("defender", "both") else 0, "CX defender")
    add(leader_drm, "leadership")
    add(1 if p.inexperienced else 0, "inexperienced attacker (card variant)")
    add(p.drm, "DRM")
    return total, mods


def side_fp(units: tuple[Unit, ...], attacking: bool) -> tuple[Fraction, int, list[Msg]]:
    """(CC FP, best leadership DRM, notes) of units written as counters: squads and
    half-squads their FP, a pinned attacker's halved (A7.8); a leader alone attacks
    with 1 FP, with others he adds his DRM instead (a pinned leader none)."""
    notes: list[Msg] = []
    fp = Fraction(0)
    others = [u for u in units if u.kind != "leader"]
    for u in others:
        own = Fraction(u.fp)
        if u.pinned and attacking:
            own /= 2
            notes.append(msg("{unit} is pinned: its CC FP is halved to {fp}", unit=unit_msg(u.name),
                             fp=fmt_fp(own)))
        fp += own
    lead = 0
    leaders = [u for u in units if u.kind == "leader" and not u.broken]
    if not others:
        fp = Fraction(len(leaders) or len(units))
        notes.append(msg("leaders alone: {fp} FP, no leadership DRM", fp=fmt_fp(fp)))
    else:
        usable = [u.leadership + (1 if u.wounded else 0) for u in leaders if not u.pinned]
        if usable:
            lead = min(usable)
    return fp, lead, notes


@procedure(
    "asl.cct",
    title="Close Combat attack",
    summary="One Close Combat attack: FP odds rounded down to a CCT column give the kill "
            "number; a final DR below it eliminates the defenders, equal to it is a "
            "Partial Kill.",
    params=CctParams,
    outcome=outcome(
        OutcomeField("odds", "str", "the CCT odds column", T.CCT_ODDS),
        ("kill_number", "int", "the kill number of that column"),
        ("eliminated", "bool", "final DR < kill number: the defenders are eliminated"),
        ("partial_kill", "bool", "final DR = kill number: one defender, by Random "
                                 "Selection, suffers casualty reduction (A11.11)"),
    ),
    source="ASL reference card: Close Combat Table and CC modifiers; ASLRB A11",
    note="Following ASLRB A11.11: a final DR less than the kill number eliminates the "
         "defenders, equal to it is a Partial Kill (one unit, by Random Selection, "
         "suffers casualty reduction). Odds are rounded down in the defender's favour "
         "(21 FP against 2 is 10-1; >10-1 needs 11-1); an attack of 0 FP cannot kill. A "
         "pinned unit's FP is halved when it attacks, not when it defends (A7.8). The "
         "card lists the CX DRM as +1/-1: a CX attacker +1, an attack on a CX unit -1. The "
         "card's +1 for inexperienced units belongs to the ambush dr; as a CC DRM it is a "
         "labelled card variant (inexperienced=true), not the rulebook (A19.3x). "
         "Attackers and defenders may be given as counters (a wounded leader's DRM one "
         "worse, A17.3; a pinned leader gives none).",
)
def cct(p: CctParams, d: Dice) -> dict[str, Any]:
    attack, defense, leader_drm = p.attack_fp, p.defense_fp, p.leader_drm
    if p.attackers is not None:
        attack, leader_drm, notes = side_fp(parse_units(p.attackers), True)
        for note in notes:
            d.note("asl.cct.fp", note)
        if p.pinned in ("attacker", "both"):
            d.note("asl.cct.fp", "pinned attackers are marked on their counters (:pinned)")
    elif p.pinned in ("attacker", "both"):
        attack = attack / 2
        d.note("asl.cct.fp", "the attacker is pinned: FP halved to {fp}", fp=fmt_fp(attack))
    if p.defenders is not None:
        defense, _, _ = side_fp(parse_units(p.defenders), False)
    if p.pinned in ("defender", "both"):
        d.note("asl.cct.fp", "a pinned defender keeps its FP (only attacking is halved)")
    if defense <= 0:
        defense = Fraction(1, 2)
    odds, kill = T.cct_column(attack, defense)
    drm, mods = cc_drm(p, leader_drm)
    d.note("asl.cct.odds", "{a} FP against {b}: odds {odds} (rounded down), kill number "
           "{kill}", a=fmt_fp(attack), b=fmt_fp(defense), odds=odds, kill=kill)
    if attack <= 0:
        d.note("asl.cct", "an attack of 0 FP cannot kill: no DR")
        return {"odds": odds, "kill_number": kill, "eliminated": False,
                "partial_kill": False}
    original = d.dice(2, view="sum", rule="asl.cct", what="CC DR")
    final = original + drm
    eliminated = final < kill
    partial = final == kill
    if mods:
        d.note("asl.cct", "final DR {final} = original DR {orig} {mods}", final=final,
               orig=original, mods=mods)
    d.note("asl.cct", "final DR {final} against kill number {kill}",
           Msg("less: the defenders are eliminated") if eliminated
           else Msg("equal: Partial Kill, one defender by Random Selection suffers "
                    "casualty reduction") if partial
           else Msg("the defenders survive"), final=final, kill=kill)
    return {"odds": odds, "kill_number": kill, "eliminated": eliminated,
            "partial_kill": partial}


class AmbushParams(Params):
    attacker_inexperienced: bool = Field(False, description="the advancing side is "
                                                            "inexperienced: +1")
    attacker_pinned: bool = Field(False, description="the advancing side is pinned: +1")
    attacker_cx: bool = Field(False, description="the advancing side is CX: +1")
    attacker_leader_drm: int = Field(0, ge=-3, le=1, description="its leader's DRM")
    attacker_drm: int = Field(0, ge=-4, le=4, description="any other dr modifier")
    defender_inexperienced: bool = Field(False, description="the defender is "
                                                            "inexperienced: +1")
    defender_pinned: bool = Field(False, description="the defender is pinned: +1")
    defender_cx: bool = Field(False, description="the defender is CX: +1")
    defender_leader_drm: int = Field(0, ge=-3, le=1, description="its leader's DRM")
    defender_drm: int = Field(0, ge=-4, le=4, description="any other dr modifier")


def _side_drm(inexperienced: bool, pinned: bool, cx: bool, leader: int, other: int
              ) -> tuple[int, list[Msg]]:
    mods: list[Msg] = []
    total = 0
    for value, why in ((int(inexperienced), "inexperienced"), (int(pinned), "pinned"),
                       (int(cx), "CX"), (leader, "leadership"), (other, "drm")):
        if value:
            total += value
            mods.append(msg("{v:+d} {why}", v=value, why=Msg(why)))
    return total, mods


@procedure(
    "asl.ambush",
    title="Ambush dr",
    summary="When infantry advance into woods or a building for Close Combat, each side "
            "rolls a dr; a side whose final dr is 3 or more lower ambushes the other.",
    params=AmbushParams,
    outcome=outcome(
        OutcomeField("ambush", "str", "who ambushes", ("none", "attacker", "defender")),
        ("attacker_dr", "int", "the advancing side's final dr"),
        ("defender_dr", "int", "the defending side's final dr"),
    ),
    source="ASL reference card: ambush",
    note="The advancing side is called the attacker. Other ASL ambush modifiers (such "
         "as concealment) can be given as attacker_drm/defender_drm.",
)
def ambush(p: AmbushParams, d: Dice) -> dict[str, Any]:
    a_drm, a_mods = _side_drm(p.attacker_inexperienced, p.attacker_pinned, p.attacker_cx,
                              p.attacker_leader_drm, p.attacker_drm)
    b_drm, b_mods = _side_drm(p.defender_inexperienced, p.defender_pinned, p.defender_cx,
                              p.defender_leader_drm, p.defender_drm)
    a = d.die(rule="asl.ambush", what="attacker's ambush dr") + a_drm
    b = d.die(rule="asl.ambush", what="defender's ambush dr") + b_drm
    d.note("asl.ambush", "attacker's final dr {a} {mods}", a=a, mods=a_mods)
    d.note("asl.ambush", "defender's final dr {b} {mods}", b=b, mods=b_mods)
    who = "attacker" if a <= b - 3 else "defender" if b <= a - 3 else "none"
    d.note("asl.ambush", "ambush: {who}", Msg("the attacker ambushes the defender")
           if who == "attacker" else Msg("the defender ambushes the attacker")
           if who == "defender" else Msg("neither side is 3 lower: no ambush"), who=Msg(who))
    return {"ambush": who, "attacker_dr": a, "defender_dr": b}
