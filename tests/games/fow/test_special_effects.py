"""Special rules honoured inside the core fow procedures (shooting, artillery, tests...).

Each case compares the exact odds with and without the rule, worked out by hand.
These procedures belong to the core fow package; the rules are catalogued here.
"""

from __future__ import annotations

from fractions import Fraction as F
from typing import Any

import pytest

from warroom.engine import drivers
from warroom.engine.params import validate
from warroom.engine.procedure import Procedure

pytest.importorskip("warroom.games.fow.shooting")

from warroom.games.fow import system


def proc(pid: str) -> Procedure:
    return system().procedure(pid)


def prob(pid: str, where: dict[str, Any], **raw: Any) -> F:
    pr = proc(pid)
    dist = drivers.exact(pr, validate(pr, raw))
    assert dist.total() == 1
    idx = {f: i for i, f in enumerate(pr.fields)}
    return sum((F(w, dist.denominator) for k, w in dist.weights.items()
                if all(k[idx[f]] == v for f, v in where.items())), F(0))


# --- pins -----------------------------------------------------------------------------

def test_quality_of_quantity_pins_at_ten_hits() -> None:
    # 5 dice at 3+ (trained): 5 hits with (2/3)^5 = 32/243 pins; with the rule 5 hits
    # cannot pin, and 10 dice need all ten: (2/3)^10.
    raw = {"dice": 5, "target_skill": "trained", "teams": 5}
    assert prob("fow.shoot", {"pinned": True}, **raw) == F(32, 243)
    assert prob("fow.shoot", {"pinned": True}, target_rules="quality_of_quantity",
                **raw) == 0
    assert prob("fow.shoot", {"pinned": True}, target_rules="quality_of_quantity",
                dice=10, teams=10) == F(2, 3) ** 10


def test_quality_of_quantity_one_bombardment_hit_still_pins() -> None:
    # a repeated bombardment on one team, trained battery 4+: P(hit) = 1/2 either way
    for rules in ("", "quality_of_quantity"):
        assert prob("fow.artillery", {"pinned": True}, repeat=True, teams=1,
                    target_rules=rules) == F(1, 2)


# --- extra saves --------------------------------------------------------------------

SIDE_HIT = {"dice": 1, "target": "tank", "target_skill": "conscript", "armour": 1,
            "at": 10, "firepower": 5}


def test_schurzen_side_only_against_firepower_5_or_6() -> None:
    # hit on 2+ (5/6); d6+1 never beats AT 10 (always below); firepower 5+ (1/3): 5/18.
    # Schürzen on the side: a 4+ save after the failed armour save halves it: 5/36.
    assert prob("fow.shoot", {"destroyed": 1}, aspect="side", **SIDE_HIT) == F(5, 18)
    assert prob("fow.shoot", {"destroyed": 1}, aspect="side", target_rules="schurzen",
                **SIDE_HIT) == F(5, 36)
    # the article: side armour only; and only against firepower 5+ or 6
    assert prob("fow.shoot", {"destroyed": 1}, aspect="front", target_rules="schurzen",
                **SIDE_HIT) == F(5, 18)
    assert prob("fow.shoot", {"destroyed": 1}, aspect="side", target_rules="schurzen",
                **{**SIDE_HIT, "firepower": 4}) == F(5, 6) * F(1, 2)


def test_improvised_armour_any_aspect() -> None:
    # as above, a 5+ extra save (saves 1/3): 5/18 * 2/3 = 5/27
    assert prob("fow.shoot", {"destroyed": 1}, aspect="front",
                target_rules="improvised_armour", **SIDE_HIT) == F(5, 27)


# --- to hit ---------------------------------------------------------------------------

ONE = {"dice": 1, "target_skill": "trained", "teams": 1}  # 3+ to hit


@pytest.mark.parametrize(("raw", "expected"), [
    # Volley Fire: stationary, within 40 cm -> re-roll misses: 1 - (1/3)^2
    ({"rules": "volley_fire"}, F(8, 9)),
    ({"rules": "volley_fire", "range_cm": 50}, F(1, 2)),          # 4+, no re-roll
    ({"rules": "volley_fire", "moved": True}, F(2, 3)),           # moved: no re-roll
    # Semi-indirect Fire: stationary, over 40 cm -> 4+ re-rolled: 1 - (1/2)^2
    ({"rules": "semi_indirect_fire", "range_cm": 50}, F(3, 4)),
    ({"rules": "semi_indirect_fire"}, F(2, 3)),
    # Hen and Chicks: main gun moved -> 4+; MGs exempt; ROF 1 moved -> 5+
    ({"rules": "hen_and_chicks", "moved": True}, F(1, 2)),
    ({"rules": "hen_and_chicks", "moved": True, "main_gun": False}, F(2, 3)),
    ({"rules": "hen_and_chicks", "moved": True, "moving_rof1": True}, F(1, 3)),
    # Stabilizers: full ROF on the move at +1 -> 4+
    ({"rules": "stabilizers", "moved": True}, F(1, 2)),
    # Automatic Rifles: no +1 for a moving ROF 1 weapon -> 3+
    ({"moved": True, "moving_rof1": True}, F(1, 2)),
    ({"rules": "automatic_rifles", "moved": True, "moving_rof1": True}, F(2, 3)),
])
def test_to_hit_rules(raw: dict[str, Any], expected: F) -> None:
    assert prob("fow.shoot", {"hits": 1}, **ONE, **raw) == expected


# --- artillery ------------------------------------------------------------------------

ART = {"teams": 1, "target": "infantry", "target_skill": "conscript", "guns": 4,
       "battery_skill": "trained"}


def test_time_on_target_first_attempt_only() -> None:
    # range in 2+ first time (5/6), hit 4+ (1/2), infantry save 3+ (fails 1/3): 5/36.
    # Time on Target re-rolls successful saves: a save holds (2/3)^2 = 4/9, fails 5/9:
    # 5/6 * 1/2 * 5/9 = 25/108.
    where = {"ranged_in": 1, "destroyed": 1}
    assert prob("fow.artillery", where, **ART) == F(5, 36)
    assert prob("fow.artillery", where, rules="time_on_target", **ART) == F(25, 108)
    # not with All Guns Repeat: 1/2 * 1/3
    assert prob("fow.artillery", {"destroyed": 1}, rules="time_on_target", repeat=True,
                **ART) == F(1, 6)


def test_mike_target() -> None:
    # All Guns Repeat: successful saves re-rolled: 1/2 * 5/9
    assert prob("fow.artillery", {"destroyed": 1}, rules="mike_target", repeat=True,
                **ART) == F(5, 18)
    # the first failed ranging attempt is re-rolled: veteran 4+ -> 1 - (1/2)^2
    raw = {**ART, "teams": 0, "target_skill": "veteran"}
    assert prob("fow.artillery", {"ranged_in": 1}, **raw) == F(1, 2)
    assert prob("fow.artillery", {"ranged_in": 1}, rules="mike_target", **raw) == F(3, 4)


def test_under_command_cancels_hq_observer() -> None:
    # conscript target 2+; the HQ observing makes it 3+
    raw = {**ART, "teams": 0, "observer_hq": True}
    assert prob("fow.artillery", {"ranged_in": 1}, **raw) == F(2, 3)
    assert prob("fow.artillery", {"ranged_in": 1}, rules="under_command", **raw) == F(5, 6)


def test_mixed_battalions_at4_fp4() -> None:
    # repeat, one tank with top armour 1, hit 1/2. AT 4: d6+1 < 4 on 1-2 (1/3), then
    # firepower 4+ (1/2) destroys: 1/2 * 1/3 * 1/2 = 1/12. Without the rule AT 2 never
    # destroys.
    raw = {"repeat": True, "teams": 1, "target": "tank", "armour": 1, "at": 2,
           "firepower": 6, "guns": 3}
    assert prob("fow.artillery", {"destroyed": 1}, **raw) == 0
    assert prob("fow.artillery", {"destroyed": 1}, rules="mixed_battalions",
                **raw) == F(1, 12)


# --- motivation and skill tests -----------------------------------------------------

@pytest.mark.parametrize("rule", ["shtraf", "for_the_fatherland"])
def test_motivation_on_2(rule: str) -> None:
    # reluctant 5+ (1/3) becomes 2+ (5/6)
    assert prob("fow.test", {"passed": True}, kind="motivation", rating="reluctant") == F(1, 3)
    assert prob("fow.test", {"passed": True}, kind="motivation", rating="reluctant",
                rules=rule) == F(5, 6)
    assert prob("fow.unpin", {"unpinned": True}, motivation="reluctant",
                rules=rule) == F(5, 6)


def test_protected_ammo_rerolls_remount() -> None:
    # confident 4+: 1/2, re-rolled 3/4
    assert prob("fow.remount", {"remounted": True}, rules="protected_ammo") == F(3, 4)


def test_bogging_rules() -> None:
    # difficult going: bogs on a 1 (1/6); Overloaded on 1-2 (1/3); Clever Hans! re-rolls
    assert prob("fow.bogging", {"bogged": True}) == F(1, 6)
    assert prob("fow.bogging", {"bogged": True}, rules="overloaded") == F(1, 3)
    assert prob("fow.bogging", {"bogged": True}, rules="clever_hans") == F(1, 36)
    assert prob("fow.bogging", {"bogged": True}, rules="overloaded,clever_hans") == F(1, 9)


def test_unbog_rules() -> None:
    # trained 4+: 1/2; Clever Hans! re-roll: 3/4; Unreliable breaks down on a 1: 1/6
    assert prob("fow.unbog", {"freed": True}, rules="clever_hans") == F(3, 4)
    assert prob("fow.unbog", {"broken_down": True}, rules="unreliable") == F(1, 6)


# --- honoured by the core procedures since (strict xfails while they were "planned") ---


def test_every_shot_counts_rerolls_misses() -> None:
    # trained target 3+, misses re-rolled: 1 - (1/3)^2 = 8/9
    assert prob("fow.shoot", {"hits": 1}, rules="every_shot_counts", **ONE) == F(8, 9)


def test_tally_ho_no_moving_penalty_within_40cm() -> None:
    # a moving ROF 1 gun at 20 cm keeps 3+: 2/3 (it would be 4+, 1/2, without the rule)
    assert prob("fow.shoot", {"hits": 1}, rules="tally_ho", moved=True, moving_rof1=True,
                **ONE) == F(2, 3)


def test_wide_tracks_unbog_on_4() -> None:
    # a conscript crew would need 5+ (1/3); Wide Tracks frees it on 4+ (1/2)
    assert prob("fow.unbog", {"freed": True}, skill="conscript", rules="wide_tracks") == F(1, 2)


def test_wide_tracks_free_a_bogged_tank_straight_after_the_check() -> None:
    # German article (Clever Hans!): with Wide Tracks the tank rolls to free itself
    # straight after the (re-rolled) bogging check; card: it frees itself on 4+.
    # difficult going: bogs on a 1 (1/6), then frees itself on 4+ (1/2): 1/12
    assert prob("fow.bogging", {"bogged": True}, rules="wide_tracks") == F(1, 12)
    # with Clever Hans!: two 1s (1/36), then 1-3 (1/2): 1/72
    assert prob("fow.bogging", {"bogged": True}, rules="wide_tracks,clever_hans") == F(1, 72)
    # very difficult going, a conscript crew: skill test 5+ fails 2/3, then 1/2: 1/3
    assert prob("fow.bogging", {"bogged": True}, terrain="very_difficult", skill="conscript",
                rules="wide_tracks") == F(1, 3)
