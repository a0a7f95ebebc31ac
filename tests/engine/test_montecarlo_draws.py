"""The sampler's draws take the random stream exactly as ``randrange`` would: a table's
draw, a pool given a target or its number, a tally's groups against each group on its
own. Twin generators with the same seed must end in the same state and give the same
draws, so a faster draw never changes a seeded estimate."""

from __future__ import annotations

import random
from bisect import bisect_right
from itertools import accumulate
from typing import Literal

from hypothesis import given, settings
from hypothesis import strategies as st

from warroom.engine.context import Chain, Dice, fixed
from warroom.engine.montecarlo import SampleDice, Table
from warroom.engine.steps import Target

LABELS = ("destroyed", "bailed_out", "unharmed")


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 10**12), min_size=1, max_size=8).filter(any),
       st.integers(0, 2**32 - 1))
def test_a_table_draws_as_randrange_over_its_weights(weights: list[int], seed: int) -> None:
    options = list(enumerate(weights))
    table = Table(options)
    mine, theirs = random.Random(seed), random.Random(seed)
    live = [(v, w) for v, w in options if w]
    cumulative = list(accumulate(w for _, w in live))
    for _ in range(30):
        got = table.draw(mine)
        if len(live) == 1:  # one value: no draw at all
            want = live[0][0]
        else:  # the weights over their gcd, as Table keeps them, give the same draw
            r = theirs.randrange(table.total)
            want = live[bisect_right(table.cumulative, r)][0]
            assert want == live[bisect_right(cumulative, r * cumulative[-1] // table.total)][0]
        assert got == want
    assert mine.getstate() == theirs.getstate()


def test_a_pool_given_a_target_draws_as_given_its_number() -> None:
    rng = random.Random(5)
    a, b = SampleDice(random.Random(11)), SampleDice(random.Random(11))
    for _ in range(3000):
        # fresh targets, freed at once: their ids come back, their numbers differ
        target = Target.of(rng.randint(2, 6), "to hit").plus(rng.randint(-1, 2), "moved")
        n = rng.randint(0, 30)
        reroll: Literal["none", "misses"] = rng.choice(("none", "misses"))
        assert a.pool(n, target, rule="t", what="hits", reroll=reroll) == b.pool(
            n, target.final, rule="t", what="hits", reroll=reroll)
    assert a.rng.getstate() == b.rng.getstate()


def test_a_pool_asked_again_draws_as_given_its_number() -> None:
    """The same few targets asked again and again (a procedure's to-hit numbers, made
    once per question) take the kept table's path; the draws are the same."""
    rng = random.Random(6)
    targets = [Target.of(at, "to hit").plus(plus, "moved") for at in (2, 3, 4, 5, 6)
               for plus in (-1, 0, 2)]
    a, b = SampleDice(random.Random(12)), SampleDice(random.Random(12))
    for _ in range(3000):
        target = rng.choice(targets)
        n = rng.choice((0, 1, 5, 12, 30))
        reroll: Literal["none", "misses"] = rng.choice(("none", "misses"))
        assert a.pool(n, target, rule="t", what="hits", reroll=reroll) == b.pool(
            n, target.final, rule="t", what="hits", reroll=reroll)
    assert a.rng.getstate() == b.rng.getstate()


def _hit(at: int) -> Chain:
    def chain(d: Dice) -> str:
        if d.test(at, rule="t.save", what="save"):
            return "unharmed"
        return "destroyed" if d.test(4, rule="t.fp", what="firepower") else "bailed_out"

    return fixed(chain, ("test.hit", at))


def test_a_tally_draws_its_groups_in_turn_as_each_would() -> None:
    chains = [_hit(at) for at in (2, 3, 4, 5, 6)]
    rng = random.Random(3)
    a, b = SampleDice(random.Random(8)), SampleDice(random.Random(8))
    for _ in range(500):
        groups = [(rng.randint(0, 4), rng.choice(chains), "", ())
                  for _ in range(rng.randint(1, 6))]
        got = a.tally(groups, LABELS, rule="t")
        want = dict.fromkeys(LABELS, 0)
        for n, chain, _, _ in groups:
            for label, k in b.each(n, chain, LABELS, rule="t", what="hit").items():
                want[label] += k
        assert got == want
    assert a.rng.getstate() == b.rng.getstate()
