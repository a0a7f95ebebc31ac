"""Closed-form transitions of pool stages (``exact/pools.py``): a stage whose counts come
from pools split once is worked out from the kernels' table for its shape, and gives the
weights the stage replayed answer by answer gives; any other stage goes the general way.
Also: the states between stages are held over the smallest common denominator of their
chances, layer by layer; a stage's plain enumeration runs once per path."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from fractions import Fraction as F
from math import gcd
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from warroom.engine.context import Dice, fixed
from warroom.engine.exact import POOL_TABLES, exact_paths, exact_run, stages, transitions
from warroom.engine.exact.dice import ExactDice

State = tuple[int, ...]
Stage = Callable[[State, Dice], State]


def _chain(at: int) -> Callable[[Dice], str]:
    """One item of a ``d.each``: a die at ``at``+, re-rolled once on a 1."""

    def chain(d: Dice) -> str:
        face = d.die(rule="t.pools.item", what="item")
        if face == 1:
            face = d.die(rule="t.pools.item", what="item again")
        return "hit" if face >= at else "bailed" if face == 1 else "miss"

    return fixed(chain)


def _stage(kind: str, at: int, coefs: tuple[int, int]) -> Stage:
    """A stage of one pool request on the ``s[0]`` items, its counts put into the state
    with the coefficients ``coefs`` beside the plain values it carries."""
    a, b = coefs

    def stage(s: State, d: Dice) -> State:
        n = s[0]
        if kind == "pool":
            hits = d.pool(n, at, rule="t.pools.pool", what="pool")
            return (n - hits, s[1], a * hits + s[1])
        if kind == "split":
            roll = d.split(n, {"one": [1], "low": [f for f in range(2, 7) if f < at],
                               "high": [f for f in range(2, 7) if f >= at]},
                           rule="t.pools.split", what="split")
            return (n - roll["one"], a * roll["high"] - b * roll["one"] + 1, s[1])
        res = d.each(n, _chain(at), ("hit", "miss", "bailed"), rule="t.pools.each",
                     what="each")
        return (s[0] - res["hit"] - res["bailed"], b * res["bailed"], a * res["hit"] + s[2])

    return stage


def _as_fractions(pairs: Any, den: int) -> dict[Any, F]:
    out: dict[Any, F] = {}
    for key, w in pairs:
        out[key] = out.get(key, F(0)) + F(w, den)
    return out


def _closed(stage: Stage, s: State) -> tuple[dict[Any, F], Counter[tuple[str, str]]]:
    """The stage's transition from ``s`` as the exact driver works it out, and the way."""
    paths: Counter[tuple[str, str]] = Counter()
    after, den = transitions.transition(stage, s, len(s), ("0", "1", "2"),
                                        {transitions.PATHS: paths}, make=ExactDice)
    return _as_fractions(after, den), paths


def _replayed(stage: Stage, s: State) -> dict[Any, F]:
    """The same stage replayed answer by answer: every request concrete."""
    w = exact_run(lambda d: {"s": stage(s, d)}, ("s",), all_concrete=True)
    return _as_fractions(((k[0], v) for k, v in w.weights.items()), w.denominator)


@settings(max_examples=60, deadline=None)
@given(kind=st.sampled_from(["pool", "split", "each"]), n=st.integers(0, 7),
       at=st.integers(2, 6), coefs=st.tuples(st.integers(-2, 3), st.integers(-2, 3)),
       carried=st.tuples(st.integers(0, 4), st.integers(0, 4)))
def test_a_pool_stage_is_worked_out_in_closed_form_with_the_replayed_weights(
        kind: str, n: int, at: int, coefs: tuple[int, int], carried: tuple[int, int]) -> None:
    POOL_TABLES.clear()
    stage = _stage(kind, at, coefs)
    s = (n, *carried)
    closed, paths = _closed(stage, s)
    assert closed == _replayed(stage, s)
    assert sum(closed.values()) == 1
    ways = {way for _, way in paths}
    # a pool of no items, or one every item of which lands alike, is certain
    assert ways <= {"closed form", "certain"}
    if len(closed) > 1:
        assert ways == {"closed form"}


def test_states_of_one_shape_share_the_kernels_table() -> None:
    """Two states with the same pool size and chances but other plain values: one table,
    each state's outcomes its own."""
    POOL_TABLES.clear()
    stage = _stage("pool", 4, (1, 0))
    one, _ = _closed(stage, (3, 0, 0))
    two, _ = _closed(stage, (3, 2, 0))
    assert len(POOL_TABLES) == 1
    # 3 dice at 4+: 0..3 hits with 1, 3, 3, 1 over 8; (3 - hits, s1, hits + s1)
    assert one == {(3, 0, 0): F(1, 8), (2, 0, 1): F(3, 8), (1, 0, 2): F(3, 8),
                   (0, 0, 3): F(1, 8)}
    assert two == {(3 - h, 2, h + 2): p for (_, _, h), p in one.items()}


def _reroll_hits(s: State, d: Dice) -> State:
    """A count split again (the hits re-rolled): not a pool split once."""
    roll = d.split(s[0], {"miss": [1, 2, 3], "hit": [4, 5, 6]}, rule="t.pools.a", what="a")
    kept = d.pool(roll["hit"], 5, rule="t.pools.b", what="b")
    return (s[0] - kept, s[1], s[2])


def _compared(s: State, d: Dice) -> State:
    """A comparison of a count left lazy in the state: not a count."""
    hits = d.pool(s[0], 4, rule="t.pools.c", what="c")
    return (s[0], hits >= 2, s[2])


def _branching(s: State, d: Dice) -> State:
    """A count made concrete inside the stage: replayed per value."""
    hits = d.pool(s[0], 4, rule="t.pools.d", what="d")
    return (s[0], 1 if hits else 0, s[2])


@pytest.mark.parametrize(("stage", "way"), [(_reroll_hits, "lazy counts"),
                                            (_compared, "lazy counts"),
                                            (_branching, "replayed")])
def test_any_other_stage_goes_the_general_way_with_the_same_weights(
        stage: Stage, way: str) -> None:
    POOL_TABLES.clear()
    closed, paths = _closed(stage, (4, 0, 0))
    assert {w for _, w in paths} == {way}
    assert not POOL_TABLES
    assert closed == _replayed(stage, (4, 0, 0))


def test_exact_paths_names_each_stage_and_way() -> None:
    volley = fixed(_stage("pool", 4, (1, 0)), ("t.pools.volley",))

    def nerve(s: State, d: Dice) -> State:
        return s if d.test(4, rule="t.pools.nerve", what="nerve") else (0, s[1], s[2])

    def run(d: Dice) -> dict[str, Any]:
        start: State = (2, 0, 0)
        last, _ = d.stages(start, [volley, fixed(nerve, ("t.pools.nerve",))], rounds=1)
        return {"left": last[0]}

    w, paths = exact_paths(run, ("left",))
    # 2 dice at 4+: 0, 1, 2 hits with 1, 2, 1 over 4; then the nerve test (1/2) keeps
    # the teams left (2, 1 or 0 of them), or drops to 0
    assert {k: F(v, w.denominator) for k, v in w.weights.items()} == {
        (2,): F(1, 8), (1,): F(2, 8), (0,): F(5, 8)}
    assert paths == Counter({("_stage.<locals>.stage", "closed form"): 1,
                             ("test_exact_paths_names_each_stage_and_way.<locals>.nerve",
                              "enumerated"): 3})


def test_a_stage_of_one_test_costs_one_run_per_answer() -> None:
    """Past its path a run takes the first answer and leaves the others to runs of
    their own: no run only to find where the stage branches."""
    runs = [0]

    def nerve(s: State, d: Dice) -> State:
        runs[0] += 1
        return s if d.test(4, rule="t.pools.nerve", what="nerve") else (0,)

    after = transitions.plain_transition(nerve, (3,), 1, {}, None, make=ExactDice)
    assert after is not None and _as_fractions(*after) == {(3,): F(1, 2), (0,): F(1, 2)}
    assert runs[0] == 2


@settings(max_examples=25, deadline=None)
@given(teams=st.integers(1, 5), at=st.integers(2, 6), rounds=st.integers(1, 3))
def test_states_are_held_over_the_smallest_common_denominator_of_each_layer(
        teams: int, at: int, rounds: int) -> None:
    """After every stage the weights and the denominator have no common factor: the
    denominator is the least common multiple of the states' chances' own denominators
    (the last layer's division is left to the listing, which divides by it)."""
    seen: list[bool] = []
    real = stages._Programme.merge

    def merge(self: Any, buckets: Any, last: bool) -> bool:
        stop = real(self, buckets, last)
        weights = [w for states in self.dist.values() for w in states.values()]
        g = gcd(self.den, *weights)
        seen.append(g == 1 or (stop and g == self.last_g))
        return stop

    fire = fixed(_stage("pool", at, (1, 0)), ("t.pools.fire", at))

    def nerve(s: State, d: Dice) -> State:
        return s if d.test(at, rule="t.pools.nerve", what="nerve") else (0, s[1], s[2])

    def run(d: Dice) -> dict[str, Any]:
        start: State = (teams, 0, 0)
        last, _ = d.stages(start, [fire, fixed(nerve, ("t.pools.n", at))],
                           rounds=rounds)
        return {"left": last[0], "hits": last[2]}

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(stages._Programme, "merge", merge)
        w = exact_run(run, ("left", "hits"))
    assert seen and all(seen)
    assert gcd(w.denominator, *w.weights.values()) == 1


@settings(max_examples=40, deadline=None)
@given(at=st.integers(2, 6), high=st.integers(2, 6), s0=st.integers(0, 3))
def test_leaf_first_runs_once_per_path_with_every_die_counted(at: int, high: int,
                                                              s0: int) -> None:
    """A stage whose dice depend on earlier answers (a test, then a die only if it
    passed, then a test only on a high face): one run per path, and the weights of
    every face written out."""
    runs = [0]

    def stage(s: State, d: Dice) -> State:
        runs[0] += 1
        if not d.test(at, rule="t.pools.first", what="first"):
            return (s[0], 0)
        face = d.die(rule="t.pools.face", what="face")
        if face < high:
            return (s[0] + face, 1)
        return (s[0] + face, 2 + int(d.test(high, rule="t.pools.again", what="again")))

    after = transitions.plain_transition(stage, (s0,), 2, {}, None, make=ExactDice)
    assert after is not None
    brute: dict[Any, F] = {}
    for first in range(1, 7):
        if first < at:
            key: Any = (s0, 0)
            brute[key] = brute.get(key, F(0)) + F(1, 6)
            continue
        for face in range(1, 7):
            if face < high:
                brute[s0 + face, 1] = brute.get((s0 + face, 1), F(0)) + F(1, 36)
                continue
            for again in range(1, 7):
                key = (s0 + face, 2 + int(again >= high))
                brute[key] = brute.get(key, F(0)) + F(1, 216)
    assert _as_fractions(*after) == brute
    # paths (tests at 2+ to 6+ can both pass and fail): the first test failed, each face
    # below ``high``, each face from ``high`` on twice (the last test passed or failed)
    assert runs[0] == 1 + (high - 1) + 2 * (7 - high)
