"""Morale: asl.mc (MC and PTC on one unit) and asl.leader_wound."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal

from pydantic import Field

from warroom.engine.context import Dice, fixed
from warroom.engine.messages import Msg, msg
from warroom.engine.procedure import OutcomeField, Params, outcome, procedure

Kind = Literal["mc", "ptc", "tc"]
"""mc: morale check; ptc: pin task check; tc: a task check whose failure breaks the unit
(a Leader Loss Task Check read as breaking, without casualty reduction or ELR)."""


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
    """The morale rules for one DR (``original`` before DRMs, ``final`` after): the
    card's, and where it is silent the ASL Rulebook's (A7.8: an MC passed with a final
    DR equal to the morale pins a unit in good order)."""
    if kind == "ptc":
        passed = final <= morale
        return MoraleResult(passed, broken, False, False, False, not passed and not broken)
    if kind == "tc":
        passed = final <= morale
        return MoraleResult(passed, True if not passed else broken, False, False, False,
                            False)
    passed = final <= morale and original != 12
    if broken:
        if passed:
            return MoraleResult(True, True, False, False, False, False)
        if original == 12:
            return MoraleResult(False, False, False, True, False, False)
        return MoraleResult(False, True, True, False, False, False)
    if passed:
        return MoraleResult(True, False, False, False, False, final == morale)
    replaced = elr is not None and final > morale + elr
    return MoraleResult(False, True, original == 12, False, replaced, False)


def explain(d: Dice, rule: str, who: Msg, original: int, drm: int, morale: int, kind: Kind,
            broken: bool, r: MoraleResult) -> None:
    """Record, in a player's words, how a check went."""
    final = original + drm
    check = Msg("PTC") if kind == "ptc" else Msg("LLTC") if kind == "tc" else Msg("MC")
    d.note(rule, "{who} {check}: final DR {final} (original {orig}, DRM {drm:+d}) against "
           "morale {morale}", consequence(r, kind, broken, original), who=who, check=check,
           final=final, orig=original, drm=drm, morale=morale)


def consequence(r: MoraleResult, kind: Kind, broken: bool, original: int) -> Msg:
    if kind == "ptc":
        if broken:
            return Msg("a broken unit is not pinned (it may get DM)")
        return Msg("passed") if r.passed else Msg("failed: pinned")
    if kind == "tc":
        if r.passed:
            return Msg("passed")
        return Msg("failed, already broken: no further effect") if broken else Msg(
            "failed: breaks (DM)")
    if r.eliminated:
        return Msg("failed with an original 12 while broken: eliminated")
    if r.passed:
        return Msg("passed with a final DR equal to its morale: pinned") if r.pinned \
            else Msg("passed")
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
    morale: int = Field(7, ge=1, le=10, description="the unit's morale level (a broken "
                        "unit's: its broken side's, e.g. 8 for a German 4-6-7)")
    drm: int = Field(0, ge=-6, le=8, description="total DRM of the check (leadership, "
                                                 "+n of an nMC or K/n, terrain...)")
    kind: Literal["mc", "ptc"] = Field("mc", description="mc: morale check; ptc: pin "
                                                         "task check")
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
    ("pinned", "bool", "failed a PTC, or passed an MC with a final DR equal to the "
                       "morale (A7.8)"),
)


@procedure(
    "asl.mc",
    title="Morale check",
    summary="One unit's morale check (MC) or pin task check (PTC): 2d6 plus DRM against "
            "its morale.",
    params=McParams,
    outcome=MC_OUTCOME,
    source="ASL reference card: NMC, #MC, PTC; ASLRB A7.8, A19.1",
    note="From the card: an original 12 on an MC breaks a good-order unit with casualty "
         "reduction and eliminates a broken one. Where the card is silent we follow the "
         "ASL Rulebook: an MC passed with a final DR exactly equal to the morale pins a "
         "unit in good order (A7.8); an original 12 always fails an MC; a broken unit is "
         "not pinned by a PTC; ELR replacement only applies to good-order units failing "
         "an MC (A19.1).",
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
    morale: int = Field(8, ge=1, le=10, description="the leader's morale (only units of "
                                                    "lower morale take the LLMC)")
    leader_drm: int = Field(-1, ge=-3, le=1, description="his leadership DRM (e.g. -2 "
                                                         "for a 9-2), for the LLMC")
    unit_morale: int | None = Field(None, ge=1, le=10,
                                    description="morale of the units with him, who take a "
                                                "Leader Loss MC if he dies (omit if alone)")
    unit_broken: bool = Field(False, description="those units are already broken")
    unit_elr: int | None = Field(None, ge=0, le=5, description="their ELR")


@cache
def _wound_chain(wounded: bool) -> Callable[[Dice], str]:
    """The wound dr as a chain: at the table one die (the story shows it), for exact
    odds two categories."""
    least = 4 if wounded else 5
    what = "wound dr, already wounded (+1)" if wounded else "wound dr"

    def chain(dd: Dice) -> str:
        return "killed" if dd.die(rule="asl.leader_wound", what=what) >= least \
            else "wounded"

    return fixed(chain)


def wound_killed(d: Dice, wounded: bool, who: Msg) -> bool:
    """The casualty dr for a leader: 1-4 wounded, 5+ killed, +1 if already wounded.
    The die itself is a step of the story; exact odds branch twice, not six times."""
    killed = d.one(_wound_chain(wounded), ("wounded", "killed"), rule="asl.leader_wound",
                   what=who) == "killed"
    d.note("asl.leader_wound", "{who}: {fate}", who=who,
           fate=(Msg("4 or more when already wounded: killed") if wounded
                 else Msg("5 or more: killed")) if killed else
           (Msg("1-3 when already wounded: wounded") if wounded else Msg("1-4: wounded")))
    return killed


@procedure(
    "asl.leader_wound",
    title="Leader casualty (wound) dr",
    summary="A leader who suffers casualty reduction rolls a dr: 1-4 wounded, 5+ killed "
            "(+1 if already wounded); if killed the units of lower morale with him take "
            "an LLMC.",
    params=LeaderWoundParams,
    outcome=outcome(
        ("wounded", "bool", "the leader survives wounded"),
        ("killed", "bool", "the leader is killed"),
        OutcomeField("llmc", "str", "the Leader Loss MC of the units with him",
                     ("none", "passed", "pinned", "failed")),
        ("units_broken", "bool", "the units with him are broken afterwards"),
        ("units_casualty_reduction", "bool", "they suffer casualty reduction"),
        ("units_eliminated", "bool", "they are eliminated (broken, original 12)"),
        ("units_replaced", "bool", "they are replaced by lower-quality units (ELR)"),
    ),
    source="ASL reference card: leader wounds; ASLRB A10.2, A17.2",
    note="The card gives 1-4 wounded, 5-7 killed with +1 if already wounded. Following "
         "ASLRB A10.2: only units of lower current morale than the leader take the LLMC, "
         "broken ones too, at his leadership DRM with its sign reversed (a -2 leader's "
         "loss is +2); it is taken after the attack is resolved. An LLMC passed with a "
         "final DR equal to the morale pins (A7.8).",
)
def leader_wound(p: LeaderWoundParams, d: Dice) -> dict[str, Any]:
    killed = wound_killed(d, p.wounded, Msg("the leader"))
    out: dict[str, Any] = {"wounded": not killed, "killed": killed}
    none = {**out, "llmc": "none", **_units(MoraleResult(
        True, p.unit_broken, False, False, False, False))}
    if not killed or p.unit_morale is None:
        if killed:
            d.note("asl.llmc", "no units with him: no Leader Loss MC")
        return none
    if p.unit_morale >= p.morale:
        d.note("asl.llmc", "the units with him have morale {m}, not lower than his {lm}: "
               "no Leader Loss MC", m=p.unit_morale, lm=p.morale)
        return none
    drm = -p.leader_drm
    original = d.dice(2, view="sum", rule="asl.llmc", what="LLMC DR")
    r = judge(original, original + drm, p.unit_morale, "mc", p.unit_broken, p.unit_elr)
    explain(d, "asl.llmc", Msg("the units with him: Leader Loss"), original, drm,
            p.unit_morale, "mc", p.unit_broken, r)
    llmc = "failed" if not r.passed else "pinned" if r.pinned else "passed"
    return {**out, "llmc": llmc, **_units(r)}


def _units(r: MoraleResult) -> dict[str, bool]:
    return {"units_broken": r.broken, "units_casualty_reduction": r.casualty_reduction,
            "units_eliminated": r.eliminated, "units_replaced": r.replaced}
