"""Support weapons in asl.fire_group (issue 32; issue 29's "fire group with an MMG into a
stack"): each SW's FP halved and doubled as its squad's (ASLRB A9.1), one per squad
(A9.11), and breakdown on an original IFT DR at least its B# (A9.7). Every chance below
is worked out by hand from the 36 two-dice rolls."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

import warroom
from tests.helpers import replay_oracle
from warroom.errors import UsageError

GROUP = "4-6-7,4-6-7,MMG 4-10 B11"


def test_two_squads_and_an_mmg_fire_on_the_12_column() -> None:
    # 4 + 4 + 4 = 12 FP: the 12 column; no leader, so doubles (6 of 36) cower one
    # column, to 8. B11 breaks down on an original DR of 11 or 12: 2 + 1 = 3 of 36
    dist = warroom.odds("asl.fire_group", firers=GROUP, target="4-4-7")
    assert dist.marginal("column") == {12: F(30, 36), 8: F(6, 36)}
    assert dist.marginal("sw_broken") == {0: F(33, 36), 1: F(3, 36)}
    # cowering moves the column, not the DR: the 6-6 cowers to 8 and still breaks it
    # down (1 of 36); the 5-6 and 6-5 are on the 12 column (2 of 36)
    assert dist.probability(sw_broken=1, column=8) == F(1, 36)
    assert dist.probability(sw_broken=1, column=12) == F(2, 36)
    assert dist.total() == 1


def test_breakdown_reads_the_original_dr_not_the_final() -> None:
    # in woods (+1 TEM) the final DR of the breaking rolls is 12 or 13, but breakdown
    # reads the original DR: still 3 of 36, where final DR >= 11 would be 6 of 36
    dist = warroom.odds("asl.fire_group", firers=GROUP, target="4-4-7", terrain="woods")
    assert dist.probability(sw_broken=1) == F(3, 36)
    assert dist.probability(sw_broken=1, final_dr=12) == F(2, 36)
    assert dist.probability(sw_broken=1, final_dr=13) == F(1, 36)
    # an 8-1 directing (-1 DRM, no cowering): the 12 column always, still 3 of 36
    led = warroom.odds("asl.fire_group", firers=GROUP + ",8-1", target="4-4-7")
    assert led.marginal("column") == {12: F(1)}
    assert led.probability(sw_broken=1) == F(3, 36)


def test_each_weapon_breaks_on_its_own_number() -> None:
    # an MMG B11 and an LMG B12 with two squads: a 12 (1 of 36) breaks both, an 11
    # (2 of 36) only the MMG. 4 + 4 + 4 + 3 = 15 FP: the 12 column
    dist = warroom.odds("asl.fire_group", firers="4-6-7,4-6-7,MMG 4-10 B11,LMG 3-6 B12",
                        target="4-4-7")
    assert dist.marginal("sw_broken") == {0: F(33, 36), 1: F(2, 36), 2: F(1, 36)}
    # a weapon written without B# never breaks down
    no_b = warroom.odds("asl.fire_group", firers="4-6-7,MMG 4-10", target="4-4-7")
    assert no_b.marginal("sw_broken") == {0: F(1)}


def test_halvings_apply_to_the_weapon_as_to_its_squad() -> None:
    # AFPh (A7.5): 2 + 2 + 2 = 6 FP, the 6 column (doubles cower to 4)
    assert warroom.odds("asl.fire_group", firers=GROUP, target="4-4-7",
                        phase="afph").marginal("column") == {6: F(5, 6), 4: F(1, 6)}
    # assault fire (A7.36) is the squads' alone: 2 -> 2 + 1 = 3 each, the MMG 2: 8 FP
    r = warroom.roll("asl.fire_group", {"firers": "4-6-7:af,4-6-7:af,MMG 4-10 B11",
                                        "target": "4-4-7", "phase": "afph"},
                     entered=[6, 5])
    text = [s.text.render() for s in r.steps]
    assert "MMG 4-10 B11: 4 FP x1/2 AFPh = 2 FP" in text
    assert "the group fires with 8 FP" in text
    assert r.outcome["column"] == 8 and r.outcome["sw_broken"] == 1
    # only the MMG at long range (:lr, A7.22): 4 + 4 + 2 = 10 FP, the 8 column
    r = warroom.roll("asl.fire_group", {"firers": "4-6-7,4-6-7,MMG 4-10 B11:lr",
                                        "target": "4-4-7"}, entered=[4, 6])
    assert "MMG 4-10 B11: 4 FP x1/2 long range = 2 FP" in [s.text.render() for s in r.steps]
    assert r.outcome["column"] == 8 and r.outcome["sw_broken"] == 0
    # point-blank fire doubles all three: 24 FP, the 24 column
    assert warroom.odds("asl.fire_group", firers=GROUP + ",8-1", target="4-4-7",
                        pbf=True).marginal("column") == {24: F(1)}
    # a pinned squad's MMG (:pinned) is halved too: 4 + 4 + 2 = 10 FP, the 8 column
    assert warroom.odds("asl.fire_group", firers="4-6-7,4-6-7,MMG 4-10 B11:pinned,8-1",
                        target="4-4-7").marginal("column") == {8: F(1)}


def test_no_dr_no_breakdown() -> None:
    # 0 FP (a 0-FP squad and a 0-FP weapon): no IFT column, nothing is rolled (A7.2),
    # so nothing breaks down even with B2
    dist = warroom.odds("asl.fire_group", firers="0-6-7:squad,MMG 0-10 B2", target="4-4-7")
    assert dist.marginal("sw_broken") == {0: F(1)}


def test_entered_seeded_and_estimated_agree() -> None:
    # entered dice: 6 and 5 is an original 11, B11: broken down, and the step says so
    r = warroom.roll("asl.fire_group", {"firers": GROUP, "target": "4-4-7",
                                        "terrain": "woods"}, entered=[6, 5])
    assert r.outcome["sw_broken"] == 1 and r.outcome["final_dr"] == 12
    assert ("MMG 4-10 B11: original DR 11 is at least B11: it breaks down (malfunctions)"
            in [s.text.render() for s in r.steps])
    # 5 and 5 is 10 (final 11 in woods): below B11
    r = warroom.roll("asl.fire_group", {"firers": GROUP, "target": "4-4-7",
                                        "terrain": "woods"}, entered=[5, 5])
    assert r.outcome["sw_broken"] == 0
    # every sequence of dice typed in, each weighing 6**-k, gives the exact odds
    params = {"firers": GROUP, "target": "4-4-7"}
    exact = warroom.odds("asl.fire_group", params, exact=True)
    oracle = replay_oracle("asl.fire_group", params)
    assert {tuple(o.values()): w for o, w in exact.items()} == oracle
    # seeded rolls are reproducible; a Monte Carlo estimate lands near 3/36
    assert (warroom.roll("asl.fire_group", params, seed=7).outcome
            == warroom.roll("asl.fire_group", params, seed=7).outcome)
    est = warroom.simulate("asl.fire_group", params, samples=20_000, seed=5)
    low, high = est.interval(sw_broken=1)
    assert low <= 3 / 36 <= high


def test_old_notation_and_bad_input() -> None:
    # without a support weapon: support_weapons 0 and sw_broken always 0; the old odds
    # (test_fire_group_in_one_answer) are unchanged
    dist = warroom.odds("asl.fire_group", firers="4-6-7,4-6-7,8-1", target="4-4-7")
    assert dist.probability(result="2KIA") == F(1, 36)
    assert dist.marginal("sw_broken") == {0: F(1)}
    with pytest.raises(UsageError, match="more support weapons than squads"):
        warroom.odds("asl.fire_group", firers="4-6-7,MMG 4-10 B11,LMG 3-6 B12")
    with pytest.raises(UsageError, match="more support weapons than squads"):
        warroom.odds("asl.fire_group", firers="2-4-7,MMG 4-10 B11")
    with pytest.raises(UsageError, match="not a support weapon's"):
        warroom.odds("asl.fire_group", firers="4-6-7,MMG 4-10 B11:af", phase="afph")
    with pytest.raises(UsageError, match="counted from the firers"):
        warroom.odds("asl.fire_group", firers=GROUP, support_weapons=2)
