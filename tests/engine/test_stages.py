"""``Dice.stages``: rounds split into stages over a small state. The exact driver keeps
the distribution of states between stages and works each stage out once per state; the
same stages as a plain loop (enumerated path by path), by hand, and in every driver."""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction as F
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import Field

from tests.engine.test_iterate import Fight, _dist, monte_carlo_agrees
from warroom.engine import drivers, exact
from warroom.engine.context import Dice, fixed
from warroom.engine.exact import chain_key, transitions
from warroom.engine.params import validate
from warroom.engine.procedure import Params, outcome, procedure
from warroom.errors import RuleError


class Duel(Fight):
    lead: int = Field(0, ge=0, le=3, description="opening volley dice of side A")


Duelist = tuple[int, int, int, str]
"""(A left, B left, hits waiting to be taken, winner so far)."""


def _stages(p: Duel) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """A fires, B takes the hits; B's survivors fire back, A takes them; then B tests
    its nerve (4+) if it was hit at all. The opening: A's volley of ``lead`` dice."""

    def volley(s: Duelist, d: Dice) -> Duelist:
        return (s[0], s[1], d.pool(p.lead, p.a_at, rule="t.duel.volley", what="volley"), "")

    def a_fires(s: Duelist, d: Dice) -> Duelist:
        return (s[0], s[1], d.pool(s[0], p.a_at, rule="t.duel.a", what="A fires"), "")

    def b_takes(s: Duelist, d: Dice) -> Duelist:
        left = max(0, s[1] - s[2])  # branches on the hits: known in the state
        d.note(f"t.duel.round{d.round}", "B takes {n} hits", n=s[2])
        return (s[0], left, 0, "A" if left == 0 else "")

    def b_fires(s: Duelist, d: Dice) -> Duelist:
        hits = d.pool(s[1], p.b_at, rule="t.duel.b", what="B fires")
        return (max(0, s[0] - int(hits)), s[1], int(hits), "")

    def b_nerve(s: Duelist, d: Dice) -> Duelist:
        if s[0] == 0:
            return (0, s[1], 0, "B")
        if s[1] < p.b and not d.test(4, rule="t.duel.nerve", what="B's nerve"):
            return (s[0], s[1], 0, "A")
        return (s[0], s[1], 0, "")

    opening = (volley, b_takes) if p.lead else ()
    return opening, (a_fires, b_takes, b_fires, b_nerve)


def _done(s: Duelist) -> bool:
    return s[3] != ""


def _staged(p: Duel, d: Dice) -> Mapping[str, Any]:
    opening, stages = _stages(p)
    end, rounds = d.stages((p.a, p.b, 0, ""), stages, rounds=p.rounds, done=_done,
                           opening=opening)
    return {"a": end[0], "b": end[1], "winner": end[3] or "-", "rounds": rounds}


def _loop(p: Duel, d: Dice) -> Mapping[str, Any]:
    """The same, written as a plain loop: the exact driver follows every path."""
    opening, stages = _stages(p)
    s: Duelist = (p.a, p.b, 0, "")
    for stage in opening:
        if not _done(s):
            s = stage(s, d)
    rounds = 0
    for _ in range(p.rounds):
        if _done(s):
            break
        rounds += 1
        for stage in stages:
            if _done(s):
                break
            s = stage(s, d)
    return {"a": s[0], "b": s[1], "winner": s[3] or "-", "rounds": rounds}


FIELDS = outcome(("a", "int"), ("b", "int"), ("winner", "str"), ("rounds", "int"))
staged = procedure("t.staged", title="", summary="", params=Duel, outcome=FIELDS)(_staged)
loop = procedure("t.loop", title="", summary="", params=Duel, outcome=FIELDS)(_loop)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 4), st.integers(0, 4), st.integers(2, 6), st.integers(2, 6),
       st.integers(0, 4), st.integers(0, 2))
def test_stages_equal_the_plain_loop(a: int, b: int, a_at: int, b_at: int, rounds: int,
                                     lead: int) -> None:
    params = {"a": a, "b": b, "a_at": a_at, "b_at": b_at, "rounds": rounds, "lead": lead}
    assert _dist(staged, **params) == _dist(loop, **params)


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 4), st.integers(1, 4), st.integers(2, 6), st.integers(2, 6),
       st.integers(1, 4))
def test_stopped_states_come_back_in_lowest_terms(a: int, b: int, a_at: int, b_at: int,
                                                  rounds: int) -> None:
    # states the test ``done`` stops (a winner in some round) are set aside as they are
    # met and put back at the end: the same odds as the plain loop, and the weights
    # still over the smallest denominator (no common factor left with it)
    params = {"a": a, "b": b, "a_at": a_at, "b_at": b_at, "rounds": rounds}
    d = drivers.exact(staged, validate(staged, params))
    assert math.gcd(d.denominator, *d.weights.values()) == 1
    assert _dist(staged, **params) == _dist(loop, **params)


def test_one_round_by_hand() -> None:
    # 1 v 1, one round. A hits 4+ (1/2): B is gone, A wins in round 1, B never fires.
    # Else B fires at 5+ (1/3): A is gone, B wins. Else nobody was hit: no nerve test,
    # undecided after 1 round (1/2 * 2/3 = 1/3).
    one = _dist(staged, a=1, b=1, rounds=1)
    assert one == {(1, 0, "A", 1): F(1, 2), (0, 1, "B", 1): F(1, 6),
                   (1, 1, "-", 1): F(1, 3)}
    # an opening volley of one die (4+, 1/2) ends it before any round: not counted
    assert _dist(staged, a=1, b=1, rounds=1, lead=1)[(1, 0, "A", 0)] == F(1, 2)
    # no rounds at all
    assert _dist(staged, a=3, b=2, rounds=0) == {(3, 2, "-", 0): F(1)}


def test_each_stage_is_worked_out_once_per_state(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[str, tuple[Any, ...]]] = []
    real = transitions.transition

    def counting(stage: Any, s: tuple[Any, ...], *args: Any, **kwargs: Any) -> Any:
        seen.append((stage.__name__, s))
        return real(stage, s, *args, **kwargs)

    monkeypatch.setattr(transitions, "transition", counting)
    _dist(staged, a=5, b=5, a_at=3, b_at=3, rounds=4)
    assert seen and len(seen) == len(set(seen))  # never the same stage and state twice
    # a plain loop follows paths: far more replays than the states the stages saw
    calls = 0
    real_run = exact.ExactDice.__init__

    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        nonlocal calls
        calls += 1
        real_run(self, *args, **kwargs)

    monkeypatch.setattr(exact.ExactDice, "__init__", init)
    _dist(loop, a=5, b=5, a_at=3, b_at=3, rounds=4)
    assert calls > 5 * len(seen)


def test_rolls_follow_the_table_and_replay_as_entered_dice() -> None:
    p = validate(staged, {"a": 3, "b": 3, "rounds": 4, "lead": 2})
    for seed in range(8):
        res = drivers.roll(staged, p, seed=seed)
        again = drivers.roll(staged, p, dice=list(res.dice))
        assert again.outcome == res.outcome and again.steps == res.steps
        # the same dice through the plain loop give the same result, in the same order
        assert drivers.roll(loop, p, dice=list(res.dice)).outcome == res.outcome
        # the round number names the steps (d.round: 0 in the opening)
        taken = [s.rule for s in res.steps if s.rule.startswith("t.duel.round")]
        assert taken[0] == "t.duel.round0"
        assert len({r for r in taken if r != "t.duel.round0"}) == res.outcome["rounds"]


def test_monte_carlo_agrees() -> None:
    monte_carlo_agrees(staged, {"a": 3, "b": 3, "rounds": 3, "lead": 1})


class _Seen(Params):
    pass


def _who_explains(p: _Seen, d: Dice) -> Mapping[str, Any]:
    return {"explains": d.explains}


def test_only_rolling_explains() -> None:
    proc = procedure("t.explains", title="", summary="", params=_Seen,
                     outcome=outcome(("explains", "bool")))(_who_explains)
    p = validate(proc, {})
    assert _dist(proc) == {(False,): 1}
    assert drivers.roll(proc, p, seed=1).outcome == {"explains": True}
    assert set(drivers.simulate(proc, p, 10, seed=1).counts) == {(False,)}


def _bad(p: Duel, d: Dice) -> Mapping[str, Any]:
    end, _ = d.stages((p.a, p.b), [lambda s, d: (s[0],)], rounds=1)  # type: ignore[list-item,return-value]
    return {"a": end[0], "b": end[1], "winner": "-", "rounds": 0}


def test_a_stage_that_changes_the_shape_of_the_state_is_a_rule_error() -> None:
    bad = procedure("t.bad", title="", summary="", params=Duel, outcome=FIELDS)(_bad)
    with pytest.raises(RuleError, match="must return a state like"):
        drivers.exact(bad, validate(bad, {}))


def test_a_given_key_stands_for_what_a_stage_computes() -> None:
    def make(box: list[int]) -> Any:
        def stage(s: Any, d: Dice) -> Any:
            return (s[0] + len(box), *s[1:])
        return stage

    # a captured list cannot be hashed: no key, unless one is given
    assert chain_key(make([1])) is None
    one, two = fixed(make([1]), ("t", 1)), fixed(make([1]), ("t", 1))
    assert chain_key(one) == chain_key(two) is not None
    assert chain_key(fixed(make([2]), ("t", 2))) != chain_key(one)
