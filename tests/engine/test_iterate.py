"""``Dice.iterate``: rounds whose states the exact driver merges, against the same rounds
written as a plain loop (which the exact driver enumerates path by path), by hand, and
in every other driver."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction as F
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import Field

from tests.helpers import close_enough
from warroom.engine import drivers
from warroom.engine.context import Dice
from warroom.engine.exact import chain_key
from warroom.engine.params import validate
from warroom.engine.procedure import Params, Procedure, outcome, procedure
from warroom.errors import RuleError


class Fight(Params):
    a: int = Field(2, ge=0, le=6)
    b: int = Field(2, ge=0, le=6)
    a_at: int = Field(4, ge=2, le=6)
    b_at: int = Field(5, ge=2, le=6)
    rounds: int = Field(2, ge=0, le=4)


def _exchange(p: Fight) -> Any:
    """One round of fire: both sides shoot at once, each hit removes an enemy."""

    def step(s: tuple[int, int], d: Dice) -> tuple[int, int]:
        a, b = s
        ha = d.pool(a, p.a_at, rule="t.fight.a", what="side A fires")
        hb = d.pool(b, p.b_at, rule="t.fight.b", what="side B fires")
        d.note("t.fight.round", "a round of fire")
        return (max(0, a - int(hb)), max(0, b - int(ha)))

    return step


def _over(s: tuple[int, int]) -> bool:
    return s[0] == 0 or s[1] == 0


def _merged(p: Fight, d: Dice) -> Mapping[str, Any]:
    a, b = d.iterate((p.a, p.b), _exchange(p), rounds=p.rounds, done=_over)
    return {"a": a, "b": b}


def _loop(p: Fight, d: Dice) -> Mapping[str, Any]:
    state = (p.a, p.b)
    for _ in range(p.rounds):
        if _over(state):
            break
        state = _exchange(p)(state, d)
    return {"a": state[0], "b": state[1]}


FIELDS = outcome(("a", "int"), ("b", "int"))
merged = procedure("t.merged", title="", summary="", params=Fight, outcome=FIELDS)(_merged)
loop = procedure("t.loop", title="", summary="", params=Fight, outcome=FIELDS)(_loop)


def _dist(proc: Procedure, **params: Any) -> dict[tuple[Any, ...], F]:
    d = drivers.exact(proc, validate(proc, params))
    assert d.total() == 1
    return {k: F(w, d.denominator) for k, w in d.weights.items()}


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 4), st.integers(0, 4), st.integers(2, 6), st.integers(2, 6),
       st.integers(0, 3))
def test_merged_rounds_equal_the_plain_loop(a: int, b: int, a_at: int, b_at: int,
                                            rounds: int) -> None:
    params = {"a": a, "b": b, "a_at": a_at, "b_at": b_at, "rounds": rounds}
    assert _dist(merged, **params) == _dist(loop, **params)


def test_one_on_one_by_hand() -> None:
    # one round, 1 v 1, A hits on 4+ (1/2), B on 5+ (1/3), at the same time
    one = _dist(merged, a=1, b=1, rounds=1)
    assert one == {(0, 0): F(1, 6), (1, 0): F(1, 3), (0, 1): F(1, 6), (1, 1): F(1, 3)}
    # a second round only from (1, 1): its chances again, times 1/3
    two = _dist(merged, a=1, b=1, rounds=2)
    assert two[(1, 1)] == F(1, 9)
    assert two[(1, 0)] == F(1, 3) + F(1, 3) * F(1, 3)
    # no rounds at all: the start, certainly
    assert _dist(merged, a=3, b=2, rounds=0) == {(3, 2): F(1)}


def test_rolls_record_every_round_and_replay_as_entered_dice() -> None:
    p = validate(merged, {"a": 3, "b": 3, "rounds": 4})
    for seed in range(8):
        res = drivers.roll(merged, p, seed=seed)
        again = drivers.roll(merged, p, dice=list(res.dice))
        assert again.outcome == res.outcome and again.steps == res.steps
        rounds = sum(1 for s in res.steps if s.rule == "t.fight.round")
        a, b = res.outcome["a"], res.outcome["b"]
        assert 1 <= rounds <= 4 and (rounds == 4 or a == 0 or b == 0)
        # the same dice through the plain loop give the same result
        assert drivers.roll(loop, p, dice=list(res.dice)).outcome == res.outcome


def monte_carlo_agrees(proc: Procedure, params: dict[str, Any]) -> None:
    """20,000 samples agree with the exact odds, outcome by outcome."""
    p = validate(proc, params)
    exact = drivers.exact(proc, p)
    est = drivers.simulate(proc, p, 20_000, seed=5)
    n = est.samples
    for key, w in exact.weights.items():
        assert close_enough(est.counts.get(key, 0) / n, w / exact.denominator, n), key


def test_monte_carlo_agrees() -> None:
    monte_carlo_agrees(merged, {"a": 3, "b": 3, "rounds": 3})


def _bad(p: Fight, d: Dice) -> Mapping[str, Any]:
    a, b = d.iterate((p.a, p.b), lambda s, d: (s[0],), rounds=1)  # type: ignore[arg-type,return-value]
    return {"a": a, "b": b}


def test_a_round_that_changes_the_shape_of_the_state_is_a_rule_error() -> None:
    bad = procedure("t.bad", title="", summary="", params=Fight, outcome=FIELDS)(_bad)
    with pytest.raises(RuleError, match="a round must return a state like"):
        drivers.exact(bad, validate(bad, {}))


def test_equal_closures_share_one_memo_key() -> None:
    # two rounds made by the same code over equal values compute the same thing
    one, two = _exchange(Fight()), _exchange(Fight())
    assert one is not two and chain_key(one) == chain_key(two)
    assert chain_key(_exchange(Fight(a_at=3))) != chain_key(one)

    def outer() -> Any:
        def inner(d: Dice) -> str:
            return "x"
        return inner

    # a captured function stands for its own key
    assert chain_key(lambda d, f=outer(): f(d)) is not None
    assert chain_key(print) is None  # no code of its own to name
