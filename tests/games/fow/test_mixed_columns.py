"""fow.shoot_mixed in columns (the batched Monte Carlo driver's form of the shot: the
hits of many samples dealt at once, each team's result drawn from its weapons' exact
transitions): the allocation's arithmetic, written once for the plan and the columns,
deals as a hand-written dealer does a hit at a time, in both forms; the batched and the
sequential drivers agree in distribution; the estimates follow the exact odds; the
questions the form does not cover still sample one at a time."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.helpers import close_enough

from warroom import api
from warroom.engine import drivers
from warroom.engine.batched import simulate_batched
from warroom.errors import RuleError
from warroom.games.fow import mixed

KINDS = ["tank:6", "tank:5/3", "soft", "infantry", "infantry:gtg", "gun:dug",
         "tank:2/1:far", "soft:out", "tank:3", "gun", "infantry:far", "tank:4:far",
         "gun:shield", "infantry:dug:gtg"]
PRIORITIES = ["none", "tank", "infantry", "gun", "soft"]


@st.composite
def questions(draw: Any) -> tuple[tuple[mixed.Weapon, ...], tuple[mixed.Team, ...], str,
                                  list[list[int]]]:
    teams = mixed.parse_teams(",".join(draw(st.lists(st.sampled_from(KINDS), min_size=1,
                                                     max_size=20))))
    present = sorted({t.kind for t in teams})
    weapons = draw(st.lists(st.tuples(st.integers(0, 30), st.integers(1, 14),
                                      st.integers(1, 6),
                                      st.sampled_from(["none", *present])),
                            min_size=1, max_size=6))
    parsed = mixed.parse_weapons(",".join(
        f"{d}:{at}:{fp}" + (f":{kind}" if kind != "none" else "")
        for d, at, fp, kind in weapons))
    priority = draw(st.sampled_from(["none", *present]))
    hits = draw(st.lists(st.tuples(*(st.integers(0, w.dice) for w in parsed)),
                         min_size=1, max_size=8))
    return parsed, teams, priority, [list(h) for h in hits]


def dealt_by_hand(hits: tuple[int, ...], weapons: tuple[mixed.Weapon, ...],
                  teams: tuple[mixed.Team, ...], priority: str) -> list[list[int]]:
    """The oracle: how many hits of each weapon each team takes, dealt a hit at a time
    (no moving bunker busters). Only the order of the teams and the groups with the
    weapons each takes first are the product's (``_layout``); the shares, the taking
    and the dealing are counted here, hit by hit."""
    declares = [w.priority if w.priority != "none" else priority for w in weapons]
    declared = tuple(kind for kind in mixed.KINDS
                     if any(h and declares[w] == kind for w, h in enumerate(hits)))
    order, groups = mixed._layout(weapons, teams, priority, declared)
    room = [0] * len(teams)
    for k in range(sum(hits)):  # an equal share each, the rest one each in the order
        room[order[k % len(teams)]] += 1
    left = list(hits)
    took = [[0] * len(weapons) for _ in teams]
    for members, ranking in groups:
        pool: list[int] = []  # the group's hits: a weapon's all before the next one's
        wanted = sum(room[i] for i in members)
        for w in ranking:
            while left[w] and len(pool) < wanted:
                pool.append(w)
                left[w] -= 1
        while pool:  # a hit at a time to each member in turn that has room left
            for i in members:
                if room[i] and pool:
                    took[i][pool.pop(0)] += 1
                    room[i] -= 1
    assert not any(left)  # every hit dealt
    return took


@settings(max_examples=120, deadline=None, derandomize=True)
@given(questions())
def test_the_allocation_deals_as_a_hit_at_a_time(
        case: tuple[tuple[mixed.Weapon, ...], tuple[mixed.Team, ...], str,
                    list[list[int]]]) -> None:
    """Every team takes, of every weapon, as many hits in columns (many samples at once)
    and in the plan (one count of hits: which hits, as weapon indices, in order) as the
    hand-written dealer gives it, whatever the declared types."""
    weapons, teams, priority, hits = case
    allocation = mixed.Allocation(weapons, teams, priority, False)
    took = mixed.dealt_columns(allocation, np.array(hits))
    assert took.shape == (len(hits), len(teams), len(weapons))
    for row, got in zip(hits, took, strict=True):
        want = dealt_by_hand(tuple(row), weapons, teams, priority)
        assert got.tolist() == want, row
        plan = allocation.plan(tuple(row))
        assert plan == tuple(tuple(w for w, k in enumerate(counts) for _ in range(k))
                             for counts in want), (row, plan)


def test_the_columns_deal_a_worked_example() -> None:
    """Two weapons, 5 and 3 hits, at two infantry teams and a tank of armour 3 (the
    article's order: infantry before tanks for the extra hits; the tank takes the highest
    AT first). 8 hits over 3 teams: 2 each and 2 extra to the infantry, so 3, 3, 2. The
    tank takes 2 hits of the AT 10 weapon; the infantry the other 3 of it and the 3 of
    AT 2, dealt a hit at a time: infantry 1 the 1st, 3rd, 5th of (10, 10, 10, 2, 2, 2),
    so two of AT 10 and one of AT 2; infantry 2 one of AT 10 and two of AT 2."""
    weapons = mixed.parse_weapons("6:10:3,6:2:6")
    teams = mixed.parse_teams("infantry,infantry,tank:3")
    took = mixed.dealt_columns(mixed.Allocation(weapons, teams, "none", False),
                               np.array([[5, 3]]))
    assert took[0].tolist() == [[2, 1], [1, 2], [2, 0]]


def test_moving_bunker_busters_are_not_dealt_in_columns() -> None:
    weapons = mixed.parse_weapons("3:6:1:bb,4:2:6")
    teams = mixed.parse_teams("infantry,tank:3")
    with pytest.raises(RuleError, match="bunker busters"):
        mixed.dealt_columns(mixed.Allocation(weapons, teams, "none", True),
                            np.array([[1, 1]]))


COLUMNS = [
    {"weapons": "6:10:3,4:2:6,5:7:4",
     "teams": "tank:6,tank:5/3,soft,infantry,infantry:gtg,gun:dug"},
    {"weapons": "8:10:3,8:2:6:infantry,8:7:4", "priority": "tank",
     "teams": "infantry,infantry,tank:3,gun:shield,soft:far"},
    {"weapons": "5:12:2,7:4:5:far,3:6:1:bb", "teams": "tank:2/1:far,tank:4,infantry:gtg:far,"
     "soft:out,infantry:dug", "concealed": True},
    {"weapons": "9:3:4,9:9:2", "teams": "soft,soft,soft:shield,gun,gun:dug",
     "target_rules": "quality_of_quantity"},
]
ALONE = [  # sampled one at a time: no columnar form
    {"weapons": "4:10:3,4:2:6", "teams": "tank:6:gt,tank:3,infantry"},  # gun tanks
    {"weapons": "3:6:1:bb,4:2:6", "teams": "infantry,tank:3,soft", "moved": True},
    {"weapons": "4:10:3,3:2:6", "teams": "tank:1,soft", "passengers": "2,3"},
    {"weapons": "4:10:3,3:2:6", "teams": "tank:3,infantry,infantry", "allocation": "best"},
]


@pytest.mark.parametrize("raw", COLUMNS + ALONE)
def test_the_form_is_used_where_it_applies(raw: dict[str, Any]) -> None:
    """Where the shot has a columnar form the batched driver runs every sample in
    columns (none goes alone); elsewhere the shot has none and the samples go alone."""
    proc, params = api.prepare("fow.shoot_mixed", raw)
    assert mixed.in_columns(params) == (raw in COLUMNS)
    stage = mixed.fire_stages(params)[1]
    assert (getattr(stage, "_warroom_columns", None) is not None) == (raw in COLUMNS)
    got = simulate_batched(lambda d: proc.run(params, d), proc.fields, 2000, 7)
    assert got is not None
    counts, alone = got
    assert sum(counts.values()) == 2000
    if raw in COLUMNS:
        assert alone == 0


@pytest.mark.parametrize("raw", COLUMNS + ALONE[:2])
def test_the_estimates_follow_the_exact_odds(raw: dict[str, Any]) -> None:
    """Every field's chances of the estimate (drivers.estimate's batched run: 38,415
    samples) within 5 standard errors of the exact odds."""
    proc, params = api.prepare("fow.shoot_mixed", raw)
    exact = drivers.exact(proc, params, max_paths=10**7)
    est = drivers.estimate(proc, params)
    n = est.samples
    for i, name in enumerate(proc.fields):
        for value, p in exact.marginal(name).items():
            got = sum(c for k, c in est.counts.items() if k[i] == value) / n
            assert close_enough(got, float(p), n), (raw, name, value, got, p)


def _agree(a: dict[tuple[Any, ...], int], b: dict[tuple[Any, ...], int], n: int) -> None:
    """Two samples of ``n`` of one law: every outcome's share within 5 standard errors of
    their difference, and the chi-square of the two rows (outcomes under 40 samples in
    both pooled) under its 99.99% point (Wilson-Hilferty)."""
    big = [k for k in set(a) | set(b) if a.get(k, 0) + b.get(k, 0) >= 40]
    assert len(big) > 5
    chi2 = 0.0
    for k in [*big, None]:
        x = a.get(k, 0) if k is not None else sum(c for o, c in a.items() if o not in big)
        y = b.get(k, 0) if k is not None else sum(c for o, c in b.items() if o not in big)
        p = (x + y) / (2 * n)
        assert abs(x - y) / n <= 5 * (2 * p * (1 - p) / n) ** 0.5 + 3 / n, (k, x, y)
        if x + y:
            chi2 += (x - y) ** 2 / (x + y)
    dof = len(big)
    z = 3.719  # the normal's 99.99% point
    assert chi2 <= dof * (1 - 2 / (9 * dof) + z * (2 / (9 * dof)) ** 0.5) ** 3


@pytest.mark.parametrize("raw", [
    COLUMNS[0], COLUMNS[2],
    {"weapons": "30:10:3,30:2:6,30:7:4,30:4:5,30:12:2,30:6:3",
     "teams": ",".join(["tank:6", "tank:5/3", "soft", "infantry", "infantry:gtg",
                        "gun:dug", "tank:2/1:far", "soft:out"] * 2
                       + ["infantry", "infantry", "tank:4", "gun"])},
])
def test_batched_and_sequential_drivers_agree_in_distribution(
        raw: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """Past the exact budget too (six weapons of 30 dice at 20 teams): the batched
    driver's columns and the sequential sampler, 20,000 samples each, fixed seeds."""
    proc, params = api.prepare("fow.shoot_mixed", raw)
    n = 20_000
    got = simulate_batched(lambda d: proc.run(params, d), proc.fields, n, 5)
    assert got is not None
    monkeypatch.setattr(drivers, "BATCHED", False)
    _agree(got[0], drivers.simulate(proc, params, n, seed=5).counts, n)


def test_runs_and_chunks_of_the_columns_keep_the_law_and_the_seed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A long run in columns is taken in bounded runs (batched.COLUMN_RUN) and its forms
    get bounded chunks (batched.COLUMN_CHUNK): made small here, every sample is still
    counted, the counts follow the exact odds and the same seed gives the same counts."""
    from warroom.engine import batched

    monkeypatch.setattr(batched, "COLUMN_RUN", 1500)
    monkeypatch.setattr(batched, "COLUMN_CHUNK", 256)
    raw = COLUMNS[0]
    proc, params = api.prepare("fow.shoot_mixed", raw)
    n = 6000
    runs = [simulate_batched(lambda d: proc.run(params, d), proc.fields, n, 3)
            for _ in range(2)]
    assert runs[0] is not None and runs[1] is not None
    counts, alone = runs[0]
    assert counts == runs[1][0] and sum(counts.values()) == n and alone == 0
    exact = drivers.exact(proc, params)
    for i, name in enumerate(proc.fields):
        for value, p in exact.marginal(name).items():
            got = sum(c for k, c in counts.items() if k[i] == value) / n
            assert close_enough(got, float(p), n), (name, value, got, p)


def test_the_most_of_independent_draws_follows_their_law() -> None:
    """ColumnDice.most, which draws a team's worst result over its weapons: the larger of
    two d6 (P(at most v) = (v/6)², so P(v) = (2v - 1)/36) and, in rows mixing a d6 with a
    d3, the larger of those (P(at most v) = v/6 · min(v, 3)/3), each within 5 standard
    errors over 60,000 rows; a draw from a value whose stage rolls nothing changes
    nothing (the d6 row padded with a die of no sides left as it is)."""
    from warroom.engine import batched
    from warroom.engine.context import Dice, fixed

    def roll(sub: tuple[int, int], d: Dice) -> tuple[int, int]:
        sides, _ = sub
        return (sides, d.die(rule="t.die", what="a die", sides=sides) if sides else 0)

    fn = fixed(roll, ("t.most", "roll"))
    dice = batched.ColumnDice(batched._Run(11, 0, ()))
    subs = [(0, 0), (3, 0), (6, 0)]
    n = 60_000
    got = dice.most(fn, subs, np.array([[2, 2]] * n + [[2, 1]] * n + [[2, 0]] * n), 1)
    assert got.shape == (3 * n,)
    for part, law in ((got[:n], lambda v: (2 * v - 1) / 36),
                      (got[n:2 * n], lambda v: v / 6 * min(v, 3) / 3
                       - (v - 1) / 6 * min(v - 1, 3) / 3),
                      (got[2 * n:], lambda v: 1 / 6)):
        for v in range(1, 7):
            assert close_enough(float((part == v).mean()), law(v), n), (v, law(v))


def test_the_estimate_at_the_caps_is_the_same_on_every_run_and_core_count(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Six weapons of 30 dice at 20 teams, the full estimate (38,415 samples, all in
    columns): the same counts on a second run and with the streams kept in one process
    (the batched run is one process whatever the cores)."""
    raw = {"weapons": "30:10:3,30:2:6,30:7:4,30:4:5,30:12:2,30:6:3",
           "teams": ",".join(["infantry"] * 12 + ["tank:3"] * 4 + ["infantry:gtg"] * 4)}
    proc, params = api.prepare("fow.shoot_mixed", raw)
    first = drivers.estimate(proc, params)
    assert first.samples == drivers.samples_for() and first.seed == drivers.ESTIMATE_SEED
    assert drivers.estimate(proc, params).counts == first.counts
    monkeypatch.setattr(drivers, "FORK_STREAMS", False)
    assert drivers.estimate(proc, params).counts == first.counts
    monkeypatch.setattr(drivers, "BATCHED", False)  # the sequential sampler: another
    other = drivers.estimate(proc, params)          # stream, the same law
    assert other.counts != first.counts and other.samples == first.samples
