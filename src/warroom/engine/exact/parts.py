"""Stages on part of the state (:func:`~warroom.engine.context.part`): each worked out
once per distinct value of its part, kept as the changes it makes, and spliced into every
state holding that value."""

from __future__ import annotations

import operator
from collections.abc import Callable
from math import lcm
from typing import Any

from warroom.engine.context import Stage, part_changes
from warroom.engine.exact import transitions
from warroom.engine.exact.collector import acyclic
from warroom.engine.exact.core import MakeDice, Outcome, Transition
from warroom.engine.exact.keys import part_key


def single(f: int) -> Callable[[tuple[Any, ...]], tuple[Any, ...]]:
    """How to read position ``f`` of a state as a part of one value."""
    return lambda s: (s[f],)


def part_stage(part: tuple[tuple[int, ...], Stage[Any], Callable[[Any], Any], int,
                           Callable[[Any], Any] | None], token: Any,
               memo: dict[Any, Any], dist: dict[int, dict[Outcome, int]],
               buckets: dict[int, dict[int, dict[Outcome, int]]],
               done: Callable[[Any], bool] | None, bump: int, shared: dict[Any, Any], *,
               make: MakeDice) -> bool:
    """One stage on part of the state (:func:`~warroom.engine.context.part`) applied to
    every state of ``dist``, into ``buckets``: worked out once per distinct value of its
    part (kept as the changes it makes to that part), then spliced into each state.
    Whether any state moved.

    The states are grouped by their part first, so the transitions are all known before
    any state is spliced: their weights are put over one denominator for the stage (the
    states go into one bucket, with nothing to merge and scale afterwards) and each
    change is spliced into the states of its group in one tight loop."""
    at, inner, get, _, key = part
    width = len(at)
    fields = tuple(map(str, range(width)))
    moved = False
    # round -> part -> [(state, weight)], and the states already done (not moved)
    rounds: list[tuple[int, dict[Any, list[tuple[Outcome, int]]], list[tuple[Outcome, int]]]] = []
    # this call's transitions by part (no key tuple to build and hash per state)
    seen: dict[Any, tuple[list[tuple[tuple[tuple[int, Any], ...], int]], int]] = {}
    with acyclic():  # lists of the states (the test ``done`` makes no cycle either)
        for r, states in dist.items():
            stopped: list[tuple[Outcome, int]] = []
            groups: dict[Any, list[tuple[Outcome, int]]] = {}
            for s, w in states.items():
                if done is not None and done(s):
                    stopped.append((s, w))
                    continue
                sub = get(s)
                group = groups.get(sub)
                if group is None:
                    group = groups[sub] = []
                group.append((s, w))
            rounds.append((r, groups, stopped))
    for _, groups, _ in rounds:
        if groups:
            moved = True
        for sub in groups:
            if sub not in seen:
                seen[sub] = part_transition(inner, sub, at, token, memo, width, fields, shared,
                                            make=make, key=key)
    common = lcm(*{sden for _, sden in seen.values()}) if seen else 1
    into = buckets.setdefault(common, {})
    with acyclic():
        splice(rounds, seen, common, into, bump)
    return moved


def splice(rounds: list[tuple[int, dict[Any, list[tuple[Outcome, int]]],
                               list[tuple[Outcome, int]]]],
            seen: dict[Any, tuple[list[tuple[tuple[tuple[int, Any], ...], int]], int]],
            common: int, into: dict[int, dict[Outcome, int]], bump: int) -> None:
    """Each part's changes spliced into the states holding it (:func:`part_stage`),
    their weights over ``common``, into ``into`` by round."""
    for r, groups, stopped in rounds:
        if stopped:
            bucket = into.setdefault(r, {})
            for s, w in stopped:
                bucket[s] = bucket.get(s, 0) + w * common
        if not groups:
            continue
        bucket = into.setdefault(r + bump, {})
        for sub, group in groups.items():
            changes, sden = seen[sub]
            scale = common // sden
            for ch, w2 in changes:
                w2 *= scale
                if not ch:
                    for s, w in group:
                        if s in bucket:
                            bucket[s] += w * w2
                        else:
                            bucket[s] = w * w2
                elif len(ch) == 1:
                    ((f, v),) = ch
                    g = f + 1
                    one = (v,)
                    for s, w in group:
                        s2 = s[:f] + one + s[g:]
                        if s2 in bucket:
                            bucket[s2] += w * w2
                        else:
                            bucket[s2] = w * w2
                else:
                    for s, w in group:
                        out = list(s)
                        for f, v in ch:
                            out[f] = v
                        s2 = tuple(out)
                        if s2 in bucket:
                            bucket[s2] += w * w2
                        else:
                            bucket[s2] = w * w2


Changes = tuple[list[tuple[tuple[tuple[int, Any], ...], int]], int]
"""A part stage's transition as the changes it makes: ((position, value), ...) with
integer weights over one denominator."""


def part_transition(inner: Stage[Any], sub: Any, at: tuple[int, ...], token: Any,
                    memo: dict[Any, Any], width: int, fields: tuple[str, ...],
                    shared: dict[Any, Any], *, make: MakeDice,
                    key: Callable[[Any], Any] | None = None) -> Changes:
    """A part stage's transition from the values ``sub`` of the positions it reads, as
    the changes it makes to the state (position in ``at``, value) with their weights,
    memoised under ``token`` and the values (or their ``key``: context.part)."""
    mk = (token, sub if key is None else key(sub))
    found = memo.get(mk)
    if found is None:
        pieces = getattr(inner, "_warroom_parts", None)
        if pieces is not None:  # context.parts: composed from its pieces' transitions
            after, sden = composed_transition(pieces, sub, memo, shared, make=make)
        else:
            after, sden = transitions.transition(inner, sub, width, fields, shared,
                                                   make=make)
        if len(after) == 1:  # certain: weight 1 over 1
            after, sden = [(after[0][0], 1)], 1
        found = memo[mk] = (
            [(tuple([(at[j], v) for j, v in part_changes(sub, s2)]), w2)
             for s2, w2 in after],
            sden)
    return found


def composed_transition(pieces: tuple[tuple[tuple[int, ...], Stage[Any], int,
                                             Callable[[Any], Any] | None], ...], sub: Any,
                        memo: dict[Any, Any], shared: dict[Any, Any], *, make: MakeDice
                        ) -> Transition:
    """The transition of stages on parts one after another (:func:`~warroom.engine.
    context.parts`) from the values ``sub`` of all their positions: a small dynamic
    programme over those values, each piece worked out once per distinct value of its
    own part (memoised for the query like any stage on a part)."""
    tokens = shared.get(("parts tokens", pieces))
    if tokens is None:
        tokens = []
        for positions, fn, n, keyed in pieces:
            named = part_key(fn, keyed)
            tokens.append(object() if named is None else shared.setdefault(
                ("stage token", ("part", positions, n, named)), object()))
        shared["parts tokens", pieces] = tokens
    dist: dict[Outcome, int] = {sub: 1}
    den = 1
    for (positions, fn, n, keyed), token in zip(pieces, tokens, strict=True):
        get = operator.itemgetter(*positions[:n]) if n > 1 else single(positions[0])
        fields = tuple(map(str, range(len(positions))))
        buckets: dict[int, dict[Outcome, int]] = {}
        for s, w in dist.items():
            changes, sden = part_transition(fn, get(s), positions, token, memo,
                                            len(positions), fields, shared, make=make,
                                            key=keyed)
            bucket = buckets.setdefault(sden, {})
            for ch, w2 in changes:
                if ch:
                    out = list(s)  # (a piece's written positions are among the whole's)
                    for f, v in ch:
                        out[f] = v
                    s2 = tuple(out)
                else:
                    s2 = s
                bucket[s2] = bucket.get(s2, 0) + w * w2
        common = lcm(*buckets)
        den *= common
        dist = {}
        for d, bucket in buckets.items():
            scale = common // d
            for s2, w in bucket.items():
                dist[s2] = dist.get(s2, 0) + w * scale
    return list(dist.items()), den

