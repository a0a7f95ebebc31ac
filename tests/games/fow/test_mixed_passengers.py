"""fow.shoot_mixed passengers=: transports with passengers inside a mixed platoon (FoW
article on the effects of hits), the same rule as fow.shoot passengers=N and
fow.passengers (one definition), worked by hand."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

import warroom
from warroom.errors import UsageError

FIELDS = ("hits", "destroyed", "bailed_out", "pinned", "passengers_destroyed", "dismounted",
          "sent_to_rear")


@pytest.mark.parametrize(("shoot", "mixed"), [
    ({"dice": 1, "target": "soft", "passengers": 2},
     {"weapons": "1:2:6", "teams": "soft", "passengers": "2"}),
    ({"dice": 1, "target": "tank", "armour": 1, "at": 3, "firepower": 3, "passengers": 2},
     {"weapons": "1:3:3", "teams": "tank:1", "passengers": "2"}),
    ({"dice": 2, "target": "tank", "armour": 1, "at": 3, "firepower": 3, "passengers": 2,
      "riders": True},
     {"weapons": "2:3:3", "teams": "tank:1", "passengers": "r2"}),
])
def test_one_transport_answers_as_fow_shoot(shoot: dict[str, object],
                                            mixed: dict[str, object]) -> None:
    a = warroom.odds("fow.shoot", shoot)
    b = warroom.odds("fow.shoot_mixed", mixed)
    for field in FIELDS:
        assert a.marginal(field) == b.marginal(field), field


def test_one_unarmoured_transport_destroyed_destroys_them_all() -> None:
    # One die (AT 2, firepower 6+) at two unarmoured transports with a passenger team
    # each. It hits on 3+ (2/3) and goes to the first; the vehicle saves on 5+ (fails
    # 2/3), and its passenger team saves on 5+ per hit either way (lost 2/3).
    # FoW article: one unarmoured vehicle destroyed destroys every unarmoured vehicle of
    # the platoon, the passengers of all of them dismount under fire and the platoon is
    # pinned. Destroyed 2 = pinned = 2/3 * 2/3 = 4/9; the second vehicle's passengers
    # were not hit, so someone always dismounts then: dismounted 4/9.
    # One passenger team lost: 2/3 * 2/3 = 4/9 (whatever the vehicle did).
    d = warroom.odds("fow.shoot_mixed", weapons="1:2:6", teams="soft,soft", passengers="1,1")
    assert d.marginal("destroyed") == {0: F(5, 9), 2: F(4, 9)}
    assert d.marginal("pinned") == {False: F(5, 9), True: F(4, 9)}
    assert d.marginal("dismounted") == {False: F(5, 9), True: F(4, 9)}
    assert d.marginal("passengers_destroyed") == {0: F(5, 9), 1: F(4, 9)}
    assert d.marginal("sent_to_rear") == {False: F(1)}


def test_a_bailed_out_armoured_transport_tests_the_whole_platoon_once() -> None:
    # Two armoured transports (armour 1) with two passenger teams each, one shot of AT 3
    # firepower 3+ (hit 2/3, on the first). As worked in test_issue32: destroyed 2/27,
    # bailed out 1/9. Either way the transport platoon tests motivation once (confident:
    # fails 1/2): failed, every passenger of both dismounts and the transports go to the
    # rear: sent to the rear (2/27 + 1/9) * 1/2 = (2 + 3)/54 = 5/54. Pinned: destroyed
    # or the test failed, 2/27 + 1/9 * 1/2 = 7/54. Dismounted: the second transport's
    # passengers always survive, so every failed test dismounts someone (5/54); a
    # destroyed transport whose test passed dismounts its own survivors: each of its two
    # teams saves 5+ once (the one hit destroyed it), both lost 4/9, a survivor 5/9:
    # 2/27 * 1/2 * 5/9 = 5/243. Dismounted 5/54 + 5/243 = (45 + 10)/486 = 55/486.
    d = warroom.odds("fow.shoot_mixed", weapons="1:3:3", teams="tank:1,tank:1",
                     passengers="2,2")
    assert d.probability(sent_to_rear=True) == F(5, 54)
    assert d.probability(pinned=True) == F(7, 54)
    assert d.probability(dismounted=True) == F(55, 486)


def test_passengers_beside_other_teams_roll_simulate_and_refuse() -> None:
    raw = {"weapons": "2:2:6", "teams": "infantry,soft", "passengers": "2"}
    # entered dice: both hit (3, 4), one each; the infantry saves (5), the vehicle
    # saves (6), its two passenger teams save on 5+ for its one hit: 1 and 6
    res = warroom.roll("fow.shoot_mixed", raw, dice=[3, 4, 5, 6, 1, 6])
    assert (res.outcome["destroyed"], res.outcome["passengers_destroyed"],
            res.outcome["dismounted"], res.outcome["pinned"]) == (0, 1, False, False)
    seeded = warroom.roll("fow.shoot_mixed", raw, seed=3)
    assert seeded.outcome == warroom.roll("fow.shoot_mixed", raw, seed=3).outcome
    exact = warroom.odds("fow.shoot_mixed", raw)
    est = warroom.simulate("fow.shoot_mixed", raw, samples=20_000, seed=9)
    low, high = est.interval(pinned=True)
    assert low <= float(exact.probability(pinned=True)) <= high
    # without passengers the new fields are certainly nothing
    plain = warroom.odds("fow.shoot_mixed", weapons="2:2:6", teams="infantry,soft")
    assert plain.marginal("passengers_destroyed") == {0: F(1)}
    with pytest.raises(UsageError, match="one entry per vehicle"):
        warroom.odds("fow.shoot_mixed", weapons="1:2:6", teams="soft,soft", passengers="1")
    with pytest.raises(UsageError, match="riders ride on tanks"):
        warroom.odds("fow.shoot_mixed", weapons="1:2:6", teams="soft", passengers="r1")
    with pytest.raises(UsageError, match="give passengers"):
        warroom.odds("fow.shoot_mixed", weapons="1:2:6", teams="soft", transport_reroll=True)


def test_only_a_destroyed_armoured_transports_survivors_dismount() -> None:
    # Two armoured transports (armour 1, one passenger team each), two shots of AT 3
    # firepower 3+, one on each. Entered, the two alike transports rolling in step: both
    # hit (3, 3); armour saves 1 (transport 1: below) and 6 (transport 2: unharmed);
    # transport 1's firepower test 3 (destroyed), its passenger's save 1 (lost). The
    # platoon tests motivation for the destroyed one: 4 passes. The
    # destroyed transport's only team is lost and the other transport was not destroyed,
    # so nobody dismounts; the platoon is pinned all the same.
    res = warroom.roll("fow.shoot_mixed", weapons="2:3:3", teams="tank:1,tank:1",
                       passengers="1,1", dice=[3, 3, 1, 6, 3, 1, 4])
    assert (res.outcome["destroyed"], res.outcome["passengers_destroyed"],
            res.outcome["dismounted"], res.outcome["pinned"],
            res.outcome["sent_to_rear"]) == (1, 1, False, True, False)
