"""Issue 20: rout of dug-in units, CWC rounds, open AFVs, several units firing together,
the card's restrictions as usage errors. Golden odds worked out by hand."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

import warroom
from warroom.errors import UsageError


def no_hit(proc: str, **params: object) -> F:
    return warroom.odds(proc, hits_value=10, **params).marginal("hits").get(0, F(0))


# ---------------------------------------------------------------- 1. rout (BKC and CWC)
def test_bkc_fortified_loser_cannot_rout() -> None:
    # engineers: 6 dice at 6 (fortified) -> 6,6,6,1,1,1 = 3 hits; infantry: 4 dice at 4+
    # -> 1,1,1,1 = 0 hits. The loser would retreat 3 cm, but in fortifications it cannot
    # rout: eliminated (BKC reference card, rout).
    r = warroom.roll("bkc.assault", attacker="engineers", defender_cover="fortified",
                     dice=[6, 6, 6, 1, 1, 1, 1, 1, 1, 1])
    assert r.outcome == {"winner": "attacker", "attacker_hits": 3, "defender_hits": 0,
                         "retreat_cm": 0, "result": "loser_eliminated"}
    # the same dice in plain cover: 3 cm retreat
    r = warroom.roll("bkc.assault", attacker="engineers", defender_cover="cover",
                     dice=[6, 6, 6, 1, 1, 1, 1, 1, 1, 1])
    assert r.outcome["result"] == "loser_retreats" and r.outcome["retreat_cm"] == 3


@pytest.mark.parametrize("game", ["bkc", "cwc"])
def test_dug_in_defender_that_loses_is_eliminated(game: str) -> None:
    # "other" against "other" (2 dice a side at 4+): the attacker wins 5/16 in one round
    # (1-0: 2*1/2*1/2 * 1/4 = 1/8; 2-0: 1/4 * 1/4 = 1/16; 2-1: 1/4 * 1/2 = 1/8). A dug-in
    # defender never retreats: every one of those wins eliminates it, while the
    # defender's own wins (5/16) only make the attacker retreat (BKC: 1 or 2 cm).
    rounds = {"max_rounds": 1} if game == "cwc" else {}
    d = warroom.odds(f"{game}.assault", attacker="other", defender="other",
                     defender_dug_in=True, **rounds)
    assert d.probability(winner="attacker", result="loser_eliminated") == F(5, 16)
    assert d.probability(winner="attacker", result="loser_retreats") == 0
    if game == "bkc":
        # without it the attacker's wins are 1 or 2 cm retreats
        d = warroom.odds("bkc.assault", attacker="other", defender="other")
        assert d.probability(winner="attacker", result="loser_retreats") == F(5, 16)


# ---------------------------------------------------------------- 2. CWC rounds
def test_cwc_equal_hits_fight_on_to_the_end() -> None:
    # one round: draw 3/8, each side wins 5/16 (1-0, 2-0, 2-1: all at least double).
    # Two rounds: a side wins 5/16 + 3/8 * 5/16 = 55/128; still equal (3/8)^2 = 9/64.
    d = warroom.odds("cwc.assault", attacker="other", defender="other", max_rounds=2)
    assert d.marginal("winner") == {"attacker": F(55, 128), "defender": F(55, 128),
                                    "draw": F(9, 64)}
    assert d.marginal("rounds") == {1: F(5, 8), 2: F(3, 8)}
    # ten rounds: still equal (3/8)^10; each side wins half the rest
    d = warroom.odds("cwc.assault", attacker="other", defender="other", max_rounds=10)
    left = F(3, 8) ** 10
    assert d.marginal("winner") == {"attacker": (1 - left) / 2, "defender": (1 - left) / 2,
                                    "draw": left}
    assert d.marginal("result")["another_round"] == left


def test_cwc_rounds_with_entered_dice() -> None:
    # infantry against infantry, 4 dice a side at 4+. Round 1: 4,1,1,1 and 4,1,1,1 = 1-1,
    # another round. Round 2: 4,4,1,1 and 1,1,1,1 = 2-0: double, the defender is
    # eliminated.
    r = warroom.roll("cwc.assault", dice=[4, 1, 1, 1, 4, 1, 1, 1, 4, 4, 1, 1, 1, 1, 1, 1])
    assert r.outcome == {"winner": "attacker", "attacker_hits": 2, "defender_hits": 0,
                         "retreat_cm": 0, "result": "loser_eliminated", "rounds": 2}
    texts = [s.to_dict()["text"] for s in r.steps]
    assert "round 1: equal hits, fight another round" in texts


# ---------------------------------------------------------------- 3. CWC open AFV
def test_cwc_open_afv_means_open_topped() -> None:
    # infantry (4 dice) against an AFV in the open: +1 only against an open-topped AFV
    # by default: 5 dice miss all with (1/2)^5 = 1/32; a closed AFV: 4 dice, 1/16.
    m = warroom.odds("cwc.assault", attacker="infantry", defender="afv", max_rounds=1,
                     defender_open_topped=True).marginal("attacker_hits")
    assert m[0] == F(1, 32)
    m = warroom.odds("cwc.assault", attacker="infantry", defender="afv",
                     max_rounds=1).marginal("attacker_hits")
    assert m[0] == F(1, 16)
    # the other reading: an AFV standing in open terrain gets the +1 (1/32)
    m = warroom.odds("cwc.assault", attacker="infantry", defender="afv", max_rounds=1,
                     open_afv_reading="in_open").marginal("attacker_hits")
    assert m[0] == F(1, 32)
    # BKC's bonus against armour has no such condition; the parameter is CWC's only
    with pytest.raises(UsageError):
        warroom.odds("bkc.assault", defender_open_topped=True)


# ---------------------------------------------------------------- 4. several units firing
@pytest.mark.parametrize("game", ["bkc", "cwc"])
def test_modifiers_apply_to_each_attacking_unit(game: str) -> None:
    # 3,3,3 at half range: 4 + 4 + 4 = 12 dice, the same fire as attacks=12
    many = warroom.odds(f"{game}.fire", attackers="3,3,3", half_range=True)
    assert many.weights == warroom.odds(f"{game}.fire", attacks=12).weights
    # two units of 1 at half range: 2 + 2 = 4 dice, all missing (1/2)^4 = 1/16;
    # one unit of 2: 3 dice, 1/8
    assert no_hit(f"{game}.fire", attackers="1,1", half_range=True) == F(1, 16)
    assert no_hit(f"{game}.fire", attacks=2, half_range=True) == F(1, 8)
    # a unit of 0 still fires one die at half range, flank: 0+2 and 1+2 = 5 dice
    assert no_hit(f"{game}.fire", attackers="0,1", half_range=True, flank=True) == F(1, 32)


def test_sixty_attack_dice() -> None:
    # 60 dice at 6 (fortified), none hits: (5/6)^60
    assert no_hit("bkc.fire", attacks=60, cover="fortified") == F(5, 6) ** 60
    assert no_hit("bkc.fire", attackers="20,20,20", cover="fortified") == F(5, 6) ** 60
    with pytest.raises(UsageError):
        warroom.odds("bkc.fire", attackers="30,30,1")
    with pytest.raises(UsageError):
        warroom.odds("bkc.fire", attackers="3,3", attacks=6)
    with pytest.raises(UsageError):
        warroom.odds("cwc.fire", attackers="3,x")
    with pytest.raises(UsageError):
        warroom.odds("cwc.fire", attackers="3,3", attacks_roll="d6")


def test_assault_supporters_up_to_ten() -> None:
    # BKC: each supporter adds a hit. "other" (2 dice) with 10 supporters against "other"
    # with none: the attacker scores at least 10, the defender at most 2: always wins,
    # by 8 or more (a retreat of 8 to 12 cm); beyond 10 cm only when the attacker's
    # 10 + a - b > 10, i.e. a > b: P = 5/16 (one round, as above)
    d = warroom.odds("bkc.assault", attacker="other", defender="other", attacker_support=10)
    assert d.marginal("winner") == {"attacker": F(1)}
    assert d.marginal("result")["loser_eliminated"] == F(5, 16)


# ---------------------------------------------------------------- 6. restrictions
@pytest.mark.parametrize(("proc", "params"), [
    # armour assaulting outside open terrain without infantry on board
    ("bkc.assault", {"attacker": "armour", "defender_cover": "cover"}),
    ("cwc.assault", {"attacker": "afv", "defender_cover": "light"}),
    # carrying infantry is for armour only
    ("bkc.assault", {"attacker": "infantry", "attacker_carries_infantry": True}),
    # armour in the open cannot be pursued; a pursuit distance needs a pursuit
    ("bkc.assault", {"defender": "armour", "pursuit": True}),
    ("bkc.assault", {"pursuit_cm": 6}),
    # open_topped describes an AFV
    ("cwc.assault", {"defender": "infantry", "defender_open_topped": True}),
    # more rocket or naval units than units ordered; rocket fire without rocket units
    ("bkc.artillery_call", {"units": 2, "rocket_naval_units": 3}),
    ("cwc.artillery_call", {"units": 1, "rocket_naval_units": 2}),
    ("bkc.artillery_call", {"rockets": True}),
    ("cwc.artillery_call", {"rockets": True}),
])
def test_card_restrictions_are_usage_errors(proc: str, params: dict[str, object]) -> None:
    with pytest.raises(UsageError):
        warroom.odds(proc, **params)


def test_allowed_cases_stay_allowed() -> None:
    # armour carrying infantry may assault into cover; armour in cover may be pursued
    assert warroom.odds("bkc.assault", attacker="armour", defender_cover="cover",
                        attacker_carries_infantry=True).total() == 1
    assert warroom.odds("bkc.assault", defender="armour", defender_cover="cover",
                        pursuit=True).total() == 1
    assert warroom.odds("cwc.assault", attacker="ifv_with_infantry", defender_cover="heavy",
                        max_rounds=1).total() == 1
    # two rocket units among three, firing rockets: CV 8 - 1 (the second rocket unit)
    (cv,) = warroom.odds("bkc.artillery_call", units=3, rocket_naval_units=2,
                         rockets=True).marginal("modified_cv")
    assert cv == 7


def test_cli_restriction_exits_2() -> None:
    from warroom.cli import main

    assert main(["odds", "cwc.artillery_call", "rockets=true"]) == 2


# ---------------------------------------------------------------- 5. chains
def test_cwc_air_strike_chain() -> None:
    # CV 12: the call passes unless 6,6 (35/36). AA: 1 die at 5+ (1/3) shoots down an
    # aircraft of hits value 1; otherwise (2/3) it attacks with 1 die at 4+ (1/2), and
    # any hit destroys a unit of hits value 1: 35/36 * 2/3 * 1/2 = 35/108
    base = {"cv": 12, "aa_attacks": 1, "aircraft_hits_value": 1, "aircraft_attack": 1,
            "hits_value": 1}
    d = warroom.odds("cwc.air_strike", **base)
    assert d.marginal("destroyed")[True] == F(35, 108)
    assert d.marginal("shot_down")[True] == F(35, 36) * F(1, 3)
    # one chosen target counts the attack double: 2 dice, 3/4 -> 35/36 * 2/3 * 3/4
    d = warroom.odds("cwc.air_strike", **base, one_target=True)
    assert d.marginal("destroyed")[True] == F(35, 72)


def test_cwc_air_strike_abort_and_attack_left() -> None:
    # hits value 2, attack 2: an AA hit (1/3) leaves it flying; its abort roll (5+, 1/3)
    # ends the mission, else it attacks with 2 - 1 = 1. No AA hit (2/3): attack 2.
    # The blunder (1/36) brings no strike.
    d = warroom.odds("cwc.air_strike", cv=12, aa_attacks=1, aircraft_hits_value=2,
                     aircraft_attack=2)
    passed = F(35, 36)
    assert d.marginal("attack_left") == {0: F(1, 36) + passed * F(1, 9),
                                         1: passed * F(2, 9), 2: passed * F(2, 3)}
    assert d.marginal("aborted")[True] == passed * F(1, 9)


def test_bkc_air_strike_chain() -> None:
    # BKC AA hits on 6: shot down 1/6; else 1 die at 4+: 35/36 * 5/6 * 1/2 = 175/432
    d = warroom.odds("bkc.air_strike", cv=12, aa_attacks=1, aircraft_hits_value=1,
                     aircraft_attack=1, hits_value=1)
    assert d.marginal("destroyed")[True] == F(175, 432)
    # fighter-bombers worsen an armoured target's save 4+ to 5+ (fails 2/3):
    # 35/36 * 1/2 * 2/3 = 35/108; bombers do not (fails 1/2): 35/144
    tank = {"cv": 12, "aircraft_attack": 1, "armoured": True, "save": 4, "hits_value": 1}
    assert warroom.odds("bkc.air_strike", **tank).marginal("destroyed")[True] == F(35, 108)
    assert warroom.odds("bkc.air_strike", **tank, bombers=True
                        ).marginal("destroyed")[True] == F(35, 144)
    # bombers cannot roll twice at one target
    with pytest.raises(UsageError):
        warroom.odds("bkc.air_strike", bombers=True, one_target=True)


def test_air_strike_failed_call_brings_nothing() -> None:
    # CV 2: only 1,1 passes (1/36); the rest fails or blunders, with no AA and no strike
    d = warroom.odds("cwc.air_strike", cv=2, aircraft_attack=6, hits_value=1)
    assert d.marginal("attack_left")[0] == F(35, 36)
    assert d.marginal("destroyed")[True] == F(1, 36) * (1 - F(1, 2) ** 6)


def test_cwc_crossfire_one_roll_for_three_units() -> None:
    # three units in heavy cover (6 to hit), hits value 1: with s attack dice each is
    # destroyed with 1 - (5/6)^s, independently once s is known; s is ONE 2d6 roll
    d = warroom.odds("cwc.crossfire", targets="heavy,heavy,heavy", hits_value=1)
    two_d6 = {s: F(6 - abs(7 - s), 36) for s in range(2, 13)}
    assert d.marginal("destroyed")[3] == sum(
        (p * (1 - F(5, 6) ** s) ** 3 for s, p in two_d6.items()), F(0))
    assert d.marginal("destroyed")[0] == sum(
        (p * F(5, 6) ** (3 * s) for s, p in two_d6.items()), F(0))
    assert d.marginal("attacks") == two_d6


def test_crossfire_with_entered_dice() -> None:
    # 2d6 = 1 + 1: two dice for each unit. Open: 6,1 one hit, hits value 1, destroyed;
    # light: 1,1 none; heavy: 5,5 none (needs 6)
    r = warroom.roll("cwc.crossfire", targets="open,light,heavy", hits_value=1,
                     dice=[1, 1, 6, 1, 1, 1, 5, 5])
    assert r.outcome == {"attacks": 2, "destroyed": 1, "suppressed": 0}
    # a unit that already acted takes its hits without a suppression test
    r = warroom.roll("cwc.crossfire", targets="open:acted,open,open",
                     dice=[1, 1, 4, 4, 1, 1, 1, 1])
    assert r.outcome == {"attacks": 2, "destroyed": 0, "suppressed": 0}
    # BKC: always 3 dice; 6,6,6 on a unit in the open, hits value 3: destroyed
    r = warroom.roll("bkc.crossfire", dice=[6, 6, 6, 1, 1, 1, 1, 1, 1])
    assert r.outcome == {"attacks": 3, "destroyed": 1, "suppressed": 0}
    with pytest.raises(UsageError):
        warroom.odds("bkc.crossfire", targets="open:acted,open,open")
    with pytest.raises(UsageError):
        warroom.odds("cwc.crossfire", targets="open,open")


def test_cwc_rounds_with_saves_against_a_formula() -> None:
    # infantry against infantry, the defender saving on 5+: per die the attacker's
    # unsaved hit is 1/2 * 2/3 = 1/3, so its hits are Binomial(4, 1/3); the defender's
    # Binomial(4, 1/2). One round: draw q = sum P_a(k) P_d(k); the attacker wins w (more
    # hits). Over N rounds of draws it wins w (1 + q + ... + q^(N-1)).
    from math import comb

    def binom(n: int, p: F) -> list[F]:
        return [comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)]

    pa, pd = binom(4, F(1, 3)), binom(4, F(1, 2))
    q = sum((pa[k] * pd[k] for k in range(5)), F(0))
    w = sum((pa[i] * pd[j] for i in range(5) for j in range(5) if i > j), F(0))
    d = warroom.odds("cwc.assault", defender_save=5, max_rounds=3)
    assert d.marginal("winner")["attacker"] == w * (1 + q + q**2)
    assert d.marginal("winner")["draw"] == q**3
    assert d.marginal("rounds")[3] == q**2


def test_cwc_charge_counts_in_the_first_round_only_by_default() -> None:
    # "other" charging "other": round 1 is 3 dice against 2, later rounds 2 against 2.
    # Round 1 draw: sum_k C(3,k) C(2,k) / 32 = (1 + 6 + 3) / 32 = 10/32 = 5/16.
    # Round 2 (2 against 2): the attacker wins 5/16 (see above).
    d = warroom.odds("cwc.assault", attacker="other", defender="other", charge=True,
                     max_rounds=2)
    assert d.probability(rounds=2, winner="attacker") == F(5, 16) * F(5, 16)
    # with charge_every_round, round 2 is 3 against 2 again: the attacker wins
    # (3 vs any: 1/8) + (2 vs 0 or 1: 3/8*3/4) + (1 vs 0: 3/8*1/4) = (4 + 9 + 3)/32 = 1/2
    d = warroom.odds("cwc.assault", attacker="other", defender="other", charge=True,
                     max_rounds=2, charge_every_round=True)
    assert d.probability(rounds=2, winner="attacker") == F(5, 16) * F(1, 2)


# ------------------------------------------------- restrictions the parameters can show
@pytest.mark.parametrize("game", ["bkc", "cwc"])
def test_fire_modifiers_the_target_rules_out_are_usage_errors(game: str) -> None:
    # the +1 for an AFV firing at an unarmoured target within 20 cm cannot apply to an
    # armoured target; open-topped describes an armoured one (BKC/CWC reference card,
    # fire modifiers and hit scores)
    with pytest.raises(UsageError, match="this target is armoured"):
        warroom.odds(f"{game}.fire", afv_vs_soft_20=True, armoured=True)
    with pytest.raises(UsageError, match="armoured=true"):
        warroom.odds(f"{game}.fire", open_topped=True)
    # what the card allows still answers: 3 dice at 4+ plus 1 for the AFV = 4 dice, no
    # hit (1/2)^4 = 1/16
    assert no_hit(f"{game}.fire", attacks=3, afv_vs_soft_20=True) == F(1, 16)
