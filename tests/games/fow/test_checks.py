"""fow.test, fow.morale, fow.unpin, fow.remount, fow.unbog, fow.bogging: exact odds by hand."""

from __future__ import annotations

from fractions import Fraction as F

import pytest
from tests.games.fow.helpers_fow import prob

import warroom
from warroom.errors import UsageError


@pytest.mark.parametrize(("kind", "rating", "expected"), [
    ("skill", "conscript", F(1, 3)),     # 5+: faces 5, 6
    ("skill", "trained", F(1, 2)),       # 4+
    ("skill", "veteran", F(2, 3)),       # 3+
    ("motivation", "reluctant", F(1, 3)),
    ("motivation", "confident", F(1, 2)),
    ("motivation", "fearless", F(2, 3)),
    ("firepower", "6", F(1, 6)),
    ("firepower", "5+", F(1, 3)),        # "5+" is read as 5
    ("firepower", "1", F(1)),            # firepower 1+ always passes
])
def test_ratings(kind: str, rating: str, expected: F) -> None:
    assert prob("fow.test", {"passed": True}, kind=kind, rating=rating) == expected


def test_reroll_once() -> None:
    # fearless 3+ with a re-roll: 2/3 + 1/3 * 2/3 = 8/9
    assert prob("fow.test", {"passed": True}, kind="motivation", rating="fearless",
                reroll=True) == F(8, 9)


@pytest.mark.parametrize(("kind", "rating"), [("skill", "fearless"), ("motivation", "4"),
                                              ("firepower", "7"), ("firepower", "trained")])
def test_rating_must_fit_the_kind(kind: str, rating: str) -> None:
    with pytest.raises(UsageError, match="rating"):
        warroom.odds("fow.test", kind=kind, rating=rating)


def test_platoon_morale_only_below_half_after_losses() -> None:
    # 2 of 6 left and a loss this phase: confident test 4+ -> holds 1/2
    assert prob("fow.morale", {"tested": True, "passed": True}, start=6, left=2) == F(1, 2)
    # 3 of 6 is exactly half, not below: no test, always holds
    assert prob("fow.morale", {"tested": False, "passed": True}, start=6, left=3) == 1
    # no loss this phase: no test
    assert prob("fow.morale", {"tested": False}, start=6, left=1,
                lost_this_phase=False) == 1


def test_company_morale_when_more_than_half_lost() -> None:
    # 5 platoons, 2 left: 3 lost is more than half -> reluctant 5+ holds 1/3
    assert prob("fow.morale", {"passed": True}, kind="company", start=5, left=2,
                motivation="reluctant") == F(1, 3)
    # 4 platoons, 2 left: exactly half lost -> no test
    assert prob("fow.morale", {"tested": False}, kind="company", start=4, left=2) == 1


def test_morale_left_cannot_exceed_start() -> None:
    with pytest.raises(UsageError, match="left"):
        warroom.odds("fow.morale", start=3, left=4)


def test_unpin_and_remount() -> None:
    # confident 4+, company command re-roll: 1/2 + 1/2 * 1/2 = 3/4
    assert prob("fow.unpin", {"unpinned": True}, reroll=True) == F(3, 4)
    # fearless 3+: 2/3
    assert prob("fow.remount", {"remounted": True}, motivation="fearless") == F(2, 3)


def test_bogging() -> None:
    # difficult: bogs only on a 1
    assert prob("fow.bogging", {"bogged": True}) == F(1, 6)
    # very difficult: a skill test, veteran 3+ fails on 1-2
    assert prob("fow.bogging", {"bogged": True}, terrain="very_difficult",
                skill="veteran") == F(1, 3)


def test_unbog_unreliable() -> None:
    # conscript 5+: freed on 5-6 (1/3); Unreliable: a 1 breaks down (1/6)
    assert prob("fow.unbog", {"freed": True}, skill="conscript") == F(1, 3)
    assert prob("fow.unbog", {"freed": True, "broken_down": False}, skill="conscript",
                rules="unreliable") == F(1, 3)
    assert prob("fow.unbog", {"broken_down": True}, skill="conscript",
                rules="unreliable") == F(1, 6)
    # with a re-roll: first die 2-4 (1/2) is re-rolled; a 1 on either die breaks down:
    # 1/6 + 1/2 * 1/6 = 1/4
    assert prob("fow.unbog", {"broken_down": True}, skill="conscript", rules="unreliable",
                reroll=True) == F(1, 4)
