"""ASL unit profiles: a stack of counters written as players write them.

``4-6-7`` is a squad (firepower-range-morale), ``hs 2-6-7`` a half-squad, ``8-1`` a
leader (morale 8, leadership DRM -1; ``7-0``, ``8+1``), ``MMG 4-10 B11`` a support
weapon (firepower-range, breakdown number). This parser is the profiles' own; the
counter text accepted by the procedures' parameters may grow its own spelling.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any, Literal, NamedTuple

from pydantic import Field, field_validator

from warroom.engine.messages import Msg, msg
from warroom.errors import UsageError
from warroom.units.base import Profile, Situation

CounterKind = Literal["squad", "hs", "leader", "sw"]

_MMC = re.compile(r"^(?:(hs|squad)\s+)?(\d+)-(\d+)-(\d+)$")
_LEADER = re.compile(r"^(\d+)([-+])(\d)$")
_SW = re.compile(r"^([a-z][a-z0-9.]*)\s+(\d+)-(\d+)(?:\s+b(\d+))?$")


class Counter(NamedTuple):
    kind: CounterKind
    text: str
    fp: int = 0
    range: int = 0
    morale: int = 0
    drm: int = 0
    breakdown: int | None = None
    name: str = ""


def parse_counter(text: str) -> Counter:
    """``"4-6-7"`` -> a squad counter; a UsageError says what was expected."""
    t = " ".join(text.strip().lower().split())
    m = _MMC.match(t)
    if m:
        kind: CounterKind = "hs" if m.group(1) == "hs" else "squad"
        fp, rng, morale = int(m.group(2)), int(m.group(3)), int(m.group(4))
        if not 1 <= morale <= 10:
            raise UsageError("{text!r}: morale must be 1 to 10", text=text)
        return Counter(kind, text.strip(), fp, rng, morale)
    m = _LEADER.match(t)
    if m:
        morale, drm = int(m.group(1)), int(m.group(3)) * (-1 if m.group(2) == "-" else 1)
        if not 1 <= morale <= 10 or not -3 <= drm <= 1:
            raise UsageError("{text!r}: a leader's morale is 1 to 10 and his DRM -3 to +1",
                             text=text)
        return Counter("leader", text.strip(), morale=morale, drm=drm)
    m = _SW.match(t)
    if m:
        return Counter("sw", text.strip(), int(m.group(2)), int(m.group(3)),
                       breakdown=int(m.group(4)) if m.group(4) else None,
                       name=m.group(1).upper())
    raise UsageError("{text!r} is not a counter: write a squad 4-6-7, a half-squad "
                     "hs 2-6-7, a leader 8-1 or a support weapon MMG 4-10 B11", text=text)


class AslStack(Profile):
    """Counters in one location, their nationality and ELR."""

    name: str = Field(min_length=1)
    nationality: str = ""
    elr: int = Field(3, ge=0, le=5)
    counters: tuple[str, ...] = Field(min_length=1, max_length=8)

    @field_validator("counters")
    @classmethod
    def _counters(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        for c in v:
            parse_counter(c)
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
        fp = Fraction(c.fp)
        if rng is not None and rng > c.range:
            if rng > 2 * c.range:
                parts.append(msg("{counter} out of range", counter=c.text))
                continue
            fp /= 2
            parts.append(msg("{counter} {fp}/2 long range", counter=c.text, fp=c.fp))
        else:
            parts.append(msg("{counter} {fp}", counter=c.text, fp=c.fp))
        total += fp
    if not total:
        raise UsageError("{unit}: nothing in the stack can fire at {range} hexes",
                         unit=attacker.name, range=rng)
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


def stack_params(attacker: AslStack | None, target: AslStack, s: Situation
                 ) -> tuple[dict[str, Any], dict[str, Msg]]:
    """``asl.ift_on_stack``: the target stack's squads, half-squads and leaders with
    their morale, the leader's DRM and the side's ELR (``broken=N`` marks the first N
    units broken)."""
    del attacker
    broken = s.int("broken") or 0
    units: list[str] = []
    for c in target.parsed():
        if c.kind == "sw":
            continue
        third = str(c.drm) if c.kind == "leader" else str(target.elr)
        item = [c.kind, str(c.morale), third]
        if broken > 0:
            item.append("broken")
            broken -= 1
        units.append(":".join(item))
    if not units:
        raise UsageError("{unit}: the stack has no squads, half-squads or leaders",
                         unit=target.name)
    return ({"units": ",".join(units)},
            {"units": msg("{unit}: counters {counters}, ELR {elr}", unit=target.name,
                          counters=", ".join(target.counters), elr=target.elr)})
