"""Packed states: between stages on parts, each state of the stage dynamic programme is
one int (its positions' value numbers, bits interleaved), so grouping, changing and
hashing a state are single int operations."""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Sequence
from math import lcm
from typing import Any

from warroom.engine.context import Stage
from warroom.engine.exact.collector import acyclic
from warroom.engine.exact.core import MakeDice
from warroom.engine.exact.parts import part_transition


class Packed:
    """States packed in one int each (:func:`staged`, between stages on parts): the
    distinct values met at each position are numbered, and a state is its values'
    numbers with their bits interleaved (bit ``j`` of position ``f``'s number at bit
    ``j * width + f``), up to ``bits`` bits a number. Grouping by a part is then a mask,
    changing a part adding the difference of its bits, hashing an int: single int
    operations instead of tuples built and hashed per state. Interleaved, the low bits
    of a state (where a dict looks first) hold the low bits of every position's number,
    so states that differ anywhere seldom collide in a dict (side by side, the first
    position alone filled them: about three times slower dicts of states)."""

    __slots__ = ("bits", "by_bits", "codes", "halves", "masks", "width")

    def __init__(self, width: int, bits: int = 16) -> None:
        self.width = width
        self.bits = bits
        # per position: the bits of each value, the value of each bits, its mask
        self.codes: list[dict[Any, int]] = [{} for _ in range(width)]
        self.by_bits: list[dict[int, Any]] = [{} for _ in range(width)]
        self.masks = [sum(1 << (j * width + f) for j in range(bits)) for f in range(width)]
        h = (width + 1) // 2
        # the values of the first and second half of a state (positions :h, h:), by the
        # state's bits there
        self.halves: tuple[tuple[int, range, dict[int, tuple[Any, ...]]], ...] = (
            (sum(self.masks[:h]), range(h), {}), (sum(self.masks[h:]), range(h, width), {}))

    def code(self, f: int, v: Any) -> int | None:
        """The bits of value ``v`` at position ``f`` (None: no room for another)."""
        codes = self.codes[f]
        c = codes.get(v)
        if c is None:
            n = len(codes)
            if n >> self.bits:
                return None
            c = 0
            for j in range(n.bit_length()):
                c |= (n >> j & 1) << (j * self.width + f)
            codes[v] = c
            self.by_bits[f][c] = v
        return c

    def mask(self, at: Sequence[int]) -> int:
        """The bits of positions ``at``."""
        return sum(self.masks[f] for f in at)

    def pack(self, dist: dict[int, dict[Any, int]]) -> dict[int, dict[Any, int]] | None:
        """Every state packed (None: a position has too many values)."""
        out: dict[int, dict[Any, int]] = {}
        for r, states in dist.items():
            into = out[r] = {}
            for s, w in states.items():
                n = 0
                for f, v in enumerate(s):
                    c = self.code(f, v)
                    if c is None:
                        return None
                    n |= c
                into[n] = w
        return out

    def fields(self, n: int, at: Sequence[int]) -> tuple[Any, ...]:
        """The values at positions ``at`` of the packed state ``n``."""
        masks, by_bits = self.masks, self.by_bits
        return tuple([by_bits[f][n & masks[f]] for f in at])

    def pieces(self, packed: Iterable[int]
               ) -> list[tuple[range, list[tuple[Any, ...]], list[int]]]:
        """The first and second half of the states packed ones stand for
        (:data:`~warroom.engine.context.Pieces`): per half, its positions, its distinct
        values (each worked out once: a few dozen) and each state's index among them,
        with no call in Python per state but per distinct value (in numpy where every
        state's bits fit in an int64, as they mostly do: interleaved, small numbers
        fill the low bits)."""
        import numpy as np

        ns = list(packed)
        try:  # small numbers (every state's bits below bit 63): cut in numpy
            column = np.fromiter(ns, dtype=np.int64, count=len(ns))
        except OverflowError:
            column = None
        out: list[tuple[range, list[tuple[Any, ...]], list[int]]] = []
        for mask, at, known in self.halves:
            if column is not None:
                found, where = np.unique(column & (mask & _LOW63), return_inverse=True)
                distinct, index = found.tolist(), where.reshape(-1).tolist()
            else:
                bits = [n & mask for n in ns]
                distinct = list(dict.fromkeys(bits))
                numbered = {b: i for i, b in enumerate(distinct)}
                index = list(map(numbered.__getitem__, bits))
            for b in distinct:
                if b not in known:
                    known[b] = self.fields(b, at)
            out.append((at, [known[b] for b in distinct], index))
        return out

    def unpacked(self, packed: Iterable[int]) -> list[tuple[Any, ...]]:
        """The states packed ones stand for, in order: each the two halves joined
        (:meth:`pieces`)."""
        return list(map(operator.add, *(map(values.__getitem__, index)
                                         for _, values, index in self.pieces(packed))))

    def unpack(self, dist: dict[int, dict[Any, int]]) -> dict[int, dict[Any, int]]:
        with acyclic():
            return {r: dict(zip(self.unpacked(states), states.values(), strict=True))
                    for r, states in dist.items()}


_LOW63 = (1 << 63) - 1
"""The bits an int64 holds (a state's bits, when they fit, are cut in numpy)."""


def packed_part_stage(part: tuple[tuple[int, ...], Stage[Any], Callable[[Any], Any], int,
                                  Callable[[Any], Any] | None],
                      token: Any, memo: dict[Any, Any], dist: dict[int, dict[Any, int]],
                      buckets: dict[int, dict[int, dict[Any, int]]], bump: int,
                      shared: dict[Any, Any], packed: Packed, *, make: MakeDice,
                      fresh: bool = False) -> bool | None:
    """:func:`part_stage` on packed states (:class:`Packed`): the states grouped by
    the bits of the positions their part reads, each group's transition (worked out once
    per value of those positions, as there) turned into the numbers to add to its
    states (and, for a position the part only writes, the bits to clear and set), and
    applied. Whether any state moved; None, with nothing done, when a position would get
    more values than its bits can number (the caller goes on with tuples). ``fresh``:
    no stage has run on the positions it reads (every state holds one value there: one
    group, and no two states lead to the same one)."""
    at, inner, _, n, key = part
    width = len(at)
    fields = tuple(map(str, range(width)))
    part_mask = packed.mask(at[:n])
    masks = packed.masks
    rounds: list[tuple[int, dict[int, list[tuple[int, int]]]]] = []
    with acyclic():
        for r, states in dist.items():
            if fresh and states:  # one value of the part: one group
                rounds.append((r, {next(iter(states)) & part_mask: list(states.items())}))
                continue
            groups: dict[int, list[tuple[int, int]]] = {}
            for item in states.items():
                g = item[0] & part_mask
                group = groups.get(g)
                if group is None:
                    groups[g] = [item]
                else:
                    group.append(item)
            rounds.append((r, groups))
    # each group's changes: (number to add, bits to keep, bits to set, weight over the
    # transition's denominator); a change only to positions read keeps every bit (-1)
    moves: dict[int, tuple[list[tuple[int, int, int, int]], int]] = {}
    code = packed.code
    for _, groups in rounds:
        for g in groups:
            if g in moves:
                continue
            changes, sden = part_transition(inner, packed.fields(g, at[:n]), at, token,
                                            memo, width, fields, shared, make=make,
                                            key=key)
            adds: list[tuple[int, int, int, int]] = []
            for ch, w2 in changes:
                add, keep, put = 0, -1, 0
                for f, v in ch:
                    c = code(f, v)
                    if c is None:
                        return None
                    if part_mask & masks[f]:  # read: its bits are g's
                        add += c - (g & masks[f])
                    else:  # only written: whatever its bits were
                        keep &= ~masks[f]
                        put |= c
                adds.append((add, keep, put, w2))
            moves[g] = (adds, sden)
    if not moves:
        return False
    common = lcm(*{sden for _, sden in moves.values()})
    into = buckets.setdefault(common, {})
    # one group whose every change is to positions read: its states differ off the
    # part and its changes on it, so every state leads to a new one (nothing to add up)
    apart = fresh and all(keep == -1 for adds, _ in moves.values() for _, keep, _, _ in adds)
    with acyclic():
        for r, groups in rounds:
            bucket = into.setdefault(r + bump, {})
            for g, group in groups.items():
                adds, sden = moves[g]
                scale = common // sden
                for add, keep, put, w2 in adds:
                    w2 *= scale
                    if apart:
                        for s, w in group:
                            bucket[s + add] = w * w2
                        continue
                    if keep == -1:
                        for s, w in group:
                            s2 = s + add
                            if s2 in bucket:
                                bucket[s2] += w * w2
                            else:
                                bucket[s2] = w * w2
                        continue
                    for s, w in group:
                        s2 = (s & keep | put) + add
                        if s2 in bucket:
                            bucket[s2] += w * w2
                        else:
                            bucket[s2] = w * w2
    return True
