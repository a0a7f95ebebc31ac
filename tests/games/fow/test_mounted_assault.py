"""fow.assault attacker_passengers=N: Mounted Assault carriers with passengers (FoW article
on German special rules, Mounted Assault), exact fractions worked by hand."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

import warroom
from warroom.errors import UsageError

CARRIERS = {"attackers": 2, "attacker_type": "tank", "attacker_armour": 1,
            "attacker_passengers": 2, "defensive_dice": 1, "defensive_at": 3,
            "defensive_firepower": 3, "max_rounds": 1}


def test_a_carrier_destroyed_by_defensive_fire_loses_passengers_as_a_transport() -> None:
    # One defensive-fire die at two trained carriers hits on 3+ (2/3). The carrier's
    # side armour 1 + d6 against AT 3: a 1 is below (1/6), and the firepower test 3+
    # (2/3) destroys it: 2/3 * 1/6 * 2/3 = 2/27. Its two passenger teams each save 5+
    # once (one hit destroyed it): both lost (2/3)^2 = 4/9, one 2 * 2/3 * 1/3 = 4/9.
    # The other carrier fights on (one lost, one hit: no falling back), and in one
    # round only the attacker strikes, so nobody else is lost.
    d = warroom.odds("fow.assault", CARRIERS)
    assert d.marginal("passengers_destroyed") == {0: F(227, 243), 1: F(8, 243),
                                                  2: F(8, 243)}
    # the platoon does not fall back for the passengers dismounting: falling back
    # needs 5 hits or two carriers lost, so one die never repels it
    assert d.marginal("repelled") == {False: F(1)}


def test_a_carrier_destroyed_in_close_combat_loses_every_passenger() -> None:
    # One trained carrier (top armour 0, one passenger team) against one infantry team,
    # two rounds. Round 1: the carrier hits on 4+ (1/2) and wins; missing (1/2), the
    # defender must pass a motivation test (4+, 1/2) to counterattack a tank. Round 2:
    # it hits on 4+ (1/2) with AT 2, firepower 1+; top armour 0 + d6 below 2 is a 1
    # (1/6), and firepower 1+ always passes: destroyed, and its passenger with it.
    # 1/2 * 1/2 * 1/2 * 1/6 = 1/48
    d = warroom.odds("fow.assault", attackers=1, attacker_type="tank",
                     attacker_top_armour=0, attacker_passengers=1, defenders=1,
                     max_rounds=2)
    assert d.marginal("passengers_destroyed") == {0: F(47, 48), 1: F(1, 48)}


def test_carriers_with_passengers_are_open_topped() -> None:
    # five defensive-fire hits drive open-topped carriers back (the article: they are
    # open-topped tanks); five dice at 3+ all hit: (2/3)^5 = 32/243, against armour 15
    # that nothing harms
    raw = {"attackers": 3, "attacker_type": "tank", "attacker_armour": 15,
           "defensive_dice": 5, "max_rounds": 1}
    assert warroom.odds("fow.assault", raw).probability(repelled=True) == 0
    assert warroom.odds("fow.assault", raw | {"attacker_passengers": 1}).probability(
        repelled=True) == F(32, 243)


def test_roll_entered_dice_monte_carlo_and_refusal() -> None:
    # entered: defensive fire 3 (hit), the carrier's armour 1 (below AT 3), firepower 6
    # (destroyed), its passengers' saves 1 and 5 (one lost), then the other carrier
    # strikes 1 (miss) and the defender's counterattack test 6
    res = warroom.roll("fow.assault", CARRIERS, dice=[3, 1, 6, 1, 5, 1, 6])
    assert res.outcome["passengers_destroyed"] == 1
    assert res.outcome["attacker_losses"] == 1
    seeded = warroom.roll("fow.assault", CARRIERS, seed=4)
    assert seeded.outcome == warroom.roll("fow.assault", CARRIERS, seed=4).outcome
    est = warroom.simulate("fow.assault", CARRIERS, samples=20_000, seed=1)
    low, high = est.interval(passengers_destroyed=0)
    assert low <= 227 / 243 <= high
    with pytest.raises(UsageError, match="Mounted Assault"):
        warroom.odds("fow.assault", attacker_passengers=1)
