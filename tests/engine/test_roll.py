"""Seeded rolls, entered dice and their errors."""

from __future__ import annotations

import pytest

import warroom
from warroom.errors import BadDieError, ParameterError, TooFewDiceError, TooManyDiceError


def test_same_seed_same_dice() -> None:
    a = warroom.roll("demo.pool", dice=8, seed=42)
    b = warroom.roll("demo.pool", dice=8, seed=42)
    assert a.dice == b.dice and a.outcome == b.outcome and a.seed == 42


def test_unseeded_roll_records_its_seed() -> None:
    a = warroom.roll("demo.pool", dice=8)
    assert a.seed is not None
    assert warroom.roll("demo.pool", dice=8, seed=a.seed).dice == a.dice


def test_entered_dice_are_used_in_order() -> None:
    res = warroom.roll("demo.pool", {"dice": 3, "at": 4}, entered=[4, 1, 6])
    assert res.outcome == {"successes": 2}
    assert res.seed is None and res.entered
    assert res.steps[0].dice == (4, 1, 6)


def test_entered_dice_with_rerolls() -> None:
    res = warroom.roll("demo.pool", {"dice": 3, "at": 4, "reroll": "misses"},
                       entered=[4, 1, 2, 6, 1])
    assert res.outcome == {"successes": 2}
    assert res.steps[0].rerolled == (6, 1)


def test_list_dice_keyword_means_entered() -> None:
    res = warroom.roll("demo.pool", {"dice": 2}, dice=[6, 6])
    assert res.outcome == {"successes": 2}


def test_too_few_dice_says_how_many_and_for_what() -> None:
    with pytest.raises(TooFewDiceError) as err:
        warroom.roll("demo.pool", {"dice": 5}, entered=[1, 2])
    assert err.value.missing == 3
    assert "3 more" in str(err.value) and "dice" in str(err.value)


def test_too_few_for_the_reroll() -> None:
    with pytest.raises(TooFewDiceError) as err:
        warroom.roll("demo.pool", {"dice": 2, "reroll": "misses"}, entered=[1, 2])
    assert err.value.missing == 2
    assert "re-rolled" in str(err.value)


def test_too_many_dice() -> None:
    with pytest.raises(TooManyDiceError, match="4 entered but the resolution used only 2"):
        warroom.roll("demo.pool", {"dice": 2}, entered=[1, 2, 3, 4])


@pytest.mark.parametrize("bad", [0, 7, "x", -1, 2.5])
def test_bad_die_values(bad: object) -> None:
    with pytest.raises(BadDieError):
        warroom.roll("demo.pool", {"dice": 1}, entered=[bad])


def test_simulate_rejects_bad_sample_counts() -> None:
    with pytest.raises(ParameterError):
        warroom.simulate("demo.pool", samples=0)


def test_steps_explain() -> None:
    res = warroom.roll("demo.pool", {"dice": 2, "at": 5}, entered=[5, 2])
    step = res.to_json()["steps"][0]
    assert step["rule"] == "demo.pool"
    assert step["target"] == 5
    assert step["dice"] == [5, 2]
    assert step["result"] == "successes: 1"
