"""demo.pool against fractions worked out by hand and against brute force."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

import warroom
from tests.helpers import brute_force


def dist(**params: object) -> dict[int, F]:
    return warroom.odds("demo.pool", **params).marginal("successes")


def test_two_dice_at_4() -> None:
    # each die 1/2: 0 -> 1/4, 1 -> 2 * 1/2 * 1/2, 2 -> 1/4
    assert dist(dice=2, at=4) == {0: F(1, 4), 1: F(1, 2), 2: F(1, 4)}


def test_three_dice_at_5() -> None:
    # p = 1/3: (2/3)^3 = 8/27, 3 (1/3)(2/3)^2 = 12/27, 3 (1/3)^2 (2/3) = 6/27, 1/27
    assert dist(dice=3, at=5) == {0: F(8, 27), 1: F(12, 27), 2: F(6, 27), 3: F(1, 27)}


def test_reroll_misses_one_die() -> None:
    # succeed at once 1/2, or miss (1/2) then succeed (1/2): 3/4
    assert dist(dice=1, at=4, reroll="misses") == {0: F(1, 4), 1: F(3, 4)}


def test_reroll_misses_two_dice_at_5() -> None:
    # per die: 1/3 + 2/3 * 1/3 = 5/9; two dice: (4/9)^2, 2 (5/9)(4/9), (5/9)^2
    assert dist(dice=2, at=5, reroll="misses") == {0: F(16, 81), 1: F(40, 81), 2: F(25, 81)}


def test_reroll_hits_one_die() -> None:
    # a success must succeed twice: (1/2)(1/2) = 1/4
    assert dist(dice=1, at=4, reroll="hits") == {0: F(3, 4), 1: F(1, 4)}


def test_reroll_hits_two_dice_at_3() -> None:
    # per die (2/3)^2 = 4/9: (5/9)^2 = 25/81, 2 (4/9)(5/9) = 40/81, 16/81
    assert dist(dice=2, at=3, reroll="hits") == {0: F(25, 81), 1: F(40, 81), 2: F(16, 81)}


def test_needs_seven_never_succeeds() -> None:
    assert dist(dice=5, at=7) == {0: F(1)}


def test_at_one_always_succeeds() -> None:
    assert dist(dice=4, at=1) == {4: F(1)}


def test_no_dice() -> None:
    assert dist(dice=0) == {0: F(1)}


@pytest.mark.parametrize("n", [1, 2, 3, 4])
@pytest.mark.parametrize("at", [2, 4, 6])
def test_brute_force_plain(n: int, at: int) -> None:
    assert dist(dice=n, at=at) == brute_force(n, lambda fs: sum(f >= at for f in fs))


@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("at", [3, 5])
def test_brute_force_reroll_misses(n: int, at: int) -> None:
    # roll n dice for the first roll and n more to re-roll each of them if needed
    def count(fs: tuple[int, ...]) -> int:
        first, again = fs[:n], fs[n:]
        return sum(1 for a, b in zip(first, again, strict=True) if a >= at or b >= at)

    assert dist(dice=n, at=at, reroll="misses") == brute_force(2 * n, count)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_brute_force_reroll_hits(n: int) -> None:
    def count(fs: tuple[int, ...]) -> int:
        first, again = fs[:n], fs[n:]
        return sum(1 for a, b in zip(first, again, strict=True) if a >= 4 and b >= 4)

    assert dist(dice=n, at=4, reroll="hits") == brute_force(2 * n, count)


def test_large_pool_is_exact() -> None:
    d = warroom.odds("demo.pool", dice=100, at=4)
    assert d.total() == 1
    assert d.probability(successes=100) == F(1, 2**100)
    assert d.mean("successes") == 50
