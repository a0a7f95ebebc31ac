"""Command tests, orders chains and FAO/FAC calls against odds worked out by hand.

2d6 facts used below (36 equally likely ordered rolls): totals at most 7 come up in 21
rolls, at most 8 in 26, at most 9 in 30; (1,1) and (6,6) once each.
"""

from __future__ import annotations

from fractions import Fraction as F

import pytest

import warroom
from warroom.errors import UsageError


def cv_of(proc: str, **params: object) -> int:
    (value,) = warroom.odds(proc, **params).marginal("modified_cv")
    return int(value)


def results(proc: str, **params: object) -> dict[object, F]:
    return warroom.odds(proc, **params).marginal("result")


@pytest.mark.parametrize("game", ["bkc", "cwc"])
def test_plain_command_at_7(game: str) -> None:
    # total <= 7: 21 rolls, one of them (1,1) is the bonus -> 20 plain successes;
    # (6,6) blunders; the other 36 - 21 - 1 = 14 fail.
    assert results(f"{game}.command", cv=7) == {
        "success": F(20, 36), "bonus": F(1, 36), "blunder": F(1, 36), "failure": F(14, 36)}


@pytest.mark.parametrize("game", ["bkc", "cwc"])
def test_double_one_passes_even_below_two(game: str) -> None:
    # cv 2, third order (-2): modified 0, so only (1,1) passes (as a bonus)
    r = results(f"{game}.command", cv=2, order_number=3)
    assert r == {"bonus": F(1, 36), "blunder": F(1, 36), "failure": F(34, 36)}
    assert cv_of(f"{game}.command", cv=2, order_number=3) == 0


@pytest.mark.parametrize("game", ["bkc", "cwc"])
def test_double_six_blunders_even_at_12(game: str) -> None:
    # cv 12: everything but (1,1) and (6,6) is a plain success
    assert results(f"{game}.command", cv=12) == {
        "success": F(34, 36), "bonus": F(1, 36), "blunder": F(1, 36)}


@pytest.mark.parametrize("game", ["bkc", "cwc"])
def test_blunder_table_die_is_uniform(game: str) -> None:
    # (6,6) is 1/36, then each face of the table d6 is 1/6: 1/216 each; 0 otherwise
    m = warroom.odds(f"{game}.command", cv=8).marginal("blunder")
    assert m == {0: F(35, 36), **{k: F(1, 216) for k in range(1, 7)}}


def test_shared_command_modifiers() -> None:
    for game in ("bkc", "cwc"):
        c = f"{game}.command"
        assert cv_of(c, cv=9, order_number=3) == 7                 # -1 per order after the 1st
        assert cv_of(c, cv=9, distance_cm=59) == 7                 # two full 20 cm
        assert cv_of(c, cv=9, distance_cm=19) == 9                 # no full 20 cm
        assert cv_of(c, cv=9, distance_cm=60, road_move=True) == 9
        assert cv_of(c, cv=9, distance_cm=60, recce=True) == 9
        assert cv_of(c, cv=9, distance_cm=60, indirect=True) == 9
        assert cv_of(c, cv=9, difficult_terrain=True) == 8


def test_bkc_only_modifiers() -> None:
    assert cv_of("bkc.command", cv=9, toward_enemy_20=True) == 8
    assert cv_of("bkc.command", cv=9, distance_cm=60, indirect=True) == 9
    with pytest.raises(UsageError):
        warroom.odds("cwc.command", cv=9, toward_enemy_20=True)


def test_cwc_only_modifiers() -> None:
    assert cv_of("cwc.command", cv=9, reaction_fire=True) == 8
    assert cv_of("cwc.command", cv=9, initiative_action=True) == 8
    # one line of the card: both together still cost 1
    assert cv_of("cwc.command", cv=9, reaction_fire=True, initiative_action=True) == 8
    assert cv_of("cwc.command", cv=9, assault_order=True) == 8
    assert cv_of("cwc.command", cv=10, order_number=2, distance_cm=40, assault_order=True,
                 difficult_terrain=True, reaction_fire=True) == 4
    for name in ("reaction_fire", "initiative_action", "assault_order"):
        with pytest.raises(UsageError):
            warroom.odds("bkc.command", cv=9, **{name: True})


def test_blunder_entry_is_shown() -> None:
    r = warroom.roll("bkc.command", cv=8, dice=[6, 6, 3])
    assert r.outcome == {"result": "blunder", "blunder": 3, "modified_cv": 8}
    texts = " ".join(s.to_dict()["text"] for s in r.steps)
    assert "Relocate!" in texts
    # the CWC table pairs faces: 3 is "Crawl back!"
    r = warroom.roll("cwc.command", cv=8, dice=[6, 6, 3])
    assert "Crawl back!" in " ".join(s.to_dict()["text"] for s in r.steps)


def test_bonus_and_failure_with_entered_dice() -> None:
    assert warroom.roll("bkc.command", cv=5, dice=[1, 1]).outcome["result"] == "bonus"
    assert warroom.roll("bkc.command", cv=5, dice=[3, 3]).outcome["result"] == "failure"
    assert warroom.roll("bkc.command", cv=6, dice=[3, 3]).outcome["result"] == "success"


def test_orders_chain_cv9_three_orders() -> None:
    # order 1 at 9: pass 30/36, fail 5/36, blunder 1/36
    # order 2 at 8: pass 26/36, fail 9/36, blunder 1/36
    # order 3 at 7: pass 21/36, fail 14/36, blunder 1/36
    d = warroom.odds("bkc.orders", cv=9, orders=3)
    assert d.probability(orders=0, stopped_by="failure") == F(5, 36)
    assert d.probability(orders=0, stopped_by="blunder") == F(1, 36)
    assert d.probability(orders=1, stopped_by="failure") == F(30 * 9, 36**2)
    assert d.probability(orders=1, stopped_by="blunder") == F(30, 36**2)
    assert d.probability(orders=2, stopped_by="failure") == F(30 * 26 * 14, 36**3)
    assert d.probability(orders=2, stopped_by="blunder") == F(30 * 26, 36**3)
    assert d.probability(orders=3, stopped_by="none") == F(30 * 26 * 21, 36**3)


def test_orders_chain_modifiers_apply_to_every_order() -> None:
    # cwc, cv 8, 40 cm away (-2): first order at 6 (15/36 pass), second at 5 (10/36)
    d = warroom.odds("cwc.orders", cv=8, orders=2, distance_cm=40)
    assert d.probability(orders=2) == F(15 * 10, 36**2)
    with pytest.raises(UsageError):
        warroom.odds("cwc.orders", cv=8, order_number=2)


# ---------------------------------------------------------------- FAO / FAC
def test_bkc_artillery_modifiers() -> None:
    a = "bkc.artillery_call"
    assert cv_of(a, cv=8, units=3) == 8                          # first 3 free
    assert cv_of(a, cv=8, units=4) == 7                          # a started further 3
    assert cv_of(a, cv=8, units=7) == 6
    assert cv_of(a, cv=8, units=3, rocket_naval_units=3) == 6           # -1 after the first
    assert cv_of(a, cv=8, self_propelled=True) == 9
    assert cv_of(a, cv=8, smoke=True) == 7


def test_cwc_artillery_modifiers() -> None:
    a = "cwc.artillery_call"
    assert cv_of(a, cv=8, order_number=3) == 6                   # further fire missions
    assert cv_of(a, cv=8, smoke=True, special_ammo=True) == 7    # one line, one -1
    assert cv_of(a, cv=8, self_propelled=True, units=5) == 8


def test_air_modifiers() -> None:
    assert cv_of("bkc.air_call", cv=8, aircraft=3, enemy_air_last_turn=True) == 5
    assert cv_of("cwc.air_call", cv=8, order_number=2, aircraft=2, special_ammo=True) == 5
    with pytest.raises(UsageError):
        warroom.odds("cwc.air_call", cv=8, enemy_air_last_turn=True)


def test_bkc_deviation_3d6_halved_on_bonus() -> None:
    # cv 12: plain success 34/36 (3d6 cm), bonus 1/36 (3d6 halved, rounded down),
    # blunder 1/36 (no strike, 0). 1 cm only from a bonus with 1,1,1: 1/36 * 1/216.
    m = warroom.odds("bkc.artillery_call", cv=12).marginal("deviation_cm")
    assert m[0] == F(1, 36)
    assert m[1] == F(1, 36 * 216)
    assert m[18] == F(34, 36 * 216)                     # 6,6,6 on a plain success


def test_bkc_deviation_doubled_for_rockets() -> None:
    # 18 cm: a plain success with 3d6 = 9 (25/216), doubled; or a bonus with 6,6,6
    # (doubled to 36, halved back to 18)
    m = warroom.odds("bkc.artillery_call", cv=12, rockets=True,
                     rocket_naval_units=1).marginal("deviation_cm")
    assert m[18] == F(34 * 25 + 1, 36 * 216)
    assert max(m) == 36
    # bombers double the FAC's deviation the same way
    m = warroom.odds("bkc.air_call", cv=12, bombers=True).marginal("deviation_cm")
    assert m[36] == F(34, 36 * 216)


def test_cwc_deviation_dice_per_started_20cm() -> None:
    # 30 cm: two dice; the bonus removes deviation: 0 = blunder 1/36 + bonus 1/36
    m = warroom.odds("cwc.artillery_call", cv=12, target_distance_cm=30).marginal(
        "deviation_cm")
    assert m[0] == F(2, 36)
    assert m[12] == F(34, 36 * 36)
    assert max(m) == 12
    # rockets add a die: 3 dice, max 18
    m = warroom.odds("cwc.artillery_call", cv=12, target_distance_cm=30,
                     rockets=True, rocket_naval_units=1).marginal("deviation_cm")
    assert m[18] == F(34, 36 * 216)
    # an FAC higher than a target 10 cm away rolls no dice at all
    m = warroom.odds("cwc.air_call", cv=12, target_distance_cm=10,
                     observer_higher=True).marginal("deviation_cm")
    assert m == {0: F(1)}


def test_support_blunder_tables() -> None:
    r = warroom.roll("bkc.artillery_call", cv=8, dice=[6, 6, 2])
    assert r.outcome["result"] == "blunder" and r.outcome["blunder"] == 2
    assert "Incoming!" in " ".join(s.to_dict()["text"] for s in r.steps)
    r = warroom.roll("cwc.air_call", cv=8, dice=[6, 6, 5])
    assert "Take cover!" in " ".join(s.to_dict()["text"] for s in r.steps)


def test_direction_die_only_when_the_strike_drifts() -> None:
    # cv=12 always passes unless double 6; BKC deviation is 3d6 (never 0), so every
    # passed call rolls the direction die: each face 1/6 of the passed calls
    d = warroom.odds("bkc.artillery_call", cv=12)
    drift = d.probability(deviation_cm=lambda cm: cm > 0)
    for face in range(1, 7):
        assert d.probability(direction=face) == drift / 6
    assert d.probability(direction=0) == d.probability(deviation_cm=0)
    # entered dice: 2d6 = 3,4 passes, deviation 3d6 = 1,2,3 -> 6 cm, direction die 5
    r = warroom.roll("bkc.artillery_call", cv=12, dice=[3, 4, 1, 2, 3, 5])
    assert (r.outcome["deviation_cm"], r.outcome["direction"]) == (6, 5)
