"""ASL unit profiles: a stack of counters written as players write them.

``4-6-7`` is a squad (firepower-range-morale), ``hs 2-6-7`` a half-squad, ``8-1`` a
leader (morale 8, leadership DRM -1; ``7-0``, ``8+1``), ``MMG 4-10 B11`` a support
weapon (firepower-range, breakdown number). Counters are read by the one parser of
:mod:`warroom.games.asl.counters`, the same that reads the procedures' parameters (so a
3-FP counter is a half-squad unless written ``2-6-7:squad``).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from pydantic import Field, field_validator

from warroom.engine.game import Takes, one_actor
from warroom.engine.game import takes as make_takes
from warroom.engine.messages import Msg, msg
from warroom.errors import ErrorText, UsageError, counted
from warroom.games.asl.counters import MAX_UNITS, Counter, parse_counter
from warroom.units.base import Profile, Situation

__all__ = ["AslStack", "Counter", "group_params", "ift_params", "parse_counter",
           "stack_params"]


MAX_COUNTERS = 2 * MAX_UNITS
"""Counters a stack lists: its units (at most :data:`MAX_UNITS`) and support weapons."""


class AslStack(Profile):
    """Counters in one location, their nationality and ELR: up to ten squads,
    half-squads and leaders (what ``asl.ift_on_stack`` takes) and their support weapons."""

    name: str = Field(min_length=1)
    nationality: str = ""
    elr: int = Field(3, ge=0, le=5)
    counters: tuple[str, ...] = Field(min_length=1, max_length=MAX_COUNTERS)

    @field_validator("counters")
    @classmethod
    def _counters(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        units = sum(parse_counter(c).kind != "sw" for c in v)
        if units > MAX_UNITS:  # the one message parse_units gives for too many units
            raise UsageError("at most {most} {what}, got {count}", most=MAX_UNITS,
                             what=ErrorText("units in one location"), count=units)
        return v

    def parsed(self) -> list[Counter]:
        return [parse_counter(c) for c in self.counters]

    def summary(self) -> list[tuple[str, str]]:
        rows = [("", f"{self.nationality or 'nationality not given'}, ELR {self.elr}")]
        for c in self.parsed():
            if c.kind == "leader":
                rows.append((c.text, f"leader, morale {c.morale}, DRM {c.drm:+d}"))
            elif c.kind == "sw":
                b = f", breakdown B{c.breakdown}" if c.breakdown else ""
                rows.append((c.text, f"{c.name}, FP {c.fp}, range {c.range}{b}"))
            else:
                rows.append((c.text, f"{'half-squad' if c.kind == 'hs' else 'squad'}, "
                             f"FP {c.fp}, range {c.range}, morale {c.morale}"))
        return rows


def reach(c: Counter, rng: int | None) -> int:
    """How a counter fires at ``rng`` hexes (ASLRB A7.22): 1 within its normal range (or
    no range given), 2 at long range (up to twice it: FP halved), 0 out of range."""
    if rng is None or rng <= c.range:
        return 1
    return 2 if rng <= 2 * c.range else 0


def ift_params(attacker: AslStack, target: AslStack | None, s: Situation
               ) -> tuple[dict[str, Any], dict[str, Msg]]:
    """``asl.ift``: the stack's firepower at ``range_hexes`` (beyond normal range and
    up to twice it, half firepower: long range, ASLRB A7.22; out of reach, no fire), its
    best leader's DRM, point-blank fire at range 1."""
    del target
    rng = s.int("range_hexes")
    total = Fraction(0)
    parts: list[Msg] = []
    for c in attacker.parsed():
        if c.kind == "leader":
            continue
        how = reach(c, rng)
        if not how:
            parts.append(msg("{counter} out of range", counter=c.text))
            continue
        parts.append(msg("{counter} {fp}/2 long range", counter=c.text, fp=c.fp) if how == 2
                     else msg("{counter} {fp}", counter=c.text, fp=c.fp))
        total += Fraction(c.fp, how)
    if not total:
        raise UsageError(counted("{unit}: nothing in the stack can fire at {n} hex",
                                 "{unit}: nothing in the stack can fire at {n} hexes",
                                 n=rng, unit=attacker.name))
    out: dict[str, Any] = {"fp": str(total)}
    joined = parts[0]
    for part in parts[1:]:
        joined = msg("{a} + {b}", a=joined, b=part)
    src = {"fp": msg("{unit}: {parts}", unit=attacker.name, parts=joined)}
    leaders = [c for c in attacker.parsed() if c.kind == "leader"]
    if leaders and not s.flag("leader_broken"):
        best = min(leaders, key=lambda c: c.drm)
        who = msg("{unit}, leader {counter}", unit=attacker.name, counter=best.text)
        if best.drm:
            out["leader_drm"], src["leader_drm"] = best.drm, who
        out["leader_directed"], src["leader_directed"] = True, who
    if rng == 1:
        out["pbf"], src["pbf"] = True, msg("range 1 hex: point-blank fire")
    if s.flag("pinned"):
        out["area_fire"], src["area_fire"] = 1, msg("{unit}: pinned, FP halved", unit=attacker.name)
    return out, src


def _target_units(target: AslStack, s: Situation) -> tuple[str, Msg]:
    """The target stack's squads, half-squads and leaders as the procedures read them
    (support weapons take no morale checks); ``broken=N`` marks the first N broken."""
    broken = s.int("broken") or 0
    units: list[str] = []
    for c in target.parsed():
        if c.kind == "sw":
            continue
        item = c.item
        if broken > 0 and "broken" not in item.split(":"):
            item += ":broken"
            broken -= 1
        units.append(item)
    if not units:
        raise UsageError("{unit}: the stack has no squads, half-squads or leaders",
                         unit=target.name)
    return ",".join(units), msg("{unit}: counters {counters}", unit=target.name,
                                counters=", ".join(target.counters))


def stack_params(attacker: AslStack | None, target: AslStack, s: Situation
                 ) -> tuple[dict[str, Any], dict[str, Msg]]:
    """``asl.ift_on_stack``: the target stack's squads, half-squads and leaders as
    written, and the side's ELR (``broken=N`` marks the first N units broken)."""
    del attacker
    units, said = _target_units(target, s)
    return ({"units": units, "elr": target.elr},
            {"units": said, "elr": msg("{unit}, ELR", unit=target.name)})


def group_params(attackers: Sequence[tuple[AslStack, Situation]], target: AslStack,
                 s: Situation) -> tuple[dict[str, Any], dict[str, Msg]]:
    """``asl.fire_group``: the squads, half-squads and leaders of every firing stack
    (``pinned`` from that stack's own situation), the target stack as written and its
    ELR. With ``range_hexes``: a unit beyond twice its normal range does not fire, the
    group fires at long range when all its units are beyond their normal range (A7.22);
    when only some are, each of those is flagged ``:lr`` and halved on its own (A7.5),
    point-blank at 1 hex. Support weapons fire
    with the group, on their own range (``MMG 4-10 B11``: normal range 10, long range
    up to 20), pinned when their stack is."""
    firers: list[str] = []
    said: list[Msg] = []
    far: list[str] = []
    near: list[str] = []
    for attacker, own in attackers:
        rng = own.int("range_hexes")
        pinned = own.flag("pinned")
        said.append(msg("{unit}: counters {counters}", unit=attacker.name,
                        counters=", ".join(attacker.counters)))
        for c in attacker.parsed():
            how = reach(c, rng) if c.kind != "leader" else -1
            if not how:
                said.append(msg("{counter} out of range", counter=c.text))
                continue
            if how > 0:
                (far if how == 2 else near).append(c.text)
            item = c.item
            if c.kind == "sw":  # fired by a squad of its stack (A9.11)
                said.append(msg("{counter}: a support weapon, fires with the group",
                                counter=c.text))
                item = c.text
            item += ":pinned" if pinned and "pinned" not in item.split(":") else ""
            firers.append(item + (":lr" if how == 2 else ""))
    if not near and not far:
        raise UsageError(counted("{unit}: nothing in the stack can fire at {n} hex",
                                 "{unit}: nothing in the stack can fire at {n} hexes",
                                 n=attackers[0][1].int("range_hexes"),
                                 unit=", ".join(a.name for a, _ in attackers)))
    units, target_said = _target_units(target, s)
    joined = said[0]
    for part in said[1:]:
        joined = msg("{a}; {b}", a=joined, b=part)
    out: dict[str, Any] = {"firers": ",".join(firers), "target": units, "elr": target.elr}
    src: dict[str, Msg] = {"firers": joined, "target": target_said,
                           "elr": msg("{unit}, ELR", unit=target.name)}
    if far and not near:  # the whole group: long_range, as recorded before :lr
        out["firers"] = ",".join(f.removesuffix(":lr") for f in firers)
        out["long_range"] = True
        src["long_range"] = msg("beyond normal range: {counters}", counters=", ".join(far))
    elif far:
        src["firers"] = msg("{a}; beyond normal range, halved (:lr): {counters}",
                            a=joined, counters=", ".join(far))
    ranges = {own.int("range_hexes") for _, own in attackers}
    if ranges == {1}:
        out["pbf"], src["pbf"] = True, msg("range 1 hex: point-blank fire")
    return out, src


def _stack(actors: Sequence[tuple[Any, Situation]], target: Any, s: Situation,
           names: frozenset[str]) -> tuple[dict[str, Any], dict[str, Msg]]:
    del actors, names
    return stack_params(None, target, s)


def _group(actors: Sequence[tuple[Any, Situation]], target: Any, s: Situation,
           names: frozenset[str]) -> tuple[dict[str, Any], dict[str, Msg]]:
    del names
    return group_params(actors, target, s)


def takes() -> dict[str, Takes]:
    """How each ASL procedure takes units (the game object's ``takes``)."""
    return {**more_takes(),
        "asl.ift": make_takes(one_actor(ift_params),
                              situation=("range_hexes", "pinned", "leader_broken")),
        "asl.ift_on_stack": make_takes(_stack, actor=False, target=True,
                                       situation=("broken",)),
        "asl.fire_group": make_takes(_group, target=True,
                                     situation=("range_hexes", "pinned", "broken"),
                                     several=("range_hexes", "pinned")),
    }


def _leader(stack: AslStack, s: Situation) -> Counter | None:
    """The stack's best leader (lowest DRM), unless the battle says it is broken."""
    leaders = [c for c in stack.parsed() if c.kind == "leader"]
    if not leaders or s.flag("leader_broken"):
        return None
    return min(leaders, key=lambda c: c.drm)


def _squads(stack: AslStack) -> list[Counter]:
    return [c for c in stack.parsed() if c.kind in ("squad", "hs")]


def _pick(stack: AslStack, s: Situation) -> Counter:
    """The unit of the stack a check is about: ``counter=N`` (the Nth counter as
    listed), else its first squad or half-squad, else its first leader."""
    counters = [c for c in stack.parsed() if c.kind != "sw"]
    if not counters:
        raise UsageError("{unit}: the stack has no squads, half-squads or leaders",
                         unit=stack.name)
    n = s.int("counter")
    if n is not None:
        if not 1 <= n <= len(counters):
            raise UsageError("{unit}: counter={n}, but it has {count} units",
                             unit=stack.name, n=n, count=len(counters))
        return counters[n - 1]
    return (_squads(stack) or counters)[0]


def mc_params(actors: Sequence[tuple[Any, Situation]], target: Any, s: Situation,
              names: frozenset[str]) -> tuple[dict[str, Any], dict[str, Msg]]:
    """``asl.mc``: the morale of the unit checking (its first squad, or ``counter=N``),
    the leadership DRM of the best other leader in its location (A10.7), whether it is
    already broken (``broken``) and the side's ELR."""
    del target, names
    stack, own = actors[0]
    unit = _pick(stack, own)
    out: dict[str, Any] = {"morale": unit.morale, "elr": stack.elr}
    src: dict[str, Msg] = {"morale": msg("{unit}, {counter} morale", unit=stack.name,
                                         counter=unit.text),
                           "elr": msg("{unit}, ELR", unit=stack.name)}
    leader = _leader(stack, own)
    if leader is not None and leader is not unit and leader.drm:
        out["drm"] = leader.drm
        src["drm"] = msg("{unit}, leader {counter} (ASLRB A10.7)", unit=stack.name,
                         counter=leader.text)
    if (s.int("broken") or 0) > 0:
        out["broken"], src["broken"] = True, msg("{unit}: broken marker", unit=stack.name)
    return out, src


def rally_params(actors: Sequence[tuple[Any, Situation]], target: Any, s: Situation,
                 names: frozenset[str]) -> tuple[dict[str, Any], dict[str, Msg]]:
    """``asl.rally``: the broken unit (its first squad, or ``counter=N``), the best
    other leader of its location rallying it, else it rallies itself; DM from its
    ``dm`` marker."""
    del target, names
    stack, own = actors[0]
    unit = _pick(stack, own)
    out: dict[str, Any] = {"unit": unit.item if "broken" in unit.item.split(":")
                           else unit.item + ":broken"}
    src: dict[str, Msg] = {"unit": msg("{unit}, {counter} (broken)", unit=stack.name,
                                       counter=unit.text)}
    leader = _leader(stack, own)
    if leader is not None and leader is not unit:
        out["leader"] = leader.text
        src["leader"] = msg("{unit}, leader {counter}", unit=stack.name,
                            counter=leader.text)
    else:
        out["self_rally"] = True
        src["self_rally"] = msg("{unit}: no other leader in the stack", unit=stack.name)
    if s.flag("dm"):
        out["dm"], src["dm"] = True, msg("{unit}: DM marker", unit=stack.name)
    return out, src


def _cc_side(stack: AslStack, pinned: bool, said: list[Msg]) -> str:
    items: list[str] = []
    for c in stack.parsed():
        if c.kind == "sw":
            said.append(msg("{counter} left out: support weapons add no CC FP",
                            counter=c.text))
            continue
        items.append(c.item + (":pinned" if pinned and "pinned" not in c.item else ""))
    if not items:
        raise UsageError("{unit}: the stack has no squads, half-squads or leaders",
                         unit=stack.name)
    return ",".join(items)


def cc_params(actors: Sequence[tuple[Any, Situation]], target: Any, s: Situation,
              names: frozenset[str]) -> tuple[dict[str, Any], dict[str, Msg]]:
    """``asl.cct``: the attacking and defending units as counters (the procedure sums
    their CC FP, halves a pinned attacker's and takes the best attacking leader's DRM);
    ``pinned`` marks the attackers, ``target_pinned`` the defenders."""
    del names
    stack, own = actors[0]
    said: list[Msg] = [msg("{unit}: counters {counters}", unit=stack.name,
                           counters=", ".join(stack.counters))]
    attackers = _cc_side(stack, own.flag("pinned"), said)
    tsaid: list[Msg] = [msg("{unit}: counters {counters}", unit=target.name,
                            counters=", ".join(target.counters))]
    defenders = _cc_side(target, s.flag("target_pinned"), tsaid)

    def joined(parts: list[Msg]) -> Msg:
        out = parts[0]
        for part in parts[1:]:
            out = msg("{a}; {b}", a=out, b=part)
        return out

    return ({"attackers": attackers, "defenders": defenders},
            {"attackers": joined(said), "defenders": joined(tsaid)})


def more_takes() -> dict[str, Takes]:
    """How the ASL checks and Close Combat take units."""
    return {
        "asl.mc": make_takes(mc_params, situation=("counter", "broken", "leader_broken")),
        "asl.rally": make_takes(rally_params, situation=("counter", "leader_broken", "dm",
                                                          "broken")),
        "asl.cct": make_takes(cc_params, target=True,
                              situation=("pinned", "target_pinned")),
    }
