"""``Dice.tally``: several groups of items, each group with its own chain, counted
together. Exact odds against the same groups asked with ``each`` one after another (the
definition) and against every die written out; rolling it is ``each`` group by group;
and the structure that makes it cheap: one joint evaluation per distinct set of groups."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction as F
from itertools import product
from typing import Any

import pytest

from warroom.dice.sources import SeededSource
from warroom.engine import tally
from warroom.engine.context import Dice, fixed
from warroom.engine.exact import exact_run
from warroom.engine.roll import RollDice

LABELS = ("none", "hurt", "down")


def _one_die(d: Dice) -> str:
    """1-2 down, 3 hurt, 4-6 none."""
    v = d.die(rule="t.tally.a", what="a")
    return "down" if v <= 2 else "hurt" if v == 3 else "none"


def _two_steps(d: Dice) -> str:
    """A 5+ hurts; a 6 on a second die then downs."""
    if not d.test(5, rule="t.tally.b", what="b"):
        return "none"
    return "down" if d.test(6, rule="t.tally.b2", what="b2") else "hurt"


def _never(d: Dice) -> str:
    """Certain: no die can hurt."""
    return "none"


A, B, N = fixed(_one_die), fixed(_two_steps), fixed(_never)


def _by_each(d: Dice, groups: list[tuple[int, Any]]) -> dict[str, Any]:
    total: dict[str, Any] = dict.fromkeys(LABELS, 0)
    for n, chain in groups:
        res = d.each(n, chain, LABELS, rule="t.tally", what="items")
        for label in LABELS:
            total[label] = total[label] + res[label]
    return total


def _by_tally(d: Dice, groups: list[tuple[int, Any]]) -> dict[str, Any]:
    return d.tally([(n, chain, "items", ()) for n, chain in groups], LABELS, rule="t.tally")


Use = Callable[[dict[str, Any]], Mapping[str, Any]]
USES: list[tuple[str, tuple[str, ...], Use]] = [
    # the counts as they are (the fast path)
    ("plain", ("hurt", "down"), lambda r: {"hurt": r["hurt"], "down": r["down"]}),
    ("one", ("down",), lambda r: {"down": r["down"]}),
    ("reversed", ("down", "hurt"), lambda r: {"down": r["down"], "hurt": r["hurt"]}),
    # arithmetic and comparisons: the category trees each would build
    ("sum", ("any", "big"), lambda r: {"any": r["hurt"] + r["down"], "big": r["down"] >= 2}),
    ("mixed", ("hurt", "less"), lambda r: {"hurt": r["hurt"], "less": 3 - r["down"]}),
    # branching on a count: the groups replayed concretely
    ("branch", ("k",), lambda r: {"k": 1 if r["down"] else 0}),
]
GROUPS: list[list[tuple[int, Any]]] = [
    [(2, A), (1, B)],
    [(1, B), (3, A), (2, N)],
    [(0, A), (2, B)],
    [(2, N)],
    [(1, A), (1, A), (2, B)],
]


@pytest.mark.parametrize("groups", GROUPS)
@pytest.mark.parametrize(("name", "fields", "use"), USES, ids=[u[0] for u in USES])
def test_exact_tally_is_each_group_after_group(groups: list[tuple[int, Any]], name: str,
                                               fields: tuple[str, ...], use: Use) -> None:
    want = exact_run(lambda d: use(_by_each(d, groups)), fields)
    got = exact_run(lambda d: use(_by_tally(d, groups)), fields)
    assert _fractions(got) == _fractions(want)


def test_tally_against_every_die() -> None:
    """Two items of A and one of B written out: A's die, A's die, B's two dice."""
    want: dict[tuple[int, int], F] = {}
    for a1, a2, b1, b2 in product(range(1, 7), repeat=4):
        res = [("down" if a <= 2 else "hurt" if a == 3 else "none") for a in (a1, a2)]
        res.append("none" if b1 < 5 else "down" if b2 == 6 else "hurt")
        key = (res.count("hurt"), res.count("down"))
        want[key] = want.get(key, F(0)) + F(1, 6**4)
    got = exact_run(lambda d: {"hurt": (r := _by_tally(d, [(2, A), (1, B)]))["hurt"],
                               "down": r["down"]}, ("hurt", "down"))
    assert _fractions(got) == want


def test_tally_in_a_stage_is_each_group_after_group() -> None:
    """A stage leaving a tally's counts in its state (as fow.shoot_mixed's does)."""

    def first(s: tuple[int, int, int], d: Dice) -> tuple[int, int, int]:
        return (d.die(rule="t.tally.k", what="how many") % 3 + 1, 0, 0)

    def second_by(how: Callable[[Dice, list[tuple[int, Any]]], dict[str, Any]]) -> Any:
        def second(s: tuple[int, int, int], d: Dice) -> tuple[int, int, int]:
            r = how(d, [(s[0], A), (3 - s[0], B)])
            return (0, r["hurt"], r["down"])
        return second

    def run_with(how: Any) -> Any:
        def run(d: Dice) -> Mapping[str, Any]:
            (_, hurt, down), _ = d.stages((0, 0, 0), (), rounds=0,
                                          opening=(first, second_by(how)))
            return {"hurt": hurt, "down": down}
        return exact_run(run, ("hurt", "down"))

    assert _fractions(run_with(_by_tally)) == _fractions(run_with(_by_each))


def test_one_joint_evaluation_per_distinct_set_of_groups(monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    """Groups given in any order, with chains of equal chances (A and a copy of it), are
    one set: its joint distribution is worked out once."""
    from warroom.engine import exact

    calls: list[Any] = []
    joint = tally._joint

    def counted(labels: Any, groups: Any) -> Any:
        calls.append(groups)
        return joint(labels, groups)

    monkeypatch.setattr(tally, "_joint", counted)
    for memo in (exact.EVAL_MEMO, tally._JOINTS, tally._PREFIXES, tally._MADE):
        memo.clear()
    a_again = fixed(lambda d: _one_die(d))
    orders = [[(2, A), (1, B)], [(1, B), (2, a_again)], [(1, B), (2, A)]]

    def run(d: Dice) -> Mapping[str, Any]:
        r = _by_tally(d, orders[d.pick(3, rule="t.tally.order", what="order")])
        return {"hurt": r["hurt"], "down": r["down"]}

    exact_run(run, ("hurt", "down"))
    assert len(calls) == 1


def test_rolling_a_tally_is_each_group_after_group() -> None:
    groups = [(2, A), (1, B), (2, N)]
    steps = []
    outs = []
    for how in (_by_each, _by_tally):
        dice = RollDice(SeededSource(7))
        outs.append(how(dice, groups))
        steps.append([(s.rule, str(s.text), s.dice) for s in dice.steps])
    assert outs[0] == outs[1]
    assert steps[0] == steps[1]


def _fractions(w: Any) -> dict[tuple[Any, ...], F]:
    out: dict[tuple[Any, ...], F] = {}
    for key, weight in w.weights.items():
        out[key] = out.get(key, F(0)) + F(weight, w.denominator)
    return {k: v for k, v in out.items() if v}


def test_a_chain_that_is_not_fixed_is_read_again() -> None:
    """A chain whose captured values may change is not kept by the object: each tally
    reads its chances again (a die needing 2 or less, then 5 or less)."""
    need = [2]

    def chain(d: Dice) -> str:
        return "down" if d.die(rule="t.tally.c", what="c") <= need[0] else "none"

    def run(d: Dice) -> Mapping[str, Any]:
        need[0] = 2
        first = _by_tally(d, [(1, chain)])["down"]
        need[0] = 5
        return {"first": first, "then": _by_tally(d, [(1, chain)])["down"]}

    got = _fractions(exact_run(run, ("first", "then")))
    assert got == {(1, 1): F(2, 6) * F(5, 6), (1, 0): F(2, 6) * F(1, 6),
                   (0, 1): F(4, 6) * F(5, 6), (0, 0): F(4, 6) * F(1, 6)}


def test_states_whose_tallies_work_out_alike_share_their_outcomes() -> None:
    """Six states (a die) whose tallies are alike but for the die's parity: two mappings
    of outcomes are made, each added in once for the three states that reach it; the
    odds are those of each group after group."""
    from warroom.engine import exact

    for memo in (exact.EVAL_MEMO, tally._JOINTS, tally._PREFIXES, tally._MADE):
        memo.clear()
    copies = [fixed(lambda d: _one_die(d)) for _ in range(6)]  # alike, not the same

    def run_with(how: Any) -> Any:
        def first(s: tuple[int, int, int], d: Dice) -> tuple[int, int, int]:
            return (d.die(rule="t.tally.k", what="which"), 0, 0)

        def second(s: tuple[int, int, int], d: Dice) -> tuple[int, int, int]:
            r = how(d, [(1 + s[0] % 2, copies[s[0] - 1]), (1, B)])
            return (s[0] % 2, r["hurt"], r["down"])

        def run(d: Dice) -> Mapping[str, Any]:
            (odd, hurt, down), _ = d.stages((0, 0, 0), (), rounds=0,
                                            opening=(first, second))
            return {"odd": odd, "hurt": hurt, "down": down}
        return exact_run(run, ("odd", "hurt", "down"))

    got = run_with(_by_tally)
    assert len(tally._MADE) == 2
    assert _fractions(got) == _fractions(run_with(_by_each))


def test_a_tally_count_fed_to_another_request() -> None:
    """A count of a tally as the number of dice of a later pool (each downed item rolls
    a 4+), beside the count of another tally: the category trees each would build."""

    def run_with(how: Any) -> Any:
        def run(d: Dice) -> Mapping[str, Any]:
            first = how(d, [(2, A), (1, B)])
            again = how(d, [(1, A)])
            saved = d.pool(first["down"], 4, rule="t.tally.save", what="saves")
            return {"saved": saved, "hurt": first["hurt"] + again["hurt"]}
        return _fractions(exact_run(run, ("saved", "hurt")))

    assert run_with(_by_tally) == run_with(_by_each)
