"""fow.assault defensive_weapons= and attacker_teams=: several defensive-fire weapons,
each with its own anti-tank and firepower, allocated over the charging teams by
fow.shoot_mixed's own stages (one definition), exact fractions worked by hand."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

import warroom
from warroom.errors import UsageError


def test_one_weapon_line_given_as_weapons_answers_the_same() -> None:
    # two rifles given as two weapon lines are the one line of two dice
    a = warroom.odds("fow.assault", attackers=2, defensive_dice=2, max_rounds=2)
    b = warroom.odds("fow.assault", attackers=2, defensive_weapons="1:2:6,1:2:6",
                     max_rounds=2)
    assert sorted(map(str, a.items())) == sorted(map(str, b.items()))


def test_two_weapons_each_with_its_own_firepower_at_two_tanks() -> None:
    # Two trained tanks (side armour 1) charge; defensive fire is one die of AT 3
    # firepower 3+ and one of AT 3 firepower 6+, each hitting on 3+ (2/3). Both hit:
    # one hit each tank (rule 1; rule 7 deals the firepower 3+ hit first). A hit is
    # below the AT on a 1 (1 + 1 < 3: destroyed or bailed out, out either way, 1/6)
    # and equal on a 2 (bailed out if the firepower test passes): out 1/6 + 1/6 * 2/3
    # = 5/18 for firepower 3+, 1/6 + 1/6 * 1/6 = 7/36 for 6+. Two tanks out drive the
    # assault back: 4/9 * 5/18 * 7/36 = 140/5832 = 35/1458.
    raw = {"attackers": 2, "attacker_type": "tank", "attacker_armour": 1,
           "defensive_weapons": "1:3:3,1:3:6", "max_rounds": 1}
    d = warroom.odds("fow.assault", raw)
    assert d.probability(repelled=True) == F(35, 1458)
    # in one round only the attacker strikes: its losses are defensive fire's, each
    # weapon's hit on a tank of its own, 2/3 * 5/18 + 2/3 * 7/36 = 17/54 expected
    assert d.mean("attacker_losses") == F(17, 54)


def test_mixed_charging_teams_take_the_hits_as_shooting_allocates_them() -> None:
    # a tank and an infantry team charge; one rifle die (hit 2/3) goes to the infantry
    # (allocation: other teams before tanks), which saves on 3+ (lost 1/3): 2/9
    raw = {"attackers": 2, "attacker_type": "tank", "attacker_armour": 1,
           "attacker_teams": "tank:1,infantry", "defensive_weapons": "1:2:6",
           "max_rounds": 1}
    assert warroom.odds("fow.assault", raw).marginal("attacker_losses") == {
        0: F(7, 9), 1: F(2, 9)}


def test_roll_entered_dice_monte_carlo_and_refusals() -> None:
    raw = {"attackers": 2, "attacker_type": "tank", "attacker_armour": 1,
           "defensive_weapons": "1:3:3,1:3:6", "max_rounds": 1}
    # entered: the two to-hit dice (3, 3: both hit), tank 1's armour 1 (below AT 3) and
    # firepower 3 (destroyed), tank 2's armour 1 and firepower 1 (bailed out): both out,
    # the assault falls back
    res = warroom.roll("fow.assault", raw, dice=[3, 3, 1, 3, 1, 1])
    assert res.outcome["repelled"] is True and res.outcome["attacker_losses"] == 2
    assert warroom.roll("fow.assault", raw, seed=6).outcome == warroom.roll(
        "fow.assault", raw, seed=6).outcome
    est = warroom.simulate("fow.assault", raw, samples=20_000, seed=1)
    low, high = est.interval(attacker_losses=0)
    exact = warroom.odds("fow.assault", raw).probability(attacker_losses=0)
    assert low <= float(exact) <= high
    with pytest.raises(UsageError, match="one or the other"):
        warroom.odds("fow.assault", defensive_weapons="1:2:6", defensive_dice=2)
    with pytest.raises(UsageError, match="attackers=3, the number"):
        warroom.odds("fow.assault", attackers=2, defensive_weapons="1:2:6",
                     attacker_teams="infantry,infantry,infantry")
    with pytest.raises(UsageError, match="defensive_weapons as well"):
        warroom.odds("fow.assault", attackers=1, attacker_teams="infantry")
    with pytest.raises(UsageError, match="defensive_weapons as well"):
        warroom.odds("fow.assault", allocation="best")


def test_a_mixed_platoon_is_not_all_armoured_so_five_hits_drive_it_back() -> None:
    # card: a pinned assault falls back unless the whole platoon is armoured vehicles.
    # Five rifle dice at two tanks of armour 15: all five hit (2/3)^5 = 32/243, but
    # tanks are not driven back by pinning and nothing harms them: never repelled.
    # With an infantry team beside one such tank, five hits drive the platoon back.
    raw = {"attackers": 2, "attacker_type": "tank", "attacker_armour": 15,
           "defensive_weapons": "5:2:6", "max_rounds": 1}
    assert warroom.odds("fow.assault", raw | {"attacker_teams": "tank:15,tank:15"}
                        ).probability(repelled=True) == 0
    assert warroom.odds("fow.assault", raw | {"attacker_teams": "tank:15,infantry"}
                        ).probability(repelled=True) == F(32, 243)


def test_the_builder_gives_each_weapon_line_and_a_mixed_charging_platoon() -> None:
    from warroom.games.fow.units import FowPlatoon
    from warroom.units import params_for

    def weapon(name: str, rof: int, at: int, fp: int) -> dict[str, object]:
        return {"name": name, "range_cm": 40, "rof_halted": rof, "rof_moving": 1,
                "at": at, "firepower": fp}

    # defenders: 3 rifle teams (ROF 1, AT 2, FP 6+) and 2 anti-tank guns (ROF 2, AT 11,
    # FP 3+): two weapon lines, 3 and 4 dice
    defenders = FowPlatoon.model_validate({"name": "Defence", "teams": [
        {"type": "infantry", "count": 3, "weapons": [weapon("rifle", 1, 2, 6)]},
        {"type": "gun", "count": 2, "weapons": [weapon("AT gun", 2, 11, 3)]}]})
    # attackers: 2 tanks (side armour 3) and 1 infantry team
    attackers = FowPlatoon.model_validate({"name": "Kampfgruppe", "teams": [
        {"type": "tank", "count": 2, "front": 5, "side": 3, "top": 1,
         "weapons": [weapon("gun", 2, 9, 3)]},
        {"type": "infantry", "count": 1, "weapons": [weapon("rifle", 1, 2, 6)]}]})
    b = params_for("fow.assault", attackers, defenders)
    assert b.params["defensive_weapons"] == "3:2:6,4:11:3"
    assert "defensive_dice" not in b.params
    assert (b.params["attacker_teams"], b.params["attackers"]) == (
        "tank:3,tank:3,infantry", 3)
    assert str(b.sources["defensive_weapons"]) == (
        "Defence: every fighting team's main weapon, each with its own AT and firepower")
    # the odds from the units are the odds of those parameters
    assert list(warroom.odds("fow.assault", **{**b.params, "max_rounds": 1}).items()) == \
        list(warroom.odds("fow.assault", from_unit=attackers, at_unit=defenders,
                          max_rounds=1).items())


def test_the_charging_platoons_owner_may_allocate_defensive_fire_at_best() -> None:
    # the rifle hit of the mixed-platoon case (2/3): our order gives it to the infantry
    # (lost 1/3: 2/9); the owner's best gives it to the tank of armour 1, which a 1 ties
    # (1/6) and the firepower test 6+ (1/6) bails out: 2/3 * 1/36 = 1/54
    raw = {"attackers": 2, "attacker_type": "tank", "attacker_armour": 1,
           "attacker_teams": "tank:1,infantry", "defensive_weapons": "1:2:6",
           "max_rounds": 1, "allocation": "best"}
    assert warroom.odds("fow.assault", raw).marginal("attacker_losses") == {
        0: F(53, 54), 1: F(1, 54)}
