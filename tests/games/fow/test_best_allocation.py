"""fow.shoot_mixed allocation=best: the owner's best hit allocation (FoW article on
shooting: "the owner allocates the hits"), exact fractions worked by hand and a
brute-force oracle written apart from the product (every permutation of the teams, its
own dealing of the hits and its own per-hit formulas for each team's chances)."""

from __future__ import annotations

import itertools
import random
from fractions import Fraction as F

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import warroom
from warroom.errors import UsageError
from warroom.games.fow import mixed
from warroom.games.fow.mixed import Saves, Team, Weapon, allocate, parse_teams, parse_weapons


# ------------------------------------------------------------------- worked by hand
def test_the_owner_puts_a_rifle_hit_on_the_tank_not_the_infantry() -> None:
    # One rifle die (AT 2, firepower 6+) at a trained platoon of one infantry team and a
    # tank of armour 1: it hits on 3+, 2/3. The rules leave the owner the choice (rule 7
    # ranks vehicles only); our fixed order gives the hit to the infantry: it saves on 3+
    # and dies on a 1-2, 1/3, so P(one destroyed) = 2/3 * 1/3 = 2/9.
    rules = warroom.odds("fow.shoot_mixed", weapons="1:2:6", teams="infantry,tank:1")
    assert rules.marginal("destroyed") == {0: F(7, 9), 1: F(2, 9)}
    # The owner's best gives it to the tank: d6 + 1 against AT 2 beats it on 2-6; a 1
    # ties (1 + 1 = 2) and the firepower test 6+ bails it out, 1/6 * 1/6 = 1/36; it can
    # never be destroyed (never below the AT). Bailed out: 2/3 * 1/36 = 1/54.
    owner = warroom.odds("fow.shoot_mixed", weapons="1:2:6", teams="infantry,tank:1",
                         allocation="best")
    assert owner.marginal("destroyed") == {0: F(1)}
    assert owner.marginal("bailed_out") == {0: F(53, 54), 1: F(1, 54)}


def test_the_owner_gives_the_dug_in_team_the_weak_firepower() -> None:
    # Two weapons of one die each, a rifle (AT 2, firepower 6+) and a gun (AT 2,
    # firepower 1+), at an infantry team in the open and one dug in; each hits on 3+
    # (2/3). The open team dies on a failed 3+ save whatever hit it: 1/3. The dug-in
    # team dies on a failed save and a passed firepower test: rifle 1/3 * 1/6 = 1/18,
    # gun 1/3 * 1 = 1/3.
    # Both hit (4/9): the fixed order gives the open team the rifle and the dug-in one
    # the gun, 1/3 + 1/3 = 2/3 expected; the owner swaps them, 1/3 + 1/18 = 7/18.
    # Only the rifle hits (2/9): fixed, the open team (1/3); the owner, the dug-in team
    # (1/18). Only the gun hits (2/9): 1/3 on either, the fixed order kept.
    # Expected teams destroyed: fixed 2/9 * 1/3 + 2/9 * 1/3 + 4/9 * 2/3 = 12/27 = 4/9;
    # the owner's 2/9 * 1/18 + 2/9 * 1/3 + 4/9 * 7/18 = (2 + 12 + 28)/162 = 7/27.
    raw = {"weapons": "1:2:6,1:2:1", "teams": "infantry,infantry:dug"}
    assert warroom.odds("fow.shoot_mixed", **raw).mean("destroyed") == F(4, 9)
    owner = warroom.odds("fow.shoot_mixed", **raw, allocation="best")
    assert owner.mean("destroyed") == F(7, 27)
    # both destroyed: both hit, the open team's gun hit kills (1/3) and the dug-in team's
    # rifle hit kills (1/18): 4/9 * 1/3 * 1/18 = 4/486 = 2/243
    assert owner.probability(destroyed=2) == F(2, 243)
    # the plan for one hit each, as the owner makes it: gun (1) on the open team,
    # rifle (0) on the dug-in one
    ws, ts = parse_weapons(raw["weapons"]), parse_teams(raw["teams"])
    chosen = mixed.BestAllocation(mixed._allocation(ws, ts, "none", False), Saves())
    assert chosen.plan((1, 1)) == ((1,), (0,))
    assert allocate((1, 1), ws, ts) == ((0,), (1,))


def test_ties_keep_the_fixed_order_and_the_rules_still_bind() -> None:
    # two alike infantry teams and one hit: the same loss either way, the fixed order's
    # plan is kept (the first team)
    ws, ts = parse_weapons("1:2:6"), parse_teams("infantry,infantry")
    chosen = mixed.BestAllocation(mixed._allocation(ws, ts, "none", False), Saves())
    assert chosen.plan((1,)) == ((0,), ())
    # rule 2: a team gone to ground takes hits only after the others, even where it
    # would lose less: the one hit goes to the tank in the open, never to the dug-in,
    # gone-to-ground infantry
    ws, ts = parse_weapons("1:10:1"), parse_teams("tank:1,infantry:gtg:dug")
    chosen = mixed.BestAllocation(mixed._allocation(ws, ts, "none", False), Saves())
    assert chosen.plan((1,)) == ((0,), ())
    # rule 7: between vehicles the unarmoured one takes the extra hit first, even when
    # the tank would shrug it off
    ws, ts = parse_weapons("1:2:6"), parse_teams("tank:3,soft")
    chosen = mixed.BestAllocation(mixed._allocation(ws, ts, "none", False), Saves())
    assert chosen.plan((1,)) == ((), (0,))


def test_roll_entered_dice_and_monte_carlo_take_the_owners_plan() -> None:
    raw = {"weapons": "1:2:6", "teams": "infantry,tank:1", "allocation": "best"}
    # entered dice: the hit (4), the tank's armour die (1: equal), firepower 6: bailed
    res = warroom.roll("fow.shoot_mixed", raw, dice=[4, 1, 6])
    assert (res.outcome["hits"], res.outcome["destroyed"], res.outcome["bailed_out"]) == (
        1, 0, 1)
    assert any("tank 1 is hit" in str(s.to_dict()["text"]) for s in res.steps)
    seeded = warroom.roll("fow.shoot_mixed", raw, seed=11)
    assert seeded.outcome == warroom.roll("fow.shoot_mixed", raw, seed=11).outcome
    est = warroom.simulate("fow.shoot_mixed", raw | {"weapons": "1:2:6,1:2:1",
                                                     "teams": "infantry,infantry:dug"},
                           samples=20_000, seed=5)
    low, high = est.interval(destroyed=0)
    exact = warroom.odds("fow.shoot_mixed", weapons="1:2:6,1:2:1",
                         teams="infantry,infantry:dug", allocation="best")
    assert low <= float(exact.probability(destroyed=0)) <= high


def test_refused_where_it_cannot_weigh_the_orders() -> None:
    with pytest.raises(UsageError, match="bunker buster"):
        warroom.odds("fow.shoot_mixed", weapons="2:6:1:bb", teams="infantry,tank:1",
                     moved=True, allocation="best")
    with pytest.raises(UsageError, match="orders"):
        warroom.odds("fow.shoot_mixed", weapons="2:2:6",
                     teams=",".join(["infantry", "infantry:dug", "gun", "soft", "tank:1",
                                     "tank:2", "tank:3", "gun:shield"]),
                     allocation="best")


# ------------------------------------------------------------- the brute-force oracle
def oracle_hit(team: Team, w: Weapon, armour: int) -> tuple[F, F]:
    """One hit's chances on one team: (destroyed, bailed out), by the article's words."""
    sixth = F(1, 6)
    fp = F(7 - w.firepower, 6)  # a firepower test passes on firepower+
    if team.kind == "tank":
        armour += 1 if (team.far or w.far) else 0
        below = sum((sixth for f in range(1, 7) if f + armour < w.at), F(0))
        equal = sum((sixth for f in range(1, 7) if f + armour == w.at), F(0))
        return below * fp, below * (1 - fp) + equal * fp
    if team.kind == "infantry":
        fail = F(1) if w.bb else F(1, 3)
        return (fail * fp if team.dug else fail), F(0)
    if team.kind == "gun":
        fail = F(1, 3) if team.gtg else F(2, 3)
        return (fail * fp if (team.dug or team.shield) else fail), F(0)
    return (fp if team.shield else F(2, 3)), F(0)  # unarmoured: 5+, or FP with a shield


def oracle_loss(team: Team, weapons: tuple[Weapon, ...], took: list[int]) -> tuple[F, F]:
    """A team's expected (destroyed, bailed out): it keeps its worst result."""
    alive, unharmed = F(1), F(1)
    for w in took:
        if team.kind == "tank" and team.hull != team.turret:  # 4+ for the turret
            d1, b1 = oracle_hit(team, weapons[w], team.hull)
            d2, b2 = oracle_hit(team, weapons[w], team.turret)
            d, b = (d1 + d2) / 2, (b1 + b2) / 2
        else:
            d, b = oracle_hit(team, weapons[w], team.hull)
        alive *= 1 - d
        unharmed *= 1 - d - b
    return 1 - alive, alive - unharmed


def oracle_plan(order: list[int], hits: tuple[int, ...], weapons: tuple[Weapon, ...],
                teams: tuple[Team, ...]) -> list[list[int]]:
    """The article's dealing for the teams in ``order``: each team an equal share, the
    rest one each in order; tanks, strongest armour first, take the highest AT, the
    others take what is left, every group a hit at a time round its teams."""
    n, total = len(teams), sum(hits)
    slots = [total // n] * n
    for i in order[:total % n]:
        slots[i] += 1
    pool = sorted((w for w, h in enumerate(hits) for _ in range(h)),
                  key=lambda w: (-weapons[w].at, weapons[w].firepower, w))
    rest = sorted(w for w, h in enumerate(hits) for _ in range(h))
    taken: list[list[int]] = [[] for _ in teams]
    armours = sorted({min(t.hull, t.turret) for t in teams if t.kind == "tank"},
                     reverse=True)
    groups = [[i for i in order if teams[i].kind == "tank"
               and min(teams[i].hull, teams[i].turret) == a] for a in armours]
    groups.append([i for i in order if teams[i].kind != "tank"])
    for g, members in enumerate(groups):
        wanted = sum(slots[i] for i in members)
        source = pool if g < len(armours) else rest
        chosen = source[:wanted]
        for w in chosen:
            (pool if source is rest else rest).remove(w)
        del source[:wanted]
        room = [slots[i] for i in members]
        j = 0
        while j < len(chosen):
            for k, i in enumerate(members):
                if room[k] and j < len(chosen):
                    taken[i].append(chosen[j])
                    room[k] -= 1
                    j += 1
    return taken


def allowed(order: list[int], teams: tuple[Team, ...]) -> bool:
    """Rules 2-4 keep their rank; rule 7 orders vehicles of one rank."""
    def key(t: Team) -> tuple[int, bool]:
        return (2 if t.out else 1 if t.gtg else 0, t.far)

    for a, b in itertools.pairwise(order):
        if key(teams[a]) > key(teams[b]):
            return False
    vehicles = [i for i in order if teams[i].kind in ("tank", "soft")]
    for a, b in itertools.combinations(vehicles, 2):
        ta, tb = teams[a], teams[b]
        va = (ta.kind == "tank", min(ta.hull, ta.turret) if ta.kind == "tank" else 0)
        vb = (tb.kind == "tank", min(tb.hull, tb.turret) if tb.kind == "tank" else 0)
        if key(ta) == key(tb) and va > vb:
            return False
    return True


def oracle_best(hits: tuple[int, ...], weapons: tuple[Weapon, ...],
                teams: tuple[Team, ...]) -> tuple[F, F]:
    least = None
    for order in itertools.permutations(range(len(teams))):
        if not allowed(list(order), teams):
            continue
        plan = oracle_plan(list(order), hits, weapons, teams)
        loss = [oracle_loss(t, weapons, took) for t, took in zip(teams, plan, strict=True)]
        total = (sum((x for x, _ in loss), F(0)), sum((y for _, y in loss), F(0)))
        least = total if least is None or total < least else least
    assert least is not None
    return least


def random_teams(rng: random.Random) -> str:
    out = []
    for _ in range(rng.randint(1, 4)):
        kind = rng.choice(("tank", "infantry", "gun", "soft"))
        fields = [kind]
        if kind == "tank":
            hull = rng.randint(0, 4)
            fields.append(f"{hull}/{rng.randint(0, 4)}" if rng.random() < 0.3 else str(hull))
        for flag, ok in (("gtg", True), ("far", True), ("out", kind == "tank"),
                         ("dug", kind in ("infantry", "gun")),
                         ("shield", kind in ("gun", "soft"))):
            if ok and rng.random() < 0.25:
                fields.append(flag)
        out.append(":".join(fields))
    return ",".join(out)


def test_the_best_plan_matches_a_brute_force_over_every_permutation() -> None:
    rng = random.Random(20261128)
    for _ in range(120):
        ts = parse_teams(random_teams(rng))
        ws = parse_weapons(",".join(
            f"{rng.randint(1, 3)}:{rng.choice((1, 2, 3, 5, 7))}:{rng.randint(1, 6)}"
            + (":bb" if rng.random() < 0.15 else "") + (":far" if rng.random() < 0.15
                                                         else "")
            for _ in range(rng.randint(1, 3))))
        chosen = mixed.BestAllocation(mixed._allocation(ws, ts, "none", False),
                                     Saves())
        for hits in itertools.product(*(range(w.dice + 1) for w in ws)):
            plan = chosen.plan(hits)
            got = mixed.plan_loss(ws, ts, plan, Saves())
            assert got == oracle_best(hits, ws, ts), (ws, ts, hits, plan)
            # never worse than the fixed order
            assert got <= mixed.plan_loss(ws, ts, allocate(hits, ws, ts), Saves())


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_the_owner_never_expects_to_lose_more_than_by_the_fixed_order(seed: int) -> None:
    # over the whole shot (to-hit rolls included), exact odds: the owner's expected
    # losses are at most the fixed order's, and the hits are the same
    rng = random.Random(seed)
    teams = random_teams(rng)
    weapons = ",".join(f"{rng.randint(1, 2)}:{rng.choice((1, 2, 5, 9))}:{rng.randint(1, 6)}"
                       for _ in range(rng.randint(1, 2)))
    rules = warroom.odds("fow.shoot_mixed", weapons=weapons, teams=teams)
    owner = warroom.odds("fow.shoot_mixed", weapons=weapons, teams=teams, allocation="best")
    assert owner.mean("destroyed") <= rules.mean("destroyed")
    assert owner.marginal("hits") == rules.marginal("hits")
    assert owner.marginal("pinned") == rules.marginal("pinned")
