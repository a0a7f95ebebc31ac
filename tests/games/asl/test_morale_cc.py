"""asl.mc, asl.leader_wound, asl.cct and asl.ambush against odds worked out by hand."""

from __future__ import annotations

from fractions import Fraction as F
from typing import Any

import pytest

import warroom
from warroom.errors import UsageError

MC_FIELDS = ("passed", "broken", "casualty_reduction", "eliminated", "replaced", "pinned")
# ways of rolling a total of at most n on 2d6 (out of 36)
AT_MOST = {-1: 0, 0: 0, 1: 0, 2: 1, 3: 3, 4: 6, 5: 10, 6: 15, 7: 21, 8: 26, 9: 30, 10: 33,
           11: 35, 12: 36, 13: 36}


def mc(**params: Any) -> dict[tuple[bool, ...], F]:
    dist = warroom.odds("asl.mc", **params)
    return {tuple(o[f] for f in MC_FIELDS): p for o, p in dist.items()}


# (passed, broken, casualty_reduction, eliminated, replaced, pinned)
PASS = (True, False, False, False, False, False)
PASS_PIN = (True, False, False, False, False, True)
BREAK = (False, True, False, False, False, False)
BREAK_CR = (False, True, True, False, False, False)


def test_good_order_mc() -> None:
    # morale 7: totals 2-6 pass (15 ways); 7 passes but pins, final DR = morale (6 ways,
    # ASLRB A7.8: 1/6); 8-11 break (14); 12 breaks with casualty reduction (1)
    assert mc(morale=7) == {PASS: F(15, 36), PASS_PIN: F(6, 36), BREAK: F(14, 36),
                            BREAK_CR: F(1, 36)}


def test_original_12_on_an_unbroken_unit_fails_even_if_the_final_dr_passes() -> None:
    # morale 10, DRM -3: every final DR passes except that an original 12 always fails
    # (total 13 never comes, so no final DR equals 10: no pins)
    assert mc(morale=10, drm=-3) == {PASS: F(35, 36), BREAK_CR: F(1, 36)}


def test_broken_unit_mc() -> None:
    # broken, morale 7: pass 21; fail (8-11, 14 ways) casualty reduction; 12 eliminated
    assert mc(morale=7, broken=True) == {
        (True, True, False, False, False, False): F(21, 36),
        (False, True, True, False, False, False): F(14, 36),
        (False, False, False, True, False, False): F(1, 36),
    }
    # original 12 on a broken unit is elimination even when the final DR would pass
    assert mc(morale=10, drm=-3, broken=True)[(False, False, False, True, False, False)] \
        == F(1, 36)


def test_elr_substitution() -> None:
    # morale 7, ELR 1: failing by more than 1 (final 9+) means replacement:
    # 8 (5 ways) breaks only; 9-11 (4+3+2 = 9) replaced and broken; 12 replaced, broken
    # and casualty reduction
    assert mc(morale=7, elr=1) == {
        PASS: F(15, 36), PASS_PIN: F(6, 36),
        BREAK: F(5, 36),
        (False, True, False, False, True, False): F(9, 36),
        (False, True, True, False, True, False): F(1, 36),
    }
    # ELR 0: every failure is a replacement (15 of 36)
    assert warroom.odds("asl.mc", morale=7, elr=0).probability(replaced=True) == F(15, 36)
    # a broken unit is never replaced
    assert warroom.odds("asl.mc", morale=7, elr=0, broken=True).probability(
        replaced=True) == 0


def test_ptc() -> None:
    # morale 7, +1: pass when the total is 6 or less (15 ways), otherwise pinned (21)
    assert mc(morale=7, drm=1, kind="ptc") == {
        PASS: F(15, 36), (False, False, False, False, False, True): F(21, 36)}
    # a broken unit takes no PTC
    assert mc(morale=7, kind="ptc", broken=True) == {
        (True, True, False, False, False, False): F(1)}


def test_mc_story() -> None:
    r = warroom.roll("asl.mc", {"morale": 7, "drm": 1}, dice=[6, 6])
    assert r.outcome == {"passed": False, "broken": True, "casualty_reduction": True,
                         "eliminated": False, "replaced": False, "pinned": False}
    text = " ".join(str(s.result) for s in r.steps if s.result)
    assert "original 12" in text and "breaks" in text


def test_leader_wound() -> None:
    # dr 1-4 wounded, 5-6 killed: 1/3
    assert warroom.odds("asl.leader_wound").probability(killed=True) == F(1, 3)
    # already wounded: +1, so 4-6 kill: 1/2
    assert warroom.odds("asl.leader_wound", wounded=True).probability(killed=True) == F(1, 2)


def test_leader_loss_mc() -> None:
    # a 9-2 (morale 9) dies (1/3); his morale-7 men take an LLMC at +2: pass on totals
    # 2-4 (6 of 36), pinned on 5 (final 7 = morale, 4 ways), break on 6-12 (26), the 12
    # also casualty reduction
    dist = warroom.odds("asl.leader_wound", morale=9, leader_drm=-2, unit_morale=7)
    assert dist.probability(llmc="none") == F(2, 3)
    assert dist.probability(llmc="passed") == F(1, 3) * F(6, 36)
    assert dist.probability(llmc="pinned") == F(1, 3) * F(4, 36)
    assert dist.probability(llmc="failed", units_broken=True) == F(1, 3) * F(26, 36)
    assert dist.probability(units_casualty_reduction=True) == F(1, 3) * F(1, 36)
    # at the table: dr 5 kills him, then the LLMC 3+4 = 7, +2 = 9 > 7
    r = warroom.roll("asl.leader_wound", {"morale": 9, "leader_drm": -2, "unit_morale": 7},
                     dice=[5, 3, 4])
    assert r.outcome["killed"] and r.outcome["llmc"] == "failed"
    assert r.outcome["units_broken"]
    # the story shows the wound die itself
    assert any(s.dice == (5,) for s in r.steps if s.rule == "asl.leader_wound")
    # A10.2: only units of lower morale than the leader take it: an 8-1's death leaves
    # morale-8 men alone
    same = warroom.odds("asl.leader_wound", morale=8, unit_morale=8)
    assert same.marginal("llmc") == {"none": F(1)}


@pytest.mark.parametrize(("attack", "defense", "odds", "kill"), [
    (1, 9, "<1-8", 0), (1, 8, "1-8", 1), (1, 6, "1-6", 2), (1, 4, "1-4", 3),
    (1, 2, "1-2", 4), (4, 4, "1-1", 5), (3, 2, "3-2", 6), (2, 1, "2-1", 7),
    (3, 1, "3-1", 8), (4, 1, "4-1", 9), (6, 1, "6-1", 10), (8, 1, "8-1", 11),
    (10, 1, "10-1", 12), (12, 1, ">10-1", 13),
])
def test_every_cct_column(attack: int, defense: int, odds: str, kill: int) -> None:
    # A11.11: eliminated when the DR is less than the kill number (AT_MOST[kill - 1]
    # ways of 36), a Partial Kill when equal (the ways of rolling exactly kill)
    dist = warroom.odds("asl.cct", attack_fp=attack, defense_fp=defense)
    assert dist.marginal("odds") == {odds: F(1)}
    assert dist.marginal("kill_number") == {kill: F(1)}
    assert dist.probability(eliminated=True) == F(AT_MOST[kill - 1], 36)
    assert dist.probability(partial_kill=True) == F(AT_MOST[kill] - AT_MOST[kill - 1], 36)


def test_cct_odds_round_down_and_pinned_halves() -> None:
    # 5 against 4 is 1.25: rounded down to 1-1
    assert warroom.odds("asl.cct", attack_fp=5, defense_fp=4).marginal("odds") == {
        "1-1": F(1)}
    # pinned attacker: 6 -> 3 against 4 = 0.75 -> 1-2, kill 4: 6 of 36
    dist = warroom.odds("asl.cct", attack_fp=6, defense_fp=4, pinned="attacker")
    assert dist.marginal("odds") == {"1-2": F(1)}
    assert dist.probability(eliminated=True) == F(3, 36)  # totals 2-3 below 4
    # A7.8: a pinned defender keeps its FP: 4 against 4 stays 1-1
    assert warroom.odds("asl.cct", attack_fp=4, defense_fp=4,
                        pinned="defender").marginal("odds") == {"1-1": F(1)}


def test_cct_numbers_of_issue_19() -> None:
    # A11.11, 4 against 4 is 1-1, kill number 5: a DR below 5 (totals 2-4, 6 of 36)
    # eliminates, 1/6; exactly 5 (4 of 36) is a Partial Kill, 1/9
    dist = warroom.odds("asl.cct", attack_fp=4, defense_fp=4)
    assert dist.probability(eliminated=True) == F(1, 6)
    assert dist.probability(partial_kill=True) == F(1, 9)
    # A11.1, 21 against 2 is 10.5-1: rounded down, 10-1 (not >10-1), kill number 12:
    # totals 2-11 eliminate (35 of 36), 12 is a Partial Kill (1 of 36)
    dist = warroom.odds("asl.cct", attack_fp=21, defense_fp=2)
    assert dist.marginal("odds") == {"10-1": F(1)}
    assert dist.marginal("kill_number") == {12: F(1)}
    assert dist.probability(eliminated=True) == F(35, 36)
    assert dist.probability(partial_kill=True) == F(1, 36)
    # an attack of 0 FP cannot kill, not even in part
    dist = warroom.odds("asl.cct", attack_fp=0, defense_fp=2)
    assert dist.probability(eliminated=False, partial_kill=False) == F(1)
    # counters: 4-6-7 + 4-6-7 = 8 FP against a 4-4-7 (4): 2-1, kill 7; the 8-1's -1
    # makes totals 2-7 (21 of 36) a kill and 8 (5 of 36) a Partial Kill
    dist = warroom.odds("asl.cct", attackers="4-6-7,4-6-7,8-1", defenders="4-4-7")
    assert dist.marginal("odds") == {"2-1": F(1)}
    assert dist.probability(eliminated=True) == F(21, 36)
    assert dist.probability(partial_kill=True) == F(5, 36)


def test_cct_drm() -> None:
    # 1-1 (kill 5). Ambusher -1, attacking broken -2, CX attacker +1, leader -1,
    # inexperienced +1 (the card variant): total -2, so totals up to 6 (final < 5) kill:
    # 15 of 36
    dist = warroom.odds("asl.cct", attack_fp=4, defense_fp=4, ambush="attacker",
                        attacking_broken=True, cx="attacker", leader_drm=-1,
                        inexperienced=True)
    assert dist.probability(eliminated=True) == F(15, 36)
    # attacking a CX defender -1: totals up to 5, 10 of 36; ambushed +1: up to 3, 3 of 36
    assert warroom.odds("asl.cct", cx="defender").probability(eliminated=True) == F(10, 36)
    assert warroom.odds("asl.cct", ambush="defender").probability(eliminated=True) == F(
        3, 36)


def test_ambush() -> None:
    # no modifiers: the attacker ambushes when its dr is 3+ lower: (1,4) (1,5) (1,6)
    # (2,5) (2,6) (3,6) = 6 of 36; the same for the defender
    dist = warroom.odds("asl.ambush")
    assert dist.marginal("ambush") == {"attacker": F(6, 36), "defender": F(6, 36),
                                       "none": F(24, 36)}
    # attacker pinned and CX (+2): it ambushes only with 1 against 6 (1 of 36); the
    # defender ambushes whenever the attacker's dr is higher (15 of 36)
    dist = warroom.odds("asl.ambush", attacker_pinned=True, attacker_cx=True)
    assert dist.marginal("ambush") == {"attacker": F(1, 36), "defender": F(15, 36),
                                       "none": F(20, 36)}


@pytest.mark.parametrize(("proc", "params"), [
    ("asl.mc", {"morale": 11}),
    ("asl.mc", {"kind": "nmc"}),
    ("asl.cct", {"defense_fp": 0}),
    ("asl.cct", {"pinned": "nobody"}),
    ("asl.leader_wound", {"leader_drm": 3}),
])
def test_bad_parameters(proc: str, params: dict[str, Any]) -> None:
    with pytest.raises(UsageError):
        warroom.odds(proc, **params)


def test_cct_yes_means_the_attacker() -> None:
    # pinned=true: the attacker is pinned (6 -> 3 against 4: 1-2)
    assert warroom.odds("asl.cct", attack_fp=6, defense_fp=4, pinned=True).marginal(
        "odds") == {"1-2": F(1)}
    # cx=yes: a CX attacker +1 at 1-1 (kill 5): final below 5 on totals up to 3, 3 of 36
    assert warroom.odds("asl.cct", cx="yes").probability(eliminated=True) == F(3, 36)
    # ambush=no: no modifier, totals up to 4: 6 of 36
    assert warroom.odds("asl.cct", ambush="no").probability(eliminated=True) == F(6, 36)


@pytest.mark.parametrize(("params", "where"), [
    ({"attackers": "4-6-7,9-9", "defenders": "4-4-7"}, "attackers"),
    ({"attackers": "4-6-7", "defenders": "4-4-x"}, "defenders"),
])
def test_bad_counters_in_cc_name_their_parameter(params: dict[str, Any], where: str,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    # one line, exit 2, the parameter named, no "(allowed: text)" that says nothing
    from warroom.cli import main

    assert main(["odds", "asl.cct", *(f"{k}={v}" for k, v in params.items())]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"error: parameter '{where}'") and "\n" not in err
    assert "allowed" not in err
