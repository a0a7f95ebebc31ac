"""fow.assault: golden fractions kept from before its rounds were split into stages,
the three rules fixed with it (worked by hand), and a hand-written dynamic programme
over counts (benchmarks/assault_dp.py) as an oracle for assaults of several sizes."""

from __future__ import annotations

from fractions import Fraction as F
from typing import Any

import pytest
from benchmarks.assault_dp import as_outcomes, assault_odds
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.games.fow.helpers_fow import marginal, prob

import warroom
from warroom.errors import UsageError

# ------------------------------------------------------------ unchanged by the restaging
# Winner marginals computed by the procedure before its rounds became stages (one
# `Dice.iterate` round replayed path by path), for cases the three rule fixes below do
# not touch (no infantry facing tanks past the first round, no tanks under defensive
# fire). The full distributions were compared too, outcome by outcome; the oracle
# tests below check whole distributions.
GOLDEN: list[tuple[dict[str, Any], dict[str, F]]] = [
    ({"max_rounds": 2}, {"attacker": F(1, 2), "defender": F(23, 128),
                         "undecided": F(41, 128)}),
    ({"defensive_dice": 4, "max_rounds": 3},
     {"attacker": F(1761383, 3359232), "defender": F(96589, 279936),
      "undecided": F(438781, 3359232)}),
    ({"attackers": 4, "defenders": 5, "defensive_dice": 6, "max_rounds": 4,
      "target_rules": "automatic_rifles"},
     {"attacker": F(7786281533, 117546246144), "defender": F(48526937413, 52242776064),
      "undecided": F(2297421727, 470184984576)}),
    ({"attackers": 5, "defenders": 4, "attacker_skill": "veteran",
      "defender_skill": "conscript", "defender_motivation": "reluctant", "max_rounds": 4,
      "defensive_dice": 3},
     {"attacker": F(1448162785, 1549681956), "defender": F(399320315, 6973568802),
      "undecided": F(115031909, 13947137604)}),
    ({"attackers": 2, "defenders": 3, "target_rules": "british_bulldog", "max_rounds": 3},
     {"attacker": F(87, 256), "defender": F(13, 32), "undecided": F(65, 256)}),
    ({"attackers": 6, "defenders": 3, "rules": "unarmed,quality_of_quantity",
      "defensive_dice": 8, "max_rounds": 3},
     {"attacker": F(6133968641026475, 11555266180939776),
      "defender": F(725144830915, 2821109907456),
      "undecided": F(817034770828487, 3851755393646592)}),
    ({"attackers": 3, "defenders": 2, "attacker_type": "tank", "defender_type": "tank",
      "attacker_top_armour": 2, "defender_top_armour": 1, "attacker_at": 7,
      "defender_at": 5, "attacker_firepower": 3, "defender_firepower": 4, "max_rounds": 3},
     {"attacker": F(8450693223619, 10030613004288), "defender": F(25559, 186624),
      "undecided": F(206182009661, 10030613004288)}),
    ({"attackers": 8, "defenders": 8, "defensive_dice": 8, "max_rounds": 4},
     {"attacker": F(186970790011, 1114512556032), "defender": F(320330318435, 391378894848),
      "undecided": F(3929889962261, 285315214344192)}),
]


@pytest.mark.parametrize(("raw", "expected"), GOLDEN)
def test_same_fractions_as_before_the_stages(raw: dict[str, Any],
                                             expected: dict[str, F]) -> None:
    assert marginal("fow.assault", "winner", **raw) == expected


# ------------------------------------------------------------------ the rules fixed
def test_infantry_counterattacking_tanks_tests_once() -> None:
    # One trained tank against two infantry teams, two rounds. Round 1: the tank hits on
    # a skill test 4+ (1/2) and the team hit is destroyed (no save in close combat). The
    # infantry must test 4+ to counterattack either way: hit, or facing tanks. It breaks
    # off with 1/2: the attacker wins 1/2. In round 2 only the infantry strikes, so the
    # attacker cannot win there. The counterattack test is the infantry's test against
    # tanks for that round: before, a second (tank terror) test gave the attacker 3/4.
    raw = {"attackers": 1, "attacker_type": "tank", "defenders": 2, "max_rounds": 2}
    assert prob("fow.assault", {"winner": "attacker"}, **raw) == F(1, 2)
    assert prob("fow.assault", {"winner": "attacker", "rounds": 1}, **raw) == F(1, 2)


def test_infantry_tests_before_charging_tanks() -> None:
    # One confident infantry team (4+) charges one tank through one die of defensive
    # fire. The test comes first: it fails 1/2 and nothing else happens (no losses, no
    # round, not repelled). It passes 1/2; then defensive fire hits 3+ (2/3) and the
    # infantry save 3+ fails (1/3): the only team is lost and the assault falls back,
    # 1/2 * 2/9 = 1/9 (it was 2/9 when the test came after defensive fire). Otherwise
    # (1/2 * 7/9 = 7/18) the team hits on 4+ (1/2): the hit bails the tank on a 1 (top
    # armour 1 + die against AT 2, firepower 1+: 1/6), else the tank, hit, must test 4+
    # to counterattack and breaks off with 1/2: the attacker wins
    # 7/18 * 1/2 * (1/6 + 5/6 * 1/2) = 7/36 * 7/12 = 49/432.
    raw = {"attackers": 1, "defenders": 1, "defender_type": "tank", "defensive_dice": 1,
           "max_rounds": 1}
    no_charge = {"winner": "defender", "attacker_losses": 0, "repelled": False, "rounds": 0}
    assert prob("fow.assault", no_charge, **raw) == F(1, 2)
    assert prob("fow.assault", {"repelled": True, "attacker_losses": 1}, **raw) == F(1, 9)
    assert prob("fow.assault", {"winner": "attacker"}, **raw) == F(49, 432)


def test_a_failed_charge_counts_no_losses_when_rolled() -> None:
    raw = {"attackers": 3, "defenders": 1, "defender_type": "tank", "defensive_dice": 4,
           "max_rounds": 1}
    # a 1 on the test: the assault does not go in, so defensive fire never shoots
    res = warroom.roll("fow.assault", dice=[1], **raw)
    assert res.outcome == {"winner": "defender", "attacker_losses": 0,
                           "defender_losses": 0, "repelled": False, "rounds": 0,
                           "passengers_destroyed": 0}
    assert res.dice == (1,)
    # test 6; defensive fire 6 1 1 1 (one hit at 3+); save 2 (lost); to hit 4 1 (one
    # hit at 4+); armour save 3 (higher: no effect); counterattack test 5 (passes)
    res = warroom.roll("fow.assault", dice=[6, 6, 1, 1, 1, 2, 4, 1, 3, 5], **raw)
    assert res.outcome == {"winner": "undecided", "attacker_losses": 1,
                           "defender_losses": 0, "repelled": False, "rounds": 1,
                           "passengers_destroyed": 0}
    assert [s.rule for s in res.steps][:2] == ["fow.assault.tank_terror",
                                               "fow.assault.defensive_fire"]


def test_tank_assault_falls_back_after_two_tanks_lost() -> None:
    # Three trained tanks (side armour 1) under two dice of defensive fire, AT 6,
    # firepower 1+. Each die hits 3+ (2/3); a hit is stopped only by a 6 (1 + 6 > 6);
    # a 5 is equal (bailed out), 1-4 lower (destroyed): out 5/6. Two hits (4/9) go to
    # two tanks, both out with 25/36: the assault falls back with 4/9 * 25/36 = 25/81.
    # One hit takes out one tank at most: the assault goes in.
    raw = {"attackers": 3, "attacker_type": "tank", "attacker_armour": 1,
           "defensive_dice": 2, "defensive_at": 6, "defensive_firepower": 1,
           "max_rounds": 1}
    assert prob("fow.assault", {"repelled": True}, **raw) == F(25, 81)
    assert prob("fow.assault", {"repelled": True, "attacker_losses": 2,
                                "winner": "defender", "rounds": 0}, **raw) == F(25, 81)
    # rolled: hits 6 6, armour saves 1 1 (lower), firepower tests 3 3 (passed)
    res = warroom.roll("fow.assault", dice=[6, 6, 1, 1, 3, 3], **raw)
    assert res.outcome["repelled"] and res.outcome["attacker_losses"] == 2
    assert "two assaulting tanks" in res.steps[-1].text.template


# ---------------------------------------------------------------- the oracle (a DP)
ORACLE: list[dict[str, Any]] = [
    {"attackers": 1, "defenders": 1, "max_rounds": 1},
    {"attackers": 1, "attacker_type": "tank", "defenders": 2, "max_rounds": 2},
    {"attackers": 3, "defenders": 1, "defender_type": "tank", "defensive_dice": 4,
     "max_rounds": 1},
    {"attackers": 4, "defenders": 3, "attacker_type": "tank", "attacker_armour": 1,
     "defensive_dice": 6, "defensive_at": 6, "defensive_firepower": 3, "max_rounds": 3},
    {"attackers": 5, "defenders": 4, "attacker_skill": "veteran",
     "defender_skill": "conscript", "defender_motivation": "reluctant", "max_rounds": 4,
     "defensive_dice": 3, "target_rules": ["british_bulldog", "automatic_rifles"]},
    {"attackers": 3, "defenders": 2, "attacker_type": "tank", "defender_type": "tank",
     "attacker_top_armour": 2, "defender_top_armour": 1, "attacker_at": 7,
     "defender_at": 5, "attacker_firepower": 3, "defender_firepower": 4, "max_rounds": 3},
    # Improvised Tank Assault, 8 v 8 (the benchmark's case)
    {"attackers": 8, "defenders": 8, "max_rounds": 4, "defender_type": "tank",
     "defender_top_armour": 1, "attacker_at": 6, "attacker_firepower": 3,
     "rules": ["improvised_tank_assault", "unarmed"], "defensive_dice": 8},
    {"attackers": 12, "defenders": 10, "max_rounds": 10, "defensive_dice": 20,
     "rules": ["shtraf"], "defender_skill": "veteran"},
]


@pytest.mark.parametrize("raw", ORACLE)
def test_the_stages_agree_with_a_hand_written_dp(raw: dict[str, Any]) -> None:
    ours = as_outcomes(warroom.odds("fow.assault", **raw))
    assert ours == assault_odds(**raw)
    assert sum(ours.values()) == 1


KINDS = st.sampled_from(["infantry", "tank"])
SKILLS = st.sampled_from(["conscript", "trained", "veteran"])
RULES = st.lists(st.sampled_from(["unarmed", "improvised_tank_assault",
                                  "quality_of_quantity", "shtraf"]), unique=True)


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 5), st.integers(1, 5), KINDS, KINDS, SKILLS, SKILLS,
       st.integers(0, 7), st.integers(1, 5), st.integers(0, 8), st.integers(1, 6), RULES,
       st.sampled_from([(), ("british_bulldog",), ("automatic_rifles",)]))
def test_random_assaults_agree_with_the_dp(att: int, dfn: int, a_type: str, d_type: str,
                                           a_skill: str, d_skill: str, dice: int,
                                           rounds: int, df_at: int, fp: int,
                                           rules: list[str], target: tuple[str, ...]
                                           ) -> None:
    raw = {"attackers": att, "defenders": dfn, "attacker_type": a_type,
           "defender_type": d_type, "attacker_skill": a_skill, "defender_skill": d_skill,
           "defensive_dice": dice, "max_rounds": rounds, "defensive_at": df_at,
           "defensive_firepower": fp, "attacker_at": 4, "attacker_firepower": 4,
           "defender_top_armour": 2, "attacker_top_armour": 1, "attacker_armour": 2,
           "rules": rules, "target_rules": list(target)}
    assert as_outcomes(warroom.odds("fow.assault", **raw)) == assault_odds(**raw)


def test_real_table_sizes_are_accepted() -> None:
    # 16 teams a side, 30 defensive-fire dice, 10 rounds: the caps
    raw = {"attackers": 16, "defenders": 16, "defensive_dice": 30, "max_rounds": 10}
    dist = warroom.odds("fow.assault", **raw)
    assert dist.total() == 1
    assert max(o["rounds"] for o, _ in dist.items()) == 10
    with pytest.raises(UsageError):
        warroom.odds("fow.assault", attackers=17)
