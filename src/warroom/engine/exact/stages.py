"""The stage dynamic programme behind :meth:`Dice.stages`, :meth:`Dice.iterate` and
:meth:`Dice.finish`: the distribution of states held between stages with integer
weights over one denominator, equal states merged, each stage worked out once per
distinct state it starts from."""

from __future__ import annotations

import itertools
import operator
from collections.abc import Callable, Iterable, Iterator
from math import gcd, lcm
from typing import Any

from warroom.engine import tally as _tally
from warroom.engine.context import Pieces, Stage
from warroom.engine.exact import transitions
from warroom.engine.exact.collector import acyclic
from warroom.engine.exact.core import MakeDice, Outcome
from warroom.engine.exact.packed import Packed, packed_part_stage
from warroom.engine.exact.parts import part_stage, single

Part = tuple[tuple[int, ...], Stage[Any], Callable[[Any], Any], int,
             Callable[[Any], Any] | None]
"""A stage on part of the state (context.part): its positions, the function on them, how
to read from a state the positions it reads, how many it reads (the first of its
positions; the others it only writes) and what keys its transitions (None: the values it
reads)."""

Dist = dict[int, dict[Any, int]]
"""Rounds begun -> state -> integer weight (over a denominator held beside it)."""

Buckets = dict[int, dict[int, dict[Any, int]]]
"""Per denominator of a transition: rounds begun -> state -> weight over it."""


def staged(state: tuple[Any, ...], opening: tuple[Stage[Any], ...],
           stages: tuple[Stage[Any], ...], keys: tuple[Any, ...] | None, rounds: int,
           done: Callable[[Any], bool] | None, count: bool, shared: dict[Any, Any], *,
           make: MakeDice) -> Last:
    """The distribution of the last state (with the rounds begun when ``count``): a
    dynamic programme over states. Between stages the states are held with integer
    weights over one denominator, equal ones merged; each stage is enumerated once per
    distinct state it starts from (lazily, like any procedure). With ``keys`` (what each
    stage computes) a stage's transitions are kept in ``shared`` for the whole query."""
    run = _Programme(state, opening, stages, keys, done, shared, make)
    plan = stage_plan(opening, stages, rounds, count)
    for step, (index, stage, bump) in enumerate(plan, 1):
        buckets = run.stage(index, stage, bump)
        if buckets is None:  # nothing moved: the states are the last ones
            break
        if run.merge(buckets, last=step == len(plan)):
            break
    run.finish()
    with acyclic():
        return Last(run.dist, run.packed, run.last_g, run.den, count)


def stage_plan(opening: tuple[Stage[Any], ...], stages: tuple[Stage[Any], ...], rounds: int,
               count: bool) -> list[tuple[int, Stage[Any], int]]:
    """Each stage in the order the programme runs it: (its index among the opening and
    round stages, the stage, 1 when it begins a counted round)."""
    plan: list[tuple[int, Stage[Any], int]] = [(j, f, 0) for j, f in enumerate(opening)]
    for _ in range(rounds):
        plan += [(len(opening) + j, f, int(count and j == 0)) for j, f in enumerate(stages)]
    return plan


def part_of(stage: Stage[Any]) -> Part | None:
    """The part a stage works on (:func:`~warroom.engine.context.part`), or None."""
    part = getattr(stage, "_warroom_part", None)
    if part is None:
        return None
    at, inner, n, key = part
    return (at, inner, operator.itemgetter(*at[:n]) if n > 1 else single(at[0]), n, key)


class _Programme:
    """The state of :func:`staged` between stages: the states over ``den`` (packed
    while stages on parts follow one another and nothing stops early), the last
    factor still to divide by, and what each stage computes."""

    def __init__(self, state: tuple[Any, ...], opening: tuple[Stage[Any], ...],
                 stages: tuple[Stage[Any], ...], keys: tuple[Any, ...] | None,
                 done: Callable[[Any], bool] | None, shared: dict[Any, Any],
                 make: MakeDice) -> None:
        self.width = len(state)
        self.fields = tuple(map(str, range(self.width)))
        self.done, self.shared, self.make, self.keys = done, shared, make, keys
        self.local: dict[Any, Any] = {}
        # what each stage computes, as a small token (its key hashed once, not per state)
        self.tokens = ([shared.setdefault(("stage token", k), object()) for k in keys]
                       if keys else [])
        self.parts = [part_of(f) for f in (*opening, *stages)]
        # positions some stage has run on: every state still holds its first value at
        # the others (a stage reading only those meets one value of its part)
        self.touched: set[int] = set()
        self.dist: Dist = {0: {state: 1}}
        self.packed: Packed | None = None
        self.packs = True  # until a position has more values than a packed state numbers
        self.den = 1
        self.last_g = 1  # what the last stage's weights are still to be divided by
        # states the test ``done`` stopped, set aside as they are met instead of carried
        # through every later stage: (the denominator then, rounds -> state -> weight)
        self.stopped: list[tuple[int, Dist]] = []
        self.met: Dist = {}  # those met by the stage under way (kept if it moves)

    def stage(self, index: int, stage: Stage[Any], bump: int) -> Buckets | None:
        """One stage applied to every state: the states it leads to, by denominator and
        rounds begun (None: no state moved)."""
        buckets: Buckets = {}
        self.met = {}
        token = self.tokens[index] if self.keys else index
        memo = self.shared if self.keys else self.local
        part = self.parts[index]
        if part is None:
            if self.packed is not None:
                self.dist, self.packed = self.packed.unpack(self.dist), None
            moved = self._whole(stage, token, memo, buckets, bump)
            self.touched.update(range(self.width))
        else:
            moved = False
            fresh = self.touched.isdisjoint(part[0][:part[3]])
            self.touched.update(part[0])
            if self.done is None and self.packs:
                moved = self._packed_part(part, token, memo, buckets, bump, fresh)
            if self.packed is None:  # tuples (never packed, or a position ran out of bits)
                moved = part_stage(part, token, memo, self.dist, buckets, self.done, bump,
                                   self.shared, make=self.make)
                self.dist = {}
        return buckets if moved else None

    def _packed_part(self, part: Part, token: Any, memo: dict[Any, Any], buckets: Buckets,
                     bump: int, fresh: bool) -> bool:
        """A stage on a part over packed states (packing them first); when a position
        has too many values to number, the states go on as tuples (unpacked, and the
        stage left to the tuple path)."""
        if self.packed is None:
            packed = Packed(self.width)
            packed_dist = packed.pack(self.dist)
            if packed_dist is None:  # too many values at a position: tuples
                self.packs = False
                return False
            self.packed, self.dist = packed, packed_dist
        found_moved = packed_part_stage(part, token, memo, self.dist, buckets, bump,
                                        self.shared, self.packed, make=self.make,
                                        fresh=fresh)
        if found_moved is None:  # a position with too many values: tuples
            self.dist, self.packed, self.packs = self.packed.unpack(self.dist), None, False
            return False
        self.dist = {}
        return found_moved

    def _whole(self, stage: Stage[Any], token: Any, memo: dict[Any, Any], buckets: Buckets,
               bump: int) -> bool:
        """A stage on the whole state applied to every state left in ``dist``, each
        distinct state's transition worked out once (memoised under ``token``). Whether
        any state moved."""
        done, width, fields, shared, make = (self.done, self.width, self.fields, self.shared,
                                             self.make)
        same: dict[Any, list[Any]] = {}  # transitions several states share (add_shared)
        moved = False
        met = self.met
        # this stage's transitions by state (no key tuple built and hashed per state)
        table = memo.get(("transitions", token))
        if table is None:
            table = memo["transitions", token] = {}
        for r, states in self.dist.items():
            to = r + bump
            into: dict[int, dict[Any, int]] = {}  # per denominator: its bucket for ``to``
            for s, w in states.items():
                if done is not None and done(s):
                    stopped = met.get(r)
                    if stopped is None:
                        stopped = met[r] = {}
                    stopped[s] = w  # (states are distinct within a round)
                    continue
                moved = True
                found = table.get(s)
                if found is None:
                    found = table[s] = transitions.transition(stage, s, width, fields, shared,
                                                              make=make)
                after, sden = found
                if type(after) is _tally.SharedPairs:
                    # the same outcomes as other states': their weights added up first
                    seen = same.get((id(after), sden, to))
                    if seen is None:
                        same[id(after), sden, to] = [w, after, sden, to]
                    else:
                        seen[0] += w
                    continue
                bucket = into.get(sden)
                if bucket is None:
                    bucket = into[sden] = buckets.setdefault(sden, {}).setdefault(to, {})
                for s2, w2 in after:
                    bucket[s2] = bucket.get(s2, 0) + w * w2
        if same:
            add_shared(same, buckets)
        return moved

    def merge(self, buckets: Buckets, last: bool) -> bool:
        """The states a stage led to put over one denominator, in lowest terms (on the
        ``last`` stage the division is left to the listing: True, the programme ends)."""
        if self.met:
            self.stopped.append((self.den, self.met))
            self.met = {}
        if len(buckets) == 1:  # one denominator (a stage on a part): nothing to scale
            ((common, dist),) = buckets.items()
            self.den *= common
        else:
            dist = merged_buckets(buckets)
            self.den *= lcm(*buckets)
        self.dist = dist
        g = self.den
        for states in dist.values():  # math.gcd skips the rest once it is 1
            g = gcd(g, *states.values())
        if g <= 1:
            return False
        self.den //= g
        if last:  # divided as the last states are listed (Last)
            self.last_g = g
            return True
        with acyclic():  # the weights divided in C (map), not one by one
            self.dist = {r: dict(divided(states, g)) for r, states in dist.items()}
        return False

    def finish(self) -> None:
        """The states set aside as stopped put back with the last ones, all over their
        least common denominator in lowest terms (as if they had been carried along)."""
        if not self.stopped:
            return
        den = self.den * self.last_g  # the last weights, not yet divided by last_g
        common = lcm(den, *[d for d, _ in self.stopped])
        scale = common // den
        dist: Dist = {r: {s: w * scale for s, w in states.items()} if scale > 1
                      else dict(states) for r, states in self.dist.items()}
        for d, chunk in self.stopped:
            scale = common // d
            for r, states in chunk.items():
                into = dist.setdefault(r, {})
                for s, w in states.items():
                    into[s] = into.get(s, 0) + w * scale
        g = common
        for states in dist.values():
            g = gcd(g, *states.values())
        self.dist, self.den, self.last_g, self.stopped = dist, common // g, g, []


class Last:
    """The last states of :func:`staged` over ``den``, their weights still to be
    divided by ``g``, packed if ``packed``: listed when asked, with the rounds begun
    when ``count`` (:meth:`options`), or straight into the rows of an outcome
    (:meth:`rows`: ``Dice.finish`` with ``context.rows``, no pair built per state), in C
    (map and zip)."""

    __slots__ = ("count", "den", "dist", "g", "listed", "packed", "size")

    def __init__(self, dist: dict[int, dict[Any, int]], packed: Packed | None, g: int,
                 den: int, count: bool) -> None:
        self.dist, self.packed, self.g, self.den, self.count = dist, packed, g, den, count
        self.size = sum(map(len, dist.values()))
        self.listed: list[tuple[Any, int]] | None = None

    def _each(self) -> Iterator[tuple[int, Iterable[Any], Iterable[int]]]:
        """Per rounds begun: the states and their weights, in the same order."""
        packed = self.packed
        for r, states in self.dist.items():
            yield (r, packed.unpacked(states) if packed is not None else states,
                   self._weights(states))

    def options(self) -> list[tuple[Any, int]]:
        """Each last state (with the rounds begun when ``count``) and its weight."""
        if self.listed is None:
            out: list[tuple[Any, int]] = []
            with acyclic():
                for r, keys, weights in self._each():
                    if self.count:
                        keys = zip(keys, itertools.repeat(r))
                    out += zip(keys, weights, strict=True)
            self.listed = out
        return self.listed

    def rows(self, row: Callable[[Any, int], Any],
             joined: Callable[[Pieces, int], Iterable[Any]] | None = None
             ) -> list[tuple[Any, int]] | dict[Any, int]:
        """``row(last state, rounds begun)`` of each last state, with its weight; with
        packed states and ``joined`` (``context.rows``), the rows of each round's states
        at once from the values of their halves (one round whose states all give rows
        of their own: the rows as a mapping to their weights, made in C)."""
        out: list[tuple[Any, int]] = []
        with acyclic():
            if joined is not None and self.packed is not None and len(self.dist) == 1:
                ((r, states),) = self.dist.items()
                made = list(joined(self.packed.pieces(states), r))
                rows = dict(zip(made, self._weights(states), strict=True))
                if len(rows) == len(states):
                    return rows
                return list(zip(made, self._weights(states), strict=True))
            if joined is not None and self.packed is not None:
                for r, states in self.dist.items():
                    out += zip(joined(self.packed.pieces(states), r),
                               self._weights(states), strict=True)
                return out
            for r, keys, weights in self._each():
                out += zip(map(row, keys, itertools.repeat(r)), weights, strict=True)
        return out

    def _weights(self, states: dict[Any, int]) -> Iterable[int]:
        g = self.g
        return states.values() if g == 1 else map(operator.floordiv, states.values(),
                                                  itertools.repeat(g))


def divided(states: dict[Any, int], g: int) -> Iterable[tuple[Any, int]]:
    """Each state with its weight divided by ``g`` (in C: no loop in Python)."""
    return zip(states, map(operator.floordiv, states.values(), itertools.repeat(g)),
               strict=True)


def merged_buckets(buckets: dict[int, dict[int, dict[Outcome, int]]]
                    ) -> dict[int, dict[Outcome, int]]:
    """States with weights over several denominators (per round), put over their least
    common multiple and merged."""
    common = lcm(*buckets)
    dist: dict[int, dict[Outcome, int]] = {}
    for d, by_round in buckets.items():
        scale = common // d
        for r, bucket in by_round.items():
            into = dist.setdefault(r, {})
            if not into and scale == 1:
                into.update(bucket)
                continue
            for s2, w in bucket.items():
                into[s2] = into.get(s2, 0) + w * scale
    return dist


def add_shared(same: dict[Any, list[Any]],
                buckets: dict[int, dict[int, dict[Outcome, int]]]) -> None:
    """Add the transitions several states share (the same outcomes, such as those of a
    :meth:`Dice.tally` that works out alike, ``engine/tally.py``) into ``buckets``, each
    once with the states' weights added up, instead of once per state."""
    for w, after, sden, r in same.values():
        bucket = buckets.setdefault(sden, {}).setdefault(r, {})
        for s2, w2 in after:
            bucket[s2] = bucket.get(s2, 0) + w * w2

