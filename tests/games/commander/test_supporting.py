"""Supporting units in BKC/CWC assaults one by one (issue 20): each with its own type
and state (attacker_supporting=infantry,afv:suppressed). Golden odds worked out by hand."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

import warroom
from warroom.errors import UsageError

SMALL = {"attacker": "other", "defender": "other"}  # 2 dice a side, hit on 4+ (open)


@pytest.mark.parametrize(("game", "units"), [("bkc", "infantry,armour"),
                                             ("cwc", "engineers,afv")])
def test_on_the_card_each_supporter_adds_the_same(game: str, units: str) -> None:
    # the card: a supporting unit adds one hit (BKC) or one attack die (CWC), whatever
    # its type; listing two is the same fight as attacker_support=2
    rounds = {"max_rounds": 2} if game == "cwc" else {}
    listed = warroom.odds(f"{game}.assault", attacker_supporting=units, **SMALL, **rounds)
    counted = warroom.odds(f"{game}.assault", attacker_support=2, **SMALL, **rounds)
    assert {o: F(w, listed.denominator) for o, w in listed.weights.items()} == \
        {o: F(w, counted.denominator) for o, w in counted.weights.items()}


def test_bkc_each_supporting_unit_fights_with_its_own_modifiers() -> None:
    # support_reading=each_fights: the supporter "other" (2) is suppressed (-1): 1 die,
    # joining the attacker's 2: A ~ Bin(3, 1/2) against D ~ Bin(2, 1/2), all at 4+.
    # draw = 1/8*1/4 + 3/8*2/4 + 3/8*1/4 = 10/32 = 5/16
    # attacker wins: A=1,D=0 3/8*1/4 + A=2,D<=1 3/8*3/4 + A=3 1/8 = 3/32+9/32+4/32 = 1/2
    d = warroom.odds("bkc.assault", attacker_supporting="other:suppressed",
                     support_reading="each_fights", **SMALL)
    assert d.marginal("winner") == {"attacker": F(1, 2), "defender": F(3, 16),
                                    "draw": F(5, 16)}
    # on the card the same supporter is a sure extra hit: A = 1 + Bin(2, 1/2) against
    # Bin(2, 1/2): draw only 1-1 or 2-2 with the attacker rolling one hit fewer:
    # P(a = k - 1) P(D = k): k=1: 1/4*1/2, k=2: 1/2*1/4 -> 1/4
    d = warroom.odds("bkc.assault", attacker_supporting="other", **SMALL)
    assert d.marginal("winner")["draw"] == F(1, 4)


def test_cwc_each_supporting_unit_fights_with_its_own_modifiers() -> None:
    # the supporter is infantry (4), suppressed (-1) and flanked (-1): 2 dice, with the
    # attacker's 2: A ~ Bin(4, 1/2) against D ~ Bin(2, 1/2), one round.
    # draw = 1/16*1/4 + 4/16*2/4 + 6/16*1/4 = 1/64 + 8/64 + 6/64 = 15/64
    d = warroom.odds("cwc.assault", attacker_supporting="infantry:suppressed:flanked",
                     support_reading="each_fights", max_rounds=1, **SMALL)
    assert d.marginal("winner")["draw"] == F(15, 64)
    # on the card it adds one die: Bin(3, 1/2) against Bin(2, 1/2): 10/32 = 20/64
    d = warroom.odds("cwc.assault", attacker_supporting="infantry", max_rounds=1, **SMALL)
    assert d.marginal("winner")["draw"] == F(20, 64)


def test_a_supporter_against_an_open_afv_takes_the_infantry_bonus() -> None:
    # CWC, each_fights: infantry supporting "other" against an open-topped AFV: 4 + 1 = 5
    # dice join the attacker's 2; the defender, an AFV, rolls 3. Entered dice: 7 then 3.
    r = warroom.roll("cwc.assault", attacker="other", defender="afv",
                     defender_open_topped=True, attacker_supporting="infantry",
                     support_reading="each_fights", max_rounds=1,
                     dice=[4, 4, 4, 4, 1, 1, 1, 6, 6, 1])
    hits = [s for s in r.steps if s.rule == "cwc.assault.hit" and s.dice]
    assert [len(s.dice) for s in hits] == [7, 3]
    # 4 hits against 2: double, the defender is eliminated
    assert r.outcome["attacker_hits"] == 4 and r.outcome["result"] == "loser_eliminated"


@pytest.mark.parametrize(("game", "params", "says"), [
    # CWC reference card, assault: any unit with an attack value, not HQs, recce or
    # snipers, within 10 cm and in sight may support
    ("cwc", {"attacker_supporting": "infantry:hq"}, "HQs cannot support"),
    ("cwc", {"defender_supporting": "infantry,afv:recce"}, "recce units cannot support"),
    ("cwc", {"attacker_supporting": "infantry:sniper"}, "snipers cannot support"),
    ("cwc", {"attacker_supporting": "infantry:far"}, "within 10 cm"),
    ("cwc", {"attacker_supporting": "afv:unseen"}, "line of sight"),
    ("bkc", {"attacker_supporting": "tank"}, "the type is one of"),
    ("bkc", {"attacker_supporting": "infantry:far"}, "is not one of"),
    ("bkc", {"attacker_supporting": "infantry", "attacker_support": 1}, "not both"),
    ("bkc", {"attacker_supporting": "infantry:suppressed"}, "each_fights"),
    ("cwc", {"attacker_supporting": ",".join(["infantry"] * 11)}, "at most 10"),
])
def test_who_may_not_support_is_a_usage_error(game: str, params: dict[str, object],
                                              says: str) -> None:
    with pytest.raises(UsageError, match=says):
        warroom.odds(f"{game}.assault", **params)


def test_many_supporters_fighting_are_refused_exact_at_once() -> None:
    # six engineers fighting beside each side's engineers: 62 dice a side over up to
    # 10 rounds would take seconds; the cost estimate refuses exact odds before any
    # work (the product gives the estimate instead), and four a side still answer
    from warroom.errors import ExactTooLargeError

    six = ",".join(["engineers"] * 6)
    with pytest.raises(ExactTooLargeError):
        warroom.odds("cwc.assault", attacker="engineers", defender="engineers",
                     attacker_supporting=six, defender_supporting=six,
                     support_reading="each_fights", exact=True)
    one = warroom.odds("cwc.assault", attacker_supporting="engineers",
                       support_reading="each_fights", max_rounds=2)
    assert one.total() == 1
