"""Golden exact odds for the special-rule procedures, each worked out by hand."""

from __future__ import annotations

from fractions import Fraction as F
from typing import Any

import pytest

from warroom.engine import drivers
from warroom.engine.params import validate
from warroom.engine.procedure import Procedure
from warroom.errors import UsageError
from warroom.games.fow.special_rules import german, national, soviet


def odds(proc: Procedure, **raw: Any) -> dict[tuple[Any, ...], F]:
    dist = drivers.exact(proc, validate(proc, raw))
    assert dist.total() == 1
    return {k: F(w, dist.denominator) for k, w in dist.weights.items()}


def prob(proc: Procedure, where: dict[str, Any], **raw: Any) -> F:
    """P(every field in ``where`` has that value)."""
    idx = {f: i for i, f in enumerate(proc.fields)}
    return sum((p for k, p in odds(proc, **raw).items()
                if all(k[idx[f]] == v for f, v in where.items())), F(0))


# --- Stormtroopers ------------------------------------------------------------------

def test_stormtroopers_veteran_passes_on_3() -> None:
    # veteran skill test 3+: faces 3-6 = 4/6
    assert odds(german.stormtroopers, skill="veteran") == {
        (True, True, 10, False): F(2, 3), (True, False, 0, False): F(1, 3)}


def test_stormtroopers_schnell_passes_on_2() -> None:
    # Schnell! makes even conscripts pass on 2+: 5/6
    assert prob(german.stormtroopers, {"passed": True}, skill="conscript",
                rules="schnell") == F(5, 6)


@pytest.mark.parametrize("raw", [{"pinned": True}, {"has_commander": False},
                                 {"at_double": True}, {"bombarded": True},
                                 {"bogged_or_bailed": True}, {"gun_fired_or_immobile": True},
                                 {"eyes_and_ears": True}])
def test_stormtroopers_not_allowed(raw: dict[str, Any]) -> None:
    # no test at all: the platoon keeps its assault
    assert odds(german.stormtroopers, **raw) == {(False, False, 0, True): F(1)}


def test_stormtroopers_pinned_armour_may_move() -> None:
    # pinned armoured vehicles still may: trained 4+ = 1/2
    assert prob(german.stormtroopers, {"passed": True}, pinned=True, armoured=True) == F(1, 2)


def test_stormtroopers_roll_tells_the_story() -> None:
    p = validate(german.stormtroopers, {"skill": "trained"})
    r = drivers.roll(german.stormtroopers, p, dice=[4])
    assert r.outcome == {"allowed": True, "passed": True, "move_cm": 10, "may_assault": False}
    texts = [s.to_dict()["text"] for s in r.steps]
    assert texts[0] == "Stormtrooper skill test: needs 4+"
    assert "cannot assault" in texts[-1]


# --- Tip and Run, Armoured Rocket Launchers -----------------------------------------

def test_tip_and_run() -> None:
    # trained skill test 4+: 1/2; either way no assault
    assert odds(national.tip_and_run) == {(True, True, 10, False): F(1, 2),
                                          (True, False, 0, False): F(1, 2)}
    assert odds(national.tip_and_run, shot=False) == {(False, False, 0, True): F(1)}


def test_armoured_rocket_launchers() -> None:
    # conscript skill test 5+: 2/6
    assert odds(german.armoured_rocket_launchers, skill="conscript") == {
        (True, True): F(1, 3), (True, False): F(2, 3)}
    assert odds(german.armoured_rocket_launchers, fired=False) == {(False, False): F(1)}


# --- Tiger Ace ----------------------------------------------------------------------

def test_tiger_ace_plain_skills() -> None:
    # faces 1-5 give the table's skill outright: 1/6 each
    for skill in german.ACE_SKILLS:
        assert prob(german.tiger_ace, {"top_ace": False, "skill": skill}) == F(1, 6)
    assert prob(german.tiger_ace, {"top_ace": True}) == F(1, 6)


def test_tiger_ace_top_ace_rolled() -> None:
    # 6, then 1 (Schnell!), then 4 (Every Shot Counts!): 1/216, nothing chosen
    assert prob(german.tiger_ace, {"top_ace": True, "skill": "schnell",
                                   "commander_skill": "every_shot_counts",
                                   "chose": False}) == F(1, 216)


def test_tiger_ace_top_ace_choices() -> None:
    # Default preference: every_shot_counts, rapid_fire, ...
    # Platoon gets Every Shot Counts! on a second roll of 4 or 6 (choice): 2/6.
    # Commander then gets Rapid Fire! on a 5, or by choice on a 6 or a repeated 4: 3/6.
    # 1/6 * 2/6 * 3/6 = 6/216 = 1/36; only 4-then-5 involves no choice: 1/216.
    where = {"top_ace": True, "skill": "every_shot_counts", "commander_skill": "rapid_fire"}
    assert prob(german.tiger_ace, where) == F(1, 36)
    assert prob(german.tiger_ace, {**where, "chose": False}) == F(1, 216)
    # Marginal: 1/6 outright + 1/6 * 2/6 through Top Ace = 2/9
    assert prob(german.tiger_ace, {"skill": "every_shot_counts"}) == F(2, 9)
    assert prob(german.tiger_ace, {"skill": "schnell"}) == F(1, 6) + F(1, 36)


def test_tiger_ace_preference_and_commander_never_repeats() -> None:
    # preferring Schnell!: platoon Schnell! = 1/6 + 1/6 * 2/6 = 2/9; the commander's
    # choice is then the next preference, Every Shot Counts!
    assert prob(german.tiger_ace, {"skill": "schnell"}, preference="schnell") == F(2, 9)
    for k, _p in odds(german.tiger_ace, preference="schnell,clever_hans").items():
        assert k[1] != k[2]
    with pytest.raises(UsageError):
        validate(german.tiger_ace, {"preference": "schnell,schnell"})
    with pytest.raises(UsageError):
        validate(german.tiger_ace, {"preference": "top_ace"})


def test_tiger_ace_entered_dice() -> None:
    p = validate(german.tiger_ace, {})
    r = drivers.roll(german.tiger_ace, p, dice=[6, 6, 4])
    # second 6: choose Every Shot Counts!; third 4 repeats it: choose Rapid Fire!
    assert r.outcome == {"top_ace": True, "skill": "every_shot_counts",
                         "commander_skill": "rapid_fire", "chose": True}


# --- Stuka zu Fuss ------------------------------------------------------------------

def _p_range(k: int, fail: F) -> F:
    return fail ** (k - 1) * (1 - fail)


def test_stuka_zu_fuss_ranging_and_guns() -> None:
    # trained target: range in on 3+ (fail 1/3). Attempt k ranges in with
    # (1/3)^(k-1) * 2/3 and the launcher then counts as 7 - k guns.
    fail = F(1, 3)
    for k in range(1, 7):
        assert prob(german.stuka_zu_fuss, {"ranged_in": k, "guns": 7 - k},
                    teams=0) == _p_range(k, fail)
    # all six fail: (1/3)^6 = 1/729, no bombardment
    assert odds(german.stuka_zu_fuss, teams=2)[(0, 0, 0, 0, 0, False)] == F(1, 729)


def test_stuka_zu_fuss_hits_on_one_team() -> None:
    # veteran crew hits on 3+ (2/3). 6 guns (k=1): re-roll misses -> 1-(1/3)^2 = 8/9.
    # 3-5 guns: 2/3. 2 guns (k=5): re-roll hits -> (2/3)^2 = 4/9.
    # 1 gun (k=6): +1 -> 4+, and re-roll hits -> (1/2)^2 = 1/4.
    fail = F(1, 3)
    hit = {1: F(8, 9), 2: F(2, 3), 3: F(2, 3), 4: F(2, 3), 5: F(4, 9), 6: F(1, 4)}
    pinned = sum(_p_range(k, fail) * hit[k] for k in range(1, 7))
    assert prob(german.stuka_zu_fuss, {"pinned": True}, teams=1) == pinned
    # infantry save 3+: a hit team dies on 1-2 (1/3); six guns, hit and killed:
    # 2/3 * 8/9 * 1/3 = 16/81
    assert prob(german.stuka_zu_fuss, {"ranged_in": 1, "destroyed": 1}, teams=1) == F(16, 81)
    # last rocket: (1/3)^5 * 2/3 * 1/4 * 2/3 (saved) = 1/2187
    assert prob(german.stuka_zu_fuss, {"ranged_in": 6, "hits": 1, "destroyed": 0},
                teams=1) == F(1, 2187)


def test_stuka_zu_fuss_cannot_range_in() -> None:
    # veteran 4+ concealed, gone to ground, HQ observing: 7+ -> impossible
    assert odds(german.stuka_zu_fuss, target_skill="veteran", concealed=True,
                gone_to_ground=True, observer_hq=True) == {(0, 0, 0, 0, 0, False): F(1)}


def test_stuka_zu_fuss_tank_top_armour() -> None:
    # one tank, top armour 1, AT 5, firepower 1+ (always passes). Given a hit:
    # die+1 > 5 on 5-6 (2/6) no effect; = 5 on a 4 (1/6) bailed; < 5 on 1-3 (3/6) destroyed.
    # Conscript target: range in on 2+ (first try 5/6); 6 guns: re-roll misses, 8/9.
    raw = {"teams": 1, "target": "tank", "armour": 1, "at": 5, "firepower": 1,
           "target_skill": "conscript"}
    first = F(5, 6) * F(8, 9)
    assert prob(german.stuka_zu_fuss, {"ranged_in": 1, "destroyed": 1}, **raw) == first / 2
    assert prob(german.stuka_zu_fuss, {"ranged_in": 1, "bailed_out": 1}, **raw) == first / 6


def test_stuka_zu_fuss_dug_in_needs_firepower() -> None:
    # conscript target (2+), first attempt 5/6, 6 guns with a veteran crew: 8/9 to hit;
    # save 3+ fails 1/3; firepower 4+ passes 1/2 -> 5/6 * 8/9 * 1/3 * 1/2 = 20/162
    raw = {"teams": 1, "target": "infantry", "dug_in": True, "firepower": 4,
           "target_skill": "conscript"}
    assert prob(german.stuka_zu_fuss, {"ranged_in": 1, "destroyed": 1}, **raw) == F(10, 81)


# --- Kampfgruppe --------------------------------------------------------------------

def test_kampfgruppe_lowest_ratings() -> None:
    assert odds(german.kampfgruppe,
                members="veteran/fearless,trained/confident,veteran/fearless") == {
        ("trained", "confident", 3): F(1)}
    assert odds(german.kampfgruppe, members="fearless veteran, conscript/fearless",
                donors="tank:5:2,other:7:3") == {("conscript", "fearless", 2): F(1)}


@pytest.mark.parametrize("raw", [
    {"members": "veteran/confident", "donors": "tank:4:3"},    # more than half
    {"members": "veteran/confident", "donors": "other:4:2"},   # keeps only 2 others
    {"members": "veteran/confident", "donors": "tank:5"},      # malformed
    {"members": "veteran/confident", "second_in_command": False},
    {"members": "elite/confident"},
    {"members": ""},
])
def test_kampfgruppe_bad_input(raw: dict[str, Any]) -> None:
    with pytest.raises(UsageError):
        validate(german.kampfgruppe, raw)


# --- Komissar -----------------------------------------------------------------------

def test_komissar_confident() -> None:
    # first test 4+: 1/2 pass. Failed (1/2): a team is shot and the die re-rolled:
    # 1 mutiny (1/6), 2-3 fail (2/6), 4-6 pass (3/6).
    assert odds(soviet.komissar, motivation="confident") == {
        (True, False, False, "first_test"): F(1, 2),
        (True, True, False, "komissar_reroll"): F(1, 4),
        (False, True, False, "komissar_reroll"): F(1, 6),
        (False, True, True, "komissar_reroll"): F(1, 12),
    }


def test_komissar_after_commander_reroll() -> None:
    # commander first: pass 1/2 + 1/4; then the Komissar on the remaining 1/4:
    # pass 1/8, mutiny 1/24. Total pass 7/8.
    o = odds(soviet.komissar, motivation="confident", commander_reroll=True)
    assert o[(True, False, False, "commander_reroll")] == F(1, 4)
    assert prob(soviet.komissar, {"passed": True}, commander_reroll=True) == F(7, 8)
    assert prob(soviet.komissar, {"komissar_destroyed": True},
                commander_reroll=True) == F(1, 24)


def test_komissar_shtraf_still_mutinies_on_1() -> None:
    # Shtraf passes on 2+: 5/6; the re-roll passes on 2-6 and mutinies on a 1.
    assert prob(soviet.komissar, {"passed": True}, motivation="reluctant",
                rules="shtraf") == F(5, 6) + F(1, 6) * F(5, 6)
    assert prob(soviet.komissar, {"komissar_destroyed": True}, rules="shtraf") == F(1, 36)


@pytest.mark.parametrize("raw", [{"test": "other"}, {"teams_available": 0},
                                 {"komissar": "none"}, {"in_command": False},
                                 {"test": "counterattack", "komissar_assaulting": False}])
def test_komissar_cannot_act(raw: dict[str, Any]) -> None:
    # only the motivation test itself: confident 1/2
    assert odds(soviet.komissar, **raw) == {(True, False, False, "first_test"): F(1, 2),
                                            (False, False, False, "first_test"): F(1, 2)}


def test_battalion_komissar_takes_over() -> None:
    p = validate(soviet.komissar, {"komissar": "battalion", "motivation": "fearless"})
    r = drivers.roll(soviet.komissar, p, dice=[2, 1])
    assert r.outcome == {"passed": False, "team_destroyed": True, "komissar_destroyed": True,
                         "decided_by": "komissar_reroll"}
    assert any("battalion Komissar is destroyed" in s.to_dict()["text"] for s in r.steps)


# --- Infiltration -------------------------------------------------------------------

def test_infiltration() -> None:
    # the enemy detects on a 6: 1/6
    assert odds(soviet.infiltration) == {(True, True, True): F(1, 6),
                                         (True, False, False): F(5, 6)}
    # in the open within 40 cm, or seen by recce: detected without a roll
    assert odds(soviet.infiltration, in_sight_within_40cm=True, concealed=False) == {
        (True, True, True): F(1)}
    assert odds(soviet.infiltration, in_sight_within_40cm=True, enemy_recce=True) == {
        (True, True, True): F(1)}
    assert odds(soviet.infiltration, prepared_positions=False) == {(False, False, False): F(1)}


# --- British Bulldog ----------------------------------------------------------------

def test_bulldog_one_platoon() -> None:
    # confident 4+: 1/2 pass; else re-roll 1/2 -> 3/4 counterattack
    assert odds(national.british_bulldog, motivations="confident") == {
        (1, 0, False): F(1, 2), (1, 0, True): F(1, 4), (0, 1, True): F(1, 4)}


def test_bulldog_one_die_for_all_failures() -> None:
    # FoW article (British special rules): one die is the original roll of every platoon
    # testing, and one re-roll counts for every platoon that failed it. Two confident
    # (4+): the die passes both (1/2); else both failed and the re-roll passes both (1/2
    # * 1/2 = 1/4) or neither (1/4): 2 counterattack with 3/4, and 0 otherwise.
    assert odds(national.british_bulldog, motivations="confident,confident") == {
        (2, 0, False): F(1, 2), (2, 0, True): F(1, 4), (0, 2, True): F(1, 4)}


def test_bulldog_mixed_motivations_share_the_dice() -> None:
    # two confident (4+) and one reluctant (5+), one die for all three:
    # 5-6 (1/3): all pass.  4 (1/6): the confident pass, the reluctant fails; the re-roll
    # saves it on 5+ (1/3).  1-3 (1/2): all fail; the re-roll 5-6 (1/3) saves all three,
    # 4 (1/6) the two confident, 1-3 (1/2) none.
    # (3, 0, re-rolled) = 1/6 * 1/3 + 1/2 * 1/3 = 2/9
    # (2, 1, re-rolled) = 1/6 * 2/3 + 1/2 * 1/6 = 7/36;  (0, 3) = 1/2 * 1/2 = 1/4
    o = odds(national.british_bulldog, motivations="confident,confident,reluctant")
    assert o == {(3, 0, False): F(1, 3), (3, 0, True): F(2, 9), (2, 1, True): F(7, 36),
                 (0, 3, True): F(1, 4)}


def test_bulldog_bad_counts() -> None:
    with pytest.raises(UsageError):
        validate(national.british_bulldog, {"motivations": ""})
    with pytest.raises(UsageError):
        validate(national.british_bulldog, {"motivations": ",".join(["confident"] * 7)})


# --- Tank destroyers ----------------------------------------------------------------

@pytest.mark.parametrize(("raw", "expected"), [
    ({}, (True, "none", False)),
    ({"in_command_of_security": False}, (False, "not_in_command_of_security", False)),
    ({"in_command_of_each_other": False}, (False, "not_in_command_of_each_other", False)),
    ({"nearest_enemy_cm": 10}, (False, "within_10cm_of_enemy", False)),
    ({"nearest_seen_enemy_cm": 40}, (False, "seen_within_40cm", False)),
    ({"nearest_seen_enemy_cm": 41}, (True, "none", False)),
    ({"nearest_seen_recce_cm": 20}, (False, "recce_within_20cm", False)),
    ({"security_at_double_or_reorganising": True}, (True, "none", True)),
    ({"security_at_double_or_reorganising": True, "next_to_steady_security": True},
     (True, "none", False)),
    ({"security_commander_destroyed": True, "next_to_steady_security": True},
     (True, "none", True)),
])
def test_tank_destroyer_section(raw: dict[str, Any], expected: tuple[Any, ...]) -> None:
    assert odds(national.tank_destroyers, **raw) == {expected: F(1)}
