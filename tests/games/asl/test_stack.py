"""asl.ift_on_stack: IFT results on a location's units, odds worked out by hand."""

from __future__ import annotations

from fractions import Fraction as F
from typing import Any

import pytest

import warroom
from tests.helpers import replay_oracle
from warroom.errors import UsageError


def states(result: str, units: str, **params: Any) -> dict[str, F]:
    return warroom.odds("asl.ift_on_stack", result=result, units=units,
                        **params).marginal("units")


def test_nmc_on_one_squad_is_a_plain_mc() -> None:
    # morale 7: pass 21, break 14, original 12 breaks and reduces to a half-squad
    assert states("NMC", "squad:7") == {"squad1=ok": F(21, 36), "squad1=broken": F(14, 36),
                                        "squad1=reduced+broken": F(1, 36)}


def test_best_leader_first_and_his_drm_for_the_others() -> None:
    dist = states("NMC", "squad:7,leader:8:-1")
    # leader passes (totals 2-8: 26 of 36); then the squad checks at -1 (2-8: 26)
    assert dist["squad1=ok,leader1=ok"] == F(26, 36) * F(26, 36)
    # leader breaks (9-11: 9 of 36): no help, the squad passes on 2-7 (21)
    assert dist["squad1=ok,leader1=broken"] == F(9, 36) * F(21, 36)
    # leader rolls 12: breaks, casualty reduction, his wound dr kills him on 5-6 (1/3).
    # The squad first takes a Leader Loss MC at +1 (his -1 reversed): passes on 2-6
    # (15), breaks on 7-11 (20), 12 reduces it. Then its NMC with no leader:
    #   after passing the LLMC it ends broken on 8-11 (14 of 36);
    #   already broken by the LLMC it stays merely broken if it passes (2-7, 21 of 36)
    # broken in the end: 15/36 * 14/36 + 20/36 * 21/36 = 630/1296 = 35/72
    assert dist["squad1=broken,leader1=eliminated"] == F(1, 36) * F(1, 3) * F(35, 72)
    assert sum(dist.values()) == 1


def test_nmc_with_the_mc_modifier() -> None:
    # 2MC on a morale-7 squad: passes on totals 2-5 (10 of 36)
    assert states("2MC", "squad:7")["squad1=ok"] == F(10, 36)


def test_kia_eliminates_at_random_and_breaks_the_rest() -> None:
    # 1KIA on two units: either is eliminated (1/2); the other breaks
    assert states("1KIA", "squad:7,hs:6") == {
        "squad1=eliminated,hs1=broken": F(1, 2),
        "squad1=broken,hs1=eliminated": F(1, 2)}
    # a survivor that was already broken suffers casualty reduction: a broken HS dies
    assert states("1KIA", "squad:7,hs:6:broken") == {
        "squad1=eliminated,hs1=eliminated": F(1, 2),
        "squad1=broken,hs1=eliminated": F(1, 2)}
    # more KIA than units: everything is eliminated
    dist = warroom.odds("asl.ift_on_stack", result="3KIA", units="squad:7,hs:6")
    assert dist.marginal("eliminated") == {2: F(1)}


def test_kia_picks_among_three() -> None:
    # 2KIA on three units: the survivor is each unit with chance 1/3
    dist = states("2KIA", "squad:7,squad:6,hs:6")
    assert dist == {
        "squad1=broken,squad2=eliminated,hs1=eliminated": F(1, 3),
        "squad1=eliminated,squad2=broken,hs1=eliminated": F(1, 3),
        "squad1=eliminated,squad2=eliminated,hs1=broken": F(1, 3)}


def test_k_result() -> None:
    dist = states("K/1", "squad:7,hs:6")
    # the squad is picked (1/2): it becomes a HS and, like the HS, checks at +1:
    # squad (morale 7) passes on 2-6 (15 of 36), HS (morale 6) on 2-5 (10 of 36)
    assert dist["squad1=reduced,hs1=ok"] == F(1, 2) * F(15, 36) * F(10, 36)
    # the HS is picked (1/2): eliminated; the squad passes its MC +1 on 2-6
    assert dist["squad1=ok,hs1=eliminated"] == F(1, 2) * F(15, 36)
    assert sum(dist.values()) == 1


def test_leader_casualty_rolls_for_his_wound() -> None:
    # K/1 on a lone leader: he is the casualty; dr 1-4 wounded, 5-6 killed
    assert states("K/1", "leader:8:-1") == {"leader1=wounded": F(2, 3),
                                            "leader1=eliminated": F(1, 3)}
    # already wounded: killed on 4-6
    assert states("K/1", "leader:8:-1:wounded") == {"leader1=wounded": F(1, 2),
                                                    "leader1=eliminated": F(1, 2)}


def test_elr_in_a_stack() -> None:
    # ELR 0: any failure is a replacement too
    assert states("NMC", "squad:7:0") == {
        "squad1=ok": F(21, 36), "squad1=replaced+broken": F(14, 36),
        "squad1=reduced+replaced+broken": F(1, 36)}


def test_ptc_on_a_stack() -> None:
    # the good-order squad pins on 8+ (15 of 36); the broken HS takes no PTC
    dist = warroom.odds("asl.ift_on_stack", result="PTC", units="squad:7,hs:6:broken")
    assert dist.marginal("units") == {"squad1=ok,hs1=broken": F(21, 36),
                                      "squad1=pinned,hs1=broken": F(15, 36)}
    assert dist.marginal("pinned") == {0: F(21, 36), 1: F(15, 36)}


def test_no_effect() -> None:
    assert states("-", "squad:7,hs:6:broken") == {"squad1=ok,hs1=broken": F(1)}


def test_at_the_table() -> None:
    # NMC: the leader rolls 3+3 = 6 <= 8, passes; the squad rolls 4+4 = 8, -1 = 7 <= 7
    r = warroom.roll("asl.ift_on_stack", {"result": "NMC", "units": "squad:7,leader:8:-1"},
                     dice=[3, 3, 4, 4])
    assert r.outcome == {"units": "squad1=ok,leader1=ok", "eliminated": 0, "broken": 0,
                         "pinned": 0}
    # K/2 on three units: the die 2 picks hs1; it is eliminated; squad1 checks at +2
    # (6+1 = 7, +2 = 9 > 7: broken), squad2 checks at +2 (1+1 = 2, +2 = 4: passes)
    r = warroom.roll("asl.ift_on_stack", {"result": "K/2", "units": "squad:7,hs:6,squad:7"},
                     dice=[2, 6, 1, 1, 1])
    assert r.outcome["units"] == "squad1=broken,hs1=eliminated,squad2=ok"


def test_four_units_stay_tractable() -> None:
    dist = warroom.odds("asl.ift_on_stack", result="NMC",
                        units="squad:7,squad:7,hs:6,leader:8:-1")
    assert dist.total() == 1


def test_six_units_with_leaders_have_exact_odds() -> None:
    # the checks run unit by unit through Dice.iterate, so stacks that reached the same
    # state carry on as one: six units with two leaders (before: over 200,000 replays)
    units = "squad:7:3,leader:8:-1:elr=3,hs:6:2:broken,squad:6,leader:9:-2,hs:5"
    dist = warroom.odds("asl.ift_on_stack", result="NMC", units=units)
    assert dist.total() == 1
    # the best leader (9-2) checks first; when he and everyone else pass, nothing
    # changes: his own MC passes on 2-10 (33/36)
    ok = "squad1=ok,leader1=ok,hs1=broken,squad2=ok,leader2=ok,hs2=ok"
    assert 0 < dist.probability(units=ok) < F(33, 36)


def test_stack_odds_are_every_typed_roll_counted() -> None:
    # the checks merged round by round (Dice.iterate) against the roll driver: every
    # sequence of dice a player could type in, each weighing 6**-k
    params = {"units": "leader:8:-1,hs:6", "result": "NMC"}
    d = warroom.odds("asl.ift_on_stack", **params)
    assert replay_oracle("asl.ift_on_stack", params) == {
        k: F(w, d.denominator) for k, w in d.weights.items()}


def test_a_unit_eliminated_by_a_leader_loss_mc_takes_no_check() -> None:
    # NMC on a broken 9-1 (leader:8:-1) and a half-squad. He is not in good order, so
    # he leads nobody and checks in turn: an original 12 eliminates a broken leader;
    # the half-squad's LLMC at +1: an original 12 breaks and reduces it (eliminated).
    # Its own NMC is then not rolled: four dice in all.
    r = warroom.roll("asl.ift_on_stack", {"result": "NMC", "units": "leader:8:-1:broken,hs:6"},
                     dice=[6, 6, 6, 6])
    assert r.outcome["units"] == "leader1=eliminated,hs1=eliminated"
    assert "hs1 is already eliminated: no check" in r.steps[-1].text.render()


@pytest.mark.parametrize("units", [
    "", "tank:7", "squad", "squad:11", "squad:seven", "squad:7:9", "hs:6:wounded",
    "leader:8:-5", "squad:7:3:routed", ",".join(["hs:6"] * 7),
])
def test_bad_units(units: str) -> None:
    with pytest.raises(UsageError):
        warroom.odds("asl.ift_on_stack", result="NMC", units=units)


def test_leaders_are_not_replaced_by_elr() -> None:
    # a leader with ELR 0 failing (9-11: 9 ways) only breaks; 12 also wounds/kills him
    dist = states("NMC", "leader:8:-1:elr=0")
    assert dist == {"leader1=ok": F(26, 36), "leader1=broken": F(9, 36),
                    "leader1=wounded+broken": F(1, 36) * F(2, 3),
                    "leader1=eliminated": F(1, 36) * F(1, 3)}
    r = warroom.roll("asl.ift_on_stack", {"result": "NMC", "units": "leader:8:-1:elr=0"},
                     dice=[5, 5])
    assert any("ELR replacement does not apply" in s.text.render() for s in r.steps)


def test_leader_loss_mc_when_the_k_casualty_kills_him() -> None:
    # K/1 on a 9-2 (leader:8:-2) and a squad. Only if the leader is picked (1/2) can the
    # squad stay unreduced; he dies on a wound dr of 5-6 (1/3); the squad then takes
    # the LLMC at +2 (passes on 2-5: 10 of 36) and its MC at +1 with no leader (passes
    # on 2-6: 15 of 36)
    dist = states("K/1", "leader:8:-2,squad:7")
    assert dist["leader1=eliminated,squad1=ok"] == F(1, 2) * F(1, 3) * F(10, 36) * F(15, 36)
    r = warroom.roll("asl.ift_on_stack", {"result": "K/1", "units": "leader:8:-2,squad:7"},
                     dice=[1, 6, 2, 2, 3, 3])
    assert r.outcome["units"] == "leader1=eliminated,squad1=ok"
    assert any(s.rule == "asl.llmc" for s in r.steps)


def test_a_wounded_k_casualty_leader_still_leads() -> None:
    # K/1 on a 9-2 (leader:8:-2) and a squad: the leader is picked (1/2) and wounded
    # (dr 1-4: 2/3); he takes no MC but his -2 helps the squad's MC at +1: net -1,
    # passes on totals 2-8 (26 of 36)
    dist = states("K/1", "leader:8:-2,squad:7")
    assert dist["leader1=wounded,squad1=ok"] == F(1, 2) * F(2, 3) * F(26, 36)
