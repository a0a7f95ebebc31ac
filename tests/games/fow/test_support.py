"""fow.artillery, fow.air, fow.assault, fow.passengers: exact odds worked out by hand."""

from __future__ import annotations

from fractions import Fraction as F

import pytest
from tests.games.fow.helpers_fow import marginal, prob

import warroom
from warroom.errors import UsageError

# ------------------------------------------------------------------------- artillery
REPEAT = {"repeat": True, "teams": 1, "battery_skill": "trained"}


def test_one_gun_against_six_guns() -> None:
    # trained battery 4+. One gun: +1 (5+) and hits re-rolled: (1/3)^2 = 1/9.
    assert prob("fow.artillery", {"hits": 1}, guns=1, **REPEAT) == F(1, 9)
    # two guns: 4+ and hits re-rolled: 1/4; three guns: 1/2
    assert prob("fow.artillery", {"hits": 1}, guns=2, **REPEAT) == F(1, 4)
    assert prob("fow.artillery", {"hits": 1}, guns=3, **REPEAT) == F(1, 2)
    # six guns: misses re-rolled: 1 - (1/2)^2 = 3/4
    assert prob("fow.artillery", {"hits": 1}, guns=6, **REPEAT) == F(3, 4)


def test_ranging_in_attempts() -> None:
    # conscript target 2+ (5/6) each attempt: 5/6, 1/6*5/6, (1/6)^2*5/6, (1/6)^3
    assert marginal("fow.artillery", "ranged_in", target_skill="conscript", teams=0) == {
        1: F(5, 6), 2: F(5, 36), 3: F(5, 216), 0: F(1, 216)}
    # trained 3+, concealed, gone to ground and HQ observing: 6+ each time
    assert prob("fow.artillery", {"ranged_in": 1}, concealed=True, gone_to_ground=True,
                observer_hq=True, teams=0) == F(1, 6)
    # mortars re-roll the first failure: veteran 4+ -> 3/4 on the first attempt
    assert prob("fow.artillery", {"ranged_in": 1}, target_skill="veteran", mortar=True,
                teams=0) == F(3, 4)


def test_later_attempts_are_harder_except_rockets() -> None:
    # ranged in on the 2nd attempt (conscript: 1/6 * 5/6), trained battery 4+ becomes
    # 5+: 5/36 * 1/3 = 5/108; rockets keep 4+: 5/36 * 1/2 = 5/72
    raw = {"target_skill": "conscript", "teams": 1}
    assert prob("fow.artillery", {"ranged_in": 2, "hits": 1}, **raw) == F(5, 108)
    assert prob("fow.artillery", {"ranged_in": 2, "hits": 1}, rocket=True, **raw) == F(5, 72)
    # third attempt: 6+ (1/6): 5/216 * 1/6
    assert prob("fow.artillery", {"ranged_in": 3, "hits": 1}, **raw) == F(5, 1296)


def test_tanks_use_top_armour() -> None:
    # top armour 1 against AT 3: a 1 is below (firepower 3+: 2/3 destroyed, else bailed),
    # a 2 equal (firepower passed: bailed), 3-6 no effect. Hit 1/2.
    raw = {**REPEAT, "guns": 3, "target": "tank", "armour": 1, "at": 3, "firepower": 3}
    assert prob("fow.artillery", {"destroyed": 1}, **raw) == F(1, 2) * F(1, 6) * F(2, 3)
    # bailed: 1/2 * (1/6 * 1/3 + 1/6 * 2/3) = 1/12
    assert prob("fow.artillery", {"bailed_out": 1}, **raw) == F(1, 12)


def test_any_hit_pins_and_dug_in() -> None:
    # three teams, six guns (3/4 each): pinned unless all miss: 1 - (1/4)^3
    assert prob("fow.artillery", {"pinned": True}, repeat=True, teams=3,
                guns=6) == 1 - F(1, 4) ** 3
    # dug-in infantry, firepower 4+: 1/2 * 1/3 * 1/2 = 1/12
    assert prob("fow.artillery", {"destroyed": 1}, guns=3, dug_in=True, **REPEAT) == F(1, 12)


# ------------------------------------------------------------------------------- air
AIR = {"support": "sporadic", "teams": 0}


def test_air_support_dice() -> None:
    # 3 dice, ground attack aircraft on 5+: 1 - (2/3)^3 = 19/27
    assert prob("fow.air", {"arrived": True}, **AIR) == F(19, 27)
    # interceptors come on a 6: 1 - (5/6)^3 = 91/216
    assert prob("fow.air", {"arrived": True}, aircraft_type="interceptors",
                **AIR) == F(91, 216)
    # two earlier calls leave one die: 1/3; three leave none
    assert prob("fow.air", {"arrived": True}, calls=2, **AIR) == F(1, 3)
    assert prob("fow.air", {"arrived": True}, calls=3, **AIR) == 0


def test_number_of_aircraft_and_anti_aircraft() -> None:
    # one die: 1-2 one aircraft, 3-5 two, 6 three
    arrived = F(19, 27)
    dist = marginal("fow.air", "aircraft", **AIR)
    assert dist == {0: 1 - arrived, 1: arrived / 3, 2: arrived / 2, 3: arrived / 6}
    # one anti-aircraft die: trained skill 4+ then firepower 4+: downs one aircraft 1/4.
    # Left with none only if one aircraft came and was downed: 19/27 * 1/3 * 1/4
    assert prob("fow.air", {"arrived": True, "aircraft": 0}, aa_dice=1, aa_firepower=4,
                **AIR) == arrived / 3 / 4


def test_air_attack_to_hit() -> None:
    # one team, two aircraft (normal roll), approach on the 1st attempt (conscript 2+),
    # bombs 4+: 19/27 * 1/2 * 5/6 * 1/2
    raw = {"support": "sporadic", "teams": 1, "target_skill": "conscript"}
    assert prob("fow.air", {"aircraft": 2, "approached": 1, "hits": 1},
                **raw) == F(19, 27) * F(1, 2) * F(5, 6) * F(1, 2)
    # one aircraft re-rolls hits: (1/2)^2
    assert prob("fow.air", {"aircraft": 1, "approached": 1, "hits": 1},
                **raw) == F(19, 27) * F(1, 3) * F(5, 6) * F(1, 4)
    # own teams within 40 cm: never approaches
    assert prob("fow.air", {"approached": 0}, friendly_within_40=True, **raw) == 1


# --------------------------------------------------------------------------- assault
DUEL = {"attackers": 1, "defenders": 1}


def test_assault_one_round() -> None:
    # trained attacker hits on a skill test 4+ (1/2): the defender is destroyed and the
    # attacker takes the ground. Otherwise the defender was not hit and counterattacks
    # without a test, but one round is all we resolve: undecided.
    assert marginal("fow.assault", "winner", max_rounds=1, **DUEL) == {
        "attacker": F(1, 2), "undecided": F(1, 2)}


def test_assault_counterattack_round() -> None:
    # round 2: the defender hits 1/2 of the remaining half: 1/4 defender, 1/4 undecided
    assert marginal("fow.assault", "winner", max_rounds=2, **DUEL) == {
        "attacker": F(1, 2), "defender": F(1, 4), "undecided": F(1, 4)}


def test_defensive_fire() -> None:
    # one defensive die at trained attackers (3+, 2/3), infantry save 3+ fails 1/3: the
    # only attacker is lost and the assault falls back with 2/9. Otherwise (7/9) it
    # hits on 4+ (1/2) and wins.
    raw = {**DUEL, "defensive_dice": 1, "max_rounds": 1}
    assert prob("fow.assault", {"repelled": True, "winner": "defender"}, **raw) == F(2, 9)
    assert prob("fow.assault", {"winner": "attacker"}, **raw) == F(7, 18)


def test_counterattack_test_and_british_bulldog() -> None:
    # one attacker against two defenders: a hit (1/2) destroys one; the defender was hit
    # and must pass motivation 4+ to counterattack: it breaks off 1/2 -> attacker 1/4.
    raw = {"attackers": 1, "defenders": 2, "max_rounds": 1}
    assert prob("fow.assault", {"winner": "attacker"}, **raw) == F(1, 4)
    # British Bulldog re-rolls the failed test: breaks off 1/4 -> 1/8
    assert prob("fow.assault", {"winner": "attacker"}, target_rules="british_bulldog",
                **raw) == F(1, 8)


def test_infantry_against_tanks() -> None:
    # infantry must pass motivation (4+) to fight tanks, or break off: defender 1/2.
    # Then a hit (1/2) on top armour 1 against AT 2, firepower 1+: a 1 is equal (bailed
    # out, out of the fight), 2-6 no effect: attacker wins 1/2 * 1/2 * 1/6 = 1/24.
    raw = {**DUEL, "defender_type": "tank", "defender_top_armour": 1, "max_rounds": 1}
    assert prob("fow.assault", {"winner": "defender"}, **raw) == F(1, 2)
    assert prob("fow.assault", {"winner": "attacker", "defender_losses": 1},
                **raw) == F(1, 24)


# ------------------------------------------------------------------------ passengers
def test_armoured_transport_destroyed() -> None:
    # 2 hits destroyed it: one passenger team saves 5+ twice, lost 1 - (1/3)^2 = 8/9;
    # the platoon is pinned either way, a survivor (1/9) dismounts (issue 32: nobody
    # dismounts when every passenger died); motivation 4+ fails 1/2: to the rear
    raw = {"transport": "armoured", "passengers": 1, "hits": 2}
    assert prob("fow.passengers", {"passengers_destroyed": 1}, **raw) == F(8, 9)
    assert prob("fow.passengers", {"pinned": True}, **raw) == 1
    assert prob("fow.passengers", {"dismounted": True, "pinned": True}, **raw) == F(1, 9)
    assert prob("fow.passengers", {"sent_to_rear": True}, **raw) == F(1, 2)


def test_armoured_transport_bailed_out() -> None:
    # no passenger saves; they dismount only if the motivation test fails (1/2)
    raw = {"transport": "armoured", "passengers": 2, "vehicle_result": "bailed_out"}
    assert prob("fow.passengers", {"passengers_destroyed": 0}, **raw) == 1
    assert prob("fow.passengers", {"dismounted": True}, **raw) == F(1, 2)


def test_unarmoured_transport_and_riders() -> None:
    # one hit: the vehicle fails its 5+ save 2/3; the passenger saves 5+ either way
    raw = {"transport": "unarmoured", "passengers": 1, "hits": 1}
    assert prob("fow.passengers", {"transport_destroyed": True, "passengers_destroyed": 1},
                **raw) == F(2, 3) * F(2, 3)
    # two riders on a tank hit once: each lost with 2/3: Bin(2, 2/3)
    assert marginal("fow.passengers", "passengers_destroyed", transport="tank",
                    passengers=2, hits=1) == {0: F(1, 9), 1: F(4, 9), 2: F(4, 9)}


# ------------------------------------------------- special rules inside these procedures
def test_rounds_on_the_ground() -> None:
    # three guns normally roll once (1/2); with the rule misses are re-rolled: 3/4
    assert prob("fow.artillery", {"hits": 1}, guns=3, rules="rounds_on_the_ground",
                **REPEAT) == F(3, 4)


def test_unarmed_rerolls_hits_in_assault() -> None:
    # a hit (4+) must be rolled again: 1/2 * 1/2 = 1/4 to win in one round
    assert prob("fow.assault", {"winner": "attacker"}, max_rounds=1, rules="unarmed",
                **DUEL) == F(1, 4)


def test_improvised_tank_assault() -> None:
    # infantry against a tank: motivation 4+ to fight (else the defender holds, 1/2);
    # then a 1 on the to-hit die destroys the only attacker (1/6): 1/2 + 1/2 * 1/6
    raw = {**DUEL, "defender_type": "tank", "defender_top_armour": 1, "max_rounds": 1}
    assert prob("fow.assault", {"winner": "defender"}, rules="improvised_tank_assault",
                **raw) == F(7, 12)
    # a hit (4+: 1/2) bails the tank on a 1 (1/6): the same 1/24 as without the rule
    assert prob("fow.assault", {"winner": "attacker", "defender_losses": 1},
                rules="improvised_tank_assault", **raw) == F(1, 24)


def test_tank_rider_companies() -> None:
    # riders save on 3+ (lost 1/3) and stay aboard
    raw = {"transport": "tank", "passengers": 1, "hits": 1, "rules": "tank_rider_companies"}
    assert prob("fow.passengers", {"passengers_destroyed": 1}, **raw) == F(1, 3)
    assert prob("fow.passengers", {"dismounted": False, "pinned": False}, **raw) == 1


# ------------------------------------------ issue 20: Time on Target, room, shot at transport
def test_time_on_target_reaches_the_passengers() -> None:
    # US article: every team hit by a TOT bombardment, and its passengers, re-roll
    # successful saves. A rider saves 5+ (1/3) and must roll it again: 1/9 survives.
    raw = {"transport": "tank", "passengers": 1, "hits": 1}
    assert prob("fow.passengers", {"passengers_destroyed": 0}, **raw) == F(1, 3)
    assert prob("fow.passengers", {"passengers_destroyed": 0}, time_on_target=True,
                **raw) == F(1, 9)
    # the bombardment itself, on an armoured transport: fow.artillery re-rolls the
    # vehicle's successful saves (Time on Target on the first attempt), and the
    # passengers of the one it destroys re-roll theirs here


def test_passengers_with_no_room_to_dismount_are_destroyed() -> None:
    # article on the effects of hits: survivors that find no room to dismount under fire
    # are destroyed. Armoured transport destroyed by 1 hit, 3 passengers, room for 1:
    # each saves 5+ (1/3); survivors S ~ Bin(3, 1/3), all but one of them lost too:
    # 3 lost when S = 0 ((2/3)^3 = 8/27), else 2 lost (19/27)
    assert marginal("fow.passengers", "passengers_destroyed", transport="armoured",
                    passengers=3, hits=1, room=1) == {2: F(19, 27), 3: F(8, 27)}
    # they do not dismount (the vehicle bailed out, motivation passed): nobody is lost
    assert prob("fow.passengers", {"passengers_destroyed": 0, "dismounted": False},
                transport="armoured", passengers=3, vehicle_result="bailed_out",
                room=0) == F(1, 2)


def test_a_shot_at_a_transport_and_its_passengers_in_one_answer() -> None:
    # fow.shoot passengers=1: one die at a trained unarmoured transport (3+: 2/3) with
    # one passenger team. A hit: the vehicle saves 5+ (1/3), the passenger saves 5+
    # (1/3) either way. Fields: hits, destroyed, bailed_out, pinned,
    # passengers_destroyed, dismounted, sent_to_rear.
    # destroyed vehicle and passenger: 2/3 * 2/3 * 2/3 = 8/27; vehicle only: 4/27;
    # passenger only: 2/3 * 1/3 * 2/3 = 4/27; neither: 2/27; no hit: 1/3. A destroyed
    # transport pins the platoon; only a surviving passenger dismounts (issue 32)
    o = {tuple(k.values()): v for k, v in warroom.odds(
        "fow.shoot", dice=1, target="soft", passengers=1).items()}
    assert o == {(1, 1, 0, True, 1, False, False): F(8, 27),
                 (1, 1, 0, True, 0, True, False): F(4, 27),
                 (1, 0, 0, False, 1, False, False): F(4, 27),
                 (1, 0, 0, False, 0, False, False): F(2, 27),
                 (0, 0, 0, False, 0, False, False): F(1, 3)}
    # armoured transport, armour 1 against AT 2 and firepower 1+: a hit (2/3) bails it
    # out on a save of 1 (equal to AT, firepower passes) 1/6, else no effect. Bailed
    # out: the platoon tests motivation (confident 1/2); failed, the passengers
    # dismount, pinned, transports to the rear: 2/3 * 1/6 * 1/2 = 1/18
    assert prob("fow.shoot", {"bailed_out": 1, "sent_to_rear": True, "dismounted": True},
                dice=1, target="tank", armour=1, at=2, firepower=1, passengers=2) == F(1, 18)
    # a reluctant transport platoon passes on 5+ (1/3) and re-rolls a failure:
    # fails (2/3)^2 = 4/9, so 2/3 * 1/6 * 4/9 = 4/81
    assert prob("fow.shoot", {"bailed_out": 1, "sent_to_rear": True},
                dice=1, target="tank", armour=1, at=2, firepower=1, passengers=2,
                transport_motivation="reluctant", transport_reroll=True) == F(4, 81)
    # destroyed by one hit (armour 0 against AT 9 firepower 1+: a die of 1-6 is below
    # AT, firepower always passes): each passenger saves 5+ once, the motivation test
    # follows. P(both lost) = 2/3 (hit) * (2/3)^2 = 8/27
    assert prob("fow.shoot", {"destroyed": 1, "passengers_destroyed": 2},
                dice=1, target="tank", armour=0, at=9, firepower=1, passengers=2) == F(8, 27)
    # riders on that tank: no vehicle result matters, each rider saves 5+ per hit on
    # the tank and survivors dismount: both lost 2/3 * (2/3)^2 = 8/27, as in
    # fow.passengers, and then nobody is left to dismount (issue 32); the riders'
    # platoon is pinned all the same
    assert prob("fow.shoot", {"passengers_destroyed": 2, "dismounted": False, "pinned": True},
                dice=1, target="tank", armour=0, at=9, firepower=1, passengers=2,
                riders=True) == F(8, 27)


def test_the_shot_at_a_transport_leaves_no_room_to_dismount() -> None:
    # fow.shoot passengers=3 room=1 at an armoured transport certainly destroyed by its
    # one hit (dice=1 at a conscript target: 2+ hits 5/6; armour 0 against AT 9,
    # firepower 1+). Each passenger saves 5+ (1/3); survivors S ~ Bin(3, 1/3) must
    # dismount, room for 1: 3 lost when S = 0 ((2/3)^3 = 8/27), else 2 (19/27).
    # With the miss (1/6) nobody is lost: {0: 1/6, 2: 5/6 * 19/27, 3: 5/6 * 8/27}
    assert marginal("fow.shoot", "passengers_destroyed", dice=1, target="tank",
                    target_skill="conscript", armour=0, at=9, firepower=1, passengers=3,
                    room=1) == {0: F(1, 6), 2: F(95, 162), 3: F(40, 162)}


def test_the_shot_at_a_transport_is_asked_right() -> None:
    # passengers ride in one vehicle: tank or soft, teams=1; the passenger parameters
    # need passengers
    for raw in ({"target": "infantry", "passengers": 1}, {"teams": 2, "passengers": 1,
                                                          "target": "tank"},
                {"room": 2}, {"riders": True}, {"transport_reroll": True},
                {"target": "soft", "passengers": 1, "riders": True}):
        with pytest.raises(UsageError):
            warroom.odds("fow.shoot", **raw)
    # FoW article on shooting: gone to ground needs a team that neither moved nor shot,
    # so a target that moved at the double cannot have gone to ground
    with pytest.raises(UsageError, match="at the double has not gone to ground"):
        warroom.odds("fow.shoot", target_at_double=True, gone_to_ground=True)
    # without passengers the passenger fields are certainly 0
    plain = warroom.odds("fow.shoot", dice=2)
    assert prob("fow.shoot", {"passengers_destroyed": 0, "dismounted": False,
                              "sent_to_rear": False}, dice=2) == 1
    assert plain.total() == 1


# ----------------------------------------- issue 20: artillery on a mixed platoon
def test_artillery_on_a_mixed_platoon_each_team_by_its_own_kind() -> None:
    # FoW reference card, artillery: one die per team under the template, saves as
    # usual, vehicles on top armour. A repeat (no ranging in, attempt 1), trained battery
    # 4+ (1/2), AT 2 firepower 4+ (the defaults), a tank with top armour 1 and one
    # infantry team. Tank: save die + 1 against AT 2: a 1 equals it (1/6), then
    # firepower 4+ (1/2) bails it out: 1/2 * 1/6 * 1/2 = 1/24. Infantry: hit (1/2), save
    # 3+ fails (1/3): destroyed 1/6.
    raw = {"teams": "tank:1,infantry", "repeat": True}
    assert marginal("fow.artillery_mixed", "bailed_out", **raw) == {0: F(23, 24),
                                                                     1: F(1, 24)}
    assert marginal("fow.artillery_mixed", "destroyed", **raw) == {0: F(5, 6), 1: F(1, 6)}
    # no team hit: (1/2)^2; any hit pins
    assert prob("fow.artillery_mixed", {"hits": 0, "pinned": False}, **raw) == F(1, 4)
    # the same as fow.artillery where they overlap: three infantry teams dug in
    for teams, single in (("infantry:dug,infantry:dug,infantry:dug",
                           {"teams": 3, "dug_in": True}),
                          ("tank:1,tank:1", {"teams": 2, "target": "tank", "armour": 1})):
        a = warroom.odds("fow.artillery_mixed", teams=teams, rules="time_on_target")
        b = warroom.odds("fow.artillery", rules="time_on_target", **single)
        assert dict(a.marginal("destroyed")) == dict(b.marginal("destroyed"))
        assert dict(a.marginal("bailed_out")) == dict(b.marginal("bailed_out"))
    with pytest.raises(UsageError):
        warroom.odds("fow.artillery_mixed", teams="tank:2/1")
    with pytest.raises(UsageError):
        warroom.odds("fow.artillery_mixed", teams="infantry:far")


def test_summaries_hide_the_passenger_fields_only_without_passengers(
        capsys: pytest.CaptureFixture[str]) -> None:
    # declared shown_if="passengers": certainly 0 without passengers, so the CLI's odds
    # table and a roll's outcome leave them out; the JSON answer keeps every field
    import json

    from warroom.cli import main

    def out(*args: str) -> str:
        assert main(list(args)) == 0
        return capsys.readouterr().out

    plain = out("odds", "fow.shoot", "dice=2")
    assert "hits" in plain and "passengers_destroyed" not in plain
    assert "dismounted" not in out("roll", "fow.shoot", "dice=2", "--seed", "1")
    assert "passengers_destroyed" in out("odds", "fow.shoot", "dice=1", "target=soft",
                                         "passengers=1")
    data = json.loads(out("odds", "fow.shoot", "dice=1", "--json", "--exact"))
    assert all(o["outcome"]["sent_to_rear"] is False for o in data["outcomes"])
