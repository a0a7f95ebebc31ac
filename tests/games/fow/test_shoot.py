"""fow.shoot and fow.allocate: exact odds worked out by hand, the story of a roll, and
replay (same dice, same result)."""

from __future__ import annotations

from fractions import Fraction as F

import pytest
from tests.games.fow.helpers_fow import marginal, prob

import warroom
from warroom.cli import main
from warroom.errors import UsageError


def test_two_dice_at_infantry_in_the_open() -> None:
    # trained target: 3+ to hit (2/3); at most one hit per team (2 teams); infantry save
    # 3+ fails 1/3. Each die independently destroys a team with 2/3 * 1/3 = 2/9:
    # destroyed ~ Bin(2, 2/9): (7/9)^2 = 49/81, 2 * 2/9 * 7/9 = 28/81, (2/9)^2 = 4/81.
    assert marginal("fow.shoot", "destroyed", dice=2, teams=2) == {
        0: F(49, 81), 1: F(28, 81), 2: F(4, 81)}
    # hits ~ Bin(2, 2/3)
    assert marginal("fow.shoot", "hits", dice=2, teams=2) == {
        0: F(1, 9), 1: F(4, 9), 2: F(4, 9)}


def test_needing_seven_cannot_hit() -> None:
    # veteran 4 + concealed 1 + gone to ground 1 + over 40 cm 1 = 7: no die can hit
    raw = {"dice": 6, "target_skill": "veteran", "concealed": True, "gone_to_ground": True,
           "range_cm": 50}
    assert prob("fow.shoot", {"hits": 0, "destroyed": 0, "pinned": False}, **raw) == 1
    r = warroom.roll("fow.shoot", raw, seed=1)
    assert r.dice == ()
    assert "no die can roll" in r.steps[0].to_dict()["text"]


def test_gone_to_ground_counts_only_with_concealment() -> None:
    # the article's table: trained 3+, concealed 4+, gone to ground and concealed 5+
    assert prob("fow.shoot", {"hits": 1}, dice=1, gone_to_ground=True) == F(2, 3)
    assert prob("fow.shoot", {"hits": 1}, dice=1, concealed=True) == F(1, 2)
    assert prob("fow.shoot", {"hits": 1}, dice=1, concealed=True,
                gone_to_ground=True) == F(1, 3)


def test_long_range_armour_bonus() -> None:
    # conscript tank, armour 2, AT 3, firepower 4+.
    # Close: to hit 2+ (5/6); d6+2 equals 3 only on a 1 (1/6) -> firepower 4+ (1/2)
    # bails it: 5/6 * 1/6 * 1/2 = 5/72; it can never be below 3, so nothing destroyed.
    raw = {"dice": 1, "target": "tank", "target_skill": "conscript", "armour": 2, "at": 3,
           "firepower": 4}
    assert prob("fow.shoot", {"bailed_out": 1}, **raw) == F(5, 72)
    # Over 40 cm: armour counts 3, d6+3 always beats AT 3: no effect at all
    assert prob("fow.shoot", {"bailed_out": 0, "destroyed": 0}, range_cm=41, **raw) == 1
    # ... and to hit is 3+ there
    assert prob("fow.shoot", {"hits": 1}, range_cm=41, **raw) == F(2, 3)


def test_tank_keeps_its_worst_result() -> None:
    # conscript tank (2+ to hit, 5/6), armour 0 against AT 2 with firepower 1+ (always
    # passes): a 1 is below AT (destroyed), a 2 equal (bailed out), 3-6 no effect.
    # Per die: destroy 5/6 * 1/6 = 5/36, bail 5/36, nothing 26/36; one tank takes both:
    # destroyed = 1 - (31/36)^2 = 335/1296; bailed = (31/36)^2 - (26/36)^2 = 285/1296.
    raw = {"dice": 2, "teams": 1, "target": "tank", "target_skill": "conscript",
           "armour": 0, "at": 2, "firepower": 1}
    assert prob("fow.shoot", {"destroyed": 1}, **raw) == F(335, 1296)
    assert prob("fow.shoot", {"bailed_out": 1}, **raw) == F(285, 1296)


def test_more_hits_than_teams() -> None:
    # 3 dice at conscript infantry (2+, 5/6) spread over 2 teams. Hits h ~ Bin(3, 5/6).
    # A team with k hits is destroyed unless all k saves (3+) pass: 1 - (2/3)^k.
    # h=1: one team, 1/3. h=2: two teams with one hit each, Bin(2, 1/3).
    # h=3: one team with 2 hits (5/9) and one with 1 hit (1/3).
    p = F(5, 6)
    q = 1 - p
    ph = {0: q**3, 1: 3 * p * q**2, 2: 3 * p**2 * q, 3: p**3}
    one, two = F(1, 3), F(5, 9)
    expected = {
        0: ph[0] + ph[1] * (1 - one) + ph[2] * (1 - one) ** 2 + ph[3] * (1 - two) * (1 - one),
        1: ph[1] * one + ph[2] * 2 * one * (1 - one)
        + ph[3] * (two * (1 - one) + (1 - two) * one),
        2: ph[2] * one**2 + ph[3] * two * one,
    }
    assert marginal("fow.shoot", "destroyed", dice=3, teams=2,
                    target_skill="conscript") == expected


def test_one_team_many_hits() -> None:
    # all hits on one team: it survives only if no die both hits (5/6) and fails its
    # save (1/3): destroyed = 1 - (13/18)^3
    assert prob("fow.shoot", {"destroyed": 1}, dice=3, teams=1,
                target_skill="conscript") == 1 - F(13, 18) ** 3


def test_dug_in_infantry_needs_firepower() -> None:
    # 3+ to hit (2/3), save fails 1/3, firepower 4+ (1/2): 1/9; in the open 2/9
    assert prob("fow.shoot", {"destroyed": 1}, dice=1, dug_in=True, firepower=4) == F(1, 9)
    assert prob("fow.shoot", {"destroyed": 1}, dice=1, firepower=4) == F(2, 9)


def test_guns_save_by_gone_to_ground() -> None:
    # gone to ground and concealed: hit 5+ (1/3), save 3+ fails 1/3 -> 1/9
    assert prob("fow.shoot", {"destroyed": 1}, dice=1, target="gun", concealed=True,
                gone_to_ground=True) == F(1, 9)
    # fired or moved: hit 3+ (2/3), save 5+ fails 2/3 -> 4/9
    assert prob("fow.shoot", {"destroyed": 1}, dice=1, target="gun") == F(4, 9)
    # gun shield facing the shooter: a failed save needs firepower 4+ too -> 2/9
    assert prob("fow.shoot", {"destroyed": 1}, dice=1, target="gun", gun_shield=True,
                firepower=4) == F(2, 9)


def test_unarmoured_vehicles() -> None:
    # save 5+ fails 2/3, no firepower test: 2/3 * 2/3 = 4/9
    assert prob("fow.shoot", {"destroyed": 1}, dice=1, target="soft", firepower=5) == F(4, 9)
    # a gun shield facing the shooter: no save, firepower 5+ instead: 2/3 * 1/3 = 2/9
    assert prob("fow.shoot", {"destroyed": 1}, dice=1, target="soft", firepower=5,
                gun_shield=True) == F(2, 9)


def test_bunker_busters() -> None:
    # infantry gets no save: every hit destroys (2/3); dug in, firepower 4+ still needed
    assert prob("fow.shoot", {"destroyed": 1}, dice=1, bunker_buster=True) == F(2, 3)
    assert prob("fow.shoot", {"destroyed": 1}, dice=1, bunker_buster=True, dug_in=True,
                firepower=4) == F(1, 3)


def test_at_the_double_and_rof1_moving() -> None:
    # a target at the double: 1 die becomes 2, both must hit for 2 hits: (2/3)^2
    assert prob("fow.shoot", {"hits": 2}, dice=1, teams=2, target_at_double=True) == F(4, 9)
    # a ROF 1 weapon that moved: 4+ instead of 3+
    assert prob("fow.shoot", {"hits": 1}, dice=1, moved=True, moving_rof1=True) == F(1, 2)


def test_five_hits_pin() -> None:
    # 5 dice at conscripts (2+): all five hit with (5/6)^5
    assert prob("fow.shoot", {"pinned": True}, dice=5, teams=5,
                target_skill="conscript") == F(5, 6) ** 5


@pytest.mark.parametrize("raw", [
    {"dug_in": True, "target": "tank"},
    {"gun_shield": True, "target": "infantry"},
    {"moving_rof1": True},
])
def test_inconsistent_parameters(raw: dict[str, object]) -> None:
    with pytest.raises(UsageError):
        warroom.odds("fow.shoot", **raw)


# --------------------------------------------------------------------------- story
STORY = ["roll", "fow.shoot", "dice=4", "teams=2", "target=tank", "armour=3", "at=5",
         "firepower=4", "--dice", "6,5,1,3,1,6,4,5"]


def test_story_of_a_shot(capsys: pytest.CaptureFixture[str]) -> None:
    # to hit 3+: 6, 5, 1, 3 -> 3 hits; one tank takes 2, the other 1.
    # tank with 2 hits: armour saves 1 (1+3 < 5: below AT) and 6 (beats it); the below
    # one needs a firepower test: 4 (4+ passes) -> destroyed.
    # tank with 1 hit: armour save 5 (5+3 beats 5) -> unharmed; firepower tests for the
    # single-hit group need no dice: 8 dice in all.
    code = main(STORY)
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "to hit: 4 dice needing 3+" in out
    assert "3 hits spread over 2 teams" in out
    assert "firepower test (below AT)" in out
    assert "destroyed = 1" in out and "bailed_out = 0" in out and "hits = 3" in out


def test_allocation_story_for_one_team_or_one_hit() -> None:
    # one team takes every hit; a single hit lands on one team of several. Each hit's
    # armour save rolls a 6 (6 + 1 beats AT 2), which needs no firepower test.
    def allocation(teams: int, dice: list[int]) -> str:
        hits = sum(v >= 3 for v in dice)
        r = warroom.roll("fow.shoot", {"dice": len(dice), "teams": teams, "target": "tank",
                                       "armour": 1, "at": 2}, dice=dice + [6] * hits)
        return str(r.steps[1].to_dict()["text"])

    assert allocation(1, [5, 4, 1]) == "the only team takes all 2 hits"
    assert allocation(1, [5, 1]) == "the only team takes the hit"
    assert allocation(3, [5, 1]) == "one hit, on one of the 3 teams"
    assert allocation(2, [5, 4]) == "2 hits spread evenly: each of 2 teams takes 1"


def test_same_dice_same_result() -> None:
    params = {"dice": 8, "teams": 3, "target": "tank", "armour": 2, "at": 6,
              "firepower": 3}
    first = warroom.roll("fow.shoot", params, seed=11)
    again = warroom.roll("fow.shoot", params, dice=list(first.dice))
    assert again.outcome == first.outcome
    assert [s.to_dict() for s in again.steps] == [s.to_dict() for s in first.steps]
    assert warroom.roll("fow.shoot", params, seed=11).dice == first.dice


# ------------------------------------------------------------------------ allocation
def test_allocation_priorities() -> None:
    # 5 hits over 2 + 2 + 1 teams: everyone takes one
    assert prob("fow.allocate", {"hits_ready": 2, "hits_gone_to_ground": 2,
                                 "hits_out_of_action": 1, "most_on_one_team": 1},
                hits=5, ready=2, gone_to_ground=2, out_of_action=1) == 1
    # 3 hits: the two ready teams first, then one gone-to-ground team, none on the bogged
    assert prob("fow.allocate", {"hits_ready": 2, "hits_gone_to_ground": 1,
                                 "hits_out_of_action": 0},
                hits=3, ready=2, gone_to_ground=2, out_of_action=1) == 1
    # 7 hits on 3 teams: 2 each plus one extra on a ready team
    assert prob("fow.allocate", {"hits_ready": 5, "hits_gone_to_ground": 2,
                                 "most_on_one_team": 3},
                hits=7, ready=2, gone_to_ground=1) == 1


def test_nearer_teams_first() -> None:
    # 3 ready teams, 2 of them over 40 cm, 2 hits: the near team first, then one far
    # team: 1 far hit. 4 hits: one each, the extra on the near team.
    assert prob("fow.allocate", {"hits_far": 1, "hits_ready": 2}, hits=2, ready=3,
                ready_far=2) == 1
    assert prob("fow.allocate", {"hits_far": 2, "most_on_one_team": 2}, hits=4, ready=3,
                ready_far=2) == 1
    # a far ready team still comes before a near team gone to ground
    assert prob("fow.allocate", {"hits_far": 1, "hits_gone_to_ground": 0}, hits=1,
                ready=1, ready_far=1, gone_to_ground=1) == 1


def test_only_gun_tanks_left() -> None:
    # nothing else to hit: no roll, the gun-tank type takes both hits
    assert prob("fow.allocate", {"gun_tank_hits": 2, "most_on_one_team": 2}, hits=2,
                ready=0, gun_tanks=1) == 1


def test_gun_tank_rolls() -> None:
    # each hit goes to the declared gun tank on 5+ (1/3): Bin(2, 1/3)
    assert marginal("fow.allocate", "gun_tank_hits", hits=2, ready=3, gun_tanks=1) == {
        0: F(4, 9), 1: F(4, 9), 2: F(1, 9)}


def test_limited_vision_and_cupola() -> None:
    # trained target 3+; Limited Vision into the side arc: 4+; a Cupola cancels it
    assert prob("fow.shoot", {"hits": 1}, dice=1, side_arc=True,
                rules="limited_vision") == F(1, 2)
    assert prob("fow.shoot", {"hits": 1}, dice=1, side_arc=True,
                rules="limited_vision,cupola") == F(2, 3)
    assert prob("fow.shoot", {"hits": 1}, dice=1, rules="limited_vision") == F(2, 3)


# ------------------------------------------------- issue 20: ROF 1 pinned, pinning per step
def test_a_pinned_rof1_weapon_takes_the_usual_plus_one() -> None:
    # US article (Automatic Rifles): "the usual +1 ... moving or pinned". Trained 3+,
    # +1 for a ROF 1 weapon whose team is pinned down: 4+, one die hits with 1/2
    assert prob("fow.shoot", {"hits": 1}, dice=1, pinned_rof1=True) == F(1, 2)
    # moving and pinned: still one +1 (4+), not two
    assert prob("fow.shoot", {"hits": 1}, dice=1, pinned_rof1=True, moved=True,
                moving_rof1=True) == F(1, 2)
    # Automatic Rifles ignore it: back to 3+ (2/3)
    assert prob("fow.shoot", {"hits": 1}, dice=1, pinned_rof1=True,
                rules="automatic_rifles") == F(2, 3)
    # Tally Ho! ignores only the moving penalty within 40 cm: pinned still +1
    assert prob("fow.shoot", {"hits": 1}, dice=1, pinned_rof1=True, moved=True,
                moving_rof1=True, rules="tally_ho") == F(1, 2)
    r = warroom.roll("fow.shoot", {"dice": 1, "pinned_rof1": True}, entered=[4, 3])
    assert "ROF 1 weapon pinned down" in str(r.steps[0].to_dict())


def test_pinning_counts_every_hit_of_the_shooting_step() -> None:
    # reference card, shooting step 9: a platoon hit 5 times in the step is pinned.
    # hits_before=3: two more hits pin. 3 dice at 3+ (2/3 each):
    # P(hits >= 2) = 3 * (2/3)^2 * (1/3) + (2/3)^3 = 12/27 + 8/27 = 20/27
    assert prob("fow.shoot", {"pinned": True}, dice=3, hits_before=3) == F(20, 27)
    # without it three dice can never pin
    assert prob("fow.shoot", {"pinned": True}, dice=3) == 0
    # five earlier hits: pinned whatever this shot does
    assert prob("fow.shoot", {"pinned": True}, dice=3, hits_before=5) == 1
    # Quality of Quantity needs 10 in the step: 7 before, 3 dice must all hit: 8/27
    assert prob("fow.shoot", {"pinned": True}, dice=3, hits_before=7,
                target_rules="quality_of_quantity") == F(8, 27)
    r = warroom.roll("fow.shoot", {"dice": 2, "hits_before": 3}, entered=[3, 3, 3, 3])
    assert r.outcome["pinned"] is True
