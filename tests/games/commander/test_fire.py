"""Fire, assault and AA fire against odds worked out by hand."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

import warroom
from warroom.errors import UsageError


def hit_chance(proc: str, **params: object) -> F:
    """Chance of at least one unsaved hit from the given attack."""
    m = warroom.odds(proc, hits_value=10, **params).marginal("hits")
    return 1 - m.get(0, F(0))


# ---------------------------------------------------------------- hit scores
def test_cover_scores() -> None:
    assert hit_chance("bkc.fire", attacks=1) == F(1, 2)                      # open 4+
    assert hit_chance("bkc.fire", attacks=1, cover="cover") == F(1, 3)       # 5+
    assert hit_chance("bkc.fire", attacks=1, cover="fortified") == F(1, 6)   # 6
    assert hit_chance("cwc.fire", attacks=1, cover="light") == F(1, 3)
    assert hit_chance("cwc.fire", attacks=1, cover="heavy") == F(1, 6)
    with pytest.raises(UsageError):
        warroom.odds("cwc.fire", cover="fortified")
    with pytest.raises(UsageError):
        warroom.odds("bkc.fire", cover="light")


def test_hq_armour_and_indirect() -> None:
    assert hit_chance("bkc.fire", attacks=1, target_hq=True) == F(1, 6)
    # direct fire on armour in the open: 4+; indirect: 6, half-track / open AFV 5+
    assert hit_chance("bkc.fire", attacks=1, armoured=True) == F(1, 2)
    assert hit_chance("bkc.fire", attacks=1, armoured=True, indirect=True) == F(1, 6)
    assert hit_chance("bkc.fire", attacks=1, armoured=True, indirect=True,
                      open_topped=True) == F(1, 3)
    assert hit_chance("cwc.fire", attacks=1, armoured=True, indirect=True,
                      open_topped=True) == F(1, 3)


def test_cwc_recce_suppressive_flamer() -> None:
    assert hit_chance("cwc.fire", attacks=1, target_recce=True) == F(1, 3)    # open as light
    assert hit_chance("cwc.fire", attacks=1, target_recce=True, cover="light") == F(1, 6)
    assert hit_chance("cwc.fire", attacks=1, suppressive=True) == F(1, 6)
    assert hit_chance("cwc.fire", attacks=1, cover="heavy",
                      flamethrower_or_sniper=True) == F(1, 2)
    # BKC has no such rules: no such parameters
    with pytest.raises(UsageError):
        warroom.odds("bkc.fire", suppressive=True)


def test_attack_markers() -> None:
    assert hit_chance("bkc.fire", attacks=6, armoured=True, attack_marker="*") == 0
    assert hit_chance("bkc.fire", attacks=6, attack_marker="#") == 0
    assert hit_chance("cwc.fire", attacks=1, armoured=True, attack_marker="#") == F(1, 2)


def test_attack_modifiers() -> None:
    # 0 attacks + half range = one die at 4+
    assert hit_chance("bkc.fire", attacks=0, half_range=True) == F(1, 2)
    # two dice: 1 - (1/2)^2
    assert hit_chance("cwc.fire", attacks=0, flank=True, afv_vs_soft_20=True) == F(3, 4)
    # a pop-up attack loses a die: one attack becomes none
    assert hit_chance("cwc.fire", attacks=1, popup_attack=True) == 0


# ---------------------------------------------------------------- saves and hits value
def test_save_cancels_hits() -> None:
    # hit 1/2, then the 5+ save fails 2/3: 1/3 of an unsaved hit, which destroys
    d = warroom.odds("bkc.fire", attacks=1, save=5, hits_value=1)
    assert d.marginal("destroyed") == {True: F(1, 3), False: F(2, 3)}


def test_bkc_armour_save_worse_from_flank_or_aircraft() -> None:
    # hit 1/2; save 4+ becomes 5+ (fails 2/3): 1/3, against 1/2 * 1/2 without the rule
    assert hit_chance("bkc.fire", attacks=1, armoured=True, save=4,
                      ground_attack_aircraft=True) == F(1, 3)
    assert hit_chance("bkc.fire", attacks=1, armoured=True, save=4) == F(1, 4)
    assert hit_chance("cwc.fire", attacks=1, armoured=True, save=4) == F(1, 4)


def test_existing_hits_count_toward_hits_value() -> None:
    # two hits already, hits value 3: any hit destroys
    d = warroom.odds("bkc.fire", attacks=1, existing_hits=2, hits_value=3, cover="cover")
    assert d.marginal("destroyed") == {True: F(1, 3), False: F(2, 3)}
    with pytest.raises(UsageError):
        warroom.odds("bkc.fire", existing_hits=3, hits_value=3)


# ---------------------------------------------------------------- suppression and retreat
def test_suppression_one_die_per_hit() -> None:
    # hits 0: 1/4, 1: 1/2, 2: 1/4 (two dice at 4+). One suppression die per hit at the
    # hit score: 1 hit suppresses 1/2, 2 hits 1 - 1/4 = 3/4.
    d = warroom.odds("bkc.fire", attacks=2, hits_value=3)
    assert d.probability(hits=0, suppressed=False) == F(1, 4)
    assert d.probability(hits=1, suppressed=True) == F(1, 4)
    assert d.probability(hits=2, suppressed=True) == F(3, 16)
    assert d.marginal("suppressed")[True] == F(7, 16)
    assert d.marginal("destroyed") == {False: F(1)}


def test_suppression_uses_the_hit_score() -> None:
    # in fortifications (6): one hit 1/6, and its suppression die needs a 6 too
    d = warroom.odds("bkc.fire", attacks=1, hits_value=3, cover="fortified")
    assert d.probability(suppressed=True) == F(1, 36)


def test_suppressed_unit_retreats_and_dies_beyond_10cm() -> None:
    # already suppressed, 2 dice at 4+: 2 hits (1/4) retreat 2d6; 11 or 12 (3/36) is
    # more than 10 cm and eliminates it: 1/4 * 3/36 = 1/48
    d = warroom.odds("cwc.fire", attacks=2, hits_value=5, suppressed=True)
    assert d.marginal("destroyed")[True] == F(1, 48)
    assert d.marginal("retreat_cm")[12] == F(1, 4 * 36)
    assert d.marginal("retreat_cm")[0] == F(1, 4)
    # one hit (1/2) retreats 1d6: 3 cm with 1/12, plus 2 hits summing 3 (2/36 * 1/4)
    assert d.marginal("retreat_cm")[3] == F(1, 12) + F(2, 4 * 36)
    # recce is not eliminated by a long retreat
    d = warroom.odds("bkc.fire", attacks=2, hits_value=5, suppressed=True, target_recce=True)
    assert d.marginal("destroyed") == {False: F(1)}


def test_entered_dice_for_retreat() -> None:
    # 3 dice 5, 6, 2 -> 2 hits; retreat dice 6 + 5 = 11 cm: eliminated
    r = warroom.roll("bkc.fire", attacks=3, hits_value=4, suppressed=True, dice=[5, 6, 2, 6, 5])
    assert r.outcome == {"hits": 2, "destroyed": True, "suppressed": False, "retreat_cm": 11,
                         "damage": "none"}


def test_bkc_damage_roll() -> None:
    # armour with 3 hits, one more (1/2) makes 4 this turn: roll the damage d6
    d = warroom.odds("bkc.fire", attacks=1, armoured=True, existing_hits=3, hits_value=6)
    assert d.marginal("damage") == {"none": F(1, 2) + F(1, 12), "half_move": F(1, 6),
                                    "half_range": F(1, 6), "command_minus_1": F(1, 12)}
    r = warroom.roll("bkc.fire", attacks=1, armoured=True, existing_hits=3, hits_value=6,
                     dice=[5, 2, 6])
    assert r.outcome["damage"] == "command_minus_1"
    assert "damage" not in warroom.odds("cwc.fire", attacks=1).fields


# ---------------------------------------------------------------- assault
def test_bkc_assault_small() -> None:
    # "other" (2 dice) against "other" in the open: each side's hits 0/1/2 with
    # 1/4, 1/2, 1/4. Draw: 1/16 + 1/4 + 1/16 = 3/8; each side wins 5/16.
    d = warroom.odds("bkc.assault", attacker="other", defender="other")
    assert d.marginal("winner") == {"draw": F(3, 8), "attacker": F(5, 16),
                                    "defender": F(5, 16)}
    assert d.marginal("result")["both_fall_back"] == F(3, 8)
    # the loser retreats the difference: 2 cm only from 2-0 or 0-2
    assert d.probability(result="loser_retreats", retreat_cm=2) == F(2, 16)
    # a draw falls back 3d6: 18 cm only with 6,6,6
    assert d.marginal("retreat_cm")[18] == F(3, 8) * F(1, 216)


def test_bkc_assault_support_adds_hits() -> None:
    # one supporter adds a hit to the attacker: draw when the defender scores one more,
    # (0,1) 1/8 + (1,2) 1/8
    d = warroom.odds("bkc.assault", attacker="other", defender="other", attacker_support=1)
    assert d.marginal("winner")["draw"] == F(1, 4)


def test_bkc_assault_dice_and_rout() -> None:
    # infantry charging armour: 4 + charge 1 + pursuit 1 + 7 cm (2) + anti-armour 1 = 9
    # (armour in the open cannot be pursued: this armour stands in cover)
    r = warroom.roll("bkc.assault", attacker="infantry", defender="armour", charge=True,
                     pursuit=True, pursuit_cm=7, defender_cover="cover", seed=1)
    att = next(s for s in r.steps if s.rule == "bkc.assault.hit")
    assert len(att.dice) == 9
    # flamethrower: 12 sixes against 2 misses of "other": 12 cm is more than 10
    r = warroom.roll("bkc.assault", attacker="flamethrower", defender="other",
                     dice=[6] * 12 + [1, 1])
    assert r.outcome == {"winner": "attacker", "attacker_hits": 12, "defender_hits": 0,
                         "retreat_cm": 12, "result": "loser_eliminated"}


def test_cwc_assault_double_eliminates() -> None:
    # same small fight: draw 3/8 -> another round; every win here is at least double
    # (1-0, 2-0, 2-1): 5/16 eliminate each way
    d = warroom.odds("cwc.assault", attacker="other", defender="other", max_rounds=1)
    assert d.marginal("result") == {"another_round": F(3, 8), "loser_eliminated": F(5, 8)}
    # 3 hits against 2 is not double: the loser retreats
    r = warroom.roll("cwc.assault", dice=[4, 5, 6, 1, 4, 5, 1, 1])
    assert r.outcome["result"] == "loser_retreats"
    assert r.outcome["winner"] == "attacker"


def test_cwc_assault_modifiers() -> None:
    # infantry vs an open-topped AFV: 4 + 1; supporters add dice, not hits: + 2
    r = warroom.roll("cwc.assault", attacker="infantry", defender="afv", attacker_support=2,
                     defender_open_topped=True, seed=3)
    att = next(s for s in r.steps if s.rule == "cwc.assault.hit")
    assert len(att.dice) == 7
    # the AFV in light cover, read as "in the open": no anti-armour bonus
    r = warroom.roll("cwc.assault", attacker="infantry", defender="afv",
                     defender_cover="light", open_afv_reading="in_open", seed=3)
    assert len(next(s for s in r.steps if s.rule == "cwc.assault.hit").dice) == 4
    with pytest.raises(UsageError):
        warroom.odds("cwc.assault", pursuit=True)


# ---------------------------------------------------------------- AA fire
def test_bkc_aa_fire() -> None:
    # 2 dice at 6: 0 hits 25/36, 1 hit 10/36, 2 hits 1/36 (shot down at hits value 2);
    # one hit: abort on 6 (1/6), else attack 4 - 1 = 3
    d = warroom.odds("bkc.aa_fire", attacks=2, hits_value=2, aircraft_attack=4)
    assert d.marginal("shot_down")[True] == F(1, 36)
    assert d.marginal("aborted")[True] == F(10, 36 * 6)
    assert d.marginal("attack_left") == {4: F(25, 36), 3: F(50, 216),
                                         0: F(1, 36) + F(10, 216)}


def test_cwc_aa_fire() -> None:
    # 2 dice at 5+: 0 hits 4/9, 1 hit 4/9, 2 hits 1/9; abort on 5+ (1/3)
    d = warroom.odds("cwc.aa_fire", attacks=2, hits_value=2, aircraft_attack=4)
    assert d.marginal("shot_down")[True] == F(1, 9)
    assert d.marginal("aborted")[True] == F(4, 27)
    # hits value 3: two hits, both abort rolls fail (4/9): attack 2
    d = warroom.odds("cwc.aa_fire", attacks=2, hits_value=3, aircraft_attack=4)
    assert d.probability(attack_left=2) == F(1, 9) * F(4, 9)


def test_dug_in_stays_put_unless_beyond_10cm() -> None:
    # as above, 2 hits (1/4) with 11 or 12 on 2d6 (3/36) still eliminate: 1/48;
    # any shorter retreat leaves it in place (retreat_cm 0)
    d = warroom.odds("bkc.fire", attacks=2, hits_value=5, suppressed=True, dug_in=True)
    assert d.marginal("destroyed")[True] == F(1, 48)
    assert set(d.marginal("retreat_cm")) == {0, 11, 12}


# ---------------------------------------------------------------- blunder attacks
@pytest.mark.parametrize("game", ["bkc", "cwc"])
def test_a_blunder_attacks_with_a_rolled_attack_value(game: str) -> None:
    # "roll a d6: the unit is attacked with that many dice, hit on 4+": n dice with chance
    # 1/6 each, all missing with (1/2)^n -> no hit 1/6 * (1/2 + ... + 1/64) = 21/128
    assert hit_chance(f"{game}.fire", attacks_roll="d6", hit_on=4) == 1 - F(21, 128)
    # the fixed score wins over the HQ's 6 and the cover's 5+
    assert hit_chance(f"{game}.fire", attacks_roll="d6", hit_on=4, target_hq=True) == \
        1 - F(21, 128)
    # 2d6 of dice: twelve hits need a 12 (1/36) and every die at 4+ (1/2^12)
    m = warroom.odds(f"{game}.fire", attacks_roll="2d6", hit_on=4, hits_value=10
                     ).marginal("hits")
    assert max(m) == 12 and m[12] == F(1, 36) * F(1, 2**12)
    # at 6: no hit from s dice is (5/6)^s, weighted by the 2d6 chance of s
    m = warroom.odds(f"{game}.fire", attacks_roll="2d6", hit_on=6, hits_value=10,
                     save=0).marginal("hits")
    assert m[0] == sum((F(6 - abs(7 - s), 36) * F(5, 6) ** s for s in range(2, 13)), F(0))


def test_a_rolled_attack_value_is_the_first_die() -> None:
    # d6 = 2 attack dice at 4+: 5 hits, 1 misses; one suppression die: 3, below 4
    r = warroom.roll("bkc.fire", {"attacks_roll": "d6", "hit_on": 4}, dice=[2, 5, 1, 3])
    assert r.outcome["hits"] == 1 and r.outcome["suppressed"] is False
    assert r.steps[0].to_dict()["text"] == "attack value d6: one die"
    with pytest.raises(UsageError):
        warroom.odds("bkc.fire", hit_on=1)
