"""fow.shoot_mixed: allocation rules 5-7 worked by hand, exact odds worked by hand, the
same answer as fow.shoot where the two overlap, the story of a roll, and bad input."""

from __future__ import annotations

import itertools
from fractions import Fraction as F

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.games.fow.helpers_fow import prob
from tests.helpers import replay_oracle

import warroom
from warroom.cli import main
from warroom.errors import ExactTooLargeError, UsageError
from warroom.games.fow.mixed import allocate, parse_teams, parse_weapons

AT_GUN, MG = "10:3", "2:6"  # AT 10 firepower 3+; AT 2 firepower 6+


def plan(hits: tuple[int, ...], weapons: str, teams: str, priority: str = "none",
         moved: bool = False) -> tuple[tuple[int, ...], ...]:
    return allocate(hits, parse_weapons(weapons), parse_teams(teams), priority, moved)


# ------------------------------------------------------------------ who takes which hit
def test_tanks_take_the_anti_tank_hits_and_the_rest_go_first_to_others() -> None:
    # 7 hits on 3 teams: 2 each, the extra one to the unarmoured vehicle (rule 7: before
    # armour); the two tanks take the four AT 10 hits, the vehicle the three MG hits
    assert plan((4, 3), f"6:{AT_GUN},4:{MG}", "tank:6,tank:5/3,soft") == (
        (0, 0), (0, 0), (1, 1, 1))


def test_every_weapon_is_spread_evenly() -> None:
    # rule 5: two gun hits and two MG hits on two infantry teams -> one of each
    assert plan((2, 2), f"2:{AT_GUN},2:{MG}", "infantry,infantry") == ((0, 1), (0, 1))


def test_gone_to_ground_last_and_far_after_near() -> None:
    # rules 2 and 4: two hits go to the near ready team, then the far ready team
    assert plan((2,), f"2:{MG}", "infantry:gtg,infantry,infantry:far") == ((), (0,), (0,))
    # bogged or bailed out after gone to ground (rule 3)
    assert plan((2,), f"2:{MG}", "tank:3:out,infantry:gtg,infantry") == ((), (0,), (0,))


def test_weaker_armour_takes_the_lower_anti_tank_hits() -> None:
    # rule 7: two AT 12 and two AT 8 hits on armour 6 and 3: the stronger takes the AT 12
    assert plan((2, 2), "2:12:2,2:8:3", "tank:3,tank:6") == ((1, 1), (0, 0))
    # the remainder goes to the weaker armour first; hull/turret counts its weaker value
    assert plan((1,), "1:8:3", "tank:6,tank:6/2") == ((), (0,))


def test_priority_type_first_and_with_the_best_firepower() -> None:
    # rule 6: one hit, gun declared: the gun takes it though the infantry is listed first
    assert plan((1, 0), f"1:{MG},1:7:3", "infantry,gun", "gun") == ((), (0,))
    # two hits, infantry declared: it takes the firepower 3+ hit, the gun the MG
    assert plan((1, 1), f"1:{MG},1:7:3", "infantry,gun", "infantry") == ((1,), (0,))
    assert plan((1, 1), f"1:{MG},1:7:3", "infantry,gun") == ((0,), (1,))


def test_each_weapon_declares_its_own_priority() -> None:
    # rule 6, a declaration per shooting team: one hit each from a gun declaring the
    # gun and an MG declaring the infantry, at infantry listed before the gun: each
    # goes to the type its weapon declared (undeclared, the infantry takes the MG hit
    # first by the order of weapons, as above)
    assert plan((1, 1), f"1:{MG}:infantry,1:7:3:gun", "infantry,gun") == ((0,), (1,))
    assert plan((1, 1), f"1:{MG}:gun,1:7:3:infantry", "infantry,gun") == ((1,), (0,))
    # a weapon's own type wins over the platoon's priority=
    assert plan((1, 1), f"1:{MG},1:7:3:gun", "infantry,gun", "infantry") == ((0,), (1,))
    # one hit, declared by the weapon: the extra goes to that type though listed last
    assert plan((1,), f"1:{MG}:gun", "infantry,soft,gun") == ((), (), (0,))
    # the same declaration written once for the platoon allocates alike
    for hits in ((2, 1), (1, 2), (3, 3)):
        assert plan(hits, f"3:{MG}:gun,3:7:3:gun", "infantry,gun,gun") == plan(
            hits, f"3:{MG},3:7:3", "infantry,gun,gun", "gun")


# ------------------------------------------------------------------------- exact odds
def test_one_hit_on_a_tank() -> None:
    # trained: 3+ to hit (2/3). Armour 6 against AT 10: 5-6 beat it (1/3), 4 equals it
    # (1/6: firepower 3+ bails, 2/3), 1-3 fall below (1/2: firepower 3+ destroys, else
    # bails). destroyed 2/3 * 1/2 * 2/3 = 2/9; bailed 2/3 * (1/6 * 2/3 + 1/2 * 1/3) = 5/27
    raw = {"weapons": f"1:{AT_GUN}", "teams": "tank:6"}
    assert prob("fow.shoot_mixed", {"destroyed": 1}, **raw) == F(2, 9)
    assert prob("fow.shoot_mixed", {"bailed_out": 1}, **raw) == F(5, 27)


def test_hull_or_turret_roll() -> None:
    # as above, but a hit rolls 4+ for the turret (1/2) with armour 2: 2 + 6 < 10 always,
    # so firepower 3+ destroys (2/3), else bails (1/3). destroyed 2/3 * (1/2 * 1/3 +
    # 1/2 * 2/3) = 1/3; bailed 2/3 * (1/2 * 5/18 + 1/2 * 1/3) = 11/54
    raw = {"weapons": f"1:{AT_GUN}", "teams": "tank:6/2"}
    assert prob("fow.shoot_mixed", {"destroyed": 1}, **raw) == F(1, 3)
    assert prob("fow.shoot_mixed", {"bailed_out": 1}, **raw) == F(11, 54)


def test_a_gun_and_a_machine_gun_at_a_tank_and_infantry() -> None:
    # each die hits on 3+ (2/3). Both hit (4/9): the tank takes the AT 10 hit (destroyed
    # 1/3, bailed 5/18, unharmed 7/18), the infantry the MG hit (save 3+: destroyed 1/3).
    # One hit (4/9 in all): the infantry takes it, whichever it is (before the tank).
    d = warroom.odds("fow.shoot_mixed", weapons=f"1:{AT_GUN},1:{MG}", teams="tank:6,infantry")
    got = {(o["hits"], o["destroyed"], o["bailed_out"]): p for o, p in d.items()}
    assert got == {
        (2, 2, 0): F(4, 9) * F(1, 3) * F(1, 3),
        (2, 1, 1): F(4, 9) * F(5, 18) * F(1, 3),
        (2, 1, 0): F(4, 9) * (F(1, 3) * F(2, 3) + F(7, 18) * F(1, 3)),
        (2, 0, 1): F(4, 9) * F(5, 18) * F(2, 3),
        (2, 0, 0): F(4, 9) * F(7, 18) * F(2, 3),
        (1, 1, 0): F(4, 9) * F(1, 3),
        (1, 0, 0): F(4, 9) * F(2, 3),
        (0, 0, 0): F(1, 9),
    }


def test_priority_changes_who_takes_the_firepower() -> None:
    # both dug in, both dice hit (4/9). Infantry declared: it takes the firepower 3+ hit
    # (destroyed 1/3 * 2/3 = 2/9), the gun the MG (save 5+ fails 2/3, firepower 6+:
    # 1/9): nobody destroyed 7/9 * 8/9. Undeclared: infantry MG 1/3 * 1/6 = 1/18, gun
    # firepower 3+ 2/3 * 2/3 = 4/9: nobody destroyed 17/18 * 5/9.
    raw = {"weapons": f"1:{MG},1:7:3", "teams": "infantry:dug,gun:dug"}
    where = {"hits": 2, "destroyed": 0}
    assert prob("fow.shoot_mixed", where, priority="infantry", **raw) == \
        F(4, 9) * F(7, 9) * F(8, 9)
    assert prob("fow.shoot_mixed", where, **raw) == F(4, 9) * F(17, 18) * F(5, 9)
    # the same declarations made per weapon: the MG's team declares the gun, so the gun
    # takes the MG hit and the infantry the firepower 3+ one, as "infantry declared"
    assert prob("fow.shoot_mixed", where, weapons=f"1:{MG}:gun,1:7:3",
                teams="infantry:dug,gun:dug") == F(4, 9) * F(7, 9) * F(8, 9)
    assert prob("fow.shoot_mixed", where, weapons=f"1:{MG},1:7:3:infantry",
                teams="infantry:dug,gun:dug") == F(4, 9) * F(7, 9) * F(8, 9)


def test_gun_tank_declared() -> None:
    # rule 8. Two dice at 3+ with AT 10 firepower 1+ at a tank of armour 0 (any hit it
    # takes destroys it) and one of armour 15 (any hit it takes does nothing). A die
    # destroys the first when it hits and its hit goes there: undeclared, weaker armour
    # takes the first hit, so destroyed 1 - (1/3)^2 = 8/9. With the armour-0 tank
    # declared (gt), a hit goes there on 5+ (1/3), else to the other: a die does it with
    # 2/3 * 1/3 = 2/9, so 1 - (7/9)^2 = 32/81. With the armour-15 tank declared, a hit
    # goes to the armour-0 tank on 1-4: 2/3 * 2/3 = 4/9 per die, 1 - (5/9)^2 = 56/81.
    odds = {teams: prob("fow.shoot_mixed", {"destroyed": 1}, weapons="2:10:1", teams=teams)
            for teams in ("tank:0,tank:15", "tank:0:gt,tank:15", "tank:0,tank:15:gt",
                          "tank:0:gt,tank:15:gt")}
    assert odds == {"tank:0,tank:15": F(8, 9), "tank:0:gt,tank:15": F(32, 81),
                    "tank:0,tank:15:gt": F(56, 81),
                    # every team of the declared type: no rolls, as undeclared
                    "tank:0:gt,tank:15:gt": F(8, 9)}
    # one hit (4/9): destroyed on a 5+ (1/3): 4/27; two hits (4/9): unless both miss the
    # 5+ (4/9): 20/81
    d = warroom.odds("fow.shoot_mixed", weapons="2:10:1", teams="tank:0:gt,tank:15")
    got = {(o["hits"], o["destroyed"]): p for o, p in d.items()}
    assert got == {(0, 0): F(1, 9), (1, 1): F(4, 27), (1, 0): F(8, 27), (2, 1): F(20, 81),
                   (2, 0): F(16, 81)}


def test_gun_tank_hits_go_to_the_gun_tanks_and_the_rest_to_the_others(
        capsys: pytest.CaptureFixture[str]) -> None:
    # to hit 3+: 5, 6, 4 -> 3 hits; gun-tank rolls 5, 1, 6 -> two go to the gun tanks
    # (one each), one to the vehicle. The two tanks, hit alike, roll together, each
    # named: armour 6, 6 (0 + 6 < 10), firepower 6, 6; the vehicle's save 1 fails
    code = main(["roll", "fow.shoot_mixed", "weapons=3:10:1",
                 "teams=tank:0:gt,soft,tank:0:gt", "--dice", "5,6,4,5,1,6,6,6,6,6,1"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "gun-tank rolls for AT 10 firepower 1+: 3 dice needing 5+" in out
    for team in ("tank 1", "unarmoured vehicle 1", "tank 2"):
        assert f"{team} is hit: 1 × (AT 10, firepower 1+)" in out
    # armour 0 + 6 cannot beat AT 10: the story says the tank cannot save (issue 32)
    for team in ("tank 1", "tank 2"):
        assert (f"armour save: armour 0 cannot beat AT 10, no save possible ({team}): "
                "one die") in out
    assert "hits = 3" in out and "destroyed = 3" in out


def test_bunker_buster_that_moved_allocation() -> None:
    # rule 9: its hits never go to a vehicle in good order; the other hits even out
    assert plan((3,), "3:6:1:bb", "tank:3,infantry,soft", moved=True) == ((), (0, 0, 0), ())
    # two BB hits to the infantry, then the MG hit to the team with fewest, the vehicle
    # before the tank (rule 7)
    assert plan((2, 1), f"2:6:1:bb,1:{MG}", "tank:3,infantry,soft", moved=True) == (
        (), (0, 0), (1,))
    # a bailed-out tank may take them
    assert plan((2,), "2:6:1:bb", "tank:3,tank:2:out", moved=True) == ((), (0, 0))
    # no team it may hit: the hits go nowhere
    assert plan((2,), "2:6:1:bb", "tank:3,soft", moved=True) == ((), ())
    # one BB hit on the infantry, then four MG hits level the count: 3 and 2
    assert plan((1, 4), f"1:6:1:bb,4:{MG}", "tank:3,infantry", moved=True) == (
        (1, 1), (0, 1, 1))
    # a bunker buster that stayed still is allocated like any weapon
    assert plan((3,), "3:6:1:bb", "tank:3,infantry,soft") == ((0,), (0,), (0,))


def test_bunker_buster_that_moved_odds() -> None:
    # the shooters moved; one die at 3+ (2/3) at an armour-0 tank and infantry gone to
    # ground. A plain gun: the tank (ready) takes it: 6 + 0 against AT 6 equals it (1/6:
    # firepower 1+ bails), below otherwise (5/6: destroyed), so destroyed 5/9 and bailed
    # 1/9. A bunker buster: the infantry takes it and has no save: destroyed 2/3.
    raw = {"teams": "tank:0,infantry:gtg", "moved": True}
    assert prob("fow.shoot_mixed", {"destroyed": 1}, weapons="1:6:1", **raw) == F(5, 9)
    assert prob("fow.shoot_mixed", {"bailed_out": 1}, weapons="1:6:1", **raw) == F(1, 9)
    assert prob("fow.shoot_mixed", {"destroyed": 1}, weapons="1:6:1:bb", **raw) == F(2, 3)
    assert prob("fow.shoot_mixed", {"bailed_out": 1}, weapons="1:6:1:bb", **raw) == 0
    # it did not move: the tank takes it, as the plain gun
    assert prob("fow.shoot_mixed", {"destroyed": 1}, weapons="1:6:1:bb",
                teams="tank:0,infantry:gtg") == F(5, 9)
    # only vehicles in good order: the hits are lost, yet counted for pinning
    d = warroom.odds("fow.shoot_mixed", weapons="6:6:1:bb", teams="tank:3,soft", moved=True)
    assert d.marginal("destroyed") == {0: 1}
    assert d.probability(pinned=True) == 6 * F(2, 3) ** 5 * F(1, 3) + F(2, 3) ** 6


def test_lost_bunker_buster_hits_are_told(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["roll", "fow.shoot_mixed", "weapons=2:6:1:bb", "teams=tank:3,soft",
                 "moved=true", "--dice", "4,5"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "2 hits of a bunker buster that moved have no team they may go to" in out


def test_a_declaration_too_large_for_exact_odds_is_refused_at_once() -> None:
    # three weapons of 12 dice with a gun tank declared: 91**3 splits of hits, far past
    # the exact driver's budget; refused before any replay (a roll is still fine)
    params = {"weapons": "12:10:3,12:2:6,12:7:4", "teams": "tank:6:gt,tank:5/3,soft"}
    with pytest.raises(ExactTooLargeError):
        warroom.odds("fow.shoot_mixed", **params, exact=True)
    assert warroom.roll("fow.shoot_mixed", params, seed=1).outcome["hits"] > 0
    # without the declaration the same shots have exact odds
    assert warroom.odds("fow.shoot_mixed", weapons="12:10:3,12:2:6",
                        teams="tank:6,tank:5/3,soft").total() == 1


@pytest.mark.parametrize(("mixed", "shoot"), [
    ({"weapons": "4:2:6", "teams": "infantry,infantry,infantry"},
     {"dice": 4, "teams": 3, "at": 2, "firepower": 6}),
    ({"weapons": "5:7:4", "teams": "tank:3,tank:3"},
     {"dice": 5, "teams": 2, "target": "tank", "armour": 3, "at": 7, "firepower": 4}),
    ({"weapons": "3:9:3", "teams": "tank:4:far,tank:4:far", "target_skill": "veteran"},
     {"dice": 3, "teams": 2, "target": "tank", "armour": 4, "at": 9, "firepower": 3,
      "range_cm": 50, "target_skill": "veteran"}),
    ({"weapons": "6:6:2", "teams": "gun:gtg:dug,gun:gtg:dug", "concealed": True},
     {"dice": 6, "teams": 2, "target": "gun", "gone_to_ground": True, "dug_in": True,
      "concealed": True, "at": 6, "firepower": 2}),
    ({"weapons": "4:3:5", "teams": "soft,soft,soft", "moved": True, "moving_rof1": True},
     {"dice": 4, "teams": 3, "target": "soft", "at": 3, "firepower": 5, "moved": True,
      "moving_rof1": True}),
])
def test_one_weapon_at_alike_teams_is_fow_shoot(mixed: dict[str, object],
                                                shoot: dict[str, object]) -> None:
    # the same rules by another road: one weapon at teams all alike is plain fow.shoot
    a = warroom.odds("fow.shoot_mixed", **mixed)
    b = warroom.odds("fow.shoot", **shoot)
    # fow.shoot's passenger fields, after these, are certainly 0 without passengers
    n = len(a.fields)
    assert a.fields == b.fields[:n] and all(not o[n:] or not any(o[n:]) for o in b.weights)
    assert dict(a.weights) and {o: F(w, a.denominator) for o, w in a.weights.items()} == \
        {o[:n]: F(w, b.denominator) for o, w in b.weights.items()}


# ------------------------------------------------------------------------------ story
STORY = ["roll", "fow.shoot_mixed", f"weapons=2:{AT_GUN},1:{MG}", "teams=tank:6,infantry",
         "--dice", "5,4,3,2,3,1,6"]


def test_story_of_a_mixed_shot(capsys: pytest.CaptureFixture[str]) -> None:
    # to hit 3+: the gun 5, 4 (2 hits), the MG 3 (1 hit). 3 hits on 2 teams: one each and
    # the extra to the infantry (before the tank); the tank takes an AT 10 hit, the
    # infantry the other AT 10 hit and the MG hit. Tank: armour 2 + 6 < 10, firepower 3
    # passes -> destroyed. Infantry: saves 1 (fails: destroyed) and 6.
    code = main(STORY)
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "tank 1 is hit: 1 × (AT 10, firepower 3+)" in out
    assert "infantry team 1 is hit: 1 × (AT 10, firepower 3+) 1 × (AT 2, firepower 6+)" in out
    assert "hits = 3" in out and "destroyed = 2" in out and "bailed_out = 0" in out


def test_same_dice_same_result() -> None:
    params = {"weapons": "5:11:2,4:2:6,3:7:4", "teams": "tank:5/3,tank:2,soft,infantry:gtg"}
    first = warroom.roll("fow.shoot_mixed", params, seed=5)
    again = warroom.roll("fow.shoot_mixed", params, dice=list(first.dice))
    assert again.outcome == first.outcome
    assert [s.to_dict() for s in again.steps] == [s.to_dict() for s in first.steps]


# -------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(("args", "words"), [
    (["teams=tank"], "give the tank's armour"),
    (["teams=tank:6:fast"], "unknown or repeated flag"),
    (["teams=plane"], "team kind must be tank, infantry, gun or soft"),
    (["teams=soft:dug"], "only infantry and guns can be dug in"),
    (["teams=tank:6,soft:gt"], "only tanks can be of the gun-tank type"),
    (["weapons=6:10"], "give dice:AT:firepower"),
    (["weapons=6:10:3:fast"], "then if need be bb, one priority type"),
    (["weapons=6:10:3:tank:gun"], "then if need be bb, one priority type"),
    (["weapons=6:10:3:bb:bb"], "then if need be bb, one priority type"),
    (["weapons=6:10:3:gun", "teams=tank:6,infantry"], "'gun' is not among the teams"),
    (["weapons=31:10:3"], "dice must be from 0 to 30"),
    (["weapons=" + ",".join(["1:2:6"] * 7)], "at most 6"),
    (["teams=tank:6", "priority=gun"], "is not among the teams"),
])
def test_bad_input_is_a_clean_usage_error(args: list[str], words: str,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["odds", "fow.shoot_mixed", *args])
    _, err = capsys.readouterr()
    assert code == 2
    assert words in err and "Traceback" not in err
    with pytest.raises(UsageError):
        warroom.odds("fow.shoot_mixed", **dict(a.split("=", 1) for a in args))


# ------------------------------------------------------------------ allocation properties
TEAM_SPECS = ["tank:6", "tank:3", "tank:5/2", "tank:4:gtg", "tank:2:out", "infantry",
              "infantry:gtg", "infantry:far", "gun:dug", "soft", "soft:out:far"]


KINDS = ["none", "tank", "infantry", "gun", "soft"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.sampled_from([2, 7, 10, 12]),
                          st.integers(2, 6), st.sampled_from(KINDS)), min_size=1, max_size=3),
       st.lists(st.sampled_from(TEAM_SPECS), min_size=1, max_size=8),
       st.sampled_from(KINDS))
def test_allocation_keeps_every_rule(weapons: list[tuple[int, int, int, str]],
                                     teams: list[str], priority: str) -> None:
    ws = parse_weapons(",".join(f"{n}:{at}:{fp}" + (f":{own}" if own != "none" else "")
                                for n, at, fp, own in weapons))
    ts = parse_teams(",".join(teams))
    hits = tuple(w.dice for w in ws)  # every die a hit: the most to allocate
    got = allocate(hits, ws, ts, priority)
    # every hit goes to exactly one team
    assert sorted(w for took in got for w in took) == [w for w, h in enumerate(hits)
                                                       for _ in range(h)]
    counts = [len(took) for took in got]
    # rule 1: as even as can be
    assert max(counts) - min(counts) <= 1
    # rules 2-3: a team gone to ground, bogged or bailed out never takes more than a
    # team in a better state
    status = [2 if t.out else 1 if t.gtg else 0 for t in ts]
    for i, j in itertools.permutations(range(len(ts)), 2):
        if status[i] < status[j]:
            assert counts[i] >= counts[j]
    # rules 4 and 6: in the same state, a near team before a far one, and a declared
    # priority type (a weapon's own, else the platoon's) before the rest at the same
    # distance
    declared = {own if own != "none" else priority for n, _, _, own in weapons if n}
    for i, j in itertools.permutations(range(len(ts)), 2):
        if status[i] == status[j] and ts[j].far and not ts[i].far:
            assert counts[i] >= counts[j]
        if status[i] == status[j] and ts[i].far == ts[j].far and \
                ts[i].kind in declared and ts[j].kind not in declared:
            assert counts[i] >= counts[j]
    # rule 7: tanks take the higher AT, and stronger armour the higher AT among tanks
    at = [[ws[w].at for w in took] for took in got]
    tank = [i for i, t in enumerate(ts) if t.armoured and at[i]]
    other = [i for i, t in enumerate(ts) if not t.armoured and at[i]]
    if tank and other:
        assert min(a for i in tank for a in at[i]) >= max(a for i in other for a in at[i])
    for i, j in itertools.permutations(tank, 2):
        if min(ts[i].hull, ts[i].turret) > min(ts[j].hull, ts[j].turret):
            assert min(at[i]) >= max(at[j])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.sampled_from([2, 7, 10]), st.booleans()),
                min_size=1, max_size=3),
       st.lists(st.sampled_from(TEAM_SPECS), min_size=1, max_size=8))
def test_bunker_busters_that_moved_never_hit_vehicles_in_good_order(
        weapons: list[tuple[int, int, bool]], teams: list[str]) -> None:
    ws = parse_weapons(",".join(f"{n}:{at}:3" + (":bb" if bb else "")
                                for n, at, bb in weapons))
    ts = parse_teams(",".join(teams))
    hits = tuple(w.dice for w in ws)
    got = allocate(hits, ws, ts, moved=True)
    may = any(not t.bunker_safe for t in ts)
    for w, weapon in enumerate(ws):
        placed = [i for i, took in enumerate(got) for x in took if x == w]
        # every hit is placed, but a bunker buster's only where it may go
        assert len(placed) == (hits[w] if may or not weapon.bb else 0)
        if weapon.bb:
            assert all(not ts[i].bunker_safe for i in placed)
    # the other hits still even out the count: a team gets another only when none it
    # could go to has fewer (the counts differ by at most one where a non-BB hit landed)
    counts = [len(took) for took in got]
    other = [i for i, took in enumerate(got) if any(not ws[x].bb for x in took)]
    if other:
        assert max(counts[i] for i in other) - min(counts) <= 1


# ---------------------------------------------------------------------- special rules
def test_special_rules_work_as_in_fow_shoot() -> None:
    # Schürzen: a side hit of firepower 5 on armour 6 against AT 10. Hit 2/3; below AT
    # (1/2) -> the 4+ Schürzen save fails 1/2 -> firepower 5+ destroys 1/3: 1/18. Without
    # it (or from the front, or at firepower 3+ where it does not apply) as fow.shoot.
    raw = {"weapons": "1:10:5", "teams": "tank:6", "aspect": "side"}
    assert prob("fow.shoot_mixed", {"destroyed": 1}, target_rules="schurzen", **raw) == \
        F(1, 18)
    assert prob("fow.shoot_mixed", {"destroyed": 1}, **raw) == F(1, 9)
    assert prob("fow.shoot_mixed", {"destroyed": 1}, target_rules="schurzen",
                weapons="1:10:5", teams="tank:6") == F(1, 9)
    assert prob("fow.shoot_mixed", {"destroyed": 1}, target_rules="schurzen",
                weapons="1:10:3", teams="tank:6", aspect="side") == F(2, 9)
    # Every Shot Counts!: misses re-rolled, a die hits at 3+ with 2/3 + 1/3 * 2/3 = 8/9
    assert prob("fow.shoot_mixed", {"hits": 1}, weapons="1:2:6", teams="infantry",
                rules="every_shot_counts") == F(8, 9)
    # Quality of Quantity: 10 hits to pin; six dice at 3+ reach 5 hits with
    # 6 (2/3)^5 (1/3) + (2/3)^6 = 256/729, but never 10
    raw = {"weapons": "6:2:6", "teams": "infantry,infantry"}
    assert prob("fow.shoot_mixed", {"pinned": True}, **raw) == F(256, 729)
    assert prob("fow.shoot_mixed", {"pinned": True}, target_rules="quality_of_quantity",
                **raw) == 0


@pytest.mark.parametrize("params", [
    {"weapons": "1:10:3", "teams": "tank:6/2"},
    # about 112,000 rolls replayed: among the first in `make test` (tests/conftest.py)
    pytest.param({"weapons": "2:10:3", "teams": "tank:6:gt,infantry"}, marks=pytest.mark.slow),
    {"weapons": "1:10:3,1:2:6", "teams": "tank:6,infantry"},
])
def test_exact_odds_are_every_typed_roll_counted(params: dict[str, str]) -> None:
    # the exact driver against the roll driver: every sequence of dice a player could
    # type in, each weighing 6**-k
    d = warroom.odds("fow.shoot_mixed", **params)
    assert replay_oracle("fow.shoot_mixed", params) == {
        k: F(w, d.denominator) for k, w in d.weights.items()}


# ------------------------------------------- issue 20: each shooter its own to-hit number
def test_each_weapon_rolls_to_hit_with_its_own_modifiers() -> None:
    # Six trained infantry teams; two weapons of 4 dice, the second firing over 40 cm
    # (:far, +1 to hit). First weapon 3+ (2/3): hits X ~ Bin(4, 2/3) = 1, 8, 24, 32, 16
    # over 81 for 0..4; second 4+ (1/2): Y ~ Bin(4, 1/2) = 1, 4, 6, 4, 1 over 16.
    # Pinned on X + Y >= 5: sum over x of P(X = x) P(Y >= 5 - x)
    # = (8 * 1 + 24 * 5 + 32 * 11 + 16 * 15) / (81 * 16) = 720 / 1296 = 5/9
    six = ",".join(["infantry"] * 6)
    assert prob("fow.shoot_mixed", {"pinned": True}, weapons="4:2:6,4:2:6:far",
                teams=six) == F(5, 9)
    # both at 3+ it is P(Bin(8, 2/3) >= 5) = (56*32 + 28*64 + 8*128 + 256) / 6561
    # = 4864/6561
    assert prob("fow.shoot_mixed", {"pinned": True}, weapons="4:2:6,4:2:6",
                teams=six) == F(4864, 6561)


def test_a_weapons_own_flags_and_rules() -> None:
    one = "infantry"
    # :rof1 (moved with ROF 1) and :pinned (ROF 1, pinned): +1 each way, once: 4+ (1/2)
    for flags in (":rof1", ":pinned", ":rof1:pinned"):
        assert prob("fow.shoot_mixed", {"hits": 1}, weapons="1:2:6" + flags,
                    teams=one) == F(1, 2)
    # its own Automatic Rifles: no +1 (3+, 2/3), the other weapon still 4+ (1/2):
    # both hit with 2/3 * 1/2 = 1/3
    assert prob("fow.shoot_mixed", {"hits": 2}, weapons="1:2:6:pinned:automatic_rifles,"
                "1:2:6:pinned", teams="infantry,infantry") == F(1, 3)
    # its own Volley Fire (stationary, within 40 cm): misses re-rolled, 1 - (1/3)^2 = 8/9
    assert prob("fow.shoot_mixed", {"hits": 1}, weapons="1:10:3:volley_fire",
                teams=one) == F(8, 9)
    # a far weapon's hits meet a tank's armour + 1: armour 2 + 1 against AT 3 beats it
    # on a die above 0 -> never below AT; equal needs die = 0: the tank is safe
    assert prob("fow.shoot_mixed", {"destroyed": 0, "bailed_out": 0},
                weapons="1:3:1:far", teams="tank:2") == 1
    with pytest.raises(UsageError):
        warroom.odds("fow.shoot_mixed", weapons="1:2:6:sideways", teams=one)


def test_hits_before_pins_on_the_step_total() -> None:
    # hits_before=3 and one weapon of 2 dice at 3+: pinned on 2 hits, (2/3)^2 = 4/9
    assert prob("fow.shoot_mixed", {"pinned": True}, weapons="2:2:6",
                teams="infantry,infantry", hits_before=3) == F(4, 9)


# ------------------------------------------------------------------ how exact odds are worked
LARGEST = {"weapons": "12:10:3,12:2:6,12:7:4",
           "teams": "tank:6,tank:5/3,soft,infantry,infantry:gtg,gun:dug,tank:2/1:far,soft:out"}


@pytest.mark.parametrize("params", [
    {"weapons": "6:10:3,6:2:6,4:7:4", "teams": LARGEST["teams"]},
    {"weapons": "3:6:1:bb,4:2:6,3:7:4", "teams": "tank:2/1,infantry:dug,infantry:gtg:far,soft",
     "moved": True},
    {"weapons": "3:10:3,3:2:6", "teams": "tank:6:gt,tank:5/3,infantry,soft"},
])
def test_the_teams_rolls_as_one_tally_are_each_group_after_group(
        params: dict[str, object], monkeypatch: pytest.MonkeyPatch) -> None:
    """The teams' rolls asked together (Dice.tally, worked out per multiset of groups)
    give the same fractions as the same groups asked one after another with each (the
    definition of a tally; the base class's implementation)."""
    from warroom.engine.context import Dice
    from warroom.engine.exact import ExactDice

    def fractions() -> list[tuple[str, F]]:
        return sorted((repr(o), p) for o, p in warroom.odds("fow.shoot_mixed", **params).items())

    fast = fractions()
    monkeypatch.setattr(ExactDice, "tally", Dice.tally)
    assert fractions() == fast


def test_the_largest_row_works_its_states_out_once_per_multiset_of_groups(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """3 weapons of 12 dice at 8 teams: 13**3 = 2,197 counts of each weapon's hits, each
    allocated and rolled as one tally; alike tallies share their work: fewer joint
    distributions than counts, and fewer mappings of outcomes (each added in once for
    every state reaching it) than counts, and fewer plans of the groups (their
    multiset and plain counts, worked out once per distinct groups) than counts."""
    from warroom.engine import exact, tally

    for memo in (exact.EVAL_MEMO, tally._JOINTS, tally._PREFIXES, tally._MADE,
                 tally._PLANS):
        memo.clear()
    joints: list[object] = []
    joint = tally._joint

    def counted(labels: object, groups: object) -> object:
        joints.append(groups)
        return joint(labels, groups)  # type: ignore[arg-type]

    monkeypatch.setattr(tally, "_joint", counted)
    assert warroom.odds("fow.shoot_mixed", **LARGEST).total() == 1
    assert len(joints) == len(set(joints)) < 600
    assert len(tally._MADE) < 700
    assert len(tally._PLANS) < 700  # 634 distinct groups for 2,197 counts
