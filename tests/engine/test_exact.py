"""The exact driver on procedures written for these tests, against brute force."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction as F
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import Field

from tests.helpers import brute_force
from warroom.engine import drivers
from warroom.engine.context import Dice
from warroom.engine.params import validate
from warroom.engine.procedure import Params, Procedure, outcome, procedure


class N(Params):
    n: int = Field(3, ge=0, le=40)


def _dist(proc: Procedure, **params: Any) -> dict[tuple[Any, ...], F]:
    d = drivers.exact(proc, validate(proc, params))
    assert d.total() == 1
    return {k: F(w, d.denominator) for k, w in d.weights.items()}


# Q1 of the benchmark: hits at 4+, save d6+6 vs AT 10, firepower 3+.
def _q1(p: N, d: Dice) -> Mapping[str, Any]:
    hits = d.pool(p.n, 4, rule="t.hit", what="to hit")
    save = d.split(hits, {"higher": [5, 6], "equal": [4], "lower": [1, 2, 3]},
                   rule="t.save", what="saves")
    bailed_eq = d.pool(save["equal"], 3, rule="t.fp", what="fp equal")
    destroyed = d.pool(save["lower"], 3, rule="t.fp", what="fp lower")
    return {"destroyed": destroyed, "bailed": bailed_eq + (save["lower"] - destroyed),
            "any": destroyed + bailed_eq + save["lower"] - destroyed > 0}


q1 = procedure("t.q1", title="", summary="", params=N,
               outcome=outcome(("destroyed", "int"), ("bailed", "int"), ("any", "bool")))(_q1)


def _per_die(hit: int, save: int, fp: int) -> tuple[int, int]:
    if hit < 4 or save + 6 > 10:
        return (0, 0)
    if save + 6 == 10:
        return (0, 1) if fp >= 3 else (0, 0)
    return (1, 0) if fp >= 3 else (0, 1)


@pytest.mark.parametrize("n", [1, 2])
def test_q1_matches_brute_force(n: int) -> None:
    def oracle(fs: tuple[int, ...]) -> tuple[int, int, bool]:
        d = b = 0
        for i in range(n):
            x, y = _per_die(fs[3 * i], fs[3 * i + 1], fs[3 * i + 2])
            d += x
            b += y
        return (d, b, d + b > 0)

    assert _dist(q1, n=n) == brute_force(3 * n, oracle)


def test_q1_single_die_by_hand() -> None:
    # hit 1/2; save: d6+6 > 10 on 5-6 (1/3), = 10 on 4 (1/6), < 10 on 1-3 (1/2)
    # destroyed: 1/2 * 1/2 * 2/3 = 1/6; bailed: 1/2 * (1/6 * 2/3 + 1/2 * 1/3) = 5/36
    d = _dist(q1, n=1)
    assert d[(1, 0, True)] == F(1, 6)
    assert d[(0, 1, True)] == F(5, 36)
    assert d[(0, 0, False)] == 1 - F(1, 6) - F(5, 36)


# The same rule written with branching on counts: must give the same answer.
def _q1_branchy(p: N, d: Dice) -> Mapping[str, Any]:
    hits = d.pool(p.n, 4, rule="t.hit", what="to hit")
    if hits == 0:
        return {"destroyed": 0, "bailed": 0, "any": False}
    save = d.split(hits, {"higher": [5, 6], "equal": [4], "lower": [1, 2, 3]},
                   rule="t.save", what="saves")
    bailed_eq = d.pool(save["equal"], 3, rule="t.fp", what="fp equal")
    destroyed = d.pool(save["lower"], 3, rule="t.fp", what="fp lower")
    bailed = bailed_eq + save["lower"] - destroyed
    return {"destroyed": destroyed, "bailed": max(bailed, 0), "any": destroyed + bailed > 0}


q1_branchy = procedure("t.q1b", title="", summary="", params=N,
                       outcome=q1.outcome)(_q1_branchy)


@pytest.mark.parametrize("n", [0, 1, 3, 6])
def test_branching_on_lazy_counts_gives_same_answer(n: int) -> None:
    assert _dist(q1_branchy, n=n) == _dist(q1, n=n)


def _chain(d: Dice) -> str:
    if not d.test(4, rule="t.hit", what="hit"):
        return "miss"
    face = d.die(rule="t.save", what="save")
    if face >= 5:
        return "saved"
    return "destroyed" if d.test(3, rule="t.fp", what="fp") else "bailed"


def _each(p: N, d: Dice) -> Mapping[str, Any]:
    c = d.each(p.n, _chain, ("miss", "saved", "bailed", "destroyed"), rule="t.each", what="die")
    return {"destroyed": c["destroyed"], "bailed": c["bailed"], "any": c["destroyed"] > 0}


each_proc = procedure("t.each", title="", summary="", params=N, outcome=q1.outcome)(_each)


def test_each_matches_hand_calculation() -> None:
    # per item: destroyed 1/2 * 2/3 * 2/3 = 2/9; bailed 1/2 * 2/3 * 1/3 = 1/9
    d = _dist(each_proc, n=1)
    assert d == {(1, 0, True): F(2, 9), (0, 1, False): F(1, 9), (0, 0, False): F(2, 3)}
    two = _dist(each_proc, n=2)
    assert two[(2, 0, True)] == F(4, 81)
    assert two[(1, 1, True)] == 2 * F(2, 9) * F(1, 9)


def test_each_roll_is_lockstep_and_replays() -> None:
    proc = each_proc
    p = validate(proc, {"n": 3})
    res = drivers.roll(proc, p, seed=11)
    again = drivers.roll(proc, p, dice=list(res.dice))
    assert again.outcome == res.outcome
    assert again.steps == res.steps
    # all first rolls (to hit) come before any later roll
    rules = [s.rule for s in res.steps if s.dice]
    assert rules[: rules.count("t.hit")] == ["t.hit"] * rules.count("t.hit")


def _one(p: N, d: Dice) -> Mapping[str, Any]:
    # a chain of up to n items, stopping at the first that is not a miss
    for i in range(p.n):
        label = d.one(_chain, ("miss", "saved", "bailed", "destroyed"), rule="t.one",
                      what="die")
        if label != "miss":
            return {"destroyed": int(label == "destroyed"), "bailed": int(label == "bailed"),
                    "any": i}
    return {"destroyed": 0, "bailed": 0, "any": -1}


one_proc = procedure("t.one", title="", summary="", params=N, outcome=outcome(
    ("destroyed", "int"), ("bailed", "int"), ("any", "int")))(_one)


def test_one_branches_on_the_chain_and_tells_its_steps_only() -> None:
    # the chain gives miss 1/2, saved 1/2 * 1/3 = 1/6, destroyed 1/2 * 2/3 * 2/3 = 2/9,
    # bailed 1/2 * 2/3 * 1/3 = 1/9; the first non-miss of two items comes at once, or
    # after a miss (times 1/2); both miss 1/4
    d = _dist(one_proc, n=2)
    assert d == {(1, 0, 0): F(2, 9), (0, 1, 0): F(1, 9), (0, 0, 0): F(1, 6),
                 (1, 0, 1): F(1, 9), (0, 1, 1): F(1, 18), (0, 0, 1): F(1, 12),
                 (0, 0, -1): F(1, 4)}
    p = validate(one_proc, {"n": 2})
    res = drivers.roll(one_proc, p, dice=[1, 6, 3, 5])  # a miss, then hit, save 3, fp 5
    assert res.outcome == {"destroyed": 1, "bailed": 0, "any": 1}
    texts = [s.to_dict()["text"] for s in res.steps]
    assert not any("in all" in t for t in texts)  # no tally after a single item
    assert drivers.roll(one_proc, p, dice=list(res.dice)).steps == res.steps


def _views(p: N, d: Dice) -> Mapping[str, Any]:
    total = d.dice(2, rule="t.dr", what="DR", view="sum")
    pair = d.dice(2, rule="t.dr", what="pair", view="sorted")
    return {"total": total, "doubles": pair[0] == pair[1]}


views = procedure("t.views", title="", summary="", params=N,
                  outcome=outcome(("total", "int"), ("doubles", "bool")))(_views)


def test_dice_views() -> None:
    d = drivers.exact(views, validate(views, {}))
    assert d.marginal("total")[7] == F(1, 6)
    assert d.marginal("total")[12] == F(1, 36)
    assert d.marginal("doubles")[True] == F(1, 6)


def test_pick_is_uniform() -> None:
    def run(p: N, d: Dice) -> Mapping[str, Any]:
        return {"i": d.pick(p.n, rule="t.pick", what="unit")}

    proc = procedure("t.pick", title="", summary="", params=N,
                     outcome=outcome(("i", "int")))(run)
    dist = drivers.exact(proc, validate(proc, {"n": 5}))
    assert dist.marginal("i") == {i: F(1, 5) for i in range(5)}
    res = drivers.roll(proc, validate(proc, {"n": 4}), dice=[6, 5, 3])
    assert res.outcome == {"i": 2}


def test_too_large_is_a_clear_usage_error() -> None:
    from warroom.errors import ExactTooLargeError, UsageError

    params = validate(q1_branchy, {"n": 6})
    with pytest.raises(ExactTooLargeError, match="simulate") as err:
        drivers.exact(q1_branchy, params, max_paths=5)
    assert isinstance(err.value, UsageError)
    assert drivers.exact(q1_branchy, params).total() == 1


# The two ways the driver turns per-item categories into a multinomial over counts must
# agree everywhere: the packed big-integer power and the term-by-term recurrence.
@settings(max_examples=200, deadline=None)
@given(n=st.integers(0, 10),
       classes=st.lists(st.tuples(st.integers(-5, 5), st.integers(0, 40)), min_size=1,
                        max_size=5).filter(lambda cs: any(w for _, w in cs)))
def test_packed_multinomial_agrees_with_recurrence(n: int, classes: list[tuple[int, int]]
                                                   ) -> None:
    from warroom.engine import exact

    live = [(d, w) for d, w in classes if w]
    expected = exact.multinomial_keys.__wrapped__(n, tuple(live))
    dense = exact.multinomial_dense(n, live)
    assert dense is not None  # small enough to pack (at most two words, ~13,000 bits)
    first, weights = dense
    got = {first + i: w for i, w in enumerate(weights) if w}
    assert got == expected
    assert sum(weights) == sum(w for _, w in live) ** n


def test_packed_multinomial_by_hand() -> None:
    from warroom.engine import exact

    # two dice, each 0 with weight 1 and 1 with weight 2: (1 + 2x)^2 = 1 + 4x + 4x^2
    assert exact.multinomial_dense(2, [(0, 1), (1, 2)]) == (0, [1, 4, 4])
    # weights past 64 bits are spread over several words and put back together
    first, weights = exact.multinomial_dense(3, [(-1, 2**40), (1, 1)]) or (0, [])
    assert first == -3
    assert weights == [2**120, 0, 3 * 2**80, 0, 3 * 2**40, 0, 1]
    # past the packing limit the driver falls back to the recurrence
    assert exact.multinomial_dense(40, [(0, 5), (1, 1), (41, 30)]) is None


def test_split_classes_must_cover_each_face_once_in_every_driver() -> None:
    """Six faces in all, but face 1 twice and face 2 never: a mistake in the rule, caught
    by the exact driver as by the roll driver (not silently given wrong odds)."""
    from warroom.errors import RuleError

    @procedure("t.badsplit", title="bad split", summary="", params=N,
               outcome=outcome(("a", "int")))
    def bad(p: N, d: Dice) -> Mapping[str, Any]:
        parts = d.split(p.n, {"a": [1, 1], "b": [3, 4, 5, 6]}, rule="t", what="x")
        return {"a": parts["a"]}

    params = validate(bad, {"n": 2})
    with pytest.raises(RuleError, match="exactly once"):
        drivers.exact(bad, params)
    with pytest.raises(RuleError, match="exactly once"):
        drivers.roll(bad, params, seed=1)


def test_chain_keys_fixed_functions_once_and_others_every_time() -> None:
    from warroom.engine.context import fixed
    from warroom.engine.exact import chain_key

    def make(x: int) -> Any:
        def chain(d: Dice) -> str:
            return str(x)
        return chain

    # equal captures, equal keys; a fixed function keeps the key it was given
    assert chain_key(make(1)) == chain_key(make(1)) != chain_key(make(2))
    kept = fixed(make(3))
    key = chain_key(kept)
    assert kept._warroom_key == key and chain_key(kept) is key  # type: ignore[attr-defined]
    # a closure whose captured variable is rebound is keyed afresh every time
    y = 1

    def late(d: Dice) -> str:
        return str(y)

    first = chain_key(late)
    y = 2
    assert chain_key(late) != first

    # a bound method computes with its object: never keyed
    class Holder:
        def chain(self, d: Dice) -> str:
            return "x"

    assert chain_key(Holder().chain) is None
