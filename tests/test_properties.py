"""Property tests of the core on the demo system."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

import warroom
from tests.helpers import close_enough
from warroom.engine import drivers
from warroom.engine.params import validate

pools = st.fixed_dictionaries({
    "dice": st.integers(min_value=0, max_value=30),
    "at": st.integers(min_value=1, max_value=7),
    "reroll": st.sampled_from(["none", "misses", "hits"]),
})


@given(pools)
def test_distribution_sums_to_one(params: dict[str, object]) -> None:
    d = warroom.odds("demo.pool", **params)
    assert d.total() == 1


@given(pools, st.integers(min_value=0, max_value=2**40))
def test_entered_dice_replay_seeded_roll(params: dict[str, object], seed: int) -> None:
    rolled = warroom.roll("demo.pool", params, seed=seed)
    if not rolled.dice:
        return
    replay = warroom.roll("demo.pool", params, entered=list(rolled.dice))
    assert replay.outcome == rolled.outcome
    assert replay.steps == rolled.steps


@given(pools, st.integers(min_value=0, max_value=1000))
def test_monte_carlo_agrees(params: dict[str, object], seed: int) -> None:
    d = warroom.odds("demo.pool", **params)
    n = 4000
    est = warroom.simulate("demo.pool", params, samples=n, seed=seed)
    for (k,), w in d.weights.items():
        assert close_enough(est.p(successes=k), w / d.denominator, n)


def test_monte_carlo_is_repeatable() -> None:
    proc = warroom.api.registry().procedure("demo.pool")
    p = validate(proc, {"dice": 10})
    assert drivers.simulate(proc, p, 500, seed=5).counts == drivers.simulate(
        proc, p, 500, seed=5).counts
