"""One stage's transition from one state: every state it can lead to with integer
weights, by the cheapest way that gives the same weights, tried in this order:

* ``closed form``: one run that never branches and leaves counts of pools split once
  (``d.pool``/``d.split``/``d.each`` on a plain number): their table from the kernels,
  once per shape (:mod:`~warroom.engine.exact.pools`);
* ``lazy counts``: one run that never branches and leaves any other lazy counts:
  evaluated (:mod:`~warroom.engine.exact.lazy`);
* ``certain``: one run that never branches and leaves a plain state;
* ``enumerated``: a plain enumeration of the stage's single dice and tests, one run per
  path (:func:`plain_transition`);
* ``replayed``: the full replay of :mod:`~warroom.engine.exact.enumeration` (a stage
  that makes a count concrete, or leaves lazy counts after branching).

With :data:`PATHS` in the query's ``shared`` memo (``exact.dice.exact_paths``), each
transition worked out is counted there by (stage name, way)."""

from __future__ import annotations

import functools
from typing import Any

from warroom.engine import tally as _tally
from warroom.engine.context import Stage
from warroom.engine.exact.core import (
    LAZY,
    MAX_PATHS,
    Branch,
    MakeDice,
    Outcome,
    Path,
    Taken,
    Transition,
    follow_taken,
    over_lcm,
)
from warroom.engine.exact.enumeration import replay
from warroom.engine.exact.lazy import lazy_outcomes
from warroom.engine.exact.pools import pool_outcomes
from warroom.engine.symbolic import NeedConcrete
from warroom.errors import RuleError


def transition(stage: Stage[Any], s: tuple[Any, ...], width: int, fields: tuple[str, ...],
               shared: dict[Any, Any], *, make: MakeDice) -> Transition:
    """Every state one stage can lead to from ``s``, with integer weights (each run with
    dice from ``make``)."""
    # a stage seen to branch is enumerated straight away from then on in this query
    branches = ("branching stage", stage)
    found = None if branches in shared else unbranched_transition(stage, s, width, shared,
                                                                   make=make)
    if found is not None and not isinstance(found, (Branch, NeedConcrete)):
        return found
    if found is not None:
        shared[branches] = True
    if not isinstance(found, NeedConcrete) and ("lazy stage", stage) not in shared:
        plain = plain_transition(stage, s, width, shared, found, make=make)
        if plain is not None:
            _trace(shared, stage, "enumerated")
            return plain
        shared["lazy stage", stage] = True  # the enumeration below, from now on
    _trace(shared, stage, "replayed")

    def pick(after: Any) -> Outcome:
        if not isinstance(after, tuple) or len(after) != width:
            raise RuleError(f"a round must return a state like {s!r}, got {after!r}")
        return after

    w = replay(functools.partial(stage, s), fields, name="one stage", shared=shared,
               pick=pick, first=found, make=make)
    if type(w.weights) is _tally.Shared:  # outcomes other states reach too (Dice.tally)
        return _tally.pairs(w.weights), w.denominator
    return list(w.weights.items()), w.denominator


def plain_transition(stage: Stage[Any], s: tuple[Any, ...], width: int,
                     shared: dict[Any, Any], first: Branch | None,
                     budget: int | None = None, *, make: MakeDice) -> Transition | None:
    """A stage's transitions from ``s`` when every run of it ends in a plain state (no
    lazy count: a stage of single dice and checks, as a stack's): the enumeration of
    :func:`enumerate_paths` (the same paths in the same order, the same weights) without its
    bookkeeping for lazy counts, outcome mappings and replays of a whole procedure.
    ``first``: where a first run branched, if the caller made one. None, when a run
    leaves a lazy count, must make one concrete, ends in something that is not a state
    or the paths pass the budget: the full enumeration takes over (and names the
    mistake). ``budget``: the runs allowed (past it, None too; :data:`MAX_PATHS`)."""
    budget = MAX_PATHS if budget is None else budget
    concrete: set[int] = set()
    memo: dict[Any, Any] = {}
    stack: list[Path] = (
        [((), 1, 1)] if first is None else
        [((value,), w, first.den) for value, w in first.options if w])
    d = make((), concrete, False, memo, shared)
    # leaf first: past its path a run takes the last possible answer of each request
    # (the paths come in the order they always did) and notes the others, so every run
    # ends in a state (no run only to find where it branches: a stage of one test costs
    # two runs, not three)
    taken: Taken = []
    d.taken = taken
    by_den: dict[int, dict[Outcome, int]] = {}
    runs = 0 if first is None else 1
    while stack:
        runs += 1
        if runs > budget:
            return None
        path, num, den = stack.pop()
        d.path, d.pos, d.ordinal = path, 0, 0  # one object for every run: no run keeps it
        taken.clear()
        try:
            after = stage(s, d)
        except Branch as br:  # (a request answered past ``taken``'s reach)
            for value, w in br.options:
                if w:
                    stack.append(((*path, value), num * w, den * br.den))
            continue
        except NeedConcrete:
            return None
        if type(after) is not tuple or len(after) != width:
            return None
        for v in after:
            if isinstance(v, LAZY):
                return None
        if taken:  # the answers not taken, each a run to come
            path, num, den = follow_taken(taken, path, num, den, stack)
        bucket = by_den.get(den)
        if bucket is None:
            bucket = by_den[den] = {}
        bucket[after] = bucket.get(after, 0) + num
    merged, common = over_lcm(by_den)
    return list(merged.items()), common


def unbranched_transition(stage: Stage[Any], s: tuple[Any, ...], width: int,
                          shared: dict[Any, Any], *, make: MakeDice
                          ) -> Transition | Branch | NeedConcrete | None:
    """A stage's transitions from ``s`` when its first run asks for nothing it must
    branch on (its counts lazy: a stage with one ``Dice.tally``, say): that run's
    state, evaluated, without the bookkeeping of an enumeration. Else what the
    enumeration goes on from: the first run's branch (it is not run again), the counts
    it must make concrete, or None (a state that is not one: the enumeration starts
    over and names the mistake)."""
    try:
        after = stage(s, make((), set(), False, None, shared))
    except (Branch, NeedConcrete) as stop:
        return stop
    if type(after) is not tuple or len(after) != width:
        return None
    lazy = [j for j, v in enumerate(after) if isinstance(v, LAZY)]
    if not lazy:
        _trace(shared, stage, "certain")
        return [(after, 1)], 1
    pooled = None if type(after[lazy[0]]) is _tally.Count else pool_outcomes(after, lazy)
    if pooled is not None:
        _trace(shared, stage, "closed form")
        return list(pooled[0].items()), pooled[1]
    _trace(shared, stage, "lazy counts")
    sub, den = lazy_outcomes(after, lazy)
    if type(sub) is _tally.Shared:  # outcomes other states reach too (Dice.tally)
        return _tally.pairs(sub), den
    return list(sub.items()), den


PATHS = ("transitions by stage and way",)
"""The key in a query's ``shared`` memo of a counter of the transitions worked out, by
(stage name, way): present only when asked for (``exact.dice.exact_paths``)."""


def _trace(shared: dict[Any, Any], stage: Stage[Any], way: str) -> None:
    paths = shared.get(PATHS)
    if paths is not None:
        name = getattr(stage, "__qualname__", None) or type(stage).__name__
        paths[name, way] += 1

