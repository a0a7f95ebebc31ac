"""The Monte Carlo sampler's tables: a chain's categories, a part stage's next value and
a pool's successes drawn from exact chances worked out once per simulation. Each is
checked against the exact driver's odds (fixed seeds, within the conformance tests'
margin), and by counting calls: a chain or stage runs a bounded number of times for its
table, not once per item or sample; what cannot be tabled runs item by item."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

import pytest

from tests.helpers import close_enough
from warroom.engine.context import Dice, fixed, part, parts
from warroom.engine.exact import exact_run
from warroom.engine.montecarlo import PART_TABLE_AFTER, TABLE_PATHS, SampleDice, Table

LABELS = ("destroyed", "bailed_out", "unharmed")
SAMPLES = 4000
CALLS: dict[str, int] = {}


def _count(name: str) -> None:
    CALLS[name] = CALLS.get(name, 0) + 1


def _tank_hit(d: Dice) -> str:
    """A tank's armour save, then a firepower test: categories of chance 1/2, 1/3 * 1/2
    and so on (a chain with a branch, like fow.common.team_chain)."""
    _count("tank_hit")
    if d.test(4, rule="t.save", what="save"):
        return "unharmed"
    return "destroyed" if d.test(4, rule="t.fp", what="firepower") else "bailed_out"


TANK_HIT = fixed(_tank_hit)


def _agrees(run: Callable[[Dice], Mapping[str, Any]], fields: tuple[str, ...],
            dice: SampleDice, samples: int = SAMPLES) -> None:
    """``run`` sampled ``samples`` times with ``dice`` agrees with its exact odds."""
    exact = exact_run(run, fields)
    counts: dict[tuple[Any, ...], int] = {}
    for _ in range(samples):
        out = run(dice)
        key = tuple(out[f] for f in fields)
        counts[key] = counts.get(key, 0) + 1
    assert set(counts) <= set(exact.weights)
    for key, w in exact.weights.items():
        p = w / exact.denominator
        assert close_enough(counts.get(key, 0) / samples, p, samples), (key, counts, p)


def _platoon(d: Dice) -> Mapping[str, Any]:
    res = d.each(5, TANK_HIT, LABELS, rule="t.hit", what="hit")
    return {"destroyed": res["destroyed"], "bailed_out": res["bailed_out"]}


def test_a_tabled_chain_gives_the_exact_law_and_runs_once_per_key() -> None:
    CALLS.clear()
    dice = SampleDice(random.Random(5))
    _agrees(_platoon, ("destroyed", "bailed_out"), dice)
    tabled = CALLS["tank_hit"]
    # the exact driver ran it for its table (once per path: save, or save then test),
    # while the exact odds above ran it on their own: a handful, not 5 per sample
    assert tabled <= 20
    CALLS.clear()
    for _ in range(1000):
        _platoon(dice)
    assert CALLS == {}  # the table is kept for the whole simulation


def test_the_sampler_without_tables_runs_every_item_for_the_same_law() -> None:
    CALLS.clear()
    dice = SampleDice(random.Random(5), tables=False)
    _agrees(_platoon, ("destroyed", "bailed_out"), dice)
    assert CALLS["tank_hit"] >= 5 * SAMPLES  # item by item (plus the exact odds' runs)


def _one_and_tally(d: Dice) -> Mapping[str, Any]:
    first = d.one(TANK_HIT, LABELS, rule="t.one", what="first hit")
    res = d.tally([(2, TANK_HIT, "hit", ()), (3, fixed(_tank_hit), "hit", ())], LABELS,
                  rule="t.tally")
    return {"first": first, "destroyed": res["destroyed"]}


def test_one_and_tally_draw_from_the_tables_with_the_exact_law() -> None:
    CALLS.clear()
    _agrees(_one_and_tally, ("first", "destroyed"), SampleDice(random.Random(11)))
    assert CALLS["tank_hit"] <= 20  # two fixed chains of the same key: one table


def test_a_chain_that_cannot_be_keyed_runs_item_by_item() -> None:
    CALLS.clear()
    unhashable = [4]  # a captured list: no key, so no table

    def hit(d: Dice) -> str:
        _count("unkeyed")
        return "unharmed" if d.test(unhashable[0], rule="t.save", what="save") else "destroyed"

    chain = fixed(hit)

    def run(d: Dice) -> Mapping[str, Any]:
        return {"destroyed": d.each(3, chain, LABELS, rule="t.hit", what="hit")["destroyed"]}

    _agrees(run, ("destroyed",), SampleDice(random.Random(3)), samples=1000)
    assert CALLS["unkeyed"] >= 3 * 1000


def test_a_chain_not_marked_fixed_runs_item_by_item() -> None:
    """A fresh closure per sample (its key would be worked out at every request: more
    than rolling a small chain costs)."""
    CALLS.clear()

    def run(d: Dice) -> Mapping[str, Any]:
        at = 4

        def hit(d: Dice) -> str:
            _count("fresh")
            return "unharmed" if d.test(at, rule="t.save", what="save") else "destroyed"

        return {"destroyed": d.each(3, hit, LABELS, rule="t.hit", what="hit")["destroyed"]}

    _agrees(run, ("destroyed",), SampleDice(random.Random(4)), samples=1000)
    assert CALLS["fresh"] >= 3 * 1000


def test_a_chain_past_the_table_budget_runs_item_by_item() -> None:
    CALLS.clear()
    dice_each = 2 + (TABLE_PATHS.bit_length() + 1) // 2  # 6^k orders: past the budget

    def big(d: Dice) -> str:
        _count("big")
        rolls = d.dice(dice_each, rule="t.big", what="dice", view="sorted")
        return "destroyed" if rolls[-1] == 6 else "unharmed"

    dice = SampleDice(random.Random(2))
    counts = dice.each(50, fixed(big), LABELS, rule="t.hit", what="hit")
    assert sum(counts.values()) == 50
    assert CALLS["big"] >= 50  # the table was given up: every item rolled as it is


def _check(s: tuple[int], d: Dice) -> tuple[int]:
    """A unit's morale check from its state (0 good, 1 broken, 2 eliminated): 2d6 over
    its morale breaks it, a broken one is eliminated on a 12."""
    _count("check")
    (state,) = s
    roll = d.dice(2, rule="t.mc", what="MC", view="sum")
    if state == 0:
        return (1 if roll > 7 else 0,)
    return (2 if roll == 12 else state,)


CHECK0 = part((0,), fixed(_check))
CHECK1 = part((1,), fixed(_check))


def _stack(d: Dice) -> Mapping[str, Any]:
    (a, b), fought = d.stages((0, 1), (CHECK0, CHECK1), rounds=3)
    return {"a": a, "b": b, "rounds": fought}


def test_a_tabled_part_stage_gives_the_exact_law_and_runs_once_per_value() -> None:
    CALLS.clear()
    dice = SampleDice(random.Random(7))
    _agrees(_stack, ("a", "b", "rounds"), dice)
    CALLS.clear()
    dice = SampleDice(random.Random(8))
    for _ in range(2000):
        _stack(dice)
    # one table per distinct value of the part (0, 1, 2), whichever of the two stages
    # asks (they compute the same): rolled as it is until the value has come up
    # PART_TABLE_AFTER times, then a first run and one replay per sum of 2d6 (11)
    assert 0 < CALLS["check"] <= 3 * (PART_TABLE_AFTER - 1 + 12)


def _joined(d: Dice) -> Mapping[str, Any]:
    both = parts(CHECK0, CHECK1)
    (a, b), _ = d.stages((0, 0), (), rounds=0, opening=(both, both))
    return {"a": a, "b": b}


def test_parts_draw_each_piece_from_its_table() -> None:
    CALLS.clear()
    dice = SampleDice(random.Random(13))
    _agrees(_joined, ("a", "b"), dice)
    CALLS.clear()
    for _ in range(1000):
        _joined(dice)
    assert CALLS == {}


def test_done_and_rounds_are_kept_with_tabled_stages() -> None:
    def run(d: Dice) -> Mapping[str, Any]:
        (a, b), fought = d.stages((0, 0), (CHECK0, CHECK1), rounds=5,
                                  done=lambda s: s[0] == 1)
        return {"a": a, "b": b, "rounds": fought}

    _agrees(run, ("a", "b", "rounds"), SampleDice(random.Random(17)))


def _pools(d: Dice) -> Mapping[str, Any]:
    hits = d.pool(12, 4, rule="t.hit", what="to hit", reroll="misses")
    return {"hits": hits, "saved": d.pool(hits, 5, rule="t.save", what="saves")}


def test_a_pool_is_one_draw_from_its_binomial() -> None:
    _agrees(_pools, ("hits", "saved"), SampleDice(random.Random(19)))


@pytest.mark.parametrize("weights", [[(1, 1)], [("a", 1), ("b", 2), ("c", 0), ("d", 3)]])
def test_a_table_draws_each_value_by_its_weight(weights: list[tuple[Any, int]]) -> None:
    table = Table(weights)
    rng = random.Random(23)
    counts: dict[Any, int] = {}
    for _ in range(6000):
        v = table.draw(rng)
        counts[v] = counts.get(v, 0) + 1
    total = sum(w for _, w in weights)
    assert set(counts) == {v for v, w in weights if w}
    for v, w in weights:
        if w:
            assert close_enough(counts[v] / 6000, w / total, 6000)


def test_a_chain_only_rolling_serves_runs_as_it_is() -> None:
    """Five dice in order: the exact driver refuses the request (a RuleError asking for
    a sorted view), the sampler rolls the chain as before instead of failing."""
    CALLS.clear()

    def five(d: Dice) -> str:
        _count("five")
        rolls = d.dice(5, rule="t.five", what="dice")
        return "destroyed" if rolls[0] == 6 else "unharmed"

    dice = SampleDice(random.Random(29))
    counts = dice.each(600, fixed(five), LABELS, rule="t.hit", what="hit")
    assert CALLS["five"] == 1 + 600  # one try at its table, then each item rolled
    assert sum(counts.values()) == 600
    assert close_enough(counts["destroyed"] / 600, 1 / 6, 600)


def _step_up(s: tuple[int, int], d: Dice) -> tuple[int, int]:
    """No dice: the counter up by one, the second value its double (a part stage the
    sampler tables at once: one way)."""
    return (s[0] + 1, 2 * (s[0] + 1))


UP = part((0, 2), fixed(_step_up))


def _loop(d: Dice, seen: list[tuple[str, int, tuple[Any, ...]]],
          done: Callable[[Any], bool] | None) -> tuple[Any, int]:
    def note(name: str) -> Callable[[Any, Dice], Any]:
        def stage(state: Any, dd: Dice) -> Any:
            seen.append((name, dd.round, state))
            return (*state[:1], state[1] + 1, *state[2:])
        return stage

    return d.stages((0, 0, 0), (UP, UP, note("a"), UP), rounds=4, done=done,
                    opening=(UP, note("open"), UP))


@pytest.mark.parametrize("stop", [None, 5, 7, 9, 100])
def test_the_sampler_loop_runs_stages_as_the_plain_loop(stop: int | None) -> None:
    """The sampler's one loop (stages on parts spliced into one list, joined where no
    ``done`` is checked between them) gives what the plain loop gives: the last state,
    the rounds begun, each other stage's state and ``round``, ``done`` checked before
    every stage; and ``round`` is put back after it."""
    done = None if stop is None else (lambda s: s[0] >= stop)
    runs = []
    for dice in (SampleDice(random.Random(1), tables=False), SampleDice(random.Random(1))):
        seen: list[tuple[str, int, tuple[Any, ...]]] = []
        dice.round = 3
        for _ in range(PART_TABLE_AFTER + 2):  # rolled, then drawn from its table
            seen.clear()
            out = _loop(dice, seen, done)
        assert dice.round == 3
        runs.append((out, seen))
    assert runs[0] == runs[1]
    assert type(runs[1][0][0]) is tuple


def test_a_part_step_draws_from_its_own_kept_transitions() -> None:
    """Once a value's transition is known, a sample's part step is a look-up in what
    that step keeps (no call per step): after the first samples of a stack of checks,
    the steps' slow path is not entered again."""
    dice = SampleDice(random.Random(31))
    for _ in range(500):
        _stack(dice)
    slow = dice._part_step
    calls = []

    def counted(*args: Any) -> None:
        calls.append(args[1])
        slow(*args)

    dice._part_step = counted  # type: ignore[method-assign]
    for _ in range(500):
        _stack(dice)
    assert calls == []
