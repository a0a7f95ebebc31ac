"""Morale: asl.mc (MC and PTC on one unit) and asl.leader_wound."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pydantic import Field

from warroom.engine.context import Dice
from warroom.engine.messages import Msg, msg
from warroom.engine.procedure import OutcomeField, Params, outcome, procedure

Kind = Literal["mc", "ptc"]


@dataclass(frozen=True, slots=True)
class MoraleResult:
    """What a morale check or pin task check did to one unit."""

    passed: bool
    broken: bool
    casualty_reduction: bool
    eliminated: bool
    replaced: bool
    pinned: bool

    def as_dict(self) -> dict[str, Any]:
        return {
            "passed": self.passed,
            "broken": self.broken,
            "casualty_reduction": self.casualty_reduction,
            "eliminated": self.eliminated,
            "replaced": self.replaced,
            "pinned": self.pinned,
        }

    def label(self) -> str:
        """One word for the result, used as a category by the stack procedure."""
        if self.eliminated:
            return "eliminated"
        parts = []
        if self.replaced:
            parts.append("replaced")
        if self.casualty_reduction:
            parts.append("reduced")
        if self.pinned:
            parts.append("pinned")
        if self.broken:
            parts.append("broken")
        if self.passed:
            parts.append("passed")
        return "+".join(parts)


def judge(original: int, final: int, morale: int, kind: Kind, broken: bool,
          elr: int | None) -> MoraleResult:
    """The card's morale rules for one DR (``original`` before DRMs, ``final`` after)."""
    if kind == "ptc":
        passed = final <= morale
        return MoraleResult(passed, broken, False, False, False, not passed and not broken)
    passed = final <= morale and original != 12
    if broken:
        if passed:
            return MoraleResult(True, True, False, False, False, False)
        if original == 12:
            return MoraleResult(False, False, False, True, False, False)
        return MoraleResult(False, True, True, False, False, False)
    if passed:
        return MoraleResult(True, False, False, False, False, False)
    replaced = elr is not None and final > morale + elr
    return MoraleResult(False, True, original == 12, False, replaced, False)


def explain(d: Dice, rule: str, who: Msg, original: int, drm: int, morale: int, kind: Kind,
            broken: bool, r: MoraleResult) -> None:
    """Record, in a player's words, how a check went."""
    final = original + drm
    check = Msg("PTC") if kind == "ptc" else Msg("MC")
    d.note(rule, "{who} {check}: final DR {final} (original {orig}, DRM {drm:+d}) against "
           "morale {morale}", consequence(r, kind, broken, original), who=who, check=check,
           final=final, orig=original, drm=drm, morale=morale)


def consequence(r: MoraleResult, kind: Kind, broken: bool, original: int) -> Msg:
    if kind == "ptc":
        if broken:
            return Msg("a broken unit is not pinned (it may get DM)")
        return Msg("passed") if r.passed else Msg("failed: pinned")
    if r.eliminated:
        return Msg("failed with an original 12 while broken: eliminated")
    if r.passed:
        return Msg("passed")
    if broken:
        return Msg("failed while broken: casualty reduction")
    parts = [Msg("failed: breaks (DM)")]
    if r.casualty_reduction:
        parts.append(Msg("original 12: casualty reduction as well"))
    if r.replaced:
        parts.append(Msg("failed by more than its ELR: replaced by a lower-quality unit"))
    if len(parts) == 1:
        return parts[0]
    return msg("; ".join(f"{{p{i}}}" for i in range(len(parts))),
               **{f"p{i}": part for i, part in enumerate(parts)})


class McParams(Params):
    morale: int = Field(7, ge=1, le=10, description="the unit's morale level")
    drm: int = Field(0, ge=-6, le=8, description="total DRM of the check (leadership, "
                                                 "+n of an nMC or K/n, terrain...)")
    kind: Kind = Field("mc", description="mc: morale check; ptc: pin task check")
    broken: bool = Field(False, description="the unit is already broken")
    elr: int | None = Field(None, ge=0, le=5, description="the unit's Experience Level "
                                                          "Rating (omit to ignore it)")


MC_OUTCOME = outcome(
    ("passed", "bool", "final DR <= morale (an original 12 always fails an MC)"),
    ("broken", "bool", "the unit is broken afterwards (with DM if it just broke)"),
    ("casualty_reduction", "bool", "squad to half-squad, half-squad eliminated, leader "
                                   "wounded"),
    ("eliminated", "bool", "a broken unit failed with an original 12"),
    ("replaced", "bool", "ELR: failed by more than its ELR, replaced by a lower-quality "
                         "unit"),
    ("pinned", "bool", "failed a PTC"),
)


@procedure(
    "asl.mc",
    title="Morale check",
    summary="One unit's morale check (MC) or pin task check (PTC): 2d6 plus DRM against "
            "its morale.",
    params=McParams,
    outcome=MC_OUTCOME,
    source="seed 001: NMC, #MC, PTC",
    note="From the card: an original 12 on an MC breaks a good-order unit with casualty "
         "reduction and eliminates a broken one. Where the card is silent we follow the "
         "ASL rules as we know them: an original 12 always fails an MC; a broken unit is "
         "not pinned by a PTC; ELR replacement only applies to good-order units failing "
         "an MC.",
)
def mc(p: McParams, d: Dice) -> dict[str, Any]:
    if p.kind == "ptc" and p.broken:
        d.note("asl.mc.ptc", "a broken unit takes no pin task check (it may get DM)")
        return MoraleResult(True, True, False, False, False, False).as_dict()
    original = d.dice(2, view="sum", rule=f"asl.{p.kind}", what="MC DR" if p.kind == "mc"
                      else "PTC DR")
    r = judge(original, original + p.drm, p.morale, p.kind, p.broken, p.elr)
    explain(d, f"asl.{p.kind}", Msg("the unit"), original, p.drm, p.morale, p.kind,
            p.broken, r)
    return r.as_dict()


# --------------------------------------------------------------------------- leaders
class LeaderWoundParams(Params):
    wounded: bool = Field(False, description="the leader is already wounded: +1 drm")
    leader_drm: int = Field(-1, ge=-3, le=1, description="his leadership DRM (e.g. -2 "
                                                         "for a 9-2), for the LLMC")
    unit_morale: int | None = Field(None, ge=1, le=10,
                                    description="morale of the units with him, who take a "
                                                "Leader Loss MC if he dies (omit if alone)")
    unit_broken: bool = Field(False, description="those units are already broken")
    unit_elr: int | None = Field(None, ge=0, le=5, description="their ELR")


def wound_killed(d: Dice, wounded: bool, who: Msg) -> bool:
    """The casualty dr for a leader: 1-4 wounded, 5+ killed, +1 if already wounded.

    Asked for as one die split into "wounded" and "killed" faces, so the exact odds
    branch twice rather than six times."""
    killing = [4, 5, 6] if wounded else [5, 6]
    faces = {"wounded": [f for f in range(1, 7) if f not in killing], "killed": killing}
    what = "wound dr, already wounded (+1)" if wounded else "wound dr"
    killed = bool(d.split(1, faces, rule="asl.leader_wound", what=what)["killed"])
    d.note("asl.leader_wound", "{who}: {fate}", who=who,
           fate=Msg("5 or more: killed") if killed else Msg("1-4: wounded"))
    return killed


@procedure(
    "asl.leader_wound",
    title="Leader casualty (wound) dr",
    summary="A leader who suffers casualty reduction rolls a dr: 1-4 wounded, 5+ killed "
            "(+1 if already wounded); if killed the units with him take an LLMC.",
    params=LeaderWoundParams,
    outcome=outcome(
        ("wounded", "bool", "the leader survives wounded"),
        ("killed", "bool", "the leader is killed"),
        OutcomeField("llmc", "str", "the Leader Loss MC of the units with him",
                     ("none", "passed", "failed")),
        ("units_broken", "bool", "the units with him are broken afterwards"),
        ("units_casualty_reduction", "bool", "they suffer casualty reduction"),
        ("units_eliminated", "bool", "they are eliminated (broken, original 12)"),
        ("units_replaced", "bool", "they are replaced by lower-quality units (ELR)"),
    ),
    source="seed 001: leader wounds",
    note="The card gives 1-4 wounded, 5-7 killed with +1 if already wounded. The LLMC "
         "DRM is the dead leader's leadership DRM with its sign reversed (a -2 leader's "
         "loss is +2): the card is silent, this is the ASL rule as we know it.",
)
def leader_wound(p: LeaderWoundParams, d: Dice) -> dict[str, Any]:
    killed = wound_killed(d, p.wounded, Msg("the leader"))
    out: dict[str, Any] = {"wounded": not killed, "killed": killed}
    if not killed or p.unit_morale is None:
        if killed:
            d.note("asl.llmc", "no units with him: no Leader Loss MC")
        return {**out, "llmc": "none", **_units(MoraleResult(
            True, p.unit_broken, False, False, False, False))}
    drm = -p.leader_drm
    original = d.dice(2, view="sum", rule="asl.llmc", what="LLMC DR")
    r = judge(original, original + drm, p.unit_morale, "mc", p.unit_broken, p.unit_elr)
    explain(d, "asl.llmc", Msg("the units with him: Leader Loss"), original, drm,
            p.unit_morale, "mc", p.unit_broken, r)
    return {**out, "llmc": "passed" if r.passed else "failed", **_units(r)}


def _units(r: MoraleResult) -> dict[str, bool]:
    return {"units_broken": r.broken, "units_casualty_reduction": r.casualty_reduction,
            "units_eliminated": r.eliminated, "units_replaced": r.replaced}
