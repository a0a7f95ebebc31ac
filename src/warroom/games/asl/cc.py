"""Close Combat: asl.cct (one attack on the Close Combat Table) and asl.ambush."""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Literal

from pydantic import Field, field_validator

from warroom.engine.context import Dice
from warroom.engine.messages import Msg, msg
from warroom.engine.procedure import OutcomeField, Params, outcome, procedure
from warroom.games.asl import tables as T
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
    pinned: Sides = Field("none", description="who is pinned: a pinned side's FP is "
                                              "halved (yes/true means attacker)")
    leader_drm: int = Field(0, ge=-3, le=1, description="leadership DRM of the attacking "
                                                        "leader (not for a leader alone)")
    inexperienced: bool = Field(False, description="inexperienced attacker: +1")

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


def cc_drm(p: CctParams) -> tuple[int, list[Msg]]:
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
    add(p.leader_drm, "leadership")
    add(1 if p.inexperienced else 0, "inexperienced attacker")
    add(p.drm, "DRM")
    return total, mods


@procedure(
    "asl.cct",
    title="Close Combat attack",
    summary="One Close Combat attack: FP odds rounded down to a CCT column give the kill "
            "number; the defenders are eliminated if the final DR is at most that.",
    params=CctParams,
    outcome=outcome(
        OutcomeField("odds", "str", "the CCT odds column", T.CCT_ODDS),
        ("kill_number", "int", "the kill number of that column"),
        ("eliminated", "bool", "final DR <= kill number: the defenders are eliminated"),
    ),
    source="seed 001: Close Combat Table and CC modifiers",
    note="Odds are rounded down in the defender's favour; above 10-1 is >10-1. The card "
         "lists the CX DRM as +1/-1: we read it as the ASL rule, a CX attacker +1 and an "
         "attack on a CX unit -1. The card lists inexperienced (+1) among the ambush "
         "modifiers; following ASL we also apply it to an inexperienced attacker's CC "
         "DR. Pinned halves a side's FP, as on the card.",
)
def cct(p: CctParams, d: Dice) -> dict[str, Any]:
    attack, defense = p.attack_fp, p.defense_fp
    if p.pinned in ("attacker", "both"):
        attack = attack / 2
        d.note("asl.cct.fp", "the attacker is pinned: FP halved to {fp}", fp=fmt_fp(attack))
    if p.pinned in ("defender", "both"):
        defense = defense / 2
        d.note("asl.cct.fp", "the defender is pinned: FP halved to {fp}", fp=fmt_fp(defense))
    odds, kill = T.cct_column(attack, defense)
    drm, mods = cc_drm(p)
    d.note("asl.cct.odds", "{a} FP against {b}: odds {odds} (rounded down), kill number "
           "{kill}", a=fmt_fp(attack), b=fmt_fp(defense), odds=odds, kill=kill)
    original = d.dice(2, view="sum", rule="asl.cct", what="CC DR")
    final = original + drm
    eliminated = final <= kill
    if mods:
        d.note("asl.cct", "final DR {final} = original DR {orig} {mods}", final=final,
               orig=original, mods=mods)
    d.note("asl.cct", "final DR {final} against kill number {kill}",
           Msg("the defenders are eliminated") if eliminated
           else Msg("the defenders survive"), final=final, kill=kill)
    return {"odds": odds, "kill_number": kill, "eliminated": eliminated}


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
    source="seed 001: ambush",
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
