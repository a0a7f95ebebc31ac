"""A hand-written exact programme for ``asl.ift_on_stack`` on a stack without leaders:
a test oracle and the benchmark's reference, written without the engine.

It follows the rules as the procedure's note states them (ASL reference card: #KIA, K/#,
NMC, #MC, PTC; ASLRB A.9, A7.8, A19.1), for squads and half-squads only:

* Random Selection (A.9): each unit rolls a dr; K/# takes every unit tied for the
  highest, #KIA the # highest and every unit tied with them (all of them when the stack
  has no more than # units). A lone unit is selected without a roll.
* K/#: a selected squad becomes a half-squad (reduced), a selected half-squad is
  eliminated; then every surviving unit takes an MC at +#.
* #KIA: the selected units are eliminated; every other unit breaks, or, already broken,
  suffers casualty reduction. No MC.
* NMC and #MC (+#): one MC per unit. PTC: failing pins; broken units take none.
* An MC: 2d6 + DRM against the morale (a broken unit's: its counter's broken side, 8 for
  a 4-6-7 and 9 for a 6-5-8 unless written ``/N``). A unit in good order passing with a
  final DR equal to its morale is pinned (A7.8); an original 12 always fails. Failing,
  a good-order unit breaks (its pin goes), replaced by a lower-quality unit when it
  failed by more than its ELR (A19.1), with casualty reduction as well on an original
  12; a broken unit suffers casualty reduction, or is eliminated on an original 12.

Given who is selected, the units' fates are independent, so the joint distribution is
built as products of per-unit distributions. For K/#, with ``a`` a unit's chances
unselected and ``b`` selected (both over 36), and every unit rolling below ``v`` (v - 1
faces: unselected) or exactly ``v`` (selected), at least one of them exactly ``v``::

    6**m * 36**m * P(o) = sum_v prod_u ((v - 1) a_u(o_u) + b_u(o_u))
                          - (sum_v (v - 1)**m) prod_u a_u(o_u)

so the joint outcome is a sum of product distributions: each half of the stack's is
built unit after unit with the seven terms carried side by side, and every pair of the
halves' states is one dot product.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from fractions import Fraction
from itertools import combinations
from math import comb
from operator import mul
from typing import NamedTuple

TWO_D6 = {t: 6 - abs(t - 7) for t in range(2, 13)}  # ways of each 2d6 total, over 36
DEFAULT_BROKEN = {(4, 6, 7): 8, (6, 5, 8): 9}  # a counter's broken side, when not written


class Squad(NamedTuple):
    """One squad or half-squad: its kind and number (``squad2``), morale, broken-side
    morale, ELR (None: not used) and how it starts."""

    name: str
    half: bool
    morale: int
    broken_morale: int
    elr: int | None
    broken: bool
    pinned: bool


class Fate(NamedTuple):
    """A unit's state: the flags the outcome names."""

    reduced: bool = False
    replaced: bool = False
    broken: bool = False
    pinned: bool = False
    gone: bool = False

    def name(self) -> str:
        if self.gone:
            return "eliminated"
        words = [w for w, on in (("reduced", self.reduced), ("replaced", self.replaced),
                                 ("broken", self.broken), ("pinned", self.pinned)) if on]
        return "+".join(words) or "ok"


_COUNTER = re.compile(r"^(\d+)-(\d+)-(\d+)(?:/(\d+))?$")


def squads(text: str, elr: int | None = None) -> list[Squad]:
    """Counters such as ``4-6-7,2-4-8:broken,4-4-7:elr=2:pinned`` (FP-range-morale, a
    broken side after a slash; 3 FP or less is a half-squad). Leaders are refused."""
    out: list[Squad] = []
    counts = {"squad": 0, "hs": 0}
    for item in text.split(","):
        head, *flags = item.strip().lower().split(":")
        m = _COUNTER.match(head)
        if not m:
            raise ValueError(f"not a squad or half-squad counter: {item!r}")
        fp, rng, morale = int(m[1]), int(m[2]), int(m[3])
        broken_morale = int(m[4]) if m[4] else DEFAULT_BROKEN.get((fp, rng, morale), morale)
        own_elr = elr
        for f in flags:
            if f.startswith("elr="):
                own_elr = int(f[4:])
            elif f not in ("broken", "pinned"):
                raise ValueError(f"unknown flag {f!r} in {item!r}")
        kind = "hs" if fp <= 3 else "squad"
        counts[kind] += 1
        out.append(Squad(f"{kind}{counts[kind]}", kind == "hs", morale, broken_morale,
                         own_elr, "broken" in flags, "pinned" in flags))
    return out


def _casualty(u: Squad, f: Fate) -> Fate:
    if u.half or f.reduced:
        return Fate(gone=True)
    return f._replace(reduced=True)


def _mc(u: Squad, f: Fate, drm: int, ptc: bool) -> dict[Fate, int]:
    """The fates after one MC (or PTC), weights over 36."""
    if f.gone or (ptc and f.broken):
        return {f: 36}
    morale = u.broken_morale if f.broken else u.morale
    out: dict[Fate, int] = {}
    for total, ways in TWO_D6.items():
        final = total + drm
        if ptc:
            after = f if final <= morale else f._replace(pinned=True)
        elif f.broken:
            after = f if final <= morale and total != 12 else (
                Fate(gone=True) if total == 12 else _casualty(u, f))
        elif final <= morale and total != 12:
            after = f._replace(pinned=True) if final == morale else f
        else:
            after = f._replace(broken=True, pinned=False, replaced=f.replaced or (
                u.elr is not None and final > morale + u.elr))
            if total == 12:
                after = _casualty(u, after)
        out[after] = out.get(after, 0) + ways
    return out


def _start(u: Squad) -> Fate:
    return Fate(broken=u.broken, pinned=u.pinned)


def _products(factors: Iterable[dict[str, tuple[int, ...]]]
              ) -> dict[tuple[str, ...], tuple[int, ...]]:
    """The product distribution of units whose weights are vectors (one entry per term
    carried side by side), multiplied entry by entry."""
    joint: dict[tuple[str, ...], tuple[int, ...]] = {(): ()}
    for unit in factors:
        nxt: dict[tuple[str, ...], tuple[int, ...]] = {}
        for key, vec in joint.items():
            for name, w in unit.items():
                nxt[(*key, name)] = tuple(x * y for x, y in zip(vec, w, strict=True)) \
                    if vec else w
        joint = nxt
    return joint


def stack_weights(result: str, units: list[Squad], drm: int = 0
                  ) -> tuple[dict[tuple[str, ...], int], int]:
    """The joint final states of ``units`` (state names in their order) after
    ``result``, as integer weights over a denominator."""
    m = len(units)
    starts = [_start(u) for u in units]
    if result == "-":
        return {tuple(f.name() for f in starts): 1}, 1
    if result.endswith("KIA"):
        return _kia(int(result[0]), units, starts)
    if result.startswith("K/"):
        return _k(int(result[2]), units, starts, drm)
    ptc = result == "PTC"
    extra = 0 if result in ("NMC", "PTC") else int(result[0])
    joint: dict[tuple[str, ...], int] = {(): 1}
    for u, f in zip(units, starts, strict=True):
        unit: dict[str, int] = {}
        for g, w in _mc(u, f, drm + extra, ptc).items():
            unit[g.name()] = unit.get(g.name(), 0) + w
        joint = {(*key, n): w * x for key, w in joint.items() for n, x in unit.items()}
    return joint, 36**m


def _k(n: int, units: list[Squad], starts: list[Fate], drm: int
       ) -> tuple[dict[tuple[str, ...], int], int]:
    m = len(units)
    factors = []
    for u, f in zip(units, starts, strict=True):
        vec: dict[str, list[int]] = {}
        for sel in (False, True):
            for g, w in _mc(u, _casualty(u, f) if sel else f, drm + n, False).items():
                row = vec.setdefault(g.name(), [0] * 7)
                # entries 0-5: (v - 1) a + b for v = 1..6; entry 6: a (the subtracted term)
                for v in range(6):
                    row[v] += w if sel else v * w
                if not sel:
                    row[6] += w
        factors.append({k: tuple(r) for k, r in vec.items()})
    # the two halves of the stack apart, then every pair: one dot product each
    h = (m + 1) // 2
    below = sum(v**m for v in range(6))
    first = {k: (*vec[:6], -below * vec[6]) for k, vec in _products(factors[:h]).items()}
    second = _products(factors[h:]) if m > h else {(): (1,) * 7}
    out: dict[tuple[str, ...], int] = {}
    for ka, va in first.items():
        for kb, vb in second.items():
            w = sum(map(mul, va, vb))
            if w:
                out[ka + kb] = w
    return out, 6**m * 36**m


def _kia(n: int, units: list[Squad], starts: list[Fate]
         ) -> tuple[dict[tuple[str, ...], int], int]:
    m = len(units)
    hit = [_casualty(u, f).name() if f.broken else f._replace(broken=True, pinned=False).name()
           for u, f in zip(units, starts, strict=True)]
    if n >= m:
        return {("eliminated",) * m: 1}, 1
    out: dict[tuple[str, ...], int] = {}
    for s in range(n, m + 1):
        # the chosen s: each at least v, fewer than n of them above v, the others below v
        ways = sum((v - 1) ** (m - s) * sum(comb(s, j) * (6 - v) ** j for j in range(n))
                   for v in range(1, 7))
        for chosen in combinations(range(m), s):
            key = tuple("eliminated" if i in chosen else hit[i] for i in range(m))
            out[key] = out.get(key, 0) + ways
    return out, 6**m


def stack_odds(result: str, units: str, drm: int = 0, elr: int | None = None
               ) -> dict[tuple[str, ...], Fraction]:
    """The joint final states as Fractions (each unit's state name, in order)."""
    weights, total = stack_weights(result, squads(units, elr), drm)
    return {k: Fraction(w, total) for k, w in weights.items()}


def as_states(dist: Iterable[tuple[dict[str, object], Fraction]], m: int
              ) -> dict[tuple[str, ...], Fraction]:
    """warroom's distribution of ``asl.ift_on_stack`` as the units' states."""
    out: dict[tuple[str, ...], Fraction] = {}
    for o, p in dist:
        key = tuple(str(o[f"unit{i}"]) for i in range(1, m + 1))
        out[key] = out.get(key, Fraction(0)) + p
    return out
